import type { ChartSeries } from '../../shared/chart/time-series-chart';
import { bucketRate } from '../requests/traffic-series';
import type { OverviewTraffic } from './overview.queries';

/** Queue depth as read at one refresh: the in-flight requests the replicas reported then. */
export interface QueueSample {
  /** ms since the epoch. */
  readonly at: number;
  readonly inFlight: number;
}

/**
 * Adds a sample and forgets those older than `spanMs` before it, so the
 * samples cover the same stretch as the traffic window and stay bounded
 * however long the page stays open.
 */
export function addSample(
  samples: readonly QueueSample[],
  sample: QueueSample,
  spanMs: number,
): readonly QueueSample[] {
  const since = sample.at - spanMs;
  return [...samples.filter((kept) => kept.at >= since && kept.at < sample.at), sample];
}

export interface OverviewTrafficChart {
  readonly x: readonly number[];
  readonly series: readonly ChartSeries[];
  /** No request in the window and nothing queued at any sample. */
  readonly empty: boolean;
  /** The newest bucket's rate, counting only the part of it that has passed. */
  readonly currentRate: number;
}

/**
 * Request rate per bucket and queue depth per sample on one time axis.
 * Buckets and samples fall at different times, so each series has gaps
 * where the other has points, and is drawn across them.
 */
export function overviewTrafficChart(
  traffic: OverviewTraffic,
  samples: readonly QueueSample[],
  nowMs: number,
): OverviewTrafficChart {
  const rates = new Map<number, number>();
  for (const bucket of traffic.buckets) {
    rates.set(Date.parse(bucket.start), bucketRate(bucket, traffic.bucketSeconds, nowMs));
  }
  const depths = new Map(samples.map((sample) => [sample.at, sample.inFlight]));
  const x = [...new Set([...rates.keys(), ...depths.keys()])].sort((a, b) => a - b);
  const newest = traffic.buckets[traffic.buckets.length - 1];
  return {
    x,
    series: [
      {
        label: 'Request rate',
        unit: 'req/s',
        color: 'var(--mat-sys-primary)',
        spanGaps: true,
        values: x.map((at) => rates.get(at) ?? null),
      },
      {
        label: 'Queue depth',
        unit: 'in flight',
        color: 'var(--mat-sys-tertiary)',
        line: 'dashed',
        spanGaps: true,
        whole: true,
        values: x.map((at) => depths.get(at) ?? null),
      },
    ],
    empty: traffic.totals.requests === 0 && samples.every((sample) => sample.inFlight === 0),
    currentRate: newest === undefined ? 0 : bucketRate(newest, traffic.bucketSeconds, nowMs),
  };
}
