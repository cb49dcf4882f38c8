import { graphqlOperation } from '../../shared/graphql/graphql-operation';
import type { Health, PingRecord } from '../../shared/graphql/schema-types';

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
