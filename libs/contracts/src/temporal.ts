/**
 * Temporal names shared by the API (which starts workflows), the worker (which
 * hosts them) and the launcher (which registers the namespace and search
 * attributes). One copy, here.
 */
export const DEFAULT_TEMPORAL_NAMESPACE = 'lunanexa';
export const CONTROL_TASK_QUEUE = 'lunanexa-control';

/** Custom search attributes LunaNexa writes on its workflows (all Keyword). */
export const SEARCH_ATTRIBUTES = {
  nodeId: 'LunaNexaNodeId',
  alias: 'LunaNexaAlias',
  correlationId: 'LunaNexaCorrelationId',
  actor: 'LunaNexaActor',
} as const;

export type SearchAttributeName = (typeof SEARCH_ATTRIBUTES)[keyof typeof SEARCH_ATTRIBUTES];

export const WORKFLOW_TYPES = {
  ping: 'pingWorkflow',
  enrollNode: 'enrollNodeWorkflow',
  rotateNodeCredential: 'rotateNodeCredentialWorkflow',
  drainNode: 'drainNodeWorkflow',
  deployment: 'deploymentWorkflow',
  rollout: 'rolloutWorkflow',
  retentionExpiry: 'retentionExpiryWorkflow',
  verifyModelVersion: 'verifyModelVersionWorkflow',
  evaluate: 'evaluateWorkflow',
  benchmarkRun: 'benchmarkRunWorkflow',
  nodeLeaseWatch: 'nodeLeaseWatchWorkflow',
  nodeRecovery: 'nodeRecoveryWorkflow',
  healing: 'healingWorkflow',
  healingLoop: 'healingLoopWorkflow',
  reconcile: 'reconcileFleetWorkflow',
  rotateControllerKey: 'rotateControllerKeyWorkflow',
} as const;

/** Workflow ids derive from the operation and its idempotency key. */
export function workflowIdFor(operation: keyof typeof WORKFLOW_TYPES, idempotencyKey: string): string {
  return `${operation}/${idempotencyKey}`;
}

// The ping system check's workflow contract lives beside the other Temporal names.
export * from './system';
export * from './fleet-workflows';
