import {
  ConsoleFleetCapacityDocument,
  ConsoleOverviewDeploymentsDocument,
  ConsoleOverviewTrafficDocument,
  ConsoleRecentChangesDocument,
  ConsoleRecentSystemChecksDocument,
  ConsoleSystemHealthDocument,
  ConsoleWorkflowAlertsDocument,
  type ConsoleFleetCapacityQuery,
  type ConsoleOverviewDeploymentsQuery,
  type ConsoleOverviewTrafficQuery,
  type ConsoleRecentChangesQuery,
} from '@lunanexa/sdk/generated/operations';

/* The Overview's operations (libs/sdk/graphql/console/overview.graphql); result types are generated from each selection. */

export const SYSTEM_HEALTH = ConsoleSystemHealthDocument;
export const RECENT_SYSTEM_CHECKS = ConsoleRecentSystemChecksDocument;

/** What the Overview reads of each node: enough for counts, GPU memory and alerts, not the detail. */
export type OverviewNode = ConsoleFleetCapacityQuery['nodes'][number];
export const FLEET_CAPACITY = ConsoleFleetCapacityDocument;

/** The Traffic card's read of the gateway's request records: the rate per bucket and what is queued now. */
export type OverviewTraffic = ConsoleOverviewTrafficQuery['traffic'];
export const OVERVIEW_TRAFFIC = ConsoleOverviewTrafficDocument;

export type OverviewDeployment = ConsoleOverviewDeploymentsQuery['deployments'][number];
export const OVERVIEW_DEPLOYMENTS = ConsoleOverviewDeploymentsDocument;

export const WORKFLOW_ALERTS = ConsoleWorkflowAlertsDocument;

export type RecentChange = ConsoleRecentChangesQuery['auditEvents']['events'][number];
export const RECENT_CHANGES = ConsoleRecentChangesDocument;
