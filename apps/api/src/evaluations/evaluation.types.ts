import { Field, Float, ID, InputType, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
// GraphQL types the fields; the service validates every value against the contracts (zod) with field paths.
import { Allow } from 'class-validator';
import { WorkflowOperation } from '../common/workflow-operation.types';

export enum GraderKind {
  EXACT = 'exact',
  CONTAINS = 'contains',
  REGEX = 'regex',
  JSON_SCHEMA = 'json-schema',
}
registerEnumType(GraderKind, {
  name: 'GraderKind',
  description:
    'How a case is judged: exact (whole answer equals), contains (substring), regex (pattern matches), json-schema (answer is JSON valid against a schema).',
});

@ObjectType()
export class EvaluationMessage {
  @Field({ description: 'system, user or assistant.' })
  role!: string;

  @Field()
  content!: string;
}

@ObjectType({ description: 'A case grader; only the fields of its kind are set.' })
export class EvaluationGrader {
  @Field(() => GraderKind)
  kind!: GraderKind;

  @Field(() => String, { nullable: true, description: 'exact: the expected answer.' })
  expected!: string | null;

  @Field(() => String, { nullable: true, description: 'contains: the substring.' })
  substring!: string | null;

  @Field(() => String, { nullable: true, description: 'regex: the pattern (unicode mode).' })
  pattern!: string | null;

  @Field(() => String, { nullable: true, description: 'regex: flags from i, m, s, u.' })
  flags!: string | null;

  @Field(() => Boolean, { nullable: true, description: 'exact, contains: compare case-insensitively.' })
  ignoreCase!: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description: 'exact: trim surrounding whitespace first (default true).',
  })
  trim!: boolean | null;

  @Field(() => String, { nullable: true, description: 'json-schema: the JSON Schema, as JSON text.' })
  schemaJson!: string | null;
}

@ObjectType()
export class EvaluationCase {
  @Field()
  id!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Sent as one user message; null when messages are given.',
  })
  prompt!: string | null;

  @Field(() => [EvaluationMessage], { nullable: true })
  messages!: EvaluationMessage[] | null;

  @Field(() => Int)
  maxTokens!: number;

  @Field(() => Int, { description: 'Sampling seed sent with the request.' })
  seed!: number;

  @Field(() => EvaluationGrader)
  grader!: EvaluationGrader;
}

@ObjectType({ description: 'Prompts with graders. Immutable: a change is a new suite under a new name.' })
export class EvaluationSuite {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => Float, { description: 'Fraction of cases that must pass (0-1).' })
  passThreshold!: number;

  @Field(() => Int)
  caseTimeoutSeconds!: number;

  @Field(() => Int, { description: 'Cases sent at once.' })
  concurrency!: number;

  @Field(() => Int)
  caseCount!: number;

  @Field(() => [EvaluationCase])
  cases!: EvaluationCase[];

  @Field({ description: 'sha256 of the canonical definition: runs with the same digest ran the same suite.' })
  digest!: string;

  @Field({ description: 'The definition as stored (EvaluationSuiteDefinition JSON).' })
  definitionJson!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: string;
}

@ObjectType({
  description: 'A closed-loop load shape. Immutable: a change is a new profile under a new name.',
})
export class BenchmarkProfile {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field(() => String, { nullable: true })
  description!: string | null;

  @Field(() => Int, { description: 'Clients, each sending its next request when the previous one ends.' })
  concurrency!: number;

  @Field(() => Int, { description: 'Prompt length in words.' })
  inputTokens!: number;

  @Field(() => Int, { description: 'max_tokens of every request.' })
  outputTokens!: number;

  @Field(() => Int, { nullable: true })
  durationSeconds!: number | null;

  @Field(() => Int, { nullable: true })
  requestCount!: number | null;

  @Field(() => Int)
  requestTimeoutSeconds!: number;

  @Field(() => Float, { nullable: true, description: 'SLO: the evaluation fails above this error rate.' })
  maxErrorRate!: number | null;

  @Field(() => Float, { nullable: true, description: 'SLO: the evaluation fails above this p95 TTFT.' })
  maxTtftP95Ms!: number | null;

  @Field(() => Float, { nullable: true, description: 'SLO: the evaluation fails below this throughput.' })
  minTokensPerSecond!: number | null;

  @Field()
  digest!: string;

  @Field()
  definitionJson!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: string;
}

@ObjectType()
export class EvaluationCaseOutcome {
  @Field()
  caseId!: string;

  @Field(() => GraderKind)
  grader!: GraderKind;

  @Field()
  passed!: boolean;

  @Field(() => String, { nullable: true })
  reason!: string | null;

  @Field(() => String, { nullable: true, description: 'Typed code when the request itself failed.' })
  errorCode!: string | null;

  @Field(() => Float, { nullable: true })
  latencyMs!: number | null;

  @Field(() => String, { nullable: true, description: 'The first 256 characters of the answer.' })
  outputExcerpt!: string | null;
}

@ObjectType()
export class EvaluationScores {
  @Field(() => Float)
  passRate!: number;

  @Field(() => Int)
  passedCases!: number;

  @Field(() => Int)
  totalCases!: number;

  @Field(() => Float)
  passThreshold!: number;

  @Field(() => [EvaluationCaseOutcome])
  cases!: EvaluationCaseOutcome[];
}

@ObjectType({
  description: 'LatencyPercentiles by linear interpolation between closest ranks (as percentile_cont).',
})
export class LatencyPercentiles {
  @Field(() => Float)
  p50!: number;

  @Field(() => Float)
  p95!: number;

  @Field(() => Float)
  p99!: number;
}

@ObjectType()
export class BenchmarkMetrics {
  @Field(() => Int)
  requests!: number;

  @Field(() => Int)
  errors!: number;

  @Field(() => Float)
  errorRate!: number;

  @Field(() => LatencyPercentiles, {
    nullable: true,
    description: 'Time to first token, ms (successful requests).',
  })
  ttftMs!: LatencyPercentiles | null;

  @Field(() => LatencyPercentiles, {
    nullable: true,
    description: 'Whole request, ms (successful requests).',
  })
  latencyMs!: LatencyPercentiles | null;

  @Field(() => Float, { description: 'Completion tokens of successful requests per second of wall clock.' })
  tokensPerSecond!: number;

  @Field(() => Float, { nullable: true, description: 'Median decode speed of one request.' })
  perRequestTokensPerSecondP50!: number | null;

  @Field(() => Int)
  completionTokens!: number;

  @Field(() => Float)
  durationMs!: number;

  @Field(() => Int)
  concurrency!: number;
}

@ObjectType({ description: 'One evaluation of a model version on a candidate deployment.' })
export class EvaluationRun {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  modelVersionId!: string;

  @Field()
  modelRef!: string;

  @Field(() => ID)
  deploymentId!: string;

  @Field()
  suite!: string;

  @Field()
  suiteDigest!: string;

  @Field(() => String, { nullable: true })
  profile!: string | null;

  @Field(() => String, { nullable: true })
  profileDigest!: string | null;

  @Field({ description: 'Running, Passed, Failed or Errored.' })
  state!: string;

  @Field(() => Boolean, { nullable: true, description: 'Null while running.' })
  passed!: boolean | null;

  @Field(() => [String], { description: 'Unmet pass criteria, or what stopped the run.' })
  reasons!: string[];

  @Field(() => String, { nullable: true })
  errorCode!: string | null;

  @Field(() => EvaluationScores, { nullable: true })
  scores!: EvaluationScores | null;

  @Field(() => BenchmarkMetrics, { nullable: true })
  metrics!: BenchmarkMetrics | null;

  @Field()
  workflowId!: string;

  @Field()
  temporalUiUrl!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: string;

  @Field(() => String, { nullable: true })
  finishedAt!: string | null;
}

@ObjectType()
export class EvaluationOperation extends WorkflowOperation {
  @Field(() => ID)
  runId!: string;

  @Field(() => EvaluationRun, {
    nullable: true,
    description: 'Null until the workflow has recorded the run.',
  })
  run!: EvaluationRun | null;
}

@ObjectType()
export class BenchmarkRegression {
  @Field({ description: 'ttftP95, tokensPerSecond, errorRate or passRate.' })
  metric!: string;

  @Field(() => Float)
  baseline!: number;

  @Field(() => Float)
  candidate!: number;

  @Field()
  reason!: string;
}

@ObjectType({ description: "One version's latest finished run on the profile, against the baseline." })
export class BenchmarkComparisonEntry {
  @Field()
  modelRef!: string;

  @Field(() => ID)
  modelVersionId!: string;

  @Field()
  baseline!: boolean;

  @Field(() => EvaluationRun, {
    nullable: true,
    description: 'Null when the version has no finished run on it.',
  })
  run!: EvaluationRun | null;

  @Field(() => Float, { nullable: true })
  passRate!: number | null;

  @Field(() => Float, { nullable: true })
  ttftP50Ms!: number | null;

  @Field(() => Float, { nullable: true })
  ttftP95Ms!: number | null;

  @Field(() => Float, { nullable: true })
  ttftP99Ms!: number | null;

  @Field(() => Float, { nullable: true })
  tokensPerSecond!: number | null;

  @Field(() => Float, { nullable: true })
  errorRate!: number | null;

  @Field({
    description: 'False when the run used another suite than the baseline: pass rates are not compared.',
  })
  sameSuiteAsBaseline!: boolean;

  @Field(() => [BenchmarkRegression])
  regressions!: BenchmarkRegression[];

  @Field()
  regressed!: boolean;
}

@ObjectType()
export class BenchmarkRegressionThresholds {
  @Field(() => Float)
  maxTtftP95Increase!: number;

  @Field(() => Float)
  ttftSlackMs!: number;

  @Field(() => Float)
  maxTokensPerSecondDrop!: number;

  @Field(() => Float)
  maxErrorRateIncrease!: number;

  @Field(() => Float)
  maxPassRateDrop!: number;
}

@ObjectType()
export class BenchmarkComparison {
  @Field()
  profile!: string;

  @Field()
  profileDigest!: string;

  @Field()
  baseline!: string;

  @Field(() => BenchmarkRegressionThresholds)
  thresholds!: BenchmarkRegressionThresholds;

  @Field(() => [BenchmarkComparisonEntry])
  entries!: BenchmarkComparisonEntry[];

  @Field({ description: 'True when any entry regressed against the baseline.' })
  regressed!: boolean;
}

@InputType()
export class EvaluationMessageInput {
  @Allow()
  @Field()
  role!: string;

  @Allow()
  @Field()
  content!: string;
}

@InputType({ description: 'Set kind and the fields of that kind only.' })
export class EvaluationGraderInput {
  @Allow()
  @Field(() => GraderKind)
  kind!: GraderKind;

  @Allow()
  @Field(() => String, { nullable: true })
  expected?: string | null;

  @Allow()
  @Field(() => String, { nullable: true })
  substring?: string | null;

  @Allow()
  @Field(() => String, { nullable: true })
  pattern?: string | null;

  @Allow()
  @Field(() => String, { nullable: true })
  flags?: string | null;

  @Allow()
  @Field(() => Boolean, { nullable: true })
  ignoreCase?: boolean | null;

  @Allow()
  @Field(() => Boolean, { nullable: true })
  trim?: boolean | null;

  @Allow()
  @Field(() => String, {
    nullable: true,
    description: 'json-schema: the JSON Schema as JSON text (draft-07).',
  })
  schemaJson?: string | null;
}

@InputType()
export class EvaluationCaseInput {
  @Allow()
  @Field()
  id!: string;

  @Allow()
  @Field(() => String, { nullable: true, description: 'Exactly one of prompt and messages.' })
  prompt?: string | null;

  @Allow()
  @Field(() => [EvaluationMessageInput], { nullable: true })
  messages?: EvaluationMessageInput[] | null;

  @Allow()
  @Field(() => Int)
  maxTokens!: number;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'Default 0.' })
  seed?: number | null;

  @Allow()
  @Field(() => EvaluationGraderInput)
  grader!: EvaluationGraderInput;
}

@InputType()
export class CreateEvaluationSuiteInput {
  @Allow()
  @Field()
  name!: string;

  @Allow()
  @Field(() => String, { nullable: true })
  description?: string | null;

  @Allow()
  @Field(() => Float)
  passThreshold!: number;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'Default 60.' })
  caseTimeoutSeconds?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'Default 4.' })
  concurrency?: number | null;

  @Allow()
  @Field(() => [EvaluationCaseInput])
  cases!: EvaluationCaseInput[];
}

@InputType()
export class CreateBenchmarkProfileInput {
  @Allow()
  @Field()
  name!: string;

  @Allow()
  @Field(() => String, { nullable: true })
  description?: string | null;

  @Allow()
  @Field(() => Int)
  concurrency!: number;

  @Allow()
  @Field(() => Int)
  inputTokens!: number;

  @Allow()
  @Field(() => Int)
  outputTokens!: number;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'At least one of durationSeconds and requestCount.' })
  durationSeconds?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true })
  requestCount?: number | null;

  @Allow()
  @Field(() => Int, { nullable: true, description: 'Default 60.' })
  requestTimeoutSeconds?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true })
  maxErrorRate?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true })
  maxTtftP95Ms?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true })
  minTokensPerSecond?: number | null;
}

@InputType()
export class StartEvaluationInput {
  @Allow()
  @Field({ description: 'Model version ref (name@version) or id.' })
  modelVersion!: string;

  @Allow()
  @Field({ description: 'A deployment of that version (name or id), with a Ready replica.' })
  deployment!: string;

  @Allow()
  @Field({ description: 'Suite name or id.' })
  suite!: string;

  @Allow()
  @Field(() => String, { nullable: true, description: 'Benchmark profile name or id; none: the suite only.' })
  profile?: string | null;

  @Allow()
  @Field(() => String, { nullable: true, description: 'The same key returns the same run.' })
  idempotencyKey?: string | null;
}

@InputType({ description: 'Regression limits; each defaults to the documented constant.' })
export class BenchmarkRegressionThresholdsInput {
  @Allow()
  @Field(() => Float, { nullable: true, description: 'Default 0.2 (+20 % p95 TTFT).' })
  maxTtftP95Increase?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true, description: 'Default 5 ms.' })
  ttftSlackMs?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true, description: 'Default 0.2 (−20 % tokens/s).' })
  maxTokensPerSecondDrop?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true, description: 'Default 0.01 (+1 percentage point).' })
  maxErrorRateIncrease?: number | null;

  @Allow()
  @Field(() => Float, { nullable: true, description: 'Default 0 (any drop).' })
  maxPassRateDrop?: number | null;
}
