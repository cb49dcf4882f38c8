import { WORKLOAD_KINDS } from '@lunanexa/contracts';
import { workloadLifecycle } from '@lunanexa/domain';
import { createServiceMetrics, type BuildInfo, type ServiceMetrics } from '@lunanexa/observability';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { AdmissionController } from './admission';
import { AUTH_REFUSAL_REASONS } from './callers';

/**
 * The process's HTTP metrics plus the data-plane ones. Label values come from
 * closed vocabularies (workload kinds, terminal workload states, the two
 * dialects, refusal reasons) or from the fleet's own deployment ids — never
 * from what a client sends — so cardinality stays bounded.
 */
export interface GatewayMetrics {
  readonly service: ServiceMetrics;
  readonly workloads: Counter<'kind' | 'dialect' | 'outcome'>;
  readonly timeToFirstByte: Histogram<'kind'>;
  readonly authRefusals: Counter<'reason'>;
  readonly quotaRefusals: Counter<'limit'>;
  readonly capacityRefusals: Counter<'reason'>;
  /** Exports queue depth and running requests per deployment from the admission controller. */
  observeAdmission(admission: AdmissionController): void;
}

const QUOTA_LIMITS = ['requestsPerMinute', 'tokensPerMinute', 'maxConcurrentRequests'] as const;
const CAPACITY_REASONS = ['queue-full', 'queue-timeout', 'shed', 'no-ready-replica'] as const;

export function createGatewayMetrics(service: string, build: BuildInfo): GatewayMetrics {
  const metrics = createServiceMetrics(service, build);
  const registers = [metrics.registry];
  const workloads = new Counter({
    name: 'lunanexa_gateway_workloads_total',
    help: `Workloads that reached a terminal state. kind: ${WORKLOAD_KINDS.join('|')}; outcome: ${workloadLifecycle.terminal.join('|')}.`,
    labelNames: ['kind', 'dialect', 'outcome'] as const,
    registers,
  });
  const timeToFirstByte = new Histogram({
    name: 'lunanexa_gateway_time_to_first_byte_seconds',
    help: 'From request receipt to the first byte of generated output sent to the client.',
    labelNames: ['kind'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers,
  });
  const authRefusals = new Counter({
    name: 'lunanexa_gateway_auth_refusals_total',
    help: 'Calls to /v1 refused before anything else was read: no, malformed, unknown, expired or revoked credential, a role that may not call, a key used for another tenant.',
    labelNames: ['reason'] as const,
    registers,
  });
  const quotaRefusals = new Counter({
    name: 'lunanexa_gateway_quota_refusals_total',
    help: 'Requests refused with QUOTA_EXCEEDED (429), by the tenant limit that refused them.',
    labelNames: ['limit'] as const,
    registers,
  });
  const capacityRefusals = new Counter({
    name: 'lunanexa_gateway_capacity_refusals_total',
    help: 'Requests refused with NO_CAPACITY (503): queue full, no room within the longest queue wait, or shed for a more urgent request.',
    labelNames: ['reason'] as const,
    registers,
  });
  for (const reason of AUTH_REFUSAL_REASONS) authRefusals.inc({ reason }, 0);
  for (const limit of QUOTA_LIMITS) quotaRefusals.inc({ limit }, 0);
  for (const reason of CAPACITY_REASONS) capacityRefusals.inc({ reason }, 0);

  let admission: AdmissionController | undefined;
  const perDeployment = (pick: 'queued' | 'inFlight' | 'capacity'): Map<string, number> => {
    const totals = new Map<string, number>();
    for (const group of admission?.snapshot() ?? [])
      totals.set(group.deploymentId, (totals.get(group.deploymentId) ?? 0) + group[pick]);
    return totals;
  };
  new Gauge({
    name: 'lunanexa_gateway_queue_depth',
    help: 'Requests waiting for a replica slot in this gateway, per deployment (bounded by replicas × queue per replica).',
    labelNames: ['deployment'] as const,
    registers,
    collect() {
      // Reset so a deployment that went idle reads as gone rather than stuck at its last value.
      this.reset();
      for (const [deployment, value] of perDeployment('queued')) this.set({ deployment }, value);
    },
  });
  new Gauge({
    name: 'lunanexa_gateway_in_flight',
    help: 'Requests this gateway is running on a replica now, per deployment.',
    labelNames: ['deployment'] as const,
    registers,
    collect() {
      this.reset();
      for (const [deployment, value] of perDeployment('inFlight')) this.set({ deployment }, value);
    },
  });
  return {
    service: metrics,
    workloads,
    timeToFirstByte,
    authRefusals,
    quotaRefusals,
    capacityRefusals,
    observeAdmission(controller: AdmissionController): void {
      admission = controller;
    },
  };
}
