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
