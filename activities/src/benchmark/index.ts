import { performance } from 'node:perf_hooks';
import { CancelledFailure, Context } from '@temporalio/activity';
import {
  DEFAULT_BENCHMARK_REQUEST_TIMEOUT_SECONDS,
  ErrorCode,
  LunaNexaError,
  detectMetricsFormat,
  parsePrometheusText,
  runtimeLoadFrom,
  type BenchmarkKind,
  type BenchmarkProfileDefinition,
  type BenchmarkRunPlan,
  type LongStreamResult,
  type MixedResult,
  type SaturationStep,
} from '@lunanexa/contracts';
import {
  benchmarkPrompt,
  loadFigures,
  longStreamResult,
  sloBreach,
  type StreamSample,
} from '@lunanexa/domain';
import {
  findBenchmarkRun,
  findDeployment,
  finishBenchmarkRun,
  readyEndpoints,
  recordBenchmarkResult,
  type BenchmarkRunRow,
  type ReadyEndpoint,
} from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import type { Clock } from '../clock';
import { typed } from '../fleet-support';
import { chatStreamSample } from '../evaluation/client';
import { heartbeating } from '../evaluation/support';

export interface BenchmarkActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
}

export interface BenchmarkStepInput {
  readonly runId: string;
}

/** How often the replicas' queue gauges are read while a load runs. */
const QUEUE_SAMPLE_EVERY_MS = 250;
const METRICS_TIMEOUT_MS = 2_000;

async function runOrFail(db: DataSource, runId: string): Promise<BenchmarkRunRow> {
  const run = await findBenchmarkRun(db, runId);
  if (!run) throw new LunaNexaError(ErrorCode.NOT_FOUND, `benchmark run ${runId} does not exist`);
  return run;
}

/** The replicas to load; none Ready is NO_CAPACITY (Temporal retries: a replica may come back). */
async function targetsOf(
  db: DataSource,
  run: BenchmarkRunRow,
): Promise<{ endpoints: ReadyEndpoint[]; model: string }> {
  const deployment = await findDeployment(db, run.deploymentId);
  const endpoints = await readyEndpoints(db, run.deploymentId);
  if (!deployment || endpoints.length === 0) {
    throw new LunaNexaError(
      ErrorCode.NO_CAPACITY,
      `deployment ${deployment?.name ?? run.deploymentId} has no Ready replica to benchmark`,
    );
  }
  return { endpoints, model: deployment.modelRef };
}

/**
 * Requests waiting in the replicas' runtimes, summed, read from their
 * Prometheus pages in whatever format they speak (vLLM, SGLang, llama.cpp).
 * Null when no replica's page carries a queue gauge: not reported is not 0.
 */
async function waitingNow(endpoints: readonly ReadyEndpoint[]): Promise<number | null> {
  const values = await Promise.all(
    endpoints.map(async (endpoint) => {
      try {
        const response = await fetch(`${endpoint.url}/metrics`, {
          signal: AbortSignal.timeout(METRICS_TIMEOUT_MS),
        });
        if (!response.ok) return null;
        const page = parsePrometheusText(await response.text());
        return runtimeLoadFrom(page, detectMetricsFormat(page), new Date()).waiting;
      } catch {
        return null;
      }
    }),
  );
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0);
}

/** Runs `work` while sampling the queue gauges; the samples come back with its result. */
async function sampling<T>(
  endpoints: readonly ReadyEndpoint[],
  work: () => Promise<T>,
): Promise<{ result: T; waiting: number[] }> {
  const waiting: number[] = [];
  let stopped = false;
  const sampler = (async () => {
    while (!stopped) {
      const value = await waitingNow(endpoints);
      if (value !== null && !stopped) waiting.push(value);
      await new Promise((resolve) => setTimeout(resolve, QUEUE_SAMPLE_EVERY_MS));
    }
  })();
  try {
    return { result: await work(), waiting };
  } finally {
    stopped = true;
    await sampler;
  }
}

interface LoadShape {
  readonly count: number;
  readonly concurrency: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Offsets prompt indices so two loads sent at once do not send the same prompts. */
  readonly indexBase: number;
  readonly keepTokenTimes: boolean;
  /** Long loads ask the runtime to write to max_tokens (see ChatCall.ignoreEos). */
  readonly ignoreEos: boolean;
}

/** `concurrency` closed-loop clients send `count` streamed requests, round robin over the replicas. */
async function closedLoop(
  endpoints: readonly ReadyEndpoint[],
  model: string,
  profile: BenchmarkProfileDefinition,
  shape: LoadShape,
  progress: { issued: number; finished: number },
): Promise<{ samples: StreamSample[]; wallClockMs: number }> {
  const signal = Context.current().cancellationSignal;
  const timeoutMs = (profile.requestTimeoutSeconds ?? DEFAULT_BENCHMARK_REQUEST_TIMEOUT_SECONDS) * 1000;
  const samples: StreamSample[] = [];
  let issued = 0;
  const started = performance.now();
  const client = async (): Promise<void> => {
    while (!signal.aborted && issued < shape.count) {
      const index = shape.indexBase + issued++;
      progress.issued += 1;
      const endpoint = endpoints[index % endpoints.length];
      if (!endpoint) return;
      const tokenTimesMs: number[] | undefined = shape.keepTokenTimes ? [] : undefined;
      const sample = await chatStreamSample({
        baseUrl: endpoint.url,
        model,
        messages: [{ role: 'user', content: benchmarkPrompt(shape.inputTokens, index) }],
        maxTokens: shape.outputTokens,
        seed: index,
        timeoutMs,
        signal,
        ...(tokenTimesMs ? { tokenTimesMs } : {}),
        ...(shape.ignoreEos ? { ignoreEos: true } : {}),
      });
      samples.push(tokenTimesMs ? { ...sample, tokenTimesMs } : sample);
      progress.finished += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(shape.concurrency, shape.count) }, client));
  if (signal.aborted) throw new CancelledFailure('benchmark cancelled');
  return { samples, wallClockMs: performance.now() - started };
}

function planOf<K extends keyof BenchmarkRunPlan>(
  run: BenchmarkRunRow,
  kind: K,
): NonNullable<BenchmarkRunPlan[K]> {
  const plan = run.plan[kind];
  if (plan === undefined)
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `benchmark run ${run.id} plans no ${kind}`);
  return plan;
}

/**
 * The steps of a benchmark run. Measuring ones write nothing (a retry
 * measures again); results are written by `recordBenchmarkResult`, and only
 * while the run is Running.
 */
export function createBenchmarkActivities({ db, clock }: BenchmarkActivityPorts) {
  return {
    async benchmarkRunPlan(input: BenchmarkStepInput): Promise<BenchmarkRunPlan> {
      return typed(async () => (await runOrFail(db, input.runId)).plan);
    },

    /** One step of the sweep: `requestsPerStep` requests at `concurrency`, judged against the profile's SLO. */
    async measureSaturationStep(
      input: BenchmarkStepInput & { readonly concurrency: number },
    ): Promise<{ step: SaturationStep; replicas: number }> {
      return typed(async () => {
        const run = await runOrFail(db, input.runId);
        const plan = planOf(run, 'saturation');
        const profile = run.profileSnapshot;
        const { endpoints, model } = await targetsOf(db, run);
        const progress = { issued: 0, finished: 0 };
        const { result, waiting } = await heartbeating(
          () => progress,
          () =>
            sampling(endpoints, () =>
              closedLoop(
                endpoints,
                model,
                profile,
                {
                  count: plan.requestsPerStep,
                  concurrency: input.concurrency,
                  inputTokens: profile.inputTokens,
                  outputTokens: profile.outputTokens,
                  indexBase: 0,
                  keepTokenTimes: false,
                  ignoreEos: false,
                },
                progress,
              ),
            ),
        );
        const figures = loadFigures(result.samples, result.wallClockMs, input.concurrency, waiting);
        return { step: { ...figures, breach: sloBreach(figures, profile.slo) }, replicas: endpoints.length };
      });
    },

    /** Few requests of thousands of tokens; every token's arrival is kept for the gap percentiles. */
    async measureLongStream(input: BenchmarkStepInput): Promise<LongStreamResult> {
      return typed(async () => {
        const run = await runOrFail(db, input.runId);
        const plan = planOf(run, 'longStream');
        const profile = run.profileSnapshot;
        const { endpoints, model } = await targetsOf(db, run);
        const progress = { issued: 0, finished: 0 };
        const { result, waiting } = await heartbeating(
          () => progress,
          () =>
            sampling(endpoints, () =>
              closedLoop(
                endpoints,
                model,
                profile,
                {
                  count: plan.requests,
                  concurrency: plan.concurrency,
                  inputTokens: profile.inputTokens,
                  outputTokens: plan.outputTokens,
                  indexBase: 0,
                  keepTokenTimes: true,
                  ignoreEos: true,
                },
                progress,
              ),
            ),
        );
        return longStreamResult(result.samples, result.wallClockMs, plan.concurrency, waiting);
      });
    },

    /** Short (the profile's length) and long requests at once, each load with its own figures. */
    async measureMixed(input: BenchmarkStepInput): Promise<MixedResult> {
      return typed(async () => {
        const run = await runOrFail(db, input.runId);
        const plan = planOf(run, 'mixed');
        const profile = run.profileSnapshot;
        const { endpoints, model } = await targetsOf(db, run);
        const progress = { issued: 0, finished: 0 };
        const { result, waiting } = await heartbeating(
          () => progress,
          () =>
            sampling(endpoints, () =>
              Promise.all([
                closedLoop(
                  endpoints,
                  model,
                  profile,
                  {
                    count: plan.shortRequests,
                    concurrency: plan.shortConcurrency,
                    inputTokens: profile.inputTokens,
                    outputTokens: profile.outputTokens,
                    indexBase: 0,
                    keepTokenTimes: false,
                    ignoreEos: false,
                  },
                  progress,
                ),
                closedLoop(
                  endpoints,
                  model,
                  profile,
                  {
                    count: plan.longRequests,
                    concurrency: plan.longConcurrency,
                    inputTokens: profile.inputTokens,
                    outputTokens: plan.longOutputTokens,
                    indexBase: plan.shortRequests,
                    keepTokenTimes: false,
                    ignoreEos: true,
                  },
                  progress,
                ),
              ]),
            ),
        );
        const [short, long] = result;
        // Both loads share one queue; its samples describe each of them.
        return {
          short: loadFigures(short.samples, short.wallClockMs, plan.shortConcurrency, waiting),
          long: loadFigures(long.samples, long.wallClockMs, plan.longConcurrency, waiting),
        };
      });
    },

    async recordBenchmarkResult(
      input: BenchmarkStepInput & { readonly kind: BenchmarkKind; readonly result: unknown },
    ): Promise<void> {
      return typed(() => recordBenchmarkResult(db, input.runId, input.kind, input.result));
    },

    async finishBenchmarkRun(
      input: BenchmarkStepInput & { readonly errorCode: string | null; readonly error: string | null },
    ): Promise<void> {
      return typed(async () => {
        await finishBenchmarkRun(db, input.runId, {
          errorCode: input.errorCode,
          error: input.error === null ? null : input.error.slice(0, 1024),
          finishedAt: clock.now(),
        });
      });
    },
  };
}
