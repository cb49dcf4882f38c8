import { Inject, Injectable } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { AGENT_PROTOCOL_VERSION } from '@lunanexa/contracts';
import { HEARTBEATING_LIFECYCLES } from '@lunanexa/domain';
import type { ServiceMetrics } from '@lunanexa/observability';
import { countOutdatedAgents } from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { SERVICE_METRICS } from './metrics.controller';

/**
 * `lunanexa_nodes_agent_outdated`: enrolled nodes whose agent is behind this
 * controller's agent protocol (docs/UPGRADING.md, version skew), read at
 * scrape time from PostgreSQL like lunanexa_node_condition: every api replica
 * exports the same figure, so the alert takes max(). A failed read leaves the
 * gauge out of that scrape.
 */
@Injectable()
export class OutdatedAgentsMetric {
  constructor(@Inject(SERVICE_METRICS) metrics: ServiceMetrics, db: DataSource) {
    new Gauge({
      name: 'lunanexa_nodes_agent_outdated',
      help: "Enrolled nodes whose agent speaks an older agent protocol than this controller's.",
      registers: [metrics.registry],
      async collect() {
        this.reset();
        try {
          this.set(await countOutdatedAgents(db, AGENT_PROTOCOL_VERSION, HEARTBEATING_LIFECYCLES));
        } catch {
          // /ready reports the database; the rest of the scrape still answers
        }
      },
    });
  }
}
