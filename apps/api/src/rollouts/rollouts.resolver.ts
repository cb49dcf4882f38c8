import { Args, Context, ID, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import { RequirePermission } from '../auth';
import type { GraphQLContext } from '../common/graphql-context';
import { callerOf } from '../common/caller';
import { RolloutsService } from './rollouts.service';
import {
  Alias,
  CreateAliasInput,
  Rollout,
  RolloutAction,
  RolloutActionAvailability,
  RolloutOperation,
  StartRolloutInput,
} from './rollouts.types';

/** Versioned aliases and the rollouts that move them. Reads need read; every change needs operate. */
@Resolver()
export class RolloutsResolver {
  constructor(private readonly service: RolloutsService) {}

  @RequirePermission('read')
  @Query(() => [Alias], { description: 'Every alias, by name, with its revision history.' })
  aliases(): Promise<Alias[]> {
    return this.service.aliases();
  }

  @RequirePermission('read')
  @Query(() => Alias, { nullable: true, description: 'One alias by name or id; null when there is none.' })
  alias(@Args('alias') alias: string): Promise<Alias | null> {
    return this.service.alias(alias);
  }

  @RequirePermission('read')
  @Query(() => [Rollout], { description: 'Rollouts, newest first; of one alias when given.' })
  rollouts(
    @Args('alias', { type: () => String, nullable: true }) alias: string | null,
    @Args('limit', { type: () => Int, nullable: true }) limit: number | null,
  ): Promise<Rollout[]> {
    return this.service.rollouts(alias ?? null, limit ?? null);
  }

  @RequirePermission('read')
  @Query(() => Rollout, { nullable: true })
  rollout(@Args('id', { type: () => ID }) id: string): Promise<Rollout | null> {
    return this.service.rollout(id);
  }

  @RequirePermission('operate')
  @Mutation(() => Alias, { description: 'Creates an alias (no revision until its first rollout promotes).' })
  createAlias(@Args('input') input: CreateAliasInput, @Context() ctx: GraphQLContext): Promise<Alias> {
    return this.service.createAlias(input, callerOf(ctx));
  }

  @RequirePermission('operate')
  @Mutation(() => RolloutOperation, {
    description:
      'Starts a rollout of a model version to an alias: policy and digest checks, canary deployment, canary steps with analysis, promotion or rollback. Refusals carry their typed code.',
  })
  startRollout(
    @Args('input') input: StartRolloutInput,
    @Context() ctx: GraphQLContext,
  ): Promise<RolloutOperation> {
    return this.service.startRollout(input, callerOf(ctx));
  }

  @RequirePermission('operate')
  @Mutation(() => Rollout, { description: 'Promote, roll back, pause, resume or abort a running rollout.' })
  signalRollout(
    @Args('rollout', { type: () => ID }) rollout: string,
    @Args('action', { type: () => RolloutAction }) action: RolloutAction,
    @Args('reason', { type: () => String, nullable: true }) reason: string | null,
    @Args('idempotencyKey', {
      type: () => String,
      nullable: true,
      description:
        'The same key again returns the first call’s answer; default: derived from the rollout and action.',
    })
    idempotencyKey: string | null,
    @Context() ctx: GraphQLContext,
  ): Promise<Rollout> {
    return this.service.signalRollout(rollout, action, reason ?? null, callerOf(ctx), idempotencyKey ?? null);
  }
}

/** What an operator may signal to a rollout, resolved only when asked for: a Promoted one asks its workflow. */
@Resolver(() => Rollout)
export class RolloutFieldsResolver {
  constructor(private readonly service: RolloutsService) {}

  @ResolveField(() => [RolloutActionAvailability], {
    description:
      "Every operator signal with whether the rollout's state allows it (the caller's role is not considered).",
  })
  actions(@Parent() rollout: Rollout): Promise<RolloutActionAvailability[]> {
    return this.service.actionsOf(rollout);
  }
}
