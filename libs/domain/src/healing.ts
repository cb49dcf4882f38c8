import type {
  HealingActionRecord,
  HealingRuleSettings,
  HealingSkipRecord,
  NodeCondition,
  NodeLifecycleState,
} from '@lunanexa/contracts';

/**
 * Healing rules: which corrective actions one pass of the Healing workflow
 * (or its dry run) takes, and why. Pure and deterministic: the activity
 * loads a HealingView, this decides, the workflow applies. Every replica and
 * node the rules looked at gets a verdict — an action, or the reason why not.
 *
 * Rules, in the order they claim a target:
 *  1. `cordon-gpu-unhealthy-node` — the node's GpuHealthy condition is False
 *     (a GPU lost or missing, uncorrected ECC errors, a GPU Xid, sustained
 *     thermal throttling; node-conditions.ts) → cordon it (no new replica
 *     lands on a faulty GPU) and move its replicas make-before-break, each
 *     serving until its replacement is Ready; one with nowhere to go stays.
 *  2. `cordon-crashing-node` — runtimes on one node crashed at least
 *     `nodeCrashThreshold` times within `nodeCrashWindowSeconds`, across at
 *     least `nodeCrashMinReplicas` distinct replicas (one bad model is the
 *     replica's problem, several crashing models is the node's) → cordon it.
 *  3. `replace-unhealthy-replica` — a replica reported Unhealthy in at least
 *     `healthFailureThreshold` consecutive heartbeats → re-place it (the
 *     deployment evacuates that node: replacement first, then stop).
 *  4. `restart-crash-looping-replica` — a replica's runtime restarted at
 *     least `crashLoopRestarts` times since its last healing restart → restart
 *     it (stop at a new generation, run again at the next).
 *
 * Bounds: at most `maxActionsPerPass` actions; nothing on a node that is not
 * Active with a live lease (Lost / being recovered, draining, unreachable);
 * never cordon the last schedulable node; a target acted on within
 * `cooldownSeconds` is left alone; one action per replica and per node (a
 * cordoned node's replicas are not also restarted in the same pass).
 */

/** Documented in docs/OPERATIONS.md (LUNANEXA_HEAL_* variables). */
export const DEFAULT_HEALING_RULES: HealingRuleSettings = {
  crashLoopRestarts: 3,
  healthFailureThreshold: 6,
  nodeCrashThreshold: 5,
  nodeCrashWindowSeconds: 600,
  nodeCrashMinReplicas: 2,
  maxActionsPerPass: 3,
  cooldownSeconds: 300,
};

/** Why settings are unusable (empty when they are fine): each must be a whole number in its range. */
export function healingRuleViolations(settings: HealingRuleSettings): string[] {
  const ranges: Record<keyof HealingRuleSettings, readonly [number, number]> = {
    crashLoopRestarts: [1, 1000],
    healthFailureThreshold: [1, 1000],
    nodeCrashThreshold: [1, 10_000],
    nodeCrashWindowSeconds: [10, 7 * 24 * 3600],
    nodeCrashMinReplicas: [1, 1000],
    maxActionsPerPass: [0, 100],
    cooldownSeconds: [0, 7 * 24 * 3600],
  };
  const violations: string[] = [];
  for (const [name, [min, max]] of Object.entries(ranges) as [
    keyof HealingRuleSettings,
    [number, number],
  ][]) {
    const value = settings[name];
    if (!Number.isInteger(value) || value < min || value > max)
      violations.push(`${name} must be a whole number from ${min} to ${max}, got ${String(value)}`);
  }
  return violations;
}

export interface HealingNodeView {
  readonly nodeId: string;
  readonly nodeName: string;
  readonly lifecycle: NodeLifecycleState;
  readonly cordoned: boolean;
  readonly leaseExpiresAt: Date | null;
  /** Runtime crashes seen in heartbeats (restart counter increases) within the crash window, per assignment. */
  readonly recentCrashes: Readonly<Record<string, number>>;
  /** When healing last acted on this node; null if never. */
  readonly lastHealedAt: Date | null;
  /** The node's conditions as heartbeats last set them (node-conditions.ts); absent when not known. */
  readonly conditions?: readonly NodeCondition[];
}

export interface HealingReplicaView {
  readonly assignmentId: string;
  readonly deploymentId: string;
  readonly deploymentName: string;
  readonly nodeId: string;
  readonly generation: number;
  readonly observedGeneration: number | null;
  readonly observedState: string | null;
  /** The agent's restart counter for this replica, as last reported. */
  readonly restarts: number;
  /** The counter's value when healing last restarted it (0 if never). */
  readonly restartsBaseline: number;
  /** Consecutive heartbeats that reported the replica Unhealthy. */
  readonly healthFailures: number;
  readonly lastHealedAt: Date | null;
}

export interface HealingView {
  readonly nodes: readonly HealingNodeView[];
  /** Replicas meant to run (intent Run) of deployments that are not stopping. */
  readonly replicas: readonly HealingReplicaView[];
}

export type HealingAction = HealingActionRecord;
export type HealingSkip = HealingSkipRecord;

export interface HealingPlan {
  readonly actions: HealingAction[];
  readonly skipped: HealingSkip[];
  readonly settings: HealingRuleSettings;
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function schedulable(node: HealingNodeView, nowMs: number): boolean {
  return (
    node.lifecycle === 'Active' &&
    !node.cordoned &&
    node.leaseExpiresAt !== null &&
    node.leaseExpiresAt.getTime() > nowMs
  );
}

/** Why healing must not touch this node now, or null if it may. */
function nodeOffLimits(node: HealingNodeView | undefined, nowMs: number): string | null {
  if (node === undefined) return 'its node is unknown';
  if (node.lifecycle !== 'Active') return `node ${node.nodeName} is ${node.lifecycle}`;
  if (node.leaseExpiresAt === null || node.leaseExpiresAt.getTime() <= nowMs)
    return `node ${node.nodeName} has no live lease (unreachable or being recovered)`;
  return null;
}

function coolingDown(lastHealedAt: Date | null, nowMs: number, cooldownSeconds: number): boolean {
  return lastHealedAt !== null && nowMs - lastHealedAt.getTime() < cooldownSeconds * 1000;
}

/** One healing pass: every matching candidate becomes an action or a skip with its reason. */
export function planHealing(view: HealingView, now: Date, settings: HealingRuleSettings): HealingPlan {
  const nowMs = now.getTime();
  const nodes = [...view.nodes].sort((a, b) => byText(a.nodeId, b.nodeId));
  const nodesById = new Map(nodes.map((node) => [node.nodeId, node]));
  const replicas = [...view.replicas].sort((a, b) => byText(a.assignmentId, b.assignmentId));
  const candidates: HealingAction[] = [];
  const skipped: HealingSkip[] = [];

  for (const node of nodes) {
    const gpu = node.conditions?.find((condition) => condition.type === 'GpuHealthy');
    if (gpu?.status !== 'False') continue;
    candidates.push({
      rule: 'cordon-gpu-unhealthy-node',
      kind: 'CordonNode',
      target: node.nodeId,
      nodeId: node.nodeId,
      deploymentId: null,
      reason:
        `GPU unhealthy on ${node.nodeName} since ${gpu.lastTransitionAt}: ${gpu.reason}` +
        `${gpu.message === undefined ? '' : ` (${gpu.message})`}; cordon it so no new replica lands there ` +
        `and move its replicas (each serves until its replacement is Ready; one with nowhere to go stays)`,
      evidence: {
        nodeName: node.nodeName,
        condition: 'GpuHealthy',
        status: gpu.status,
        conditionReason: gpu.reason,
        message: gpu.message ?? null,
        since: gpu.lastTransitionAt,
      },
    });
  }
  for (const node of nodes) {
    const crashes = Object.entries(node.recentCrashes).filter(([, count]) => count > 0);
    const total = crashes.reduce((sum, [, count]) => sum + count, 0);
    if (total < settings.nodeCrashThreshold || crashes.length < settings.nodeCrashMinReplicas) continue;
    candidates.push({
      rule: 'cordon-crashing-node',
      kind: 'CordonNode',
      target: node.nodeId,
      nodeId: node.nodeId,
      deploymentId: null,
      reason:
        `${total} runtime crashes on ${node.nodeName} across ${crashes.length} replicas within ` +
        `${settings.nodeCrashWindowSeconds} s (threshold ${settings.nodeCrashThreshold} across ${settings.nodeCrashMinReplicas})`,
      evidence: {
        nodeName: node.nodeName,
        crashes: total,
        crashesByAssignment: Object.fromEntries(crashes.sort(([a], [b]) => byText(a, b))),
        windowSeconds: settings.nodeCrashWindowSeconds,
        threshold: settings.nodeCrashThreshold,
        minReplicas: settings.nodeCrashMinReplicas,
      },
    });
  }
  for (const replica of replicas) {
    if (replica.healthFailures < settings.healthFailureThreshold) continue;
    candidates.push({
      rule: 'replace-unhealthy-replica',
      kind: 'ReplaceReplica',
      target: replica.assignmentId,
      nodeId: replica.nodeId,
      deploymentId: replica.deploymentId,
      reason:
        `replica of ${replica.deploymentName} reported Unhealthy in ${replica.healthFailures} consecutive heartbeats ` +
        `(threshold ${settings.healthFailureThreshold})`,
      evidence: {
        deploymentName: replica.deploymentName,
        healthFailures: replica.healthFailures,
        threshold: settings.healthFailureThreshold,
        observedState: replica.observedState,
        generation: replica.generation,
      },
    });
  }
  for (const replica of replicas) {
    const sinceHeal = replica.restarts - replica.restartsBaseline;
    if (sinceHeal < settings.crashLoopRestarts) continue;
    candidates.push({
      rule: 'restart-crash-looping-replica',
      kind: 'RestartReplica',
      target: replica.assignmentId,
      nodeId: replica.nodeId,
      deploymentId: replica.deploymentId,
      reason:
        `replica of ${replica.deploymentName} restarted ${sinceHeal} times since its last healing restart ` +
        `(threshold ${settings.crashLoopRestarts}); last state ${replica.observedState ?? 'unknown'}`,
      evidence: {
        deploymentName: replica.deploymentName,
        restarts: replica.restarts,
        restartsBaseline: replica.restartsBaseline,
        threshold: settings.crashLoopRestarts,
        observedState: replica.observedState,
        generation: replica.generation,
      },
    });
  }

  const actions: HealingAction[] = [];
  const claimedNodes = new Set<string>();
  const claimedReplicas = new Set<string>();
  let schedulableNodes = nodes.filter((node) => schedulable(node, nowMs)).length;
  const replicasById = new Map(replicas.map((replica) => [replica.assignmentId, replica]));

  for (const candidate of candidates) {
    const skip = (reason: string) => skipped.push({ rule: candidate.rule, target: candidate.target, reason });
    const node = nodesById.get(candidate.nodeId);
    const offLimits = nodeOffLimits(node, nowMs);
    if (offLimits !== null) {
      skip(offLimits);
      continue;
    }
    const live = node as HealingNodeView;
    if (candidate.kind === 'CordonNode') {
      if (claimedNodes.has(candidate.nodeId)) {
        skip(`node ${live.nodeName} is being cordoned in this pass`);
        continue;
      }
      if (live.cordoned) {
        skip(`node ${live.nodeName} is already cordoned`);
        continue;
      }
      if (coolingDown(live.lastHealedAt, nowMs, settings.cooldownSeconds)) {
        skip(`healing acted on node ${live.nodeName} within the last ${settings.cooldownSeconds} s`);
        continue;
      }
      if (schedulableNodes <= 1) {
        skip(`node ${live.nodeName} is the last schedulable node; cordoning it would leave nowhere to place`);
        continue;
      }
    } else {
      const replica = replicasById.get(candidate.target) as HealingReplicaView;
      if (claimedNodes.has(candidate.nodeId)) {
        skip(`node ${live.nodeName} is being cordoned in this pass`);
        continue;
      }
      if (claimedReplicas.has(candidate.target)) {
        skip('another rule already acts on this replica in this pass');
        continue;
      }
      if (coolingDown(replica.lastHealedAt, nowMs, settings.cooldownSeconds)) {
        skip(`healing acted on this replica within the last ${settings.cooldownSeconds} s`);
        continue;
      }
    }
    if (actions.length >= settings.maxActionsPerPass) {
      skip(`at most ${settings.maxActionsPerPass} actions per pass`);
      continue;
    }
    actions.push(candidate);
    if (candidate.kind === 'CordonNode') {
      claimedNodes.add(candidate.nodeId);
      if (schedulable(live, nowMs)) schedulableNodes -= 1;
    } else {
      claimedReplicas.add(candidate.target);
    }
  }
  return { actions, skipped, settings };
}

/** The workflow id of one healing pass: a repeated request with the same key returns the same run. */
export function healingWorkflowId(idempotencyKey: string): string {
  return `healing/${idempotencyKey}`;
}

/** The environment variables that set each rule (worker and API read the same ones; docs/OPERATIONS.md). */
export const HEALING_RULE_VARIABLES: Readonly<Record<keyof HealingRuleSettings, string>> = {
  crashLoopRestarts: 'LUNANEXA_HEAL_CRASH_LOOP_RESTARTS',
  healthFailureThreshold: 'LUNANEXA_HEAL_HEALTH_FAILURES',
  nodeCrashThreshold: 'LUNANEXA_HEAL_NODE_CRASHES',
  nodeCrashWindowSeconds: 'LUNANEXA_HEAL_NODE_CRASH_WINDOW_SECONDS',
  nodeCrashMinReplicas: 'LUNANEXA_HEAL_NODE_CRASH_MIN_REPLICAS',
  maxActionsPerPass: 'LUNANEXA_HEAL_MAX_ACTIONS_PER_PASS',
  cooldownSeconds: 'LUNANEXA_HEAL_COOLDOWN_SECONDS',
};

/**
 * The rules' settings from an environment: the defaults, overridden by the
 * LUNANEXA_HEAL_* variables that are set; every bad value named with its
 * variable (the caller fails at boot).
 */
export function healingRulesFromEnv(env: Readonly<Record<string, string | undefined>>): {
  settings: HealingRuleSettings;
  problems: { variable: string; message: string }[];
} {
  const settings: Record<string, number> = { ...DEFAULT_HEALING_RULES };
  const problems: { variable: string; message: string }[] = [];
  for (const [name, variable] of Object.entries(HEALING_RULE_VARIABLES)) {
    const raw = env[variable];
    if (raw === undefined || raw.trim() === '') continue;
    settings[name] = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  }
  const parsed = settings as unknown as HealingRuleSettings;
  for (const violation of healingRuleViolations(parsed)) {
    const name = violation.split(' ')[0] as keyof HealingRuleSettings;
    problems.push({ variable: HEALING_RULE_VARIABLES[name], message: violation });
  }
  return { settings: parsed, problems };
}
