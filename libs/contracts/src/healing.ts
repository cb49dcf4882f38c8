import type { OperationContext } from './fleet-workflows';

/**
 * Healing: the rules one pass of the Healing workflow evaluates (libs/domain
 * planHealing), their settings, and what a pass (or its dry run) returns.
 * The API, CLI, worker and workflows share this vocabulary.
 */

export const HEALING_RULES = [
  'cordon-gpu-unhealthy-node',
  'cordon-crashing-node',
  'replace-unhealthy-replica',
  'restart-crash-looping-replica',
] as const;
export type HealingRule = (typeof HEALING_RULES)[number];

export const HEALING_ACTION_KINDS = ['CordonNode', 'ReplaceReplica', 'RestartReplica'] as const;
export type HealingActionKind = (typeof HEALING_ACTION_KINDS)[number];

export interface HealingRuleSettings {
  /** Restarts since the last healing restart that make a replica crash-looping. */
  readonly crashLoopRestarts: number;
  /** Consecutive heartbeats reporting a replica Unhealthy before it is re-placed. */
  readonly healthFailureThreshold: number;
  /** Runtime crashes on one node within the window that cordon it … */
  readonly nodeCrashThreshold: number;
  readonly nodeCrashWindowSeconds: number;
  /** … when they come from at least this many distinct replicas. */
  readonly nodeCrashMinReplicas: number;
  readonly maxActionsPerPass: number;
  /** A target healing acted on is left alone this long. */
  readonly cooldownSeconds: number;
}

export interface HealingActionRecord {
  readonly rule: HealingRule;
  readonly kind: HealingActionKind;
  /** Node id for CordonNode, assignment id otherwise. */
  readonly target: string;
  readonly nodeId: string;
  readonly deploymentId: string | null;
  readonly reason: string;
  readonly evidence: Readonly<Record<string, unknown>>;
}

export interface HealingSkipRecord {
  readonly rule: HealingRule;
  readonly target: string;
  readonly reason: string;
}

export interface HealingWorkflowInput extends OperationContext {
  readonly settings: HealingRuleSettings;
}

export interface HealingAppliedAction extends HealingActionRecord {
  /** `applied`, or why it could not be (e.g. the deployment's workflow is not running). */
  readonly outcome: string;
  readonly receiptHash: string;
}

export interface HealingWorkflowResult {
  readonly actions: readonly HealingAppliedAction[];
  readonly skipped: readonly HealingSkipRecord[];
}

/** The standing healing loop the worker keeps running; its fixed id. */
export const HEALING_LOOP_WORKFLOW_ID = 'healingLoop/standing-loop';

export interface HealingLoopWorkflowInput extends OperationContext {
  readonly settings: HealingRuleSettings;
  readonly intervalSeconds: number;
  /** Passes so far across continue-as-new; with maxPasses, lets a test run a bounded loop. */
  readonly passesSoFar?: number;
  readonly maxPasses?: number;
}

export interface HealingLoopWorkflowResult {
  readonly passes: number;
  readonly actions: number;
}

/** DeploymentWorkflow signal: stop the replica at a new generation, then run it again at the next. */
export interface RestartReplicaSignal {
  readonly assignmentId: string;
  readonly nodeId: string;
  readonly actor: string;
  readonly correlationId: string;
}
