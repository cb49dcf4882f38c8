import type {
  CompatibleHardware,
  NodeInventory,
  NodeLabels,
  NodeLifecycleState,
  Taint,
} from '@lunanexa/contracts';
import { hardwareFit } from './hardware-compatibility';

/**
 * Where a deployment's missing replicas go, and why every other node was
 * passed over. Pure: the placement activity gathers the nodes and writes the
 * plan, so the same plan is what the scheduler did, what the receipt
 * records and what the console shows as the placement reason.
 *
 * A node is eligible when it is Active, not cordoned, has no NoSchedule or
 * NoExecute taint, holds a live lease, matches the node selector (and is the
 * requested node, when one was named), does not already run a replica of the
 * deployment, and its hardware can hold one replica (`hardwareFit`: the
 * version's requirements and its runtime's supported hardware against the
 * inventory, unified memory sized from system memory). Eligible nodes are
 * taken in name order, one replica per node.
 */

export interface PlacementNode {
  readonly id: string;
  readonly name: string;
  readonly lifecycle: NodeLifecycleState;
  readonly cordoned: boolean;
  readonly labels: NodeLabels;
  readonly taints: readonly Taint[];
  readonly leaseExpiresAt: Date | null;
  readonly inventory: NodeInventory;
}

export interface PlacementRequest {
  readonly missingReplicas: number;
  readonly nodeSelector: NodeLabels;
  readonly requestedNodeId: string | null;
  /** Nodes the caller rules out (a drain moving replicas away). */
  readonly excludedNodeIds: ReadonlySet<string>;
  /** Nodes that already run a replica of this deployment. */
  readonly runningOn: ReadonlySet<string>;
  readonly requirements: CompatibleHardware;
  readonly runtimeSupported: CompatibleHardware;
  readonly now: Date;
}

export interface PlacementChoice {
  readonly nodeId: string;
  readonly node: string;
  readonly reason: string;
}

export interface PlacementRejection {
  readonly node: string;
  readonly reasons: readonly string[];
}

export interface PlacementPlan {
  readonly chosen: readonly PlacementChoice[];
  readonly rejected: readonly PlacementRejection[];
  /** Replicas no eligible node was left for. */
  readonly unplaced: number;
}

/** Why `node` may not take a new replica of this deployment; empty when it may. */
export function placementObstacles(node: PlacementNode, request: PlacementRequest): string[] {
  if (request.runningOn.has(node.id)) return ['already runs a replica of this deployment'];
  if (request.excludedNodeIds.has(node.id)) return ['being drained of this deployment'];
  if (request.requestedNodeId !== null && node.id !== request.requestedNodeId) {
    return ['not the node the deployment asked for'];
  }
  const obstacles: string[] = [];
  if (node.lifecycle !== 'Active') obstacles.push(`lifecycle ${node.lifecycle}, not Active`);
  if (node.cordoned) obstacles.push('cordoned');
  for (const taint of node.taints) {
    if (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') {
      obstacles.push(`taint ${taint.key}=${taint.value}:${taint.effect}`);
    }
  }
  if (node.leaseExpiresAt === null || node.leaseExpiresAt.getTime() <= request.now.getTime()) {
    obstacles.push('no live lease (heartbeats stopped)');
  }
  for (const [key, value] of Object.entries(request.nodeSelector)) {
    if (node.labels[key] !== value) {
      obstacles.push(
        node.labels[key] === undefined
          ? `label ${key} missing, the selector wants ${value}`
          : `label ${key}=${node.labels[key]}, the selector wants ${value}`,
      );
    }
  }
  const fit = hardwareFit(request.requirements, request.runtimeSupported, node.inventory);
  obstacles.push(...fit.reasons.map((reason) => `hardware: ${reason}`));
  return obstacles;
}

export function planPlacement(nodes: readonly PlacementNode[], request: PlacementRequest): PlacementPlan {
  const chosen: PlacementChoice[] = [];
  const rejected: PlacementRejection[] = [];
  const byName = [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const node of byName) {
    const obstacles = placementObstacles(node, request);
    if (obstacles.length > 0) {
      rejected.push({ node: node.name, reasons: obstacles });
    } else if (chosen.length < request.missingReplicas) {
      chosen.push({
        nodeId: node.id,
        node: node.name,
        reason:
          request.requestedNodeId === node.id
            ? 'the requested node; eligible and its hardware fits one replica'
            : 'eligible and its hardware fits one replica; first such node by name',
      });
    } else {
      rejected.push({ node: node.name, reasons: ['eligible, but enough replicas were placed'] });
    }
  }
  return { chosen, rejected, unplaced: Math.max(0, request.missingReplicas - chosen.length) };
}

/** One line per passed-over node, for a deployment's state reason when replicas stay unplaced. */
export function describeRejections(rejected: readonly PlacementRejection[]): string {
  if (rejected.length === 0) return 'no node is enrolled';
  return rejected.map(({ node, reasons }) => `${node}: ${reasons.join('; ')}`).join(' | ');
}
