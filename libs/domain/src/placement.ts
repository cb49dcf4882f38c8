import {
  ErrorCode,
  LunaNexaError,
  type CompatibleHardware,
  type NodeCondition,
  type NodeInventory,
  type NodeLabels,
  type NodeLifecycleState,
  type PlacementStrategy,
  type Taint,
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
 * inventory, unified memory sized from system memory), the memory the
 * replicas already placed there claim (every deployment's) leaves room for
 * one more, and no condition the node reports rules it out (MemoryPressure or
 * DiskPressure True, GpuHealthy False; node-conditions.ts computes them). One
 * replica of a deployment per node is a filter, so this deployment's replicas
 * on a node are 0 for every node that reaches the ranking.
 *
 * Eligible nodes are ranked by a score, lowest first, ties by name: the sum
 * of three terms in 0..1, each weighted by the strategy (`PLACEMENT_SCORE_WEIGHTS`):
 * - memory: the share of the node's memory claimed once the replica is placed;
 * - replicas: the replicas (every deployment's) the node holds once the replica
 *   is placed, over what the busiest node of the fleet would then hold — so a
 *   model that claims no memory still spreads (or packs) by count;
 * - load: the node's runtime load (`runtimeLoad`, e.g. queue or KV-cache
 *   pressure its runtimes report); a node that reports none counts as the
 *   mean of the nodes that do (neutral: it neither wins nor loses by it).
 * Spread counts each term as it is; Binpack counts the memory left free and
 * the replica room left (so the fullest node that still fits wins), the
 * count at half and load at a tenth, enough to decide between nodes packed
 * alike. Every node gets its explanation; a chosen one names each term with
 * its value.
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
  /** How many replicas are meant to run on the node (every deployment). */
  readonly placedReplicas?: number;
  /**
   * How busy the node's runtimes are, 0 (idle) to 1 (saturated), e.g. from
   * their queue and KV-cache use; absent or null when not known (neutral).
   */
  readonly runtimeLoad?: number | null;
  /** What the controller last computed from the node's heartbeats; absent conditions rule nothing out. */
  readonly conditions?: readonly Pick<NodeCondition, 'type' | 'status' | 'reason'>[];
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
  /** The most replicas any node holds: the replicas term's scale. */
  readonly busiestReplicas: number;
  /** The mean runtime load of the nodes that report one (0 when none do): what an unreported load counts as. */
  readonly neutralLoad: number;
  /** How many nodes report a runtime load, for the explanation. */
  readonly loadReporters: number;
}

interface PreparedNode {
  readonly node: PlacementNode;
  /** Reasons that hold whatever is asked (lifecycle, cordon, NoSchedule/NoExecute taints). */
  readonly standing: readonly string[];
  readonly capacity: number;
  readonly claimed: number;
  readonly replicas: number;
  readonly load: number | null;
  readonly hardwareKey: string;
}

/**
 * Per strategy, how much each score term weighs (lowest score first). Binpack
 * scores memory and replicas by the room they leave, so the fullest node wins;
 * there memory weighs most (it is what packing frees for a big model), the
 * count half (it decides when replicas claim no memory), and load a tenth, so
 * it only separates nodes packed alike.
 */
export const PLACEMENT_SCORE_WEIGHTS: Readonly<
  Record<PlacementStrategy, { readonly memory: number; readonly replicas: number; readonly load: number }>
> = {
  Spread: { memory: 1, replicas: 1, load: 1 },
  Binpack: { memory: 1, replicas: 0.5, load: 0.1 },
};

/** The conditions that keep new replicas off a node, with the status that does (node-conditions.ts sets them). */
const BLOCKING_CONDITIONS: readonly {
  readonly type: NodeCondition['type'];
  readonly status: NodeCondition['status'];
}[] = [
  { type: 'MemoryPressure', status: 'True' },
  { type: 'DiskPressure', status: 'True' },
  { type: 'GpuHealthy', status: 'False' },
  // The controller could not hand it an assignment the node would accept.
  { type: 'ControllerKeyTrusted', status: 'False' },
];

function invalidLoad(node: PlacementNode, index: number): LunaNexaError {
  return new LunaNexaError(ErrorCode.VALIDATION_FAILED, `node ${node.name}: runtime load must be 0..1`, [
    {
      path: `nodes[${index}].runtimeLoad`,
      message: `must be a number from 0 to 1, got ${String(node.runtimeLoad)}`,
    },
  ]);
}

function byName(a: PlacementNode, b: PlacementNode): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Throws VALIDATION_FAILED when a node's runtime load is not a number in 0..1. */
export function prepareFleet(nodes: readonly PlacementNode[]): PreparedFleet {
  const fingerprints = new Map<NodeInventory, string>();
  let busiestReplicas = 0;
  let loadSum = 0;
  let loadReporters = 0;
  nodes.forEach((node, index) => {
    busiestReplicas = Math.max(busiestReplicas, node.placedReplicas ?? 0);
    const load = node.runtimeLoad;
    if (load === undefined || load === null) return;
    if (typeof load !== 'number' || !(load >= 0 && load <= 1)) throw invalidLoad(node, index);
    loadSum += load;
    loadReporters += 1;
  });
  return {
    busiestReplicas,
    neutralLoad: loadReporters > 0 ? loadSum / loadReporters : 0,
    loadReporters,
    nodes: [...nodes].sort(byName).map((node) => {
      const standing: string[] = [];
      if (node.lifecycle !== 'Active') standing.push(`lifecycle ${node.lifecycle}, not Active`);
      if (node.cordoned) standing.push('cordoned');
      for (const taint of node.taints) {
        if (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute') {
          standing.push(`taint ${taint.key}=${taint.value}:${taint.effect}`);
        }
      }
      for (const condition of node.conditions ?? []) {
        if (BLOCKING_CONDITIONS.some((b) => b.type === condition.type && b.status === condition.status)) {
          standing.push(`condition ${condition.type}=${condition.status} (${condition.reason})`);
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
        replicas: node.placedReplicas ?? 0,
        load: node.runtimeLoad ?? null,
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

/** The share of the node's memory claimed once the replica is placed (a node with no memory counts as full). */
function utilisation(claimed: number, capacity: number): number {
  return capacity > 0 ? Math.min(1, claimed / capacity) : 1;
}

/** One eligible node's score terms, each in 0..1, before the strategy's weights. */
interface ScoreTerms {
  /** Memory claimed after placing, as a share of the node's. */
  readonly memory: number;
  /** Replicas after placing, over the busiest node's after placing. */
  readonly replicas: number;
  readonly load: number;
}

function scoreTerms(prepared: PreparedNode, fleet: PreparedFleet, demand: number): ScoreTerms {
  return {
    memory: utilisation(prepared.claimed + demand, prepared.capacity),
    replicas: (prepared.replicas + 1) / (fleet.busiestReplicas + 1),
    load: prepared.load ?? fleet.neutralLoad,
  };
}

/**
 * The score, lowest first: the terms of `scoreTerms` weighted, Binpack counting the room memory and replicas
 * leave, so the fullest node scores lowest. Computed without the object: it runs for every eligible node.
 */
function scoreOf(
  prepared: PreparedNode,
  fleet: PreparedFleet,
  demand: number,
  strategy: PlacementStrategy,
): number {
  const weights = PLACEMENT_SCORE_WEIGHTS[strategy];
  const memory = utilisation(prepared.claimed + demand, prepared.capacity);
  const replicas = (prepared.replicas + 1) / (fleet.busiestReplicas + 1);
  const load = prepared.load ?? fleet.neutralLoad;
  return strategy === 'Spread'
    ? weights.memory * memory + weights.replicas * replicas + weights.load * load
    : weights.memory * (1 - memory) + weights.replicas * (1 - replicas) + weights.load * load;
}

const fixed = (value: number) => value.toFixed(3);
const weighted = (weight: number, text: string) => (weight === 1 ? text : `${weight} × ${text}`);

/** The score with each term named and valued, e.g. for a chosen node's reason. */
function explainScore(
  prepared: PreparedNode,
  fleet: PreparedFleet,
  demand: number,
  strategy: PlacementStrategy,
): string {
  const terms = scoreTerms(prepared, fleet, demand);
  const weights = PLACEMENT_SCORE_WEIGHTS[strategy];
  const spread = strategy === 'Spread';
  const before = prepared.replicas;
  const memory = `memory ${fixed(spread ? terms.memory : 1 - terms.memory)} (${(terms.memory * 100).toFixed(1)} % claimed after placing: ${formatGiB(prepared.claimed + demand)} of ${formatGiB(prepared.capacity)}${spread ? '' : ', the share left free counts'})`;
  const replicas = `replicas ${fixed(spread ? terms.replicas : 1 - terms.replicas)} (${before} replica(s) there before, ${before + 1} after, the busiest node holds ${fleet.busiestReplicas}${spread ? '' : ', the room left counts'})`;
  const loadWhy =
    prepared.load !== null
      ? `runtime load ${(prepared.load * 100).toFixed(0)} %`
      : fleet.loadReporters > 0
        ? `not reported, counted as the mean of the ${fleet.loadReporters} node(s) that report one`
        : 'no node reports runtime load';
  const load = `load ${fixed(terms.load)} (${loadWhy})`;
  return `score ${fixed(scoreOf(prepared, fleet, demand, strategy))} (lowest first) = ${weighted(weights.memory, memory)} + ${weighted(weights.replicas, replicas)} + ${weighted(weights.load, load)}`;
}

export function planPlacement(nodes: readonly PlacementNode[], request: PlacementRequest): PlacementPlan {
  return planOnFleet(prepareFleet(nodes), request);
}

/**
 * One decision on a prepared fleet. Hard filters first (every rejected node
 * keeps its reasons), then the deployment's strategy picks the best
 * `missingReplicas` eligible nodes by score (lowest first), ties by name; an
 * eligible node not taken says so. The chosen ones carry their score, term by term.
 */
export function planOnFleet(fleet: PreparedFleet, request: PlacementRequest): PlacementPlan {
  const strategy = request.strategy ?? 'Spread';
  const demand = replicaMemoryDemand(request.requirements, request.runtimeSupported);
  const fits: FitCache = new Map();
  const verdicts: (readonly string[] | number)[] = [];
  // The best `missingReplicas` eligible nodes, kept in score order (a short insertion list, not a sort of all).
  const best: { index: number; score: number }[] = [];
  let eligible = 0;
  fleet.nodes.forEach((prepared, index) => {
    const obstacles = obstaclesOf(prepared, request, demand, fits);
    if (obstacles.length > 0) {
      verdicts.push(obstacles);
      return;
    }
    eligible += 1;
    const value = scoreOf(prepared, fleet, demand, strategy);
    verdicts.push(value);
    if (request.missingReplicas <= 0) return;
    // Nodes arrive in name order, so an equal score never displaces an earlier name.
    let at = best.length;
    while (at > 0 && value < (best[at - 1] as { score: number }).score) at -= 1;
    if (at < request.missingReplicas) {
      best.splice(at, 0, { index, score: value });
      if (best.length > request.missingReplicas) best.pop();
    }
  });
  const chosenIndexes = new Set(best.map((entry) => entry.index));
  const chosen: PlacementChoice[] = best.map(({ index }, rank) => {
    const prepared = fleet.nodes[index];
    const { node } = prepared;
    const standing = `${strategy} rank ${rank + 1} of ${eligible} eligible: ${explainScore(prepared, fleet, demand, strategy)}`;
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
