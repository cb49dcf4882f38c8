import type { ChartSeries } from '../../shared/chart/time-series-chart';
import type { DeploymentTraffic, TrafficBucket } from '@lunanexa/sdk/generated/graphql';

/** What the charts read of a traffic report. */
export interface TrafficSeriesInput {
  readonly bucketSeconds: number;
  readonly buckets: readonly TrafficBucket[];
}

export interface TrafficCharts {
  /** Bucket starts, ms since the epoch. */
  readonly x: readonly number[];
  readonly throughput: readonly ChartSeries[];
  readonly latency: readonly ChartSeries[];
  readonly timeToFirstToken: readonly ChartSeries[];
  readonly concurrency: readonly ChartSeries[];
}

/**
 * The share of a bucket that has passed at `nowMs`. The newest bucket is
 * still filling, but the API divides its requests by the whole bucket
 * length; dividing by the time that has passed instead keeps every chart
 * from ending in a drop that is not there. Early in a bucket a single
 * request would read as a burst, so at least a fifth of it (5 s or more) counts.
 */
export function elapsedShare(startMs: number, bucketSeconds: number, nowMs: number): number {
  const bucketMs = bucketSeconds * 1000;
  const elapsedMs = nowMs - startMs;
  if (!(elapsedMs < bucketMs)) {
    return 1;
  }
  const floorMs = Math.min(bucketMs, Math.max(5_000, bucketMs / 5));
  return Math.max(elapsedMs, floorMs) / bucketMs;
}

/** Requests per second in a bucket, counting only the part of it that has passed. */
export function bucketRate(
  bucket: Pick<TrafficBucket, 'start' | 'requestsPerSecond'>,
  bucketSeconds: number,
  nowMs: number,
): number {
  return bucket.requestsPerSecond / elapsedShare(Date.parse(bucket.start), bucketSeconds, nowMs);
}

export function trafficCharts(report: TrafficSeriesInput, nowMs: number): TrafficCharts {
  const { buckets, bucketSeconds } = report;
  const share = buckets.map((bucket) => elapsedShare(Date.parse(bucket.start), bucketSeconds, nowMs));
  const perPassedSecond = (count: number, index: number): number =>
    count / bucketSeconds / (share[index] ?? 1);
  const series = (pick: (bucket: TrafficBucket, index: number) => number | null): (number | null)[] =>
    buckets.map(pick);

  return {
    x: buckets.map((bucket) => Date.parse(bucket.start)),
    throughput: [
      {
        label: 'Requests',
        unit: 'req/s',
        color: 'var(--mat-sys-primary)',
        values: series((bucket, index) => perPassedSecond(bucket.requests, index)),
      },
      {
        label: 'Errors',
        unit: 'req/s',
        color: 'var(--mat-sys-error)',
        line: 'dashed',
        values: series((bucket, index) => perPassedSecond(bucket.errors, index)),
      },
    ],
    latency: [
      { label: 'p50', unit: 'ms', color: 'var(--mat-sys-primary)', values: series((b) => b.latencyP50Ms) },
      {
        label: 'p95',
        unit: 'ms',
        color: 'var(--mat-sys-tertiary)',
        line: 'dashed',
        values: series((b) => b.latencyP95Ms),
      },
      {
        label: 'p99',
        unit: 'ms',
        color: 'var(--mat-sys-error)',
        line: 'dotted',
        values: series((b) => b.latencyP99Ms),
      },
    ],
    timeToFirstToken: [
      { label: 'p50', unit: 'ms', color: 'var(--mat-sys-primary)', values: series((b) => b.ttftP50Ms) },
      {
        label: 'p95',
        unit: 'ms',
        color: 'var(--mat-sys-tertiary)',
        line: 'dashed',
        values: series((b) => b.ttftP95Ms),
      },
    ],
    concurrency: [
      {
        label: 'Mean concurrency',
        unit: 'in flight',
        color: 'var(--mat-sys-primary)',
        // busy time ÷ bucket length: the same correction as the rates.
        values: series((bucket, index) => bucket.meanConcurrency / (share[index] ?? 1)),
      },
    ],
  };
}

/** Errors as a share of requests; null when there were none to fail. */
export function errorRate(bucket: Pick<TrafficBucket, 'requests' | 'errors'>): number | null {
  return bucket.requests === 0 ? null : bucket.errors / bucket.requests;
}

const PERCENT = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

export function formatPercent(share: number | null): string {
  return share === null ? '—' : PERCENT.format(share);
}

/** One row of the per-deployment table. */
export interface DeploymentTrafficRow {
  readonly key: string;
  /** Null for requests no deployment took (an unknown model, say). */
  readonly name: string | null;
  /** What `?deployment=` takes to narrow the view to this row. */
  readonly filter: string | null;
  readonly modelRef: string | null;
  readonly totals: TrafficBucket;
  readonly errorRate: string;
  readonly inFlightNow: number;
  /** Waiting in the gateways' admission queues for a replica slot. */
  readonly queuedNow: number;
}

export function deploymentTrafficRows(
  deployments: readonly DeploymentTraffic[],
): readonly DeploymentTrafficRow[] {
  return deployments.map((deployment) => ({
    key: deployment.deploymentId ?? '(none)',
    name: deployment.deploymentName ?? deployment.deploymentId,
    filter: deployment.deploymentName ?? deployment.deploymentId,
    modelRef: deployment.modelRef,
    totals: deployment.totals,
    errorRate: formatPercent(errorRate(deployment.totals)),
    inFlightNow: deployment.inFlightNow,
    queuedNow: deployment.queuedNow,
  }));
}
