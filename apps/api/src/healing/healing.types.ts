import { Field, InputType, Int, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';
import { WorkflowOperation } from '../common/workflow-operation.types';

@InputType({
  description:
    'Overrides of the healing rules for this request; unset fields keep the configured values (LUNANEXA_HEAL_*).',
})
export class HealingRulesInput {
  @Allow()
  @Field(() => Int, {
    nullable: true,
    description: 'Restarts since the last healing restart that make a crash loop.',
  })
  crashLoopRestarts?: number | null;

  @Allow()
  @Field(() => Int, {
    nullable: true,
    description: 'Consecutive Unhealthy reports before a replica is re-placed.',
  })
  healthFailureThreshold?: number | null;

  @Allow()
  @Field(() => Int, {
    nullable: true,
    description: 'Runtime crashes on one node within the window that cordon it.',
  })
  nodeCrashThreshold?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true })
  nodeCrashWindowSeconds?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'Distinct replicas the node crashes must come from.' })
  nodeCrashMinReplicas?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true })
  maxActionsPerPass?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'A target healing acted on is left alone this long.' })
  cooldownSeconds?: number | null;
}

@InputType()
export class HealInput {
  @Allow()
  @Field({ description: 'List what the rules would do now and change nothing.' })
  dryRun!: boolean;

  @Allow()
  @Field(() => HealingRulesInput, { nullable: true })
  rules?: HealingRulesInput | null;

  @Allow()
  @Field(() => String, { nullable: true, description: 'Repeating a key returns the same healing pass.' })
  idempotencyKey?: string | null;
}

@ObjectType({ description: 'One action of a healing pass: the rule, its target, why, and the evidence.' })
export class HealingActionView {
  @Field({
    description:
      'cordon-gpu-unhealthy-node, cordon-crashing-node, replace-unhealthy-replica or restart-crash-looping-replica.',
  })
  rule!: string;

  @Field({ description: 'CordonNode, ReplaceReplica or RestartReplica.' })
  kind!: string;

  @Field({ description: 'The node id (CordonNode) or the assignment id.' })
  target!: string;

  @Field()
  nodeId!: string;

  @Field(() => String, { nullable: true })
  deploymentId!: string | null;

  @Field()
  reason!: string;

  @Field({ description: 'The figures the rule decided on, as canonical JSON.' })
  evidenceJson!: string;

  @Field(() => String, {
    nullable: true,
    description: 'What happened when applied (`applied`, or why not); null in a dry run.',
  })
  outcome!: string | null;

  @Field(() => String, { nullable: true, description: 'The healing.action receipt; null in a dry run.' })
  receiptHash!: string | null;
}

@ObjectType({ description: 'A candidate a rule matched that a bound held back, and the bound.' })
export class HealingSkipView {
  @Field()
  rule!: string;

  @Field()
  target!: string;

  @Field()
  reason!: string;
}

@ObjectType({ description: 'The rule settings a healing pass used.' })
export class HealingRulesView {
  @Field(() => Int)
  crashLoopRestarts!: number;

  @Field(() => Int)
  healthFailureThreshold!: number;

  @Field(() => Int)
  nodeCrashThreshold!: number;

  @Field(() => Int)
  nodeCrashWindowSeconds!: number;

  @Field(() => Int)
  nodeCrashMinReplicas!: number;

  @Field(() => Int)
  maxActionsPerPass!: number;

  @Field(() => Int)
  cooldownSeconds!: number;
}

@ObjectType({ description: 'What one healing pass did, or in a dry run would do.' })
export class HealingPlanView {
  @Field()
  dryRun!: boolean;

  @Field(() => HealingRulesView)
  rules!: HealingRulesView;

  @Field(() => [HealingActionView])
  actions!: HealingActionView[];

  @Field(() => [HealingSkipView])
  skipped!: HealingSkipView[];
}

@ObjectType({ description: 'A healing pass: its plan (dry run) or its applied actions, and its workflow.' })
export class HealingRun extends WorkflowOperation {
  @Field(() => HealingPlanView)
  plan!: HealingPlanView;
}
