import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import {
  CompatibleHardwareSchema,
  FIXTURES_DIR,
  NodeInventorySchema,
  type CompatibleHardware,
  type PlacementStrategy,
  type NodeInventory,
} from '@lunanexa/contracts';
import {
  hardwareFit,
  planOnFleet,
  planPlacement,
  prepareFleet,
  type PlacementNode,
  type PlacementRequest,
} from '@lunanexa/domain';
import { REPO_ROOT } from '../src';

/**
 * `npm run bench:placement`: the scheduler's decision time on 1,000 nodes
 * with 100 replicas already placed (issue 12: p99 <= 5 ms, >= 5,000
 * decisions/s on one core), side by side with the filter-only, first-by-name
 * planner it replaced, on the same inputs in the same process. Writes
 * bench/results/placement.json.
 */

const NODES = 1000;
const PLACED = 100;
const DECISIONS = 5000;
const WARMUP = 500;
const GiB = 1024 ** 3;

const CONTRACTS = join(REPO_ROOT, 'libs', 'contracts');
const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(join(CONTRACTS, FIXTURES_DIR, name), 'utf8'));
const GB10: NodeInventory = NodeInventorySchema.parse(fixture('node-inventory.gb10-unified.json'));
const H100: NodeInventory = NodeInventorySchema.parse(fixture('node-inventory.h100-discrete.json'));
const LLAMA_8B: CompatibleHardware = CompatibleHardwareSchema.parse(fixture('compatible-hardware.gb10.json'));

/** A deterministic pseudo-random sequence, so every run measures the same fleet. */
function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 2 ** 32;
    return state / 2 ** 32;
  };
}

function fleet(now: Date): PlacementNode[] {
  const random = lcg(12);
  const live = new Date(now.getTime() + 60_000);
  const nodes: PlacementNode[] = [];
  for (let i = 0; i < NODES; i++) {
    const unified = i % 4 !== 0;
    nodes.push({
      id: `node-${i}`,
      name: `node-${String(i).padStart(4, '0')}`,
      lifecycle: 'Active',
      cordoned: random() < 0.03,
      labels: { 'topology.kubernetes.io/zone': `zone-${i % 8}`, 'lunanexa.io/rack': `rack-${i % 40}` },
      taints: random() < 0.02 ? [{ key: 'maintenance', value: 'true', effect: 'NoSchedule' }] : [],
      leaseExpiresAt: random() < 0.01 ? new Date(now.getTime() - 1000) : live,
      inventory: unified ? GB10 : H100,
      placedMemoryBytes: 0,
      placedReplicas: 0,
    });
  }
  // 100 replicas of 24 GiB already placed, piled onto a few nodes so some are nearly full.
  for (let r = 0; r < PLACED; r++) {
    const index = Math.floor(random() * random() * NODES);
    const node = nodes[index] as PlacementNode & { placedMemoryBytes: number; placedReplicas: number };
    nodes[index] = {
      ...node,
      placedMemoryBytes: node.placedMemoryBytes + 24 * GiB,
      placedReplicas: node.placedReplicas + 1,
    };
  }
  return nodes;
}

function requests(now: Date): PlacementRequest[] {
  const random = lcg(34);
  const out: PlacementRequest[] = [];
  for (let i = 0; i < DECISIONS + WARMUP; i++) {
    const strategy: PlacementStrategy = random() < 0.5 ? 'Spread' : 'Binpack';
    out.push({
      missingReplicas: 1 + Math.floor(random() * 3),
      nodeSelector:
        random() < 0.3 ? { 'topology.kubernetes.io/zone': `zone-${Math.floor(random() * 8)}` } : {},
      requestedNodeId: null,
      excludedNodeIds: new Set(),
      runningOn: new Set([`node-${Math.floor(random() * NODES)}`]),
      requirements: { ...LLAMA_8B, minMemoryBytesPerReplica: (8 + Math.floor(random() * 5) * 8) * GiB },
      runtimeSupported: { ...LLAMA_8B, minCudaVersion: null, minMemoryBytesPerReplica: null },
      now,
      strategy,
    });
  }
  return out;
}

/**
 * The planner before memory accounting and scoring, as it was: per decision,
 * sort the nodes by name and run every filter (hardware included) on each
 * node until enough are found.
 */
function firstByName(nodes: readonly PlacementNode[], request: PlacementRequest): string[] {
  const chosen: string[] = [];
  const sorted = [...nodes].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const node of sorted) {
    if (request.runningOn.has(node.id) || request.excludedNodeIds.has(node.id)) continue;
    const reasons: string[] = [];
    if (node.lifecycle !== 'Active') reasons.push('lifecycle');
    if (node.cordoned) reasons.push('cordoned');
    for (const taint of node.taints)
      if (taint.effect !== 'PreferNoSchedule') reasons.push(`taint ${taint.key}`);
    if (node.leaseExpiresAt === null || node.leaseExpiresAt.getTime() <= request.now.getTime())
      reasons.push('lease');
    for (const [key, value] of Object.entries(request.nodeSelector))
      if (node.labels[key] !== value) reasons.push(key);
    reasons.push(...hardwareFit(request.requirements, request.runtimeSupported, node.inventory).reasons);
    if (reasons.length === 0 && chosen.length < request.missingReplicas) chosen.push(node.id);
  }
  return chosen;
}

function measure(decide: (request: PlacementRequest) => unknown, inputs: PlacementRequest[]) {
  for (const request of inputs.slice(0, WARMUP)) decide(request);
  const timed = inputs.slice(WARMUP);
  const latencies: number[] = [];
  const started = process.hrtime.bigint();
  for (const request of timed) {
    const before = process.hrtime.bigint();
    decide(request);
    latencies.push(Number(process.hrtime.bigint() - before) / 1e6);
  }
  const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    Number(
      (latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)] ?? NaN).toFixed(3),
    );
  return {
    decisions: timed.length,
    decisionsPerSecond: Math.round(timed.length / (elapsedMs / 1000)),
    latencyMs: { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: at(1) },
  };
}

function main(): void {
  const now = new Date('2026-12-05T12:00:00Z');
  const nodes = fleet(now);
  const inputs = requests(now);
  // The scheduler's snapshot of the fleet is prepared when the fleet changes, not per decision.
  const prepared = prepareFleet(nodes);
  const scheduler = measure((request) => planOnFleet(prepared, request), inputs);
  const withPrepare = measure((request) => planPlacement(nodes, request), inputs);
  const baseline = measure((request) => firstByName(nodes, request), inputs);
  const sample = planPlacement(nodes, inputs[0] as PlacementRequest);
  const out = {
    benchmark: 'placement',
    generatedAt: new Date().toISOString(),
    command: 'npm run bench:placement',
    settings: {
      nodes: NODES,
      replicasAlreadyPlaced: PLACED,
      fleet:
        '3/4 DGX Spark (GB10, unified memory), 1/4 2 × H100; 3 % cordoned, 2 % tainted NoSchedule, 1 % without a live lease; 8 zones',
      decisions: DECISIONS,
      warmup: WARMUP,
      request:
        '1–3 replicas of 8–40 GiB, Spread or Binpack, a zone selector on 30 %, one node already running the deployment',
      process: 'one Node.js process, one thread (one core)',
    },
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version },
    scheduler,
    schedulerPreparingEachTime: {
      name: 'the same, preparing the fleet snapshot for every decision',
      ...withPrepare,
    },
    baseline: { name: 'filters then first by name (no memory accounting, no score)', ...baseline },
    ratio: {
      schedulerOverBaselineP50: Number((scheduler.latencyMs.p50 / baseline.latencyMs.p50).toFixed(2)),
    },
    sampleExplanation: {
      chosen: sample.chosen,
      rejectedCount: sample.rejected.length,
      firstRejected: sample.rejected.slice(0, 3),
    },
    targets: {
      p99Ms: { target: 5, actual: scheduler.latencyMs.p99, met: scheduler.latencyMs.p99 <= 5 },
      decisionsPerSecond: {
        target: 5000,
        actual: scheduler.decisionsPerSecond,
        met: scheduler.decisionsPerSecond >= 5000,
      },
    },
  };
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'placement.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(
    JSON.stringify({ scheduler, withPrepare, baseline: out.baseline, targets: out.targets }, null, 2),
  );
  console.log('[bench:placement] wrote bench/results/placement.json');
}

main();
