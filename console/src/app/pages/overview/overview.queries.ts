import { graphqlOperation } from '../../shared/graphql/graphql-operation';
import type { Health, PingRecord } from '../../shared/graphql/schema-types';
import type {
  AuditEvent,
  Deployment,
  TrafficBucket,
  TrafficReport,
  WorkflowAlert,
} from '../../shared/graphql/schema-types.generated';

export const SYSTEM_HEALTH = graphqlOperation<{ readonly health: Health }>(`
  query ConsoleSystemHealth {
    health {
      status
      version
      commit
      checks { name status detail latencyMs }
    }
  }
`);

export const RECENT_SYSTEM_CHECKS = graphqlOperation<
  { readonly recentPings: readonly PingRecord[] },
  { readonly limit: number }
>(`
  query ConsoleRecentSystemChecks($limit: Int!) {
    recentPings(limit: $limit) {
      id
      workflowId
      message
      actor
      correlationId
      createdAt
      temporalUiUrl
    }
  }
`);

/** What the Overview reads of each node: enough for counts, GPU memory and alerts, not the detail. */
export interface OverviewNode {
  readonly id: string;
  readonly name: string;
  readonly lifecycle: string;
  readonly readiness: string;
  readonly heartbeatAgeSeconds: number | null;
  readonly gpus: readonly {
    readonly memoryModel: string;
    readonly memorySource: string;
    readonly totalMemoryBytes: number | null;
    readonly freeMemoryBytes: number | null;
  }[];
}

export const FLEET_CAPACITY = graphqlOperation<{ readonly nodes: readonly OverviewNode[] }>(`
  query ConsoleFleetCapacity {
    nodes {
      id
      name
      lifecycle
      readiness
      heartbeatAgeSeconds
      gpus { memoryModel memorySource totalMemoryBytes freeMemoryBytes }
    }
  }
`);

/** The Traffic card's read of the gateway's request records: the rate per bucket and what is queued now. */
export interface OverviewTraffic extends Pick<TrafficReport, 'bucketSeconds' | 'inFlightNow'> {
  readonly buckets: readonly Pick<TrafficBucket, 'start' | 'requests' | 'requestsPerSecond'>[];
  readonly totals: Pick<TrafficBucket, 'requests' | 'errors'>;
}

export const OVERVIEW_TRAFFIC = graphqlOperation<
  { readonly traffic: OverviewTraffic },
  { readonly windowMinutes: number; readonly bucketSeconds: number }
>(`
  query ConsoleOverviewTraffic($windowMinutes: Int!, $bucketSeconds: Int!) {
    traffic(windowMinutes: $windowMinutes, bucketSeconds: $bucketSeconds) {
      bucketSeconds
      inFlightNow
      buckets { start requests requestsPerSecond }
      totals { requests errors }
    }
  }
`);

export type OverviewDeployment = Pick<
  Deployment,
  'id' | 'name' | 'modelRef' | 'state' | 'readyReplicas' | 'desiredReplicas'
>;

export const OVERVIEW_DEPLOYMENTS = graphqlOperation<{
  readonly deployments: readonly OverviewDeployment[];
}>(`
  query ConsoleOverviewDeployments {
    deployments { id name modelRef state readyReplicas desiredReplicas }
  }
`);

export const WORKFLOW_ALERTS = graphqlOperation<
  { readonly workflowAlerts: readonly WorkflowAlert[] },
  { readonly hours: number; readonly limit: number }
>(`
  query ConsoleWorkflowAlerts($hours: Int!, $limit: Int!) {
    workflowAlerts(hours: $hours, limit: $limit) {
      workflowId
      runId
      workflowType
      status
      closedAt
      temporalUiUrl
    }
  }
`);

export type RecentChange = Pick<
  AuditEvent,
  'seq' | 'occurredAt' | 'actor' | 'action' | 'decision' | 'result'
>;

export const RECENT_CHANGES = graphqlOperation<
  { readonly auditEvents: { readonly events: readonly RecentChange[] } },
  { readonly first: number }
>(`
  query ConsoleRecentChanges($first: Int!) {
    auditEvents(first: $first) {
      events { seq occurredAt actor action decision result }
    }
  }
`);

/** The alias and tenant `npm start` prepares on a fresh data directory (scripts/lib/demo.mjs). */
export const DEMO_ALIAS = 'demo-chat';
export const DEMO_TENANT = 'demo';

/** Whether the launcher's demo is ready to call, and where the gateway answers. */
export const TRY_IT = graphqlOperation<{
  readonly gatewayEndpoint: string;
  readonly alias: { readonly currentRevision: number } | null;
  readonly tenant: { readonly id: string } | null;
}>(`
  query ConsoleTryIt {
    gatewayEndpoint
    alias(alias: "${DEMO_ALIAS}") { currentRevision }
    tenant(id: "${DEMO_TENANT}") { id }
  }
`);
