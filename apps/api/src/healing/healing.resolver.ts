import { Args, Context, Mutation, Query, Resolver } from '@nestjs/graphql';
import { RequirePermission } from '../auth';
import type { GraphQLContext } from '../common/graphql-context';
import { HealingService } from './healing.service';
import { HealInput, HealingPlanView, HealingRulesInput, HealingRun } from './healing.types';

/** Healing rules: the dry run (read) and a healing pass (operate). */
@Resolver()
export class HealingResolver {
  constructor(private readonly healing: HealingService) {}

  @RequirePermission('read')
  @Query(() => HealingPlanView, {
    description:
      'Dry run of the healing rules: the actions a pass would take now (rule, target, reason, evidence) and the candidates a bound held back. Changes nothing.',
  })
  healingPlan(
    @Args('rules', { type: () => HealingRulesInput, nullable: true }) rules: HealingRulesInput | null,
  ): Promise<HealingPlanView> {
    return this.healing.plan(rules);
  }

  @RequirePermission('operate')
  @Mutation(() => HealingRun, {
    description:
      'Runs one healing pass (the Healing workflow: bounded actions, each with a healing.action receipt); with dryRun, only lists them and changes nothing.',
  })
  heal(@Args('input') input: HealInput, @Context() ctx: GraphQLContext): Promise<HealingRun> {
    return this.healing.heal(input, { actor: ctx.actor, ids: ctx.ids });
  }
}
