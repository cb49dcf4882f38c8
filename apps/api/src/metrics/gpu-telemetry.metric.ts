import { Inject, Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { GPU_THROTTLE_REASONS } from '@lunanexa/contracts';
import type { ServiceMetrics } from '@lunanexa/observability';
import { listLiveGpuTelemetry, type NodeGpuTelemetry } from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { SERVICE_METRICS } from './metrics.controller';

/** One series: the gauge it belongs to, its labels (node name, GPU index, and for throttling the reason) and value. */
export interface GpuSample {
  readonly metric: GpuMetricName;
  readonly labels: { readonly node: string; readonly gpu: string; readonly reason?: string };
  readonly value: number;
}

export const GPU_METRICS = {
  lunanexa_gpu_utilization_ratio: 'GPU utilisation (0-1) in the latest heartbeat.',
  lunanexa_gpu_memory_used_bytes:
    'GPU memory in use (unified GB10: MemTotal - MemAvailable of /proc/meminfo).',
  lunanexa_gpu_memory_total_bytes: 'GPU memory (unified GB10: MemTotal of /proc/meminfo).',
  lunanexa_gpu_temperature_celsius: 'GPU temperature.',
  lunanexa_gpu_power_watts: 'GPU power draw.',
  lunanexa_gpu_throttled:
    '1 while the clocks are held back for this reason (NVML clocks-throttle reasons), else 0.',
  lunanexa_gpu_ecc_errors_total:
    'Uncorrected ECC errors since the driver loaded (volatile: resets with the driver).',
  lunanexa_gpu_lost: '1 when the GPU fell off the bus (nvidia-smi cannot reach it), else 0.',
  lunanexa_gpu_last_xid:
    'The most recent Xid code the kernel logged for this GPU (no series until one is seen); a new code, or a ' +
    'series appearing, is a new fault.',
} as const;
export type GpuMetricName = keyof typeof GPU_METRICS;

/**
 * Series for the `lunanexa_gpu_*` gauges. Labels are bounded: node name, GPU
 * index (never UUID or pid) and the fixed throttle reasons. A figure the
 * driver did not report produces no series rather than a zero, so a GB10's
 * missing NVML figure never charts as an empty GPU. A GPU with no index in
 * its telemetry or inventory is left out: it cannot be labelled truthfully.
 */
export function gpuSamples(nodes: readonly NodeGpuTelemetry[]): GpuSample[] {
  const samples: GpuSample[] = [];
  for (const node of nodes) {
    for (const gpu of node.telemetry) {
      const index = gpu.index ?? node.inventoryIndexByUuid.get(gpu.uuid);
      if (index === undefined) continue;
      const labels = { node: node.nodeName, gpu: String(index) };
      const add = (metric: GpuMetricName, value: number | null | undefined): void => {
        if (value !== null && value !== undefined) samples.push({ metric, labels, value });
      };
      add(
        'lunanexa_gpu_utilization_ratio',
        gpu.utilizationPercent === null ? null : gpu.utilizationPercent / 100,
      );
      add('lunanexa_gpu_memory_used_bytes', gpu.memoryUsedBytes);
      add('lunanexa_gpu_memory_total_bytes', gpu.memoryTotalBytes);
      add('lunanexa_gpu_temperature_celsius', gpu.temperatureCelsius);
      add('lunanexa_gpu_power_watts', gpu.powerWatts);
      add('lunanexa_gpu_ecc_errors_total', gpu.eccUncorrectedErrors);
      add('lunanexa_gpu_lost', gpu.lost === true ? 1 : 0);
      add('lunanexa_gpu_last_xid', gpu.lastXid);
      const active = gpu.throttleReasons;
      if (active !== null && active !== undefined) {
        for (const reason of GPU_THROTTLE_REASONS) {
          samples.push({
            metric: 'lunanexa_gpu_throttled',
            labels: { ...labels, reason },
            value: active.includes(reason) ? 1 : 0,
          });
        }
      }
    }
  }
  return samples;
}

/** One database read serves every gauge of a scrape (they collect one after another). */
const SNAPSHOT_REUSE_MS = 1000;

/**
 * The `lunanexa_gpu_*` gauges, from the latest heartbeat of every node whose
 * lease holds, read at scrape time from PostgreSQL like
 * lunanexa_node_condition: every api replica exports the same figures, so
 * dashboards and alerts take max(), never sum(). A failed read leaves the
 * gauges out of that scrape.
 */
@Injectable()
export class GpuTelemetryMetrics {
  private snapshot: { readonly at: number; readonly samples: Promise<GpuSample[]> } | null = null;

  constructor(@Inject(SERVICE_METRICS) metrics: ServiceMetrics, db: DataSource) {
    const read = (): Promise<GpuSample[]> => {
      const now = performance.now();
      if (this.snapshot === null || now - this.snapshot.at > SNAPSHOT_REUSE_MS) {
        this.snapshot = { at: now, samples: listLiveGpuTelemetry(db, new Date()).then(gpuSamples) };
      }
      return this.snapshot.samples;
    };
    for (const [name, help] of Object.entries(GPU_METRICS) as [GpuMetricName, string][]) {
      new Gauge({
        name,
        help,
        labelNames: name === 'lunanexa_gpu_throttled' ? ['node', 'gpu', 'reason'] : ['node', 'gpu'],
        registers: [metrics.registry],
        async collect() {
          this.reset();
          let samples;
          try {
            samples = await read();
          } catch {
            return; // /ready reports the database; the rest of the scrape still answers
          }
          for (const sample of samples) if (sample.metric === name) this.set(sample.labels, sample.value);
        },
      });
    }
  }
}
