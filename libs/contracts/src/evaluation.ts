import { z } from 'zod';
import { IsoTimestampSchema, NameSchema, OpaqueIdSchema } from './common';
import type { OperationContext } from './fleet-workflows';

/**
 * Evaluation suites and benchmark profiles, and what one evaluation run of a
 * model version records. A suite is a list of prompts, each with a grader; a
 * profile is a closed-loop load shape. Both are immutable once created (a
 * change is a new name), and every run keeps a snapshot of the definitions it
 * ran, so results stay comparable across versions: the same profile means the
 * same prompts, lengths and concurrency. Workflow id: `evaluate/<runId>`.
 */

/** Case ids: short, stable, safe in reports and metric labels. */
export const EvaluationCaseIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 of [A-Za-z0-9._-]');

/** Bounds that keep a suite a test document, not a data set or a payload. */
export const EVALUATION_LIMITS = {
  maxCases: 500,
  maxPromptChars: 32_768,
  maxMessages: 32,
  maxExpectedChars: 16_384,
  maxPatternChars: 1_024,
  maxSchemaChars: 65_536,
  maxCaseTokens: 8_192,
  maxCaseTimeoutSeconds: 600,
  maxSuiteConcurrency: 32,
} as const;

/** `g` and `y` are refused: they make a RegExp stateful between tests. */
export const REGEX_FLAGS_PATTERN = /^(?!.*(.).*\1)[imsu]{0,4}$/;

export const GRADER_KINDS = ['exact', 'contains', 'regex', 'json-schema'] as const;
export type GraderKind = (typeof GRADER_KINDS)[number];

export const ExactGraderSchema = z
  .object({
    kind: z.literal('exact'),
    expected: z.string().max(EVALUATION_LIMITS.maxExpectedChars),
    /** Compare after trimming surrounding whitespace (default true). */
    trim: z.boolean().optional(),
    ignoreCase: z.boolean().optional(),
  })
  .strict();

export const ContainsGraderSchema = z
  .object({
    kind: z.literal('contains'),
    substring: z.string().min(1).max(EVALUATION_LIMITS.maxExpectedChars),
    ignoreCase: z.boolean().optional(),
  })
  .strict();

export const RegexGraderSchema = z
  .object({
    kind: z.literal('regex'),
    pattern: z
      .string()
      .min(1)
      .max(EVALUATION_LIMITS.maxPatternChars)
      .refine(
        (pattern) => {
          try {
            new RegExp(pattern, 'u');
            return true;
          } catch {
            return false;
          }
        },
        { message: 'must be a valid regular expression (unicode mode)' },
      ),
    flags: z.string().regex(REGEX_FLAGS_PATTERN, 'must be distinct flags from i, m, s, u').optional(),
  })
  .strict();

export const JsonSchemaGraderSchema = z
  .object({
    kind: z.literal('json-schema'),
    /** A JSON Schema (draft 2020-12 or 07 keywords ajv knows); the output must parse as JSON and validate. */
    schema: z
      .record(z.string(), z.unknown())
      .refine((schema) => JSON.stringify(schema).length <= EVALUATION_LIMITS.maxSchemaChars, {
        message: `must serialise to at most ${EVALUATION_LIMITS.maxSchemaChars} characters`,
      }),
  })
  .strict();

export const GraderSchema = z.discriminatedUnion('kind', [
  ExactGraderSchema,
  ContainsGraderSchema,
  RegexGraderSchema,
  JsonSchemaGraderSchema,
]);
export type Grader = z.infer<typeof GraderSchema>;

export const EvaluationMessageSchema = z
  .object({
    role: z.enum(['system', 'user', 'assistant']),
    content: z.string().max(EVALUATION_LIMITS.maxPromptChars),
  })
  .strict();
export type EvaluationMessage = z.infer<typeof EvaluationMessageSchema>;

export const EvaluationCaseSchema = z
  .object({
    id: EvaluationCaseIdSchema,
    /** A single user message; exactly one of `prompt` and `messages`. */
    prompt: z.string().min(1).max(EVALUATION_LIMITS.maxPromptChars).optional(),
    messages: z.array(EvaluationMessageSchema).min(1).max(EVALUATION_LIMITS.maxMessages).optional(),
    maxTokens: z.int().min(1).max(EVALUATION_LIMITS.maxCaseTokens),
    /** Sampling seed sent with the request (default 0), so a deterministic runtime answers the same each run. */
    seed: z.int().min(0).max(2_147_483_647).optional(),
    grader: GraderSchema,
  })
  .strict()
  .refine((c) => (c.prompt === undefined) !== (c.messages === undefined), {
    message: 'must have exactly one of prompt and messages',
    path: ['prompt'],
  });
export type EvaluationCase = z.infer<typeof EvaluationCaseSchema>;

export const EvaluationSuiteDefinitionSchema = z
  .object({
    name: NameSchema,
    description: z.string().min(1).max(1024).optional(),
    /** Fraction of cases that must pass for the suite to pass (0..1). */
    passThreshold: z.number().min(0).max(1),
    /** How long one case may take before it counts as failed (default 60). */
    caseTimeoutSeconds: z.int().min(1).max(EVALUATION_LIMITS.maxCaseTimeoutSeconds).optional(),
    /** Cases sent at once (default 4). */
    concurrency: z.int().min(1).max(EVALUATION_LIMITS.maxSuiteConcurrency).optional(),
    cases: z
      .array(EvaluationCaseSchema)
      .min(1)
      .max(EVALUATION_LIMITS.maxCases)
      .refine((cases) => new Set(cases.map((c) => c.id)).size === cases.length, {
        message: 'case ids must be unique',
      }),
  })
  .strict();
export type EvaluationSuiteDefinition = z.infer<typeof EvaluationSuiteDefinitionSchema>;

export const DEFAULT_CASE_TIMEOUT_SECONDS = 60;
export const DEFAULT_SUITE_CONCURRENCY = 4;

/** Service levels a benchmark must meet for the evaluation to pass; each is optional. */
export const BenchmarkSloSchema = z
  .object({
    maxErrorRate: z.number().min(0).max(1).optional(),
    maxTtftP95Ms: z.number().min(0).max(600_000).optional(),
    minTokensPerSecond: z.number().min(0).max(10_000_000).optional(),
  })
  .strict();
export type BenchmarkSlo = z.infer<typeof BenchmarkSloSchema>;

export const BenchmarkProfileDefinitionSchema = z
  .object({
    name: NameSchema,
    description: z.string().min(1).max(1024).optional(),
    /** Closed loop: this many clients, each sending its next request when the previous one ends. */
    concurrency: z.int().min(1).max(256),
    /** Approximate prompt length: the prompt is this many words. */
    inputTokens: z.int().min(1).max(32_768),
    /** `max_tokens` of every request. */
    outputTokens: z.int().min(1).max(8_192),
    /** Stop starting requests after this long… */
    durationSeconds: z.int().min(1).max(3_600).optional(),
    /** …or after this many requests, whichever comes first. At least one is required. */
    requestCount: z.int().min(1).max(100_000).optional(),
    /** One request's deadline (default 60). */
    requestTimeoutSeconds: z.int().min(1).max(600).optional(),
    slo: BenchmarkSloSchema.optional(),
  })
  .strict()
  .refine((p) => p.durationSeconds !== undefined || p.requestCount !== undefined, {
    message: 'must set durationSeconds, requestCount or both',
    path: ['durationSeconds'],
  });
export type BenchmarkProfileDefinition = z.infer<typeof BenchmarkProfileDefinitionSchema>;

export const DEFAULT_BENCHMARK_REQUEST_TIMEOUT_SECONDS = 60;

/** A stored suite or profile: the definition plus its identity and the digest runs are compared by. */
export interface StoredDefinition<T> {
  readonly id: string;
  readonly digest: string;
  readonly definition: T;
}

export const CaseOutcomeSchema = z
  .object({
    caseId: EvaluationCaseIdSchema,
    grader: z.enum(GRADER_KINDS),
    passed: z.boolean(),
    /** Why it failed: the grader's reason, or the typed error of the request. */
    reason: z.string().max(1024).nullable(),
    /** Typed code when the request itself failed (timeout, upstream error). */
    errorCode: z.string().max(64).nullable(),
    latencyMs: z.number().min(0).nullable(),
    /** The start of the answer, for the operator reading a failure (never more than 256 characters). */
    outputExcerpt: z.string().max(256).nullable(),
  })
  .strict();
export type CaseOutcome = z.infer<typeof CaseOutcomeSchema>;

export const EvaluationScoresSchema = z
  .object({
    passRate: z.number().min(0).max(1),
    passedCases: z.int().min(0),
    totalCases: z.int().min(1),
    passThreshold: z.number().min(0).max(1),
    cases: z.array(CaseOutcomeSchema),
  })
  .strict();
export type EvaluationScores = z.infer<typeof EvaluationScoresSchema>;

export const PercentilesSchema = z
  .object({ p50: z.number().min(0), p95: z.number().min(0), p99: z.number().min(0) })
  .strict();
export type Percentiles = z.infer<typeof PercentilesSchema>;

export const BenchmarkMetricsSchema = z
  .object({
    requests: z.int().min(0),
    errors: z.int().min(0),
    errorRate: z.number().min(0).max(1),
    /** Null when no request produced a first token. */
    ttftMs: PercentilesSchema.nullable(),
    latencyMs: PercentilesSchema.nullable(),
    /** Completion tokens of successful requests per second of the run's wall clock (aggregate throughput). */
    tokensPerSecond: z.number().min(0),
    /** Median decode speed of one request: tokens after the first ÷ time after the first. */
    perRequestTokensPerSecondP50: z.number().min(0).nullable(),
    completionTokens: z.int().min(0),
    durationMs: z.number().min(0),
    concurrency: z.int().min(1),
  })
  .strict();
export type BenchmarkMetrics = z.infer<typeof BenchmarkMetricsSchema>;

export const EVALUATION_RUN_STATES = ['Running', 'Passed', 'Failed', 'Errored'] as const;
export type EvaluationRunState = (typeof EVALUATION_RUN_STATES)[number];

export const EvaluationRunSchema = z
  .object({
    id: OpaqueIdSchema,
    modelVersionId: z.string(),
    modelRef: z.string(),
    deploymentId: z.string(),
    suite: NameSchema,
    suiteDigest: z.string(),
    profile: NameSchema.nullable(),
    profileDigest: z.string().nullable(),
    state: z.enum(EVALUATION_RUN_STATES),
    passed: z.boolean().nullable(),
    reasons: z.array(z.string().max(1024)),
    scores: EvaluationScoresSchema.nullable(),
    metrics: BenchmarkMetricsSchema.nullable(),
    workflowId: z.string(),
    createdBy: z.string(),
    createdAt: IsoTimestampSchema,
    finishedAt: IsoTimestampSchema.nullable(),
  })
  .strict();
export type EvaluationRun = z.infer<typeof EvaluationRunSchema>;

export interface EvaluateWorkflowInput extends OperationContext {
  readonly runId: string;
  readonly modelVersionId: string;
  readonly deploymentId: string;
  readonly suiteId: string;
  /** Null: the suite only, no benchmark. */
  readonly profileId: string | null;
}

export interface EvaluateWorkflowResult {
  readonly runId: string;
  /** Refused: nothing ran and nothing changed (the refusal is on the audit chain). */
  readonly state: Exclude<EvaluationRunState, 'Running'> | 'Refused';
  readonly passed: boolean;
  readonly code: string | null;
  readonly reasons: readonly string[];
  readonly receiptHash: string;
}

/** Regression limits of a benchmark comparison against a baseline version. */
export interface RegressionThresholds {
  /** Flag when p95 TTFT grows by more than this fraction (0.2 = +20 %)… */
  readonly maxTtftP95Increase: number;
  /** …and by more than this many milliseconds (small numbers are noise). */
  readonly ttftSlackMs: number;
  /** Flag when aggregate tokens/s falls by more than this fraction (0.2 = −20 %). */
  readonly maxTokensPerSecondDrop: number;
  /** Flag when the error rate rises by more than this (0.01 = 1 percentage point). */
  readonly maxErrorRateIncrease: number;
  /** Flag when the suite pass rate falls by more than this (0 = any drop). */
  readonly maxPassRateDrop: number;
}

export const DEFAULT_REGRESSION_THRESHOLDS: RegressionThresholds = {
  maxTtftP95Increase: 0.2,
  ttftSlackMs: 5,
  maxTokensPerSecondDrop: 0.2,
  maxErrorRateIncrease: 0.01,
  maxPassRateDrop: 0,
};
