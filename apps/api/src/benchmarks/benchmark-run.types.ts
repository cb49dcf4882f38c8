import { Field, Float, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
// GraphQL types the fields; the service validates every value against the contracts (zod) with field paths.
import { Allow } from 'class-validator';
import { LatencyPercentiles } from '../evaluations';

@InputType({ description: 'Closed-loop steps of rising concurrency; stops at the first step over the SLO.' })
export class SaturationPlanInput {
  @Allow()
  @Field(() => [Int], { description: 'Strictly rising, e.g. [1, 2, 4, 8]; at most 12 steps.' })
  concurrencySteps!: number[];

  @Allow()
  @Field(() => Int, { description: 'Requests sent at each step.' })
  requestsPerStep!: number;
}

@InputType({ description: 'Few requests of thousands of tokens; measures the gaps between streamed tokens.' })
export class LongStreamPlanInput {
  @Allow()
  @Field(() => Int)
  outputTokens!: number;

  @Allow()
  @Field(() => Int)
  requests!: number;

  @Allow()
  @Field(() => Int)
  concurrency!: number;
}

@InputType({ description: "Short (the profile's outputTokens) and long requests sent at the same time." })
export class MixedPlanInput {
  @Allow()
  @Field(() => Int)
  shortRequests!: number;

  @Allow()
  @Field(() => Int)
  shortConcurrency!: number;

  @Allow()
  @Field(() => Int)
  longRequests!: number;

  @Allow()
  @Field(() => Int)
  longConcurrency!: number;

  @Allow()
  @Field(() => Int)
  longOutputTokens!: number;
}

@InputType({
  description:
    'Repeated deploys of a new one-replica deployment of the same model version: deploy request to first streamed token.',
})
export class ColdStartPlanInput {
  @Allow()
  @Field(() => Int, { description: 'Deployments started one after the other, 1-20.' })
  repeats!: number;

  @Allow()
  @Field(() => Int, { description: 'Seconds one deployment may take to its first token (10-3600).' })
  readyTimeoutSeconds!: number;
}

@InputType()
export class StartBenchmarkRunInput {
  @Allow()
  @Field({ description: 'Deployment (name or id) with at least one Ready replica.' })
  deployment!: string;

  @Allow()
  @Field({ description: 'Benchmark profile (name or id): prompt and answer lengths, request deadline, SLO.' })
  profile!: string;

  @Allow()
  @Field(() => SaturationPlanInput, { nullable: true })
  saturation?: SaturationPlanInput | null;

  @Allow()
  @Field(() => LongStreamPlanInput, { nullable: true })
  longStream?: LongStreamPlanInput | null;

  @Allow()
  @Field(() => MixedPlanInput, { nullable: true })
  mixed?: MixedPlanInput | null;

  @Allow()
  @Field(() => ColdStartPlanInput, { nullable: true })
  coldStart?: ColdStartPlanInput | null;

  @Allow()
  @Field(() => String, { nullable: true, description: 'The same key returns the same run.' })
  idempotencyKey?: string | null;
}

@ObjectType({
  description: 'Requests waiting in the replicas’ runtime queues (summed), sampled during a load.',
})
export class QueueDepth {
  @Field(() => Float)
  max!: number;

  @Field(() => Float)
  mean!: number;

  @Field(() => Int)
  samples!: number;
}

@ObjectType({ description: 'The figures of one measured load; errors count in errorRate only.' })
export class LoadFigures {
  @Field(() => Int)
  concurrency!: number;

  @Field(() => Int)
  requests!: number;

  @Field(() => Int)
  errors!: number;

  @Field(() => Float)
  errorRate!: number;

  @Field(() => LatencyPercentiles, { nullable: true, description: 'Time to first token, ms.' })
  ttftMs!: LatencyPercentiles | null;

  @Field(() => LatencyPercentiles, { nullable: true, description: 'Whole request, ms.' })
  latencyMs!: LatencyPercentiles | null;

  @Field(() => Float, { description: 'Successful requests per second of wall clock.' })
  requestsPerSecond!: number;

  @Field(() => Float, { description: 'Completion tokens of successful requests per second of wall clock.' })
  tokensPerSecond!: number;

  @Field(() => QueueDepth, { nullable: true, description: 'Null: no replica reports a queue gauge.' })
  queueDepth!: QueueDepth | null;

  @Field(() => Float)
  durationMs!: number;
}

@ObjectType()
export class SaturationStep extends LoadFigures {
  @Field(() => String, { nullable: true, description: 'Null: within the SLO; otherwise why it broke it.' })
  breach!: string | null;
}

@ObjectType()
export class SaturationResult {
  @Field(() => [SaturationStep])
  steps!: SaturationStep[];

  @Field(() => Int, { description: 'Replicas the load was spread over.' })
  replicas!: number;

  @Field(() => Int, { nullable: true, description: 'First step over the SLO; null when none broke it.' })
  brokeAtConcurrency!: number | null;

  @Field(() => Int, { nullable: true, description: 'Highest concurrency within the SLO.' })
  sustainableConcurrency!: number | null;

  @Field(() => Float, {
    nullable: true,
    description: 'Requests per second one replica sustains within the SLO (that step’s rate ÷ replicas).',
  })
  perReplicaRequestsPerSecond!: number | null;
}

@ObjectType()
export class LongStreamResult extends LoadFigures {
  @Field(() => LatencyPercentiles, { nullable: true, description: 'Gaps between streamed tokens, ms.' })
  interTokenGapMs!: LatencyPercentiles | null;

  @Field(() => Float, { nullable: true })
  completionTokensP50!: number | null;
}

@ObjectType()
export class MixedResult {
  @Field(() => LoadFigures)
  short!: LoadFigures;

  @Field(() => LoadFigures)
  long!: LoadFigures;
}

@ObjectType({ description: 'One cold start: a deployment requested, its replica Ready, its first token.' })
export class ColdStartSample {
  @Field()
  deploymentId!: string;

  @Field()
  ok!: boolean;

  @Field(() => Float, { nullable: true })
  deployToReadyMs!: number | null;

  @Field(() => Float, { nullable: true })
  deployToFirstTokenMs!: number | null;

  @Field(() => String, { nullable: true, description: 'Why the repeat failed.' })
  error!: string | null;
}

@ObjectType()
export class ColdStartResult {
  @Field(() => Int)
  repeats!: number;

  @Field(() => Int)
  failures!: number;

  @Field(() => LatencyPercentiles, {
    nullable: true,
    description: 'Deploy request to first streamed token, ms, over the successful repeats.',
  })
  deployToFirstTokenMs!: LatencyPercentiles | null;

  @Field(() => LatencyPercentiles, { nullable: true, description: 'Deploy request to replica Ready, ms.' })
  deployToReadyMs!: LatencyPercentiles | null;

  @Field(() => [ColdStartSample])
  samples!: ColdStartSample[];
}

@ObjectType({ description: 'A benchmark run on one deployment; each kind’s result appears as it ends.' })
export class BenchmarkRun {
  @Field(() => ID)
  id!: string;

  @Field()
  deploymentId!: string;

  @Field()
  modelRef!: string;

  @Field()
  profile!: string;

  @Field(() => Float, { nullable: true, description: 'The profile’s p95 TTFT limit, ms.' })
  sloTtftP95Ms!: number | null;

  @Field(() => Float, { nullable: true, description: 'The profile’s error-rate limit.' })
  sloMaxErrorRate!: number | null;

  @Field({ description: 'Running, Succeeded or Failed.' })
  state!: string;

  @Field(() => [String], { description: 'Kinds planned: saturation, longStream, mixed, coldStart.' })
  kinds!: string[];

  @Field(() => SaturationResult, { nullable: true })
  saturation!: SaturationResult | null;

  @Field(() => LongStreamResult, { nullable: true })
  longStream!: LongStreamResult | null;

  @Field(() => MixedResult, { nullable: true })
  mixed!: MixedResult | null;

  @Field(() => ColdStartResult, { nullable: true })
  coldStart!: ColdStartResult | null;

  @Field(() => String, { nullable: true })
  errorCode!: string | null;

  @Field(() => String, { nullable: true })
  error!: string | null;

  @Field()
  workflowId!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: string;

  @Field(() => String, { nullable: true })
  finishedAt!: string | null;
}

@ObjectType()
export class BenchmarkRunOperation {
  @Field(() => ID)
  runId!: string;

  @Field()
  workflowId!: string;

  @Field()
  temporalUiUrl!: string;

  @Field()
  correlationId!: string;

  @Field(() => BenchmarkRun, { nullable: true })
  run!: BenchmarkRun | null;
}

@ObjectType({
  description:
    'Replicas an alias needs at its observed peak to keep its benchmark’s p95 TTFT, headroom now, and what losing its busiest node leaves. Null figures mean missing data (see missing), never zero.',
})
export class CapacityRecommendation {
  @Field()
  alias!: string;

  @Field(() => String, { nullable: true, description: 'The deployment its current revision routes to.' })
  deploymentId!: string | null;

  @Field(() => String, { nullable: true, description: 'The benchmark run the capacity comes from.' })
  benchmarkRunId!: string | null;

  @Field(() => Float, { nullable: true, description: 'That run’s profile p95 TTFT target, ms.' })
  targetTtftP95Ms!: number | null;

  @Field(() => Float, { nullable: true })
  perReplicaRequestsPerSecond!: number | null;

  @Field(() => Float, { nullable: true, description: 'Busiest bucket’s requests ÷ bucket seconds.' })
  peakRequestsPerSecond!: number | null;

  @Field(() => String, { nullable: true, description: 'Start of the busiest bucket.' })
  peakAt!: string | null;

  @Field(() => Int)
  windowHours!: number;

  @Field(() => Int)
  bucketSeconds!: number;

  @Field(() => Int, { description: 'Ready replicas serving now.' })
  currentReplicas!: number;

  @Field(() => Int, { nullable: true, description: 'ceil(peak ÷ per-replica capacity).' })
  replicasNeeded!: number | null;

  @Field(() => Float, { nullable: true })
  capacityRequestsPerSecond!: number | null;

  @Field(() => Float, { nullable: true, description: '(capacity − peak) ÷ capacity.' })
  headroom!: number | null;

  @Field(() => String, { nullable: true, description: 'The node carrying the most replicas.' })
  largestNode!: string | null;

  @Field(() => Float, { nullable: true })
  capacityAfterNodeLoss!: number | null;

  @Field(() => Float, { nullable: true, description: '(capacity after the loss − peak) ÷ peak.' })
  nodeLossMargin!: number | null;

  @Field(() => Boolean, { nullable: true })
  survivesNodeLoss!: boolean | null;

  @Field(() => [String], { description: 'What is missing, in words; empty when every figure is known.' })
  missing!: string[];
}
