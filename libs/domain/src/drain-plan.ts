import {
  ErrorCode,
  LunaNexaError,
  type CompatibleHardware,
  type FieldViolation,
  type NodeLabels,
  type PlacementStrategy,
} from '@lunanexa/contracts';
import { replicaMemoryDemand } from './hardware-compatibility';
import { describeRejections, planPlacement, type PlacementNode } from './placement';

/**
 * Whether a drain leaves every replica somewhere to go. Before DrainNode
 * starts, the api plans one replacement per replica meant to run on the node
 * with the scheduler's own `planPlacement`, one after another, each placement
 * claiming its memory and replica slot on the chosen node so two replicas are
 * never promised the same room. A drain that would strand a replica (nothing
 * eligible: the fleet is full, cordoned, or the deployment is pinned to the
 * node) is refused unless the operator forces it with a reason.
 */

/** One replica meant to run on the node being drained, with what its deployment asks of a new node. */
export interface DrainReplica {
  readonly deploymentId: string;
  readonly deploymentName: string;
  readonly nodeSelector: NodeLabels;
  readonly requestedNodeId: string | null;
  /** Other nodes that already run a replica of the deployment (one per node). */
  readonly runningOn: ReadonlySet<string>;
  readonly requirements: CompatibleHardware;
  readonly runtimeSupported: CompatibleHardware;
  readonly strategy: PlacementStrategy;
}

export interface DrainMove {
  readonly deploymentId: string;
  readonly deploymentName: string;
  readonly node: string;
}

export interface StrandedReplica {
  readonly deploymentId: string;
  readonly deploymentName: string;
  /** Why no node can take it, one part per passed-over node. */
  readonly reason: string;
}

export interface DrainPlan {
  readonly moves: readonly DrainMove[];
  readonly stranded: readonly StrandedReplica[];
}

/** Deployments are planned in name order, so the same fleet always gives the same answer. */
export function planDrain(
  nodes: readonly PlacementNode[],
  drainingNodeId: string,
  replicas: readonly DrainReplica[],
  now: Date,
): DrainPlan {
  const fleet = new Map(nodes.map((node) => [node.id, node]));
  const excluded = new Set([drainingNodeId]);
  const moves: DrainMove[] = [];
  const stranded: StrandedReplica[] = [];
  const ordered = [...replicas].sort((a, b) =>
    a.deploymentName < b.deploymentName ? -1 : a.deploymentName > b.deploymentName ? 1 : 0,
  );
  for (const replica of ordered) {
    const plan = planPlacement([...fleet.values()], {
      missingReplicas: 1,
      nodeSelector: replica.nodeSelector,
      requestedNodeId: replica.requestedNodeId,
      excludedNodeIds: excluded,
      runningOn: replica.runningOn,
      requirements: replica.requirements,
      runtimeSupported: replica.runtimeSupported,
      now,
      strategy: replica.strategy,
    });
    const choice = plan.chosen[0];
    const target = choice === undefined ? undefined : fleet.get(choice.nodeId);
    if (choice === undefined || target === undefined) {
      stranded.push({
        deploymentId: replica.deploymentId,
        deploymentName: replica.deploymentName,
        reason: describeRejections(plan.rejected),
      });
      continue;
    }
    moves.push({
      deploymentId: replica.deploymentId,
      deploymentName: replica.deploymentName,
      node: choice.node,
    });
    // The replacement's claim counts against the next replica's choice.
    fleet.set(target.id, {
      ...target,
      placedMemoryBytes:
        (target.placedMemoryBytes ?? 0) + replicaMemoryDemand(replica.requirements, replica.runtimeSupported),
      placedReplicas: (target.placedReplicas ?? 0) + 1,
    });
  }
  return { moves, stranded };
}

export interface DrainOverride {
  readonly force: boolean;
  readonly reason: string | null;
}

export type DrainDecision =
  | { readonly allowed: true; readonly forced: boolean; readonly stranded: readonly StrandedReplica[] }
  | { readonly allowed: false; readonly error: LunaNexaError };

/**
 * A drain with a stranded replica is refused (DRAIN_WOULD_STRAND_REPLICAS,
 * one violation per deployment) unless forced with a non-empty reason; a
 * force without a reason is a validation failure, so every forced strand is
 * explained in the audit log. Forcing a drain that strands nothing is not
 * marked forced: nothing was overridden.
 */
export function decideDrain(plan: DrainPlan, override: DrainOverride): DrainDecision {
  const reason = override.reason?.trim() ?? '';
  if (override.force && reason.length === 0) {
    return {
      allowed: false,
      error: new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'reason is required when force is true', [
        { path: 'reason', message: 'must say why replicas may be stranded' },
      ]),
    };
  }
  if (plan.stranded.length === 0) return { allowed: true, forced: false, stranded: [] };
  if (override.force) return { allowed: true, forced: true, stranded: plan.stranded };
  const violations: FieldViolation[] = plan.stranded.map((replica) => ({
    path: `deployments.${replica.deploymentName}`,
    message: `no other node can take its replica: ${replica.reason}`.slice(0, 1000),
  }));
  const names = plan.stranded.map((replica) => replica.deploymentName).join(', ');
  return {
    allowed: false,
    error: new LunaNexaError(
      ErrorCode.DRAIN_WOULD_STRAND_REPLICAS,
      `draining would strand ${plan.stranded.length} replica(s) with nowhere to go (${names}); ` +
        'free capacity, or drain with force and a reason',
      violations,
    ),
  };
}
