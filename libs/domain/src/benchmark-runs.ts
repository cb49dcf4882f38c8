import type {
  BenchmarkSlo,
  ColdStartResult,
  ColdStartSample,
  LoadFigures,
  LongStreamResult,
  QueueDepth,
  SaturationResult,
  SaturationStep,
} from '@lunanexa/contracts';
import { errorRate, percentile, percentiles, type RequestSample } from './evaluation';

/**
 * The pure half of benchmark runs: the figures of one measured load, where a
 * saturation sweep broke the SLO, inter-token gaps of long streams, and the
 * capacity an alias needs at its observed peak. Workflows import this file
 * (the sweep's stop decision), so no I/O here.
 */

/**
 * The cold-start figures of a run's repeats: percentiles over the repeats
 * that streamed a token (a failed repeat counts in `failures`, never as a
 * time: a timeout is not a measurement).
 */
export function coldStartResult(samples: readonly ColdStartSample[]): ColdStartResult {
  const ok = samples.filter((s) => s.ok);
  return {
    repeats: samples.length,
    failures: samples.length - ok.length,
    deployToFirstTokenMs: percentiles(
      ok.map((s) => s.deployToFirstTokenMs).filter((v): v is number => v !== null),
    ),
    deployToReadyMs: percentiles(ok.map((s) => s.deployToReadyMs).filter((v): v is number => v !== null)),
    samples: [...samples],
  };
}

/** A streamed request, with the arrival time of each content chunk (ms from the request's start) when kept. */
export interface StreamSample extends RequestSample {
  readonly tokenTimesMs?: readonly number[];
}

/** Queue gauges sampled during a load (requests waiting, summed over replicas); null when none reported. */
export function queueDepth(samples: readonly number[]): QueueDepth | null {
  if (samples.length === 0) return null;
  return {
    max: Math.max(...samples),
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
    samples: samples.length,
  };
}

export function loadFigures(
  samples: readonly RequestSample[],
  wallClockMs: number,
  concurrency: number,
  waiting: readonly number[],
): LoadFigures {
  const ok = samples.filter((s) => s.ok);
  const errors = samples.length - ok.length;
  const tokens = ok.reduce((sum, s) => sum + s.completionTokens, 0);
  const perSecond = (n: number): number => (wallClockMs > 0 ? (n * 1000) / wallClockMs : 0);
  return {
    concurrency,
    requests: samples.length,
    errors,
    errorRate: errorRate(errors, samples.length),
    ttftMs: percentiles(ok.map((s) => s.ttftMs).filter((v): v is number => v !== null)),
    latencyMs: percentiles(ok.map((s) => s.latencyMs)),
    requestsPerSecond: perSecond(ok.length),
    tokensPerSecond: perSecond(tokens),
    queueDepth: queueDepth(waiting),
    durationMs: wallClockMs,
  };
}

/**
 * Why a load broke the SLO, or null when it did not. Only the limits a
 * saturation sweep can be judged by count: error rate and p95 TTFT (a
 * throughput floor rises with concurrency, it does not break). A load with no
 * successful request has no TTFT and breaks a TTFT limit. A profile without
 * either limit never breaks: the sweep then runs every step.
 */
export function sloBreach(figures: LoadFigures, slo: BenchmarkSlo | undefined): string | null {
  const reasons: string[] = [];
  if (figures.requests > 0 && figures.errors === figures.requests)
    reasons.push(`all ${figures.requests} requests failed`);
  if (slo?.maxErrorRate !== undefined && figures.errorRate > slo.maxErrorRate)
    reasons.push(`error rate ${figures.errorRate.toFixed(4)} > ${slo.maxErrorRate}`);
  if (slo?.maxTtftP95Ms !== undefined && (figures.ttftMs === null || figures.ttftMs.p95 > slo.maxTtftP95Ms))
    reasons.push(`p95 TTFT ${figures.ttftMs?.p95.toFixed(1) ?? 'n/a'} ms > ${slo.maxTtftP95Ms} ms`);
  return reasons.length === 0 ? null : reasons.join('; ');
}

/** The sweep goes on while the last step held the SLO and steps remain. */
export function continueSaturation(steps: readonly SaturationStep[], planned: number): boolean {
  const last = steps[steps.length - 1];
  return steps.length < planned && (last === undefined || last.breach === null);
}

/**
 * Where the sweep broke and what the replicas sustained: the last step
 * before the first breach (steps after a breach, if any, do not count — a
 * lucky later step is not capacity). Per-replica rate = that step's
 * successful requests per second ÷ replicas measured.
 */
export function saturationResult(steps: readonly SaturationStep[], replicas: number): SaturationResult {
  if (replicas < 1) throw new RangeError(`replicas must be at least 1, got ${replicas}`);
  const firstBreach = steps.findIndex((s) => s.breach !== null);
  const within = firstBreach === -1 ? steps : steps.slice(0, firstBreach);
  const sustained = within[within.length - 1];
  return {
    steps: [...steps],
    replicas,
    brokeAtConcurrency: firstBreach === -1 ? null : (steps[firstBreach]?.concurrency ?? null),
    sustainableConcurrency: sustained?.concurrency ?? null,
    perReplicaRequestsPerSecond: sustained ? sustained.requestsPerSecond / replicas : null,
  };
}

/** Gaps between consecutive content chunks of every successful request (ms). */
export function interTokenGaps(samples: readonly StreamSample[]): number[] {
  const gaps: number[] = [];
  for (const sample of samples) {
    if (!sample.ok || !sample.tokenTimesMs) continue;
    for (let i = 1; i < sample.tokenTimesMs.length; i++) {
      gaps.push((sample.tokenTimesMs[i] ?? 0) - (sample.tokenTimesMs[i - 1] ?? 0));
    }
  }
  return gaps;
}

export function longStreamResult(
  samples: readonly StreamSample[],
  wallClockMs: number,
  concurrency: number,
  waiting: readonly number[],
): LongStreamResult {
  const ok = samples.filter((s) => s.ok);
  return {
    ...loadFigures(samples, wallClockMs, concurrency, waiting),
    interTokenGapMs: percentiles(interTokenGaps(samples)),
    completionTokensP50: percentile(
      ok.map((s) => s.completionTokens),
      0.5,
    ),
  };
}

// ---- capacity ----

export interface CapacityInput {
  /** The SLO the benchmark was judged by (p95 TTFT target), null when its profile set none. */
  readonly targetTtftP95Ms: number | null;
  /** From the latest saturation sweep; null when there is none (or even its first step broke the SLO). */
  readonly perReplicaRequestsPerSecond: number | null;
  /** Peak request rate over the observation window (busiest bucket); null when no request was seen. */
  readonly peakRequestsPerSecond: number | null;
  /** Serving replicas now, per node. */
  readonly replicasByNode: Readonly<Record<string, number>>;
}

export interface CapacityRecommendation {
  readonly currentReplicas: number;
  /** ceil(peak ÷ per-replica capacity), at least 1; null when either figure is missing. */
  readonly replicasNeeded: number | null;
  /** currentReplicas × per-replica capacity; null without a benchmark. */
  readonly capacityRequestsPerSecond: number | null;
  /** (capacity − peak) ÷ capacity: the share of capacity unused at the peak; negative when over. */
  readonly headroom: number | null;
  /** The node carrying the most replicas (ties: first by id); null without replicas. */
  readonly largestNode: string | null;
  readonly capacityAfterNodeLoss: number | null;
  /** (capacity after the loss − peak) ÷ peak: negative when the rest cannot carry the peak. */
  readonly nodeLossMargin: number | null;
  readonly survivesNodeLoss: boolean | null;
  /** Plain words for each missing input; empty when every figure is known. */
  readonly missing: readonly string[];
}

/**
 * Replicas an alias needs at its observed peak to keep the benchmark's
 * p95 TTFT, the headroom now and what losing its busiest node leaves.
 * Missing inputs give null figures and a reason, never a guess.
 */
export function capacityRecommendation(input: CapacityInput): CapacityRecommendation {
  const missing: string[] = [];
  const perReplica =
    input.perReplicaRequestsPerSecond !== null && input.perReplicaRequestsPerSecond > 0
      ? input.perReplicaRequestsPerSecond
      : null;
  if (input.perReplicaRequestsPerSecond === null)
    missing.push('no saturation benchmark of the serving deployment');
  else if (perReplica === null) missing.push('the saturation benchmark sustained no load within its SLO');
  const peak = input.peakRequestsPerSecond;
  if (peak === null) missing.push('no traffic observed in the window');
  const nodes = Object.entries(input.replicasByNode)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const current = nodes.reduce((sum, [, n]) => sum + n, 0);
  if (current === 0) missing.push('no serving replica');
  const largest = nodes[0] ?? null;
  const capacity = perReplica === null ? null : current * perReplica;
  const after = perReplica === null || largest === null ? null : (current - largest[1]) * perReplica;
  return {
    currentReplicas: current,
    replicasNeeded:
      perReplica === null || peak === null ? null : Math.max(1, Math.ceil(peak / perReplica - 1e-9)),
    capacityRequestsPerSecond: capacity,
    headroom: capacity === null || peak === null || capacity === 0 ? null : (capacity - peak) / capacity,
    largestNode: largest?.[0] ?? null,
    capacityAfterNodeLoss: after,
    nodeLossMargin: after === null || peak === null || peak === 0 ? null : (after - peak) / peak,
    survivesNodeLoss: after === null || peak === null ? null : after >= peak,
    missing,
  };
}
