import { Inject, Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { RUNTIME_LOAD_STALE_MS } from '@lunanexa/domain';
import type { ServiceMetrics } from '@lunanexa/observability';
import { listRuntimeLoads, type RuntimeLoadRow } from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { SERVICE_METRICS } from './metrics.controller';

/**
 * What the runtimes report about their own load (the agent scrapes each
 * runtime's /metrics and sends it in heartbeats), per deployment and node:
 * `lunanexa_runtime_requests_waiting`, `lunanexa_runtime_requests_running`
 * and `lunanexa_runtime_cache_pressure_ratio`. Read at scrape time from
 * PostgreSQL like lunanexa_node_condition, so every api replica exports the
 * same figures (dashboards take max()). Labels are the deployment id (as the
 * gateway's queue metrics) and node name, never the assignment id, so series
 * are bounded by the fleet. Reports older than RUNTIME_LOAD_STALE_MS and
 * figures a runtime does not report are left out rather than exported as 0.
 * The three gauges share one query per scrape.
 */
@Injectable()
export class RuntimeLoadMetric {
  constructor(@Inject(SERVICE_METRICS) metrics: ServiceMetrics, db: DataSource) {
    let pending: Promise<RuntimeLoadRow[] | null> | undefined;
    // The three collects run together in one scrape; the first starts the read and the others share it.
    const read = (): Promise<RuntimeLoadRow[] | null> => {
      pending ??= listRuntimeLoads(db, new Date(Date.now() - RUNTIME_LOAD_STALE_MS))
        .catch(() => null) // /ready reports the database; the rest of the scrape still answers
        .finally(() => setImmediate(() => (pending = undefined)));
      return pending;
    };
    const gauge = (name: string, help: string, pick: (row: RuntimeLoadRow) => number | null): void => {
      new Gauge({
        name,
        help,
        labelNames: ['deployment', 'node'] as const,
        registers: [metrics.registry],
        async collect() {
          const rows = await read();
          this.reset();
          for (const row of rows ?? []) {
            const value = pick(row);
            if (value !== null) this.set({ deployment: row.deploymentId, node: row.nodeName }, value);
          }
        },
      });
    };
    gauge(
      'lunanexa_runtime_requests_waiting',
      "Requests queued inside the replicas' runtimes, not yet scheduled, as the runtimes last reported.",
      (row) => row.waiting,
    );
    gauge(
      'lunanexa_runtime_requests_running',
      "Requests the replicas' runtimes are decoding or prefilling, as they last reported.",
      (row) => row.running,
    );
    gauge(
      'lunanexa_runtime_cache_pressure_ratio',
      "Share of the KV cache in use (0..1), the fullest of the deployment's replicas on the node; absent for runtimes without a cache gauge.",
      (row) => row.cachePressure,
    );
  }
}
