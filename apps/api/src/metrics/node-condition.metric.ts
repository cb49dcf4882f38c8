import { Inject, Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { NODE_READINESS } from '@lunanexa/contracts';
import { countNodeConditions, countNodeReadiness } from '@lunanexa/domain';
import type { ServiceMetrics } from '@lunanexa/observability';
import { listNodeReadinessInputs } from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { SERVICE_METRICS } from './metrics.controller';

/**
 * `lunanexa_node_condition{condition}`: enrolled nodes per readiness, derived
 * at scrape time from the leases in PostgreSQL (the same derivation as the
 * fleet views); `lunanexa_node_condition{condition,status}`: enrolled nodes
 * with a live lease per heartbeat condition (MemoryPressure, DiskPressure,
 * GpuHealthy, ClockSynchronized) and status, as stored by the heartbeat
 * ingest. Readiness series carry no `status`, so selecting
 * `condition="Ready"` reads as before. Every api replica exports the same
 * figures, so the alerts take max(), never sum(). A failed read leaves the
 * gauge out of that scrape rather than reporting a fleet of zero.
 */
@Injectable()
export class NodeConditionMetric {
  constructor(@Inject(SERVICE_METRICS) metrics: ServiceMetrics, db: DataSource) {
    new Gauge({
      name: 'lunanexa_node_condition',
      help:
        'Enrolled nodes (Approved, Active, Draining, Drained) per lease-derived readiness (condition only), ' +
        'and those with a live lease per heartbeat condition and status.',
      labelNames: ['condition', 'status'] as const,
      registers: [metrics.registry],
      async collect() {
        this.reset();
        let nodes;
        try {
          nodes = await listNodeReadinessInputs(db);
        } catch {
          return; // /ready reports the database; the rest of the scrape still answers
        }
        const now = new Date();
        const counts = countNodeReadiness(nodes, now);
        for (const condition of NODE_READINESS) this.set({ condition }, counts[condition]);
        for (const { type, status, nodes: count } of countNodeConditions(nodes, now))
          this.set({ condition: type, status }, count);
      },
    });
  }
}
