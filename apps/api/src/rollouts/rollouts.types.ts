import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { Allow } from 'class-validator';
import { WorkflowOperation } from '../common/workflow-operation.types';

export enum RolloutAction {
  PROMOTE = 'promote',
  ROLLBACK = 'rollback',
  PAUSE = 'pause',
  RESUME = 'resume',
  ABORT = 'abort',
}
registerEnumType(RolloutAction, {
  name: 'RolloutAction',
  description:
    'Operator signals to a running rollout: promote now, roll back, pause or resume the step timer, abort.',
});

@ObjectType({
  description: 'One revision of an alias: which version and deployment callers of the alias reached.',
})
export class AliasRevision {
  @Field(() => Int)
  revision!: number;

  @Field({ description: 'The model version ref (name@version).' })
  modelRef!: string;

  @Field(() => ID)
  modelVersionId!: string;

  @Field(() => ID)
  deploymentId!: string;

  @Field(() => String, { nullable: true, description: 'The deployment name, while the deployment exists.' })
  deploymentName!: string | null;

  @Field({ description: 'promote: a rollout took over; rollback: a copy of an earlier revision.' })
  reason!: string;

  @Field(() => Int, { nullable: true, description: 'For a rollback revision: the revision it restored.' })
  restoredFrom!: number | null;

  @Field(() => ID, { nullable: true })
  rolloutId!: string | null;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: string;
}

@ObjectType({ description: 'The judgement of one canary analysis window (canary against stable).' })
export class RolloutAnalysis {
  @Field(() => Int)
  step!: number;

  @Field(() => Int, { description: 'Canary weight in percent during the step.' })
  weight!: number;

  @Field(() => Int, {
    description: 'Window of the step (more than 1 when the sample was not complete in time).',
  })
  window!: number;

  @Field({ description: 'pass | breach | insufficient' })
  verdict!: string;

  @Field(() => [String])
  reasons!: string[];

  @Field(() => Int)
  canaryRequests!: number;

  @Field(() => Int)
  canaryErrors!: number;

  @Field(() => Float)
  canaryErrorRate!: number;

  @Field(() => Float, { nullable: true })
  canaryP95Ms!: number | null;

  @Field(() => Int, { nullable: true, description: 'Null on an alias’s first rollout.' })
  stableRequests!: number | null;

  @Field(() => Float, { nullable: true })
  stableErrorRate!: number | null;

  @Field(() => Float, { nullable: true })
  stableP95Ms!: number | null;

  @Field(() => Float, { nullable: true })
  canaryEvaluationScore!: number | null;

  @Field(() => Float, { nullable: true })
  stableEvaluationScore!: number | null;
}

@ObjectType({
  description: 'A receipt the rollout workflow wrote (one per step), from the hash-chained audit log.',
})
export class RolloutReceipt {
  @Field(() => Int)
  seq!: number;

  @Field({
    description: 'rollout.start, rollout.step, rollout.analysis, rollout.promote, rollout.rollback, …',
  })
  action!: string;

  @Field()
  decision!: string;

  @Field()
  result!: string;

  @Field({ description: 'The receipt evidence as JSON (ids and outcomes, never payloads).' })
  evidenceJson!: string;

  @Field()
  hash!: string;

  @Field()
  occurredAt!: string;

  @Field()
  actor!: string;
}

@ObjectType({
  description:
    "An operator signal to a rollout and whether the console should offer it in the rollout's state.",
})
export class RolloutActionAvailability {
  @Field(() => RolloutAction)
  action!: RolloutAction;

  @Field({
    description:
      'Whether the signal changes something now (signalRollout itself refuses only signals the workflow no longer takes).',
  })
  allowed!: boolean;

  @Field(() => String, {
    nullable: true,
    description: 'Why the state refuses the signal; null when allowed.',
  })
  reason!: string | null;
}

@ObjectType({ description: 'Moving an alias to a model version through canary steps.' })
export class Rollout {
  @Field(() => ID)
  id!: string;

  @Field()
  alias!: string;

  @Field()
  modelRef!: string;

  @Field(() => Int, {
    description: 'The alias revision serving when the rollout started; rollback restores it.',
  })
  baseRevision!: number;

  @Field({
    description:
      'Verifying | Deploying | Canary | Paused | Promoted | RolledBack | Aborted | Refused | Failed',
  })
  state!: string;

  @Field(() => String, { nullable: true })
  stateReason!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The typed code of a refusal (LICENSE_NOT_APPROVED, DIGEST_MISMATCH, …).',
  })
  refusalCode!: string | null;

  @Field(() => [Int], { description: 'Canary weights in percent, in order.' })
  steps!: number[];

  @Field(() => Int, { description: 'Index into steps of the current (or last) step; -1 before the first.' })
  currentStep!: number;

  @Field(() => Int, { description: 'The canary weight now in effect (0 when none).' })
  currentWeight!: number;

  @Field(() => Int)
  analysisWindowSeconds!: number;

  @Field(() => Int)
  samplesPerStep!: number;

  @Field(() => Int)
  maxWindowsPerStep!: number;

  @Field(() => Int)
  bakeSeconds!: number;

  @Field(() => Int)
  replicas!: number;

  @Field(() => Float)
  maxErrorRateIncrease!: number;

  @Field(() => Float)
  maxP95LatencyRatio!: number;

  @Field(() => Float)
  p95SlackMs!: number;

  @Field(() => Float)
  maxEvaluationScoreDrop!: number;

  @Field(() => ID, { nullable: true })
  canaryDeploymentId!: string | null;

  @Field(() => [RolloutAnalysis])
  analyses!: RolloutAnalysis[];

  @Field(() => [RolloutReceipt], { description: 'The receipts of this rollout, in order.' })
  receipts!: RolloutReceipt[];

  @Field()
  workflowId!: string;

  @Field()
  temporalUiUrl!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: string;

  @Field()
  updatedAt!: string;

  @Field(() => String, { nullable: true })
  finishedAt!: string | null;
}

@ObjectType({ description: 'A versioned alias: the name callers invoke instead of a version or deployment.' })
export class Alias {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field({ description: 'The data class callers send through the alias; a version’s license must allow it.' })
  dataClass!: string;

  @Field(() => Int, { description: '0 until the first promotion.' })
  currentRevision!: number;

  @Field(() => AliasRevision, { nullable: true })
  current!: AliasRevision | null;

  @Field(() => Int, { description: 'Percent of the alias’s traffic the canary gets now.' })
  canaryWeight!: number;

  @Field(() => ID, { nullable: true })
  canaryDeploymentId!: string | null;

  @Field(() => Rollout, { nullable: true })
  activeRollout!: Rollout | null;

  @Field(() => [AliasRevision], { description: 'Every revision, newest first.' })
  revisions!: AliasRevision[];

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: string;

  @Field()
  updatedAt!: string;
}

@InputType()
export class CreateAliasInput {
  @Allow()
  @Field({ description: 'A DNS label, e.g. chat-default.' })
  name!: string;

  @Allow()
  @Field({ description: 'public | internal | confidential | restricted' })
  dataClass!: string;

  @Allow()
  @Field(() => String, { nullable: true })
  description?: string | null;
}

@InputType({ description: 'Every plan field is optional; omitted ones take the defaults (10 → 50 → 100 %).' })
export class StartRolloutInput {
  @Allow()
  @Field()
  alias!: string;

  @Allow()
  @Field({ description: 'The model version ref (name@version) or id.' })
  modelVersion!: string;

  @Allow()
  @Field(() => [Int], { nullable: true })
  steps?: number[] | null;

  @Allow()
  @Field(() => Int, { nullable: true })
  analysisWindowSeconds?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true })
  samplesPerStep?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true })
  maxWindowsPerStep?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true })
  bakeSeconds?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true })
  replicas?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true })
  maxErrorRateIncrease?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true })
  maxP95LatencyRatio?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true })
  p95SlackMs?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true })
  maxEvaluationScoreDrop?: number | null;

  @Allow()
  @Field(() => String, { nullable: true, description: 'Same key, same rollout (default: a new rollout).' })
  idempotencyKey?: string | null;
}

@ObjectType()
export class RolloutOperation extends WorkflowOperation {
  @Field(() => Rollout)
  rollout!: Rollout;
}
