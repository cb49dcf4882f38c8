import { z } from 'zod';
import { PercentilesSchema } from './evaluation';
import type { OperationContext } from './fleet-workflows';

/**
 * Benchmark runs: load shapes measured on one deployment's Ready replicas,
 * outside an evaluation (no suite, no version state change). A run takes its
 * prompt and answer lengths, request deadline and SLO from a stored benchmark
 * profile and adds the kinds to run:
 *
 * - `saturation`: closed-loop steps of rising concurrency, each of a fixed
 *   number of requests, stopping at the first step that breaks the profile's
 *   SLO (error rate or p95 TTFT); the last step within it is what one run's
 *   replicas sustain.
 * - `longStream`: few requests asking for thousands of tokens; the gaps
 *   between streamed tokens are what a reader of a long answer feels.
 * - `mixed`: short and long requests sent at the same time; what the short
 *   ones suffer while long ones decode.
 * - `coldStart`: a new one-replica deployment of the run's model version,
 *   repeatedly: the time from the deploy request to the first streamed token
 *   (and to the replica reported Ready), each deployment stopped before the
 *   next, so every repeat pays for a runtime start.
 *
 * Workflow id: `benchmark/<runId>`. Results are stored per kind as they end.
 */

export const BENCHMARK_KINDS = ['saturation', 'longStream', 'mixed', 'coldStart'] as const;
export type BenchmarkKind = (typeof BENCHMARK_KINDS)[number];

export const BENCHMARK_RUN_STATES = ['Running', 'Succeeded', 'Failed'] as const;
export type BenchmarkRunState = (typeof BENCHMARK_RUN_STATES)[number];

export const BENCHMARK_RUN_LIMITS = {
  maxSaturationSteps: 12,
  maxConcurrency: 256,
  maxRequestsPerStep: 5_000,
  maxLongStreamTokens: 16_384,
  maxLongStreamRequests: 64,
  maxMixedRequests: 5_000,
  maxColdStartRepeats: 20,
  maxColdStartReadySeconds: 3_600,
} as const;

const L = BENCHMARK_RUN_LIMITS;

export const SaturationPlanSchema = z
  .object({
    /** Strictly rising; the sweep stops at the first step over the SLO. */
    concurrencySteps: z.array(z.int().min(1).max(L.maxConcurrency)).min(1).max(L.maxSaturationSteps),
    requestsPerStep: z.int().min(1).max(L.maxRequestsPerStep),
  })
  .strict()
  .refine((p) => p.concurrencySteps.every((c, i, all) => i === 0 || c > (all[i - 1] ?? 0)), {
    message: 'must rise strictly',
    path: ['concurrencySteps'],
  });
export type SaturationPlan = z.infer<typeof SaturationPlanSchema>;

export const LongStreamPlanSchema = z
  .object({
    outputTokens: z.int().min(2).max(L.maxLongStreamTokens),
    requests: z.int().min(1).max(L.maxLongStreamRequests),
    concurrency: z.int().min(1).max(L.maxLongStreamRequests),
  })
  .strict();
export type LongStreamPlan = z.infer<typeof LongStreamPlanSchema>;

export const MixedPlanSchema = z
  .object({
    /** Short requests use the profile's outputTokens. */
    shortRequests: z.int().min(1).max(L.maxMixedRequests),
    shortConcurrency: z.int().min(1).max(L.maxConcurrency),
    longRequests: z.int().min(1).max(L.maxMixedRequests),
    longConcurrency: z.int().min(1).max(L.maxConcurrency),
    longOutputTokens: z.int().min(2).max(L.maxLongStreamTokens),
  })
  .strict();
export type MixedPlan = z.infer<typeof MixedPlanSchema>;

export const ColdStartPlanSchema = z
  .object({
    repeats: z.int().min(1).max(L.maxColdStartRepeats),
    /** How long one deployment may take to its first token before the repeat counts as failed. */
    readyTimeoutSeconds: z.int().min(10).max(L.maxColdStartReadySeconds),
  })
  .strict();
export type ColdStartPlan = z.infer<typeof ColdStartPlanSchema>;

export const BenchmarkRunPlanSchema = z
  .object({
    saturation: SaturationPlanSchema.optional(),
    longStream: LongStreamPlanSchema.optional(),
    mixed: MixedPlanSchema.optional(),
    coldStart: ColdStartPlanSchema.optional(),
  })
  .strict()
  .refine((p) => BENCHMARK_KINDS.some((kind) => p[kind] !== undefined), {
    message: 'must name at least one kind (saturation, longStream, mixed, coldStart)',
    path: ['saturation'],
  });
export type BenchmarkRunPlan = z.infer<typeof BenchmarkRunPlanSchema>;

/** Requests waiting in the runtimes' queues (summed over the replicas), sampled during a measurement. */
export const QueueDepthSchema = z
  .object({ max: z.number().min(0), mean: z.number().min(0), samples: z.int().min(1) })
  .strict();
export type QueueDepth = z.infer<typeof QueueDepthSchema>;

/** The figures of one measured load. Errors count in errorRate only, never in latencies or tokens. */
export const LoadFiguresSchema = z
  .object({
    concurrency: z.int().min(1),
    requests: z.int().min(0),
    errors: z.int().min(0),
    errorRate: z.number().min(0).max(1),
    ttftMs: PercentilesSchema.nullable(),
    latencyMs: PercentilesSchema.nullable(),
    /** Successful requests per second of wall clock. */
    requestsPerSecond: z.number().min(0),
    /** Completion tokens of successful requests per second of wall clock. */
    tokensPerSecond: z.number().min(0),
    /** Null when no replica's runtime reports a queue gauge. */
    queueDepth: QueueDepthSchema.nullable(),
    durationMs: z.number().min(0),
  })
  .strict();
export type LoadFigures = z.infer<typeof LoadFiguresSchema>;

export const SaturationStepSchema = LoadFiguresSchema.extend({
  /** Null: within the SLO; otherwise why the step broke it. */
  breach: z.string().nullable(),
}).strict();
export type SaturationStep = z.infer<typeof SaturationStepSchema>;

export const SaturationResultSchema = z
  .object({
    steps: z.array(SaturationStepSchema),
    /** Replicas measured (requests spread round robin over them). */
    replicas: z.int().min(1),
    /** Concurrency of the first step over the SLO; null when none broke it. */
    brokeAtConcurrency: z.int().nullable(),
    /** The highest concurrency within the SLO; null when even the first step broke it. */
    sustainableConcurrency: z.int().nullable(),
    /** That step's request rate over the replicas measured: what one replica sustains within the SLO. */
    perReplicaRequestsPerSecond: z.number().min(0).nullable(),
  })
  .strict();
export type SaturationResult = z.infer<typeof SaturationResultSchema>;

export const LongStreamResultSchema = LoadFiguresSchema.extend({
  /** Time between consecutive streamed tokens, over every successful request. */
  interTokenGapMs: PercentilesSchema.nullable(),
  completionTokensP50: z.number().min(0).nullable(),
}).strict();
export type LongStreamResult = z.infer<typeof LongStreamResultSchema>;

export const MixedResultSchema = z.object({ short: LoadFiguresSchema, long: LoadFiguresSchema }).strict();
export type MixedResult = z.infer<typeof MixedResultSchema>;

/** One cold start: a deployment requested, its replica Ready, its first token streamed. */
export const ColdStartSampleSchema = z
  .object({
    deploymentId: z.string(),
    ok: z.boolean(),
    /** Null when the replica never reported Ready within the plan's timeout. */
    deployToReadyMs: z.number().min(0).nullable(),
    /** Null when no token arrived (not Ready in time, or the runtime answered with an error). */
    deployToFirstTokenMs: z.number().min(0).nullable(),
    error: z.string().nullable(),
  })
  .strict();
export type ColdStartSample = z.infer<typeof ColdStartSampleSchema>;

export const ColdStartResultSchema = z
  .object({
    repeats: z.int().min(0),
    failures: z.int().min(0),
    /** Over the successful repeats only. */
    deployToFirstTokenMs: PercentilesSchema.nullable(),
    deployToReadyMs: PercentilesSchema.nullable(),
    samples: z.array(ColdStartSampleSchema),
  })
  .strict();
export type ColdStartResult = z.infer<typeof ColdStartResultSchema>;

export const BenchmarkRunResultsSchema = z
  .object({
    saturation: SaturationResultSchema.optional(),
    longStream: LongStreamResultSchema.optional(),
    mixed: MixedResultSchema.optional(),
    coldStart: ColdStartResultSchema.optional(),
  })
  .strict();
export type BenchmarkRunResults = z.infer<typeof BenchmarkRunResultsSchema>;

export interface BenchmarkRunWorkflowInput extends OperationContext {
  readonly runId: string;
  /** Assignment lease of the cold-start deployments; absent in runs started before cold starts. */
  readonly leaseSeconds?: number;
}

export interface BenchmarkRunWorkflowResult {
  readonly runId: string;
  readonly state: Exclude<BenchmarkRunState, 'Running'>;
  readonly errorCode: string | null;
}
