/**
 * The data-plane bench's arithmetic, kept free of I/O so a spec can pin it:
 * percentiles of one run, the median of several rounds, and what the issue's
 * targets say about the figures.
 */

/** The three processes a request can be sent to; `direct` is the runtime itself. */
export const TARGETS = ['direct', 'nginx', 'gateway'] as const;
export type Target = (typeof TARGETS)[number];

export interface Percentiles {
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** What the load generator reports for one run against one target. */
export interface RunFigures {
  /** Requests answered 200 with a complete body (counted in the percentiles). */
  readonly requests: number;
  /** Anything else: another status, a socket error, a stream without `data: [DONE]`, a timeout. */
  readonly errors: number;
  /** Error counts by kind (`status 503`, `ECONNRESET`, `incomplete stream`…). */
  readonly errorKinds: Readonly<Record<string, number>>;
  readonly elapsedMs: number;
  readonly requestsPerSecond: number;
  /** From writing the request to the last byte of the answer. */
  readonly totalMs: Percentiles;
  /** From writing the request to the first byte of the answer's body (the first token when streamed). */
  readonly firstByteMs: Percentiles;
}

/** Median-of-rounds figures of one target in one scenario, with the rounds they came from. */
export interface TargetFigures {
  readonly requests: number;
  readonly errors: number;
  readonly errorKinds: Readonly<Record<string, number>>;
  readonly requestsPerSecond: number;
  readonly totalMs: Percentiles;
  readonly firstByteMs: Percentiles;
  readonly rounds: readonly RunFigures[];
  /**
   * CPU time the target's processes (all of them: nginx master and workers,
   * gateway primary and workers) spent per request it received, median over
   * rounds; independent of what else the machine was running. Null when not sampled.
   */
  readonly cpuMsPerRequest?: number | null;
}

/** Milliseconds rounded to the microsecond, which is all a loopback measurement can tell apart. */
export function roundMs(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * Nearest-rank percentile of an ascending array: the smallest value with at
 * least p% of the samples at or below it. NaN for no samples.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** p50/p95/p99/max/mean of unsorted samples (sorted in place), in milliseconds to the microsecond. */
export function percentilesOf(samples: Float64Array): Percentiles {
  if (samples.length === 0) {
    return { p50: Number.NaN, p95: Number.NaN, p99: Number.NaN, max: Number.NaN, mean: Number.NaN };
  }
  samples.sort();
  let sum = 0;
  for (const value of samples) sum += value;
  return {
    p50: roundMs(percentile(samples, 50)),
    p95: roundMs(percentile(samples, 95)),
    p99: roundMs(percentile(samples, 99)),
    max: roundMs(samples[samples.length - 1] ?? Number.NaN),
    mean: roundMs(sum / samples.length),
  };
}

/** The median of the values (mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

function medianPercentiles(all: readonly Percentiles[]): Percentiles {
  const of = (key: keyof Percentiles): number => roundMs(median(all.map((p) => p[key])));
  return { p50: of('p50'), p95: of('p95'), p99: of('p99'), max: of('max'), mean: of('mean') };
}

/**
 * One target's figures over its rounds: each percentile and the request rate
 * is the median of that figure across rounds (so one disturbed round does not
 * move it), while requests and errors are totals.
 */
export function combineRounds(rounds: readonly RunFigures[]): TargetFigures {
  const errorKinds: Record<string, number> = {};
  for (const round of rounds) {
    for (const [kind, count] of Object.entries(round.errorKinds)) {
      errorKinds[kind] = (errorKinds[kind] ?? 0) + count;
    }
  }
  return {
    requests: rounds.reduce((sum, round) => sum + round.requests, 0),
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
    errorKinds,
    requestsPerSecond: Math.round(median(rounds.map((round) => round.requestsPerSecond)) * 10) / 10,
    totalMs: medianPercentiles(rounds.map((round) => round.totalMs)),
    firstByteMs: medianPercentiles(rounds.map((round) => round.firstByteMs)),
    rounds,
  };
}

/** Ratio to three decimals; null when either side was not measured. */
export function ratio(numerator: number | undefined, denominator: number | undefined): number | null {
  if (numerator === undefined || denominator === undefined) return null;
  if (!Number.isFinite(numerator) || !Number.isFinite(denominator) || denominator === 0) return null;
  return Math.round((numerator / denominator) * 1000) / 1000;
}

/** `value - baseline` in ms; null when either side was not measured. */
export function added(value: number | undefined, baseline: number | undefined): number | null {
  if (value === undefined || baseline === undefined) return null;
  if (!Number.isFinite(value) || !Number.isFinite(baseline)) return null;
  return roundMs(value - baseline);
}

/** One scenario: streamed or not, at one concurrency. */
export interface ScenarioKey {
  readonly stream: boolean;
  readonly concurrency: number;
}

export interface ScenarioFigures extends ScenarioKey {
  readonly targets: Readonly<Partial<Record<Target, TargetFigures>>>;
}

/** Latency a proxy adds over calling the runtime directly, from the median-of-rounds percentiles. */
export interface AddedLatency {
  readonly totalP50: number | null;
  readonly totalP99: number | null;
  readonly firstByteP50: number | null;
  readonly firstByteP99: number | null;
}

export interface DerivedFigures extends ScenarioKey {
  readonly addedLatencyMs: { readonly nginx: AddedLatency; readonly gateway: AddedLatency };
  readonly throughputRatio: {
    readonly gatewayOverNginx: number | null;
    readonly gatewayOverDirect: number | null;
    readonly nginxOverDirect: number | null;
  };
  /** CPU time per request of the gateway over nginx's (lower is better; null when not sampled). */
  readonly cpuPerRequestRatio: { readonly gatewayOverNginx: number | null };
}

function addedLatency(target: TargetFigures | undefined, direct: TargetFigures | undefined): AddedLatency {
  return {
    totalP50: added(target?.totalMs.p50, direct?.totalMs.p50),
    totalP99: added(target?.totalMs.p99, direct?.totalMs.p99),
    firstByteP50: added(target?.firstByteMs.p50, direct?.firstByteMs.p50),
    firstByteP99: added(target?.firstByteMs.p99, direct?.firstByteMs.p99),
  };
}

export function deriveFigures(scenario: ScenarioFigures): DerivedFigures {
  const { direct, nginx, gateway } = scenario.targets;
  return {
    stream: scenario.stream,
    concurrency: scenario.concurrency,
    addedLatencyMs: { nginx: addedLatency(nginx, direct), gateway: addedLatency(gateway, direct) },
    throughputRatio: {
      gatewayOverNginx: ratio(gateway?.requestsPerSecond, nginx?.requestsPerSecond),
      gatewayOverDirect: ratio(gateway?.requestsPerSecond, direct?.requestsPerSecond),
      nginxOverDirect: ratio(nginx?.requestsPerSecond, direct?.requestsPerSecond),
    },
    cpuPerRequestRatio: {
      gatewayOverNginx: ratio(gateway?.cpuMsPerRequest ?? undefined, nginx?.cpuMsPerRequest ?? undefined),
    },
  };
}

/** Issues 11 and 23's speed targets for the gateway. */
export const SPEED_TARGETS = {
  /** At concurrency 1: added latency over direct, total time p50. */
  addedLatencyP50Ms: 0.5,
  /** At concurrency 1: added latency over direct, total time p99. */
  addedLatencyP99Ms: 1,
  /** At concurrency 64 (issue 23): added latency over direct, total time p99. */
  addedLatencyP99AtLoadMs: 5,
  loadConcurrency: 64,
  /** Requests/s of the gateway over nginx's, at these concurrencies. */
  minThroughputVsNginx: 0.8,
  throughputConcurrencies: [10, 64],
} as const;

/** One target check: the figure, its limit and whether it was met (null: not measured in this run). */
export interface TargetCheck extends ScenarioKey {
  readonly figure:
    'addedLatencyP50Ms' | 'addedLatencyP99Ms' | 'addedLatencyP99AtLoadMs' | 'throughputVsNginx';
  readonly value: number | null;
  readonly limit: number;
  readonly comparison: '<=' | '>=';
  readonly met: boolean | null;
}

export interface TargetEvaluation {
  readonly checks: readonly TargetCheck[];
  /** False when any check failed, true when every check was measured and met, null otherwise (not all measured). */
  readonly allMet: boolean | null;
}

function check(
  key: ScenarioKey,
  figure: TargetCheck['figure'],
  value: number | null,
  comparison: '<=' | '>=',
  limit: number,
): TargetCheck {
  const met = value === null ? null : comparison === '<=' ? value <= limit : value >= limit;
  return { stream: key.stream, concurrency: key.concurrency, figure, value, limit, comparison, met };
}

/**
 * The issues' targets over every scenario measured: added latency at c=1
 * (streamed and not), added p99 at c=64 and throughput against nginx at
 * c=10 and c=64. A
 * scenario that was not run (flags) yields no check; a target whose
 * comparison side was not run (`--only`) yields a check with met null.
 */
export function evaluateTargets(derived: readonly DerivedFigures[]): TargetEvaluation {
  const checks: TargetCheck[] = [];
  for (const figures of derived) {
    if (figures.concurrency === 1) {
      const { totalP50, totalP99 } = figures.addedLatencyMs.gateway;
      checks.push(check(figures, 'addedLatencyP50Ms', totalP50, '<=', SPEED_TARGETS.addedLatencyP50Ms));
      checks.push(check(figures, 'addedLatencyP99Ms', totalP99, '<=', SPEED_TARGETS.addedLatencyP99Ms));
    }
    if (figures.concurrency === SPEED_TARGETS.loadConcurrency) {
      checks.push(
        check(
          figures,
          'addedLatencyP99AtLoadMs',
          figures.addedLatencyMs.gateway.totalP99,
          '<=',
          SPEED_TARGETS.addedLatencyP99AtLoadMs,
        ),
      );
    }
    if ((SPEED_TARGETS.throughputConcurrencies as readonly number[]).includes(figures.concurrency)) {
      checks.push(
        check(
          figures,
          'throughputVsNginx',
          figures.throughputRatio.gatewayOverNginx,
          '>=',
          SPEED_TARGETS.minThroughputVsNginx,
        ),
      );
    }
  }
  const allMet = checks.some((c) => c.met === false)
    ? false
    : checks.length > 0 && checks.every((c) => c.met === true)
      ? true
      : null;
  return { checks, allMet };
}
