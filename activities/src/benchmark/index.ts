import { createHash } from 'node:crypto';
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
  type ColdStartSample,
  type CreateDeploymentRequest,
  type LongStreamResult,
  type MixedResult,
  type SaturationStep,
} from '@lunanexa/contracts';
import {
  benchmarkPrompt,
  decideDeployPolicy,
  loadFigures,
  longStreamResult,
  sloBreach,
  type StreamSample,
} from '@lunanexa/domain';
import {
  findBenchmarkRun,
  findDeployment,
  findModelVersion,
  finishBenchmarkRun,
  loadDeployPolicyFacts,
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

/** Shared by the loads of one measurement: requests issued and finished, and in flight per replica. */
interface LoadProgress {
  issued: number;
  finished: number;
  readonly inFlight: number[];
}

const newProgress = (endpoints: readonly ReadyEndpoint[]): LoadProgress => ({
  issued: 0,
  finished: 0,
  inFlight: endpoints.map(() => 0),
});

/** `concurrency` closed-loop clients send `count` streamed requests, each to the least busy replica. */
async function closedLoop(
  endpoints: readonly ReadyEndpoint[],
  model: string,
  profile: BenchmarkProfileDefinition,
  shape: LoadShape,
  progress: LoadProgress,
): Promise<{ samples: StreamSample[]; wallClockMs: number }> {
  const signal = Context.current().cancellationSignal;
  const timeoutMs = (profile.requestTimeoutSeconds ?? DEFAULT_BENCHMARK_REQUEST_TIMEOUT_SECONDS) * 1000;
  const samples: StreamSample[] = [];
  let issued = 0;
  // One uncounted request per replica first: connection setup and a cold process's first answer are not
  // what the load costs (a real runtime's first request also pays for CUDA graphs and caches).
  await Promise.all(
    endpoints.map((endpoint, i) =>
      chatStreamSample({
        baseUrl: endpoint.url,
        model,
        messages: [{ role: 'user', content: benchmarkPrompt(shape.inputTokens, shape.indexBase - 1 - i) }],
        maxTokens: 2,
        seed: i,
        timeoutMs,
        signal,
      }),
    ),
  );
  const started = performance.now();
  const client = async (): Promise<void> => {
    while (!signal.aborted && issued < shape.count) {
      const index = shape.indexBase + issued++;
      progress.issued += 1;
      // The replica with the fewest of this run's requests in flight (ties: round robin): a closed loop
      // must not pile requests on one replica while another idles, or the sweep measures the imbalance.
      let chosen = index % endpoints.length;
      for (let k = 1; k < endpoints.length; k++) {
        const candidate = (index + k) % endpoints.length;
        if ((progress.inFlight[candidate] ?? 0) < (progress.inFlight[chosen] ?? 0)) chosen = candidate;
      }
      const endpoint = endpoints[chosen];
      if (!endpoint) return;
      progress.inFlight[chosen] = (progress.inFlight[chosen] ?? 0) + 1;
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
      progress.inFlight[chosen] = (progress.inFlight[chosen] ?? 1) - 1;
      samples.push(tokenTimesMs ? { ...sample, tokenTimesMs } : sample);
      progress.finished += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(shape.concurrency, shape.count) }, client));
  if (signal.aborted) throw new CancelledFailure('benchmark cancelled');
  return { samples, wallClockMs: performance.now() - started };
}

/** How often a cold start's deployment is read while its replica starts. */
const COLD_START_POLL_MS = 100;

/** The deployment of a run's `repeat`-th cold start: ids derived from the run, so a retry asks for the same one. */
function coldStartDeployment(runId: string, repeat: number): { id: string; name: string } {
  const hash = createHash('sha256').update(`${runId}:cold-start:${repeat}`).digest('hex');
  return { id: `dep-${hash.slice(0, 16)}`, name: `cold-start-${hash.slice(0, 12)}-${repeat}` };
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
        const progress = newProgress(endpoints);
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
        const progress = newProgress(endpoints);
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
        const progress = newProgress(endpoints);
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

    /**
     * The deploy request of one cold start: a one-replica deployment of the
     * run's model version, through the same deploy gate (purpose and policy)
     * as the deployment the run measures, now; `requestedAtMs` starts its clock.
     */
    async requestColdStart(
      input: BenchmarkStepInput & { readonly repeat: number },
    ): Promise<{ request: CreateDeploymentRequest; requestedAtMs: number }> {
      return typed(async () => {
        const run = await runOrFail(db, input.runId);
        planOf(run, 'coldStart');
        const source = await findDeployment(db, run.deploymentId);
        const version = source ? await findModelVersion(db, source.modelVersionId) : null;
        if (!source || !version) {
          throw new LunaNexaError(
            ErrorCode.NOT_FOUND,
            `the deployment or model version of benchmark run ${run.id} no longer exists`,
          );
        }
        const facts = await loadDeployPolicyFacts(db, version, { dataClass: null });
        const decision = decideDeployPolicy(facts, source.purpose);
        if (!decision.allowed) throw new LunaNexaError(decision.code, decision.reason);
        const deployment = coldStartDeployment(run.id, input.repeat);
        return {
          request: {
            deploymentId: deployment.id,
            name: deployment.name,
            modelVersionId: version.id,
            modelRef: version.ref,
            desiredReplicas: 1,
            requestedNodeId: null,
            purpose: source.purpose,
            placementStrategy: source.placementStrategy,
          },
          requestedAtMs: Date.now(),
        };
      });
    },

    /**
     * Waits for the cold start's replica to be Ready, then streams one
     * request to it: the first token's arrival less `requestedAtMs` (both read
     * from this worker's wall clock: the deploy request and the measurement run
     * on the workers of one deployment). A deployment that fails, or is not
     * Ready within the plan's timeout, is a failed repeat, not an error.
     */
    async measureColdStart(
      input: BenchmarkStepInput & { readonly deploymentId: string; readonly requestedAtMs: number },
    ): Promise<ColdStartSample> {
      return typed(async () => {
        const run = await runOrFail(db, input.runId);
        const plan = planOf(run, 'coldStart');
        const profile = run.profileSnapshot;
        const signal = Context.current().cancellationSignal;
        const deadline = input.requestedAtMs + plan.readyTimeoutSeconds * 1000;
        const failed = (error: string, deployToReadyMs: number | null = null): ColdStartSample => ({
          deploymentId: input.deploymentId,
          ok: false,
          deployToReadyMs,
          deployToFirstTokenMs: null,
          error,
        });
        let phase = 'waiting for Ready';
        return heartbeating(
          () => ({ phase }),
          async () => {
            let endpoint: ReadyEndpoint | undefined;
            while (endpoint === undefined) {
              if (signal.aborted) throw new CancelledFailure('benchmark cancelled');
              const deployment = await findDeployment(db, input.deploymentId);
              if (deployment?.state === 'Failed') {
                return failed(`the deployment failed: ${deployment.stateReason ?? 'no reason given'}`);
              }
              endpoint = (await readyEndpoints(db, input.deploymentId))[0];
              if (endpoint !== undefined) break;
              if (Date.now() > deadline) {
                return failed(`no replica was Ready within ${plan.readyTimeoutSeconds} s`);
              }
              await new Promise((resolve) => setTimeout(resolve, COLD_START_POLL_MS));
            }
            const deployToReadyMs = Date.now() - input.requestedAtMs;
            phase = 'streaming the first token';
            const sentAtMs = Date.now();
            const sample = await chatStreamSample({
              baseUrl: endpoint.url,
              model: run.modelRef,
              messages: [{ role: 'user', content: benchmarkPrompt(profile.inputTokens, 0) }],
              maxTokens: 2,
              seed: 0,
              timeoutMs: Math.max(1_000, deadline - sentAtMs),
              signal,
            });
            if (signal.aborted) throw new CancelledFailure('benchmark cancelled');
            if (!sample.ok || sample.ttftMs === null) {
              return failed(`the first request failed (${sample.code ?? 'no token'})`, deployToReadyMs);
            }
            return {
              deploymentId: input.deploymentId,
              ok: true,
              deployToReadyMs,
              deployToFirstTokenMs: sentAtMs - input.requestedAtMs + sample.ttftMs,
              error: null,
            };
          },
        );
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
