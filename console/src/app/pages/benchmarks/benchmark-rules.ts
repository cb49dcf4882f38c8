import type {
  BenchmarkRun,
  CapacityRecommendation,
  ColdStart,
  ComparisonEntry,
  LoadFigures,
  LongStream,
  SaturationStep,
} from './benchmarks.queries';

/** The figures the comparison table shows, and the regression metric (BenchmarkRegression.metric) each one carries. */
export interface MetricColumn {
  readonly key: 'ttftP50Ms' | 'ttftP95Ms' | 'ttftP99Ms' | 'tokensPerSecond' | 'errorRate' | 'passRate';
  readonly label: string;
  /** The API flags regressions on p95 TTFT, throughput, error rate and pass rate only. */
  readonly regressionMetric?: string;
  readonly format: (value: number) => string;
}

const ms = (value: number): string => `${Math.round(value)} ms`;
const percent = (value: number): string => `${(value * 100).toFixed(1)} %`;

export const METRIC_COLUMNS: readonly MetricColumn[] = [
  { key: 'ttftP50Ms', label: 'TTFT p50', format: ms },
  { key: 'ttftP95Ms', label: 'TTFT p95', regressionMetric: 'ttftP95', format: ms },
  { key: 'ttftP99Ms', label: 'TTFT p99', format: ms },
  {
    key: 'tokensPerSecond',
    label: 'Tokens/s',
    regressionMetric: 'tokensPerSecond',
    format: (v) => v.toFixed(0),
  },
  { key: 'errorRate', label: 'Error rate', regressionMetric: 'errorRate', format: percent },
  { key: 'passRate', label: 'Pass rate', regressionMetric: 'passRate', format: percent },
];

export interface MetricCell {
  readonly text: string;
  /** The regression's reason when this figure regressed against the baseline. */
  readonly regression: string | undefined;
}

export function metricCell(entry: ComparisonEntry, column: MetricColumn): MetricCell {
  const value = entry[column.key];
  const regression =
    column.regressionMetric === undefined
      ? undefined
      : entry.regressions.find((candidate) => candidate.metric === column.regressionMetric)?.reason;
  return { text: value === null ? '—' : column.format(value), regression };
}

// ---- benchmark runs ----

/** What shared/chart's TimeSeriesChart draws (its ChartSeries), restated so this file needs no browser types. */
export interface ChartSeries {
  readonly label: string;
  readonly values: readonly (number | null)[];
  readonly unit: string;
  readonly color: string;
  readonly line?: 'solid' | 'dashed' | 'dotted';
}

/** A chart over plain numbers (concurrency, percentile) rather than time. */
export interface NumericChart {
  readonly x: readonly number[];
  readonly series: readonly ChartSeries[];
}

/**
 * The saturation curve: throughput and p95 TTFT per concurrency step, with
 * the profile's p95 TTFT limit as a dotted line when it sets one.
 */
export function saturationChart(run: BenchmarkRun): NumericChart | null {
  const steps = run.saturation?.steps ?? [];
  if (steps.length === 0) {
    return null;
  }
  const series: ChartSeries[] = [
    {
      label: 'Throughput',
      unit: 'req/s',
      color: 'var(--mat-sys-primary)',
      values: steps.map((step) => step.requestsPerSecond),
    },
    {
      label: 'TTFT p95',
      unit: 'ms',
      color: 'var(--mat-sys-tertiary)',
      line: 'dashed',
      values: steps.map((step) => step.ttftMs?.p95 ?? null),
    },
  ];
  if (run.sloTtftP95Ms !== null) {
    const limit = run.sloTtftP95Ms;
    series.push({
      label: 'SLO p95 TTFT',
      unit: 'ms',
      color: 'var(--mat-sys-error)',
      line: 'dotted',
      values: steps.map(() => limit),
    });
  }
  return { x: steps.map((step) => step.concurrency), series };
}

/** Inter-token gaps of the long stream at p50, p95 and p99. */
export function gapChart(stream: LongStream): NumericChart | null {
  const gaps = stream.interTokenGapMs;
  if (gaps === null) {
    return null;
  }
  return {
    x: [50, 95, 99],
    series: [
      {
        label: 'Inter-token gap',
        unit: 'ms',
        color: 'var(--mat-sys-primary)',
        values: [gaps.p50, gaps.p95, gaps.p99],
      },
    ],
  };
}

const percentilesText = (p: { p50: number; p95: number; p99: number } | null): string =>
  p === null ? '—' : `${ms(p.p50)} / ${ms(p.p95)} / ${ms(p.p99)}`;

export interface LoadRow {
  readonly label: string;
  /** p50 / p95 / p99. */
  readonly ttft: string;
  readonly latency: string;
  readonly requestsPerSecond: string;
  readonly tokensPerSecond: string;
  /** Max waiting (mean); the runtime may not report a queue at all. */
  readonly queue: string;
  readonly errors: string;
}

export function loadRow(label: string, figures: LoadFigures | SaturationStep | LongStream): LoadRow {
  return {
    label,
    ttft: percentilesText(figures.ttftMs),
    latency: percentilesText(figures.latencyMs),
    requestsPerSecond: figures.requestsPerSecond.toFixed(2),
    tokensPerSecond: figures.tokensPerSecond.toFixed(0),
    queue:
      figures.queueDepth === null
        ? 'not reported'
        : `${figures.queueDepth.max} max (${figures.queueDepth.mean.toFixed(1)} mean)`,
    errors: `${figures.errors}/${figures.requests} (${percent(figures.errorRate)})`,
  };
}

/** One row per sweep step, with its verdict against the SLO. */
export function stepRows(run: BenchmarkRun): (LoadRow & { readonly verdict: string })[] {
  return (run.saturation?.steps ?? []).map((step) => ({
    ...loadRow(`${step.concurrency} concurrent`, step),
    verdict: step.breach ?? 'within SLO',
  }));
}

/** Where the sweep ended, in words. */
export function saturationSummary(run: BenchmarkRun): string {
  const sweep = run.saturation;
  if (sweep === null) {
    return run.state === 'Running' && run.kinds.includes('saturation')
      ? 'Sweep running…'
      : 'No sweep in this run.';
  }
  const perReplica = sweep.perReplicaRequestsPerSecond;
  const held =
    sweep.sustainableConcurrency === null
      ? 'No step held the SLO.'
      : `Held the SLO up to ${sweep.sustainableConcurrency} concurrent: ${perReplica?.toFixed(2) ?? '—'} req/s per replica (${sweep.replicas} measured).`;
  return sweep.brokeAtConcurrency === null
    ? `${held} No step broke it.`
    : `${held} Broke at ${sweep.brokeAtConcurrency} concurrent.`;
}

// ---- cold starts ----

/** Deploy request to Ready and to first token, one point per repeat (failed repeats are gaps). */
export function coldStartChart(cold: ColdStart): NumericChart | null {
  if (cold.samples.length === 0) {
    return null;
  }
  return {
    x: cold.samples.map((_, i) => i + 1),
    series: [
      {
        label: 'Deploy to first token',
        unit: 'ms',
        color: 'var(--mat-sys-primary)',
        values: cold.samples.map((s) => s.deployToFirstTokenMs),
      },
      {
        label: 'Deploy to Ready',
        unit: 'ms',
        color: 'var(--mat-sys-tertiary)',
        line: 'dashed',
        values: cold.samples.map((s) => s.deployToReadyMs),
      },
    ],
  };
}

/** The cold starts in words: percentiles over the successful repeats, and how many failed. */
export function coldStartSummary(run: BenchmarkRun): string {
  const cold = run.coldStart;
  if (cold === null) {
    return run.state === 'Running' && run.kinds.includes('coldStart')
      ? 'Cold starts running…'
      : 'No cold starts in this run.';
  }
  const failed = cold.failures === 0 ? 'none failed' : `${cold.failures} failed`;
  return `Deploy to first token p50 / p95 / p99: ${percentilesText(cold.deployToFirstTokenMs)} over ${cold.repeats} repeats (${failed}); deploy to Ready ${percentilesText(cold.deployToReadyMs)}.`;
}

// ---- starting a run ----

export type StartKind = 'saturation' | 'longStream' | 'mixed' | 'coldStart';

export const START_KINDS: readonly { readonly kind: StartKind; readonly label: string }[] = [
  { kind: 'saturation', label: 'Saturation sweep' },
  { kind: 'longStream', label: 'Long stream' },
  { kind: 'mixed', label: 'Mixed load' },
  { kind: 'coldStart', label: 'Cold start' },
];

/**
 * The plan the console starts: fixed, modest shapes per kind (the API and
 * CLI take any other), cold starts repeated `repeats` times. The API checks
 * every value again.
 */
export function startPlan(
  kinds: readonly StartKind[],
  repeats: number,
): {
  saturation?: { concurrencySteps: number[]; requestsPerStep: number };
  longStream?: { outputTokens: number; requests: number; concurrency: number };
  mixed?: {
    shortRequests: number;
    shortConcurrency: number;
    longRequests: number;
    longConcurrency: number;
    longOutputTokens: number;
  };
  coldStart?: { repeats: number; readyTimeoutSeconds: number };
} {
  return {
    ...(kinds.includes('saturation')
      ? { saturation: { concurrencySteps: [1, 2, 4, 8, 16], requestsPerStep: 40 } }
      : {}),
    ...(kinds.includes('longStream')
      ? { longStream: { outputTokens: 2000, requests: 4, concurrency: 2 } }
      : {}),
    ...(kinds.includes('mixed')
      ? {
          mixed: {
            shortRequests: 40,
            shortConcurrency: 4,
            longRequests: 4,
            longConcurrency: 2,
            longOutputTokens: 2000,
          },
        }
      : {}),
    ...(kinds.includes('coldStart') ? { coldStart: { repeats, readyTimeoutSeconds: 900 } } : {}),
  };
}

/** Where a started run is: the kinds measured so far of those planned. */
export function runProgress(run: BenchmarkRun): string {
  const done = run.kinds.filter((kind) => run[kind as StartKind] !== null).length;
  if (run.state === 'Running') {
    return `Running: ${done} of ${run.kinds.length} kinds measured`;
  }
  return `${run.state}: ${done} of ${run.kinds.length} kinds measured`;
}

// ---- capacity ----

export interface CapacityRow {
  readonly alias: string;
  readonly needed: string;
  readonly current: string;
  readonly peak: string;
  readonly headroom: string;
  readonly nodeLoss: string;
  /** True when the figures say the alias is short now or after losing its busiest node. */
  readonly warn: boolean;
  /** What is missing, in words; '' when every figure is known. */
  readonly missing: string;
}

const signedPercent = (value: number): string => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(0)} %`;

export function capacityRow(rec: CapacityRecommendation): CapacityRow {
  const nodeLoss =
    rec.capacityAfterNodeLoss === null || rec.survivesNodeLoss === null || rec.nodeLossMargin === null
      ? '—'
      : `${rec.survivesNodeLoss ? 'holds' : 'short'}: ${rec.capacityAfterNodeLoss.toFixed(2)} req/s left without ${rec.largestNode ?? '—'} (${signedPercent(rec.nodeLossMargin)} of peak)`;
  return {
    alias: rec.alias,
    needed: rec.replicasNeeded === null ? '—' : String(rec.replicasNeeded),
    current: String(rec.currentReplicas),
    peak: rec.peakRequestsPerSecond === null ? '—' : `${rec.peakRequestsPerSecond.toFixed(2)} req/s`,
    headroom: rec.headroom === null ? '—' : signedPercent(rec.headroom),
    nodeLoss,
    warn:
      (rec.headroom !== null && rec.headroom < 0) ||
      rec.survivesNodeLoss === false ||
      (rec.replicasNeeded !== null && rec.replicasNeeded > rec.currentReplicas),
    missing: rec.missing.join('; '),
  };
}
