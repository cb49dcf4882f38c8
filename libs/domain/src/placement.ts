import type {
  CompatibleHardware,
  NodeInventory,
  NodeLabels,
  NodeLifecycleState,
  PlacementStrategy,
  Taint,
} from '@lunanexa/contracts';
import { formatGiB, hardwareFit, nodeMemoryCapacity, replicaMemoryDemand } from './hardware-compatibility';

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
 * inventory, unified memory sized from system memory), and the memory the
 * replicas already placed there claim (every deployment's) leaves room for
 * one more. Eligible nodes are ranked by the deployment's strategy — Spread:
 * least memory claimed after placing first; Binpack: most claimed first —
 * ties by name; one replica per node. Every node gets its explanation.
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
  /** Memory the replicas meant to run on the node claim (every deployment); 0 when none. */
  readonly placedMemoryBytes?: number;
  /** How many replicas are meant to run on the node. */
  readonly placedReplicas?: number;
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
  /** Default Spread. */
  readonly strategy?: PlacementStrategy;
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

/**
 * The fleet as the scheduler keeps it between decisions: nodes in name
 * order, what does not depend on the request (lifecycle, cordon, taints,
 * memory capacity and claim, an inventory fingerprint) worked out once.
 * A decision then costs a few comparisons per node; the hardware check runs
 * once per distinct inventory, not once per node.
 */
export interface PreparedFleet {
  readonly nodes: readonly PreparedNode[];
}

interface PreparedNode {
  readonly node: PlacementNode;
  /** Reasons that hold whatever is asked (lifecycle, cordon, NoSchedule/NoExecute taints). */
  readonly standing: readonly string[];
  readonly capacity: number;
  readonly claimed: number;
  readonly hardwareKey: string;
}

function byName(a: PlacementNode, b: PlacementNode): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export function prepareFleet(nodes: readonly PlacementNode[]): PreparedFleet {
  const fingerprints = new Map<NodeInventory, string>();
  return {
    nodes: [...nodes].sort(byName).map((node) => {
      const standing: string[] = [];
      if (node.lifecycle !== 'Active') standing.push(`lifecycle ${node.lifecycle}, not Active`);
      if (node.cordoned) standing.push('cordoned');
      for (const taint of node.taints) {
        if (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') {
          standing.push(`taint ${taint.key}=${taint.value}:${taint.effect}`);
        }
      }
      let hardwareKey = fingerprints.get(node.inventory);
      if (hardwareKey === undefined) {
        const { architecture, gpus, systemMemory } = node.inventory;
        hardwareKey = JSON.stringify([architecture, gpus, systemMemory.totalBytes]);
        fingerprints.set(node.inventory, hardwareKey);
      }
      return {
        node,
        standing,
        capacity: nodeMemoryCapacity(node.inventory),
        claimed: node.placedMemoryBytes ?? 0,
        hardwareKey,
      };
    }),
  };
}

/** Per decision: the hardware verdict for each distinct inventory, computed on first sight. */
type FitCache = Map<string, readonly string[]>;

function obstaclesOf(
  prepared: PreparedNode,
  request: PlacementRequest,
  demand: number,
  fits: FitCache,
): readonly string[] {
  const { node } = prepared;
  if (request.runningOn.has(node.id)) return ALREADY_RUNS;
  if (request.excludedNodeIds.has(node.id)) return BEING_DRAINED;
  if (request.requestedNodeId !== null && node.id !== request.requestedNodeId) return NOT_REQUESTED;
  let obstacles: string[] | null = prepared.standing.length > 0 ? [...prepared.standing] : null;
  const add = (reason: string) => {
    (obstacles ??= []).push(reason);
  };
  if (node.leaseExpiresAt === null || node.leaseExpiresAt.getTime() <= request.now.getTime()) {
    add('no live lease (heartbeats stopped)');
  }
  for (const key in request.nodeSelector) {
    const value = request.nodeSelector[key];
    if (node.labels[key] !== value) {
      add(
        node.labels[key] === undefined
          ? `label ${key} missing, the selector wants ${value}`
          : `label ${key}=${node.labels[key]}, the selector wants ${value}`,
      );
    }
  }
  let hardware = fits.get(prepared.hardwareKey);
  if (hardware === undefined) {
    hardware = hardwareFit(request.requirements, request.runtimeSupported, node.inventory).reasons.map(
      (reason) => `hardware: ${reason}`,
    );
    fits.set(prepared.hardwareKey, hardware);
  }
  if (hardware.length > 0) for (const reason of hardware) add(reason);
  else if (demand > 0 && prepared.claimed + demand > prepared.capacity) {
    add(
      `memory: ${formatGiB(Math.max(0, prepared.capacity - prepared.claimed))} free of ${formatGiB(prepared.capacity)} with ${node.placedReplicas ?? 0} replica(s) placed, the replica needs ${formatGiB(demand)}`,
    );
  }
  return obstacles ?? NONE;
}

const NONE: readonly string[] = [];
const ALREADY_RUNS: readonly string[] = ['already runs a replica of this deployment'];
const BEING_DRAINED: readonly string[] = ['being drained of this deployment'];
const NOT_REQUESTED: readonly string[] = ['not the node the deployment asked for'];

/** Why `node` may not take a new replica of this deployment; empty when it may. */
export function placementObstacles(node: PlacementNode, request: PlacementRequest): string[] {
  const [prepared] = prepareFleet([node]).nodes;
  const demand = replicaMemoryDemand(request.requirements, request.runtimeSupported);
  return [...obstaclesOf(prepared, request, demand, new Map())];
}

/** The share of the node's memory claimed once the replica is placed: Spread takes the lowest, Binpack the highest. */
function utilisation(claimed: number, capacity: number): number {
  return capacity > 0 ? claimed / capacity : 1;
}

export function planPlacement(nodes: readonly PlacementNode[], request: PlacementRequest): PlacementPlan {
  return planOnFleet(prepareFleet(nodes), request);
}

/**
 * One decision on a prepared fleet. Hard filters first (every rejected node
 * keeps its reasons), then the deployment's strategy picks the best
 * `missingReplicas` eligible nodes by score, ties by name; an eligible node
 * not taken says so. The chosen ones carry their score and memory figures.
 */
export function planOnFleet(fleet: PreparedFleet, request: PlacementRequest): PlacementPlan {
  const strategy = request.strategy ?? 'Spread';
  const demand = replicaMemoryDemand(request.requirements, request.runtimeSupported);
  const fits: FitCache = new Map();
  const verdicts: (readonly string[] | number)[] = [];
  // The best `missingReplicas` eligible nodes, kept in score order (a short insertion list, not a sort of all).
  const best: { index: number; score: number }[] = [];
  const better = (a: number, b: number) => (strategy === 'Spread' ? a < b : a > b);
  let eligible = 0;
  fleet.nodes.forEach((prepared, index) => {
    const obstacles = obstaclesOf(prepared, request, demand, fits);
    if (obstacles.length > 0) {
      verdicts.push(obstacles);
      return;
    }
    eligible += 1;
    const score = utilisation(prepared.claimed + demand, prepared.capacity);
    verdicts.push(score);
    if (request.missingReplicas <= 0) return;
    // Nodes arrive in name order, so an equal score never displaces an earlier name.
    let at = best.length;
    while (at > 0 && better(score, (best[at - 1] as { score: number }).score)) at -= 1;
    if (at < request.missingReplicas) {
      best.splice(at, 0, { index, score });
      if (best.length > request.missingReplicas) best.pop();
    }
  });
  const chosenIndexes = new Set(best.map((entry) => entry.index));
  const chosen: PlacementChoice[] = best.map(({ index, score }, rank) => {
    const prepared = fleet.nodes[index];
    const { node } = prepared;
    const standing = `${strategy} rank ${rank + 1} of ${eligible} eligible: ${(score * 100).toFixed(1)} % of memory claimed after placing (${formatGiB(prepared.claimed + demand)} of ${formatGiB(prepared.capacity)}, ${node.placedReplicas ?? 0} replica(s) there before)`;
    return {
      nodeId: node.id,
      node: node.name,
      reason:
        request.requestedNodeId === node.id
          ? `the requested node; eligible and its hardware fits one replica; ${standing}`
          : `eligible and its hardware fits one replica; ${standing}`,
    };
  });
  const notTaken: readonly string[] = [
    `eligible, but enough replicas were placed on nodes ${strategy} ranks higher`,
  ];
  const rejected: PlacementRejection[] = [];
  fleet.nodes.forEach((prepared, index) => {
    const verdict = verdicts[index];
    if (typeof verdict !== 'number') rejected.push({ node: prepared.node.name, reasons: verdict });
    else if (!chosenIndexes.has(index)) rejected.push({ node: prepared.node.name, reasons: notTaken });
  });
  return { chosen, rejected, unplaced: Math.max(0, request.missingReplicas - chosen.length) };
}

/** One line per passed-over node, for a deployment's state reason when replicas stay unplaced. */
export function describeRejections(rejected: readonly PlacementRejection[]): string {
  if (rejected.length === 0) return 'no node is enrolled';
  return rejected.map(({ node, reasons }) => `${node}: ${reasons.join('; ')}`).join(' | ');
}
