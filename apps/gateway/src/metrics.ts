import { WORKLOAD_KINDS } from '@lunanexa/contracts';
import { workloadLifecycle } from '@lunanexa/domain';
import { createServiceMetrics, type BuildInfo, type ServiceMetrics } from '@lunanexa/observability';
import { Counter, Histogram } from 'prom-client';

/**
 * The process's HTTP metrics plus the data-plane ones. Label values come from
 * closed vocabularies (workload kinds, terminal workload states, the two
 * dialects) so cardinality stays bounded whatever clients send.
 */
export interface GatewayMetrics {
  readonly service: ServiceMetrics;
  readonly workloads: Counter<'kind' | 'dialect' | 'outcome'>;
  readonly timeToFirstByte: Histogram<'kind'>;
}

export function createGatewayMetrics(service: string, build: BuildInfo): GatewayMetrics {
  const metrics = createServiceMetrics(service, build);
  const workloads = new Counter({
    name: 'lunanexa_gateway_workloads_total',
    help: `Workloads that reached a terminal state. kind: ${WORKLOAD_KINDS.join('|')}; outcome: ${workloadLifecycle.terminal.join('|')}.`,
    labelNames: ['kind', 'dialect', 'outcome'] as const,
    registers: [metrics.registry],
  });
  const timeToFirstByte = new Histogram({
    name: 'lunanexa_gateway_time_to_first_byte_seconds',
    help: 'From request receipt to the first byte of generated output sent to the client.',
    labelNames: ['kind'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [metrics.registry],
  });
  return { service: metrics, workloads, timeToFirstByte };
}
