import type { ComparisonEntry } from './benchmarks.queries';

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
