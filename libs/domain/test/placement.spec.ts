import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CompatibleHardwareSchema,
  FIXTURES_DIR,
  NodeInventorySchema,
  type CompatibleHardware,
  type NodeInventory,
  type NodeCondition,
} from '@lunanexa/contracts';
import {
  describeRejections,
  placementObstacles,
  planPlacement,
  prepareFleet,
  PLACEMENT_SCORE_WEIGHTS,
  type PlacementNode,
  type PlacementRequest,
} from '../src/placement';

const GiB = 1024 ** 3;
const CONTRACTS = join(__dirname, '..', '..', '..', 'contracts');

function fixture(name: string): unknown {
  return JSON.parse(readFileSync(join(CONTRACTS, FIXTURES_DIR, name), 'utf8'));
}

/** A DGX Spark and an 8 × H100 box, as their agents report them (golden contract fixtures). */
const GB10: NodeInventory = NodeInventorySchema.parse(fixture('node-inventory.gb10-unified.json'));
const H100: NodeInventory = NodeInventorySchema.parse(fixture('node-inventory.h100-discrete.json'));
/** An 8B model in bf16 with its KV cache: 24 GiB, one GPU, Ampere or newer. */
const LLAMA_8B: CompatibleHardware = CompatibleHardwareSchema.parse(fixture('compatible-hardware.gb10.json'));
const ANY_GPU_RUNTIME: CompatibleHardware = {
  ...LLAMA_8B,
  minCudaVersion: null,
  minMemoryBytesPerReplica: null,
};

const NOW = new Date('2026-12-03T12:00:00Z');
const LIVE = new Date(NOW.getTime() + 60_000);

function node(name: string, overrides: Partial<PlacementNode> = {}): PlacementNode {
  return {
    id: `node-id-${name}`,
    name,
    lifecycle: 'Active',
    cordoned: false,
    labels: {},
    taints: [],
    leaseExpiresAt: LIVE,
    inventory: GB10,
    ...overrides,
  };
}

function request(overrides: Partial<PlacementRequest> = {}): PlacementRequest {
  return {
    missingReplicas: 1,
    nodeSelector: {},
    requestedNodeId: null,
    excludedNodeIds: new Set(),
    runningOn: new Set(),
    requirements: LLAMA_8B,
    runtimeSupported: ANY_GPU_RUNTIME,
    now: NOW,
    ...overrides,
  };
}

describe('placement: where replicas go and why every other node was passed over', () => {
  it('ranks equal eligible nodes by name, one replica each, and says why', () => {
    const plan = planPlacement(
      [node('spark-b'), node('spark-a'), node('spark-c')],
      request({ missingReplicas: 2 }),
    );
    expect(plan.chosen.map((c) => c.node)).to.deep.equal(['spark-a', 'spark-b']);
    expect(plan.chosen[0]?.reason).to.equal(
      'eligible and its hardware fits one replica; Spread rank 1 of 3 eligible: score 1.232 (lowest first) = ' +
        'memory 0.232 (23.2 % claimed after placing: 24.0 GiB of 103.4 GiB) + ' +
        'replicas 1.000 (0 replica(s) there before, 1 after, the busiest node holds 0) + ' +
        'load 0.000 (no node reports runtime load)',
    );
    expect(plan.rejected).to.have.length(1);
    expect(plan.rejected[0]?.node).to.equal('spark-c');
    expect(plan.rejected[0]?.reasons).to.deep.equal([
      'eligible, but enough replicas were placed on nodes Spread ranks higher',
    ]);
    expect(plan.unplaced).to.equal(0);
  });

  it('names every obstacle of a node: lifecycle, cordon, taints, stale lease, selector', () => {
    const plan = planPlacement(
      [
        node('pending', { lifecycle: 'Pending' }),
        node('cordoned', { cordoned: true }),
        node('tainted', {
          taints: [
            { key: 'gpu', value: 'maintenance', effect: 'NoSchedule' },
            { key: 'soft', value: 'x', effect: 'PreferNoSchedule' },
          ],
        }),
        node('silent', { leaseExpiresAt: new Date(NOW.getTime() - 1) }),
        node('unlabelled'),
        node('other-pool', { labels: { pool: 'batch' } }),
      ],
      request({ nodeSelector: { pool: 'serving' } }),
    );
    expect(plan.chosen).to.deep.equal([]);
    expect(plan.unplaced).to.equal(1);
    const reasons = Object.fromEntries(plan.rejected.map((r) => [r.node, r.reasons]));
    expect(reasons['pending']).to.include('lifecycle Pending, not Active');
    expect(reasons['cordoned']).to.include('cordoned');
    // PreferNoSchedule is a preference, not an obstacle.
    expect(reasons['tainted']).to.deep.equal([
      'taint gpu=maintenance:NoSchedule',
      'label pool missing, the selector wants serving',
    ]);
    expect(reasons['silent']).to.include('no live lease (heartbeats stopped)');
    expect(reasons['other-pool']).to.deep.equal(['label pool=batch, the selector wants serving']);
  });

  it('passes over a node whose hardware cannot hold one replica, with the hardware reason (unified memory after headroom)', () => {
    const huge: CompatibleHardware = { ...LLAMA_8B, minMemoryBytesPerReplica: 512 * GiB };
    const plan = planPlacement(
      [node('spark-a'), node('h100-a', { inventory: H100 })],
      request({ requirements: huge }),
    );
    expect(plan.chosen).to.deep.equal([]);
    expect(plan.unplaced).to.equal(1);
    const spark = plan.rejected.find((r) => r.node === 'spark-a');
    expect(spark?.reasons.join(' ')).to.match(/^hardware: .*512(\.0)? GiB/);
    expect(describeRejections(plan.rejected)).to.match(/^h100-a: hardware: .* \| spark-a: hardware: /);
  });

  it('a version that fits only the discrete GPUs goes to the H100 box, not the Spark', () => {
    const datacenterOnly: CompatibleHardware = { ...LLAMA_8B, maxComputeCapability: '9.0' };
    const plan = planPlacement(
      [node('a-spark'), node('b-h100', { inventory: H100 })],
      request({ requirements: datacenterOnly }),
    );
    expect(plan.chosen.map((c) => c.node)).to.deep.equal(['b-h100']);
    expect(plan.rejected[0]?.node).to.equal('a-spark');
    expect(plan.rejected[0]?.reasons.every((reason) => reason.startsWith('hardware: '))).to.equal(true);
  });

  it('keeps running replicas where they are, skips drained-from nodes, honours a requested node', () => {
    const a = node('spark-a');
    const b = node('spark-b');
    const c = node('spark-c');
    const plan = planPlacement(
      [a, b, c],
      request({ runningOn: new Set([a.id]), excludedNodeIds: new Set([b.id]), missingReplicas: 1 }),
    );
    expect(plan.chosen.map((choice) => choice.node)).to.deep.equal(['spark-c']);
    expect(plan.rejected).to.deep.equal([
      { node: 'spark-a', reasons: ['already runs a replica of this deployment'] },
      { node: 'spark-b', reasons: ['being drained of this deployment'] },
    ]);
    const pinned = planPlacement([a, b, c], request({ requestedNodeId: b.id }));
    expect(pinned.chosen).to.deep.equal([
      {
        nodeId: b.id,
        node: 'spark-b',
        reason: `the requested node; eligible and its hardware fits one replica; ${pinned.chosen[0]?.reason.split('; ').at(-1)}`,
      },
    ]);
    expect(pinned.chosen[0]?.reason).to.match(/; Spread rank 1 of 1 eligible: /);
    const pinnedButCordoned = planPlacement(
      [a, node('spark-b', { cordoned: true })],
      request({ requestedNodeId: b.id }),
    );
    expect(pinnedButCordoned.unplaced).to.equal(1);
    expect(describeRejections(pinnedButCordoned.rejected)).to.equal(
      'spark-a: not the node the deployment asked for | spark-b: cordoned',
    );
  });

  it('an empty fleet places nothing and says so', () => {
    const plan = planPlacement([], request({ missingReplicas: 2 }));
    expect(plan).to.deep.equal({ chosen: [], rejected: [], unplaced: 2 });
    expect(describeRejections(plan.rejected)).to.equal('no node is enrolled');
  });

  it('refuses a node under MemoryPressure or DiskPressure or with an unhealthy GPU, naming the condition', () => {
    const condition = (
      type: NodeCondition['type'],
      status: NodeCondition['status'],
      reason: string,
    ): NodeCondition => ({ type, status, reason, lastTransitionAt: NOW.toISOString() });
    const plan = planPlacement(
      [
        node('memory', { conditions: [condition('MemoryPressure', 'True', 'MemoryAvailableLow')] }),
        node('disk', { conditions: [condition('DiskPressure', 'True', 'ModelStoreDiskLow')] }),
        node('gpu', {
          cordoned: true,
          conditions: [
            condition('GpuHealthy', 'False', 'GpuXidError'),
            condition('MemoryPressure', 'True', 'X'),
          ],
        }),
        // Unknown is not a verdict, and a skewed clock or a healthy GPU rules nothing out.
        node('unknown', {
          conditions: [
            condition('MemoryPressure', 'Unknown', 'MemoryNotReported'),
            condition('DiskPressure', 'Unknown', 'DiskNotReported'),
            condition('GpuHealthy', 'Unknown', 'NoGpuTelemetry'),
            condition('ClockSynchronized', 'False', 'ClockSkewed'),
          ],
        }),
        node('well', {
          conditions: [
            condition('MemoryPressure', 'False', 'MemoryAvailable'),
            condition('DiskPressure', 'False', 'ModelStoreDiskAvailable'),
            condition('GpuHealthy', 'True', 'GpusHealthy'),
          ],
        }),
      ],
      request({ missingReplicas: 2 }),
    );
    expect(plan.chosen.map((c) => c.node)).to.deep.equal(['unknown', 'well']);
    expect(Object.fromEntries(plan.rejected.map((r) => [r.node, r.reasons]))).to.deep.equal({
      disk: ['condition DiskPressure=True (ModelStoreDiskLow)'],
      gpu: ['cordoned', 'condition GpuHealthy=False (GpuXidError)', 'condition MemoryPressure=True (X)'],
      memory: ['condition MemoryPressure=True (MemoryAvailableLow)'],
    });
    expect(
      placementObstacles(
        node('gpu', { conditions: [condition('GpuHealthy', 'False', 'GpuLost')] }),
        request(),
      ),
    ).to.deep.equal(['condition GpuHealthy=False (GpuLost)']);
  });

  describe('memory accounting and strategy', () => {
    const claimed = (gib: number, replicas: number) => ({
      placedMemoryBytes: gib * GiB,
      placedReplicas: replicas,
    });

    it('counts the memory co-located replicas of every deployment claim, unified memory after headroom', () => {
      // A GB10 has 103.4 GiB after the 15 % headroom; the replica needs 24 GiB.
      const full = node('spark-full', claimed(80, 3));
      const room = node('spark-room', claimed(78, 3));
      const plan = planPlacement([full, room], request());
      expect(plan.chosen.map((c) => c.node)).to.deep.equal(['spark-room']);
      expect(plan.rejected).to.deep.equal([
        {
          node: 'spark-full',
          reasons: [
            'memory: 23.4 GiB free of 103.4 GiB with 3 replica(s) placed, the replica needs 24.0 GiB',
          ],
        },
      ]);
    });

    it('counts discrete GPUs by their memory', () => {
      // Two H100s: 159.3 GiB of GPU memory.
      const h100 = node('h100', { inventory: H100, ...claimed(140, 2) });
      const plan = planPlacement([h100], request());
      expect(plan.unplaced).to.equal(1);
      expect(plan.rejected[0]?.reasons[0]).to.match(
        /^memory: 19\.3 GiB free of 159\.3 GiB with 2 replica\(s\) placed/,
      );
      expect(
        planPlacement([node('h100', { inventory: H100, ...claimed(130, 1) })], request()).unplaced,
      ).to.equal(0);
    });

    it('Spread takes the least loaded node first, Binpack the most loaded that fits; ties by name; deterministic', () => {
      const nodes = [
        node('spark-c', claimed(48, 2)),
        node('spark-a', claimed(0, 0)),
        node('spark-b', claimed(24, 1)),
        node('spark-d', claimed(72, 3)),
        node('spark-e', claimed(24, 1)),
      ];
      const spread = planPlacement(nodes, request({ missingReplicas: 3, strategy: 'Spread' }));
      expect(spread.chosen.map((c) => c.node)).to.deep.equal(['spark-a', 'spark-b', 'spark-e']);
      const binpack = planPlacement(nodes, request({ missingReplicas: 3, strategy: 'Binpack' }));
      expect(binpack.chosen.map((c) => c.node)).to.deep.equal(['spark-d', 'spark-c', 'spark-b']);
      expect(binpack.chosen[0]?.reason).to.match(
        /Binpack rank 1 of 5 eligible: score 0\.072 \(lowest first\) = memory 0\.072 \(92\.8 % claimed after placing/,
      );
      // Every node is explained, chosen or not; the same input gives the same plan in any order.
      expect(binpack.chosen.length + binpack.rejected.length).to.equal(nodes.length);
      expect(
        planPlacement([...nodes].reverse(), request({ missingReplicas: 3, strategy: 'Binpack' })),
      ).to.deep.equal(binpack);
    });
  });

  describe('score: replicas already there and runtime load, not memory alone', () => {
    /** A model that declares no memory (a tiny model, or a runtime that does not say): nothing to fit, nothing claimed. */
    const ZERO_MEMORY: CompatibleHardware = { ...LLAMA_8B, minMemoryBytesPerReplica: null };
    const dgx = ['dgx-1', 'dgx-2', 'dgx-3', 'dgx-4'];
    const zero = (overrides: Partial<PlacementRequest> = {}) =>
      request({ requirements: ZERO_MEMORY, runtimeSupported: ANY_GPU_RUNTIME, ...overrides });

    /** One single-replica deployment after another, each seeing the replicas the earlier ones placed. */
    function placeOneByOne(
      strategy: 'Spread' | 'Binpack',
      deployments: number,
      start: Record<string, number> = {},
    ): Record<string, number> {
      const placed: Record<string, number> = Object.fromEntries(dgx.map((name) => [name, start[name] ?? 0]));
      for (let d = 0; d < deployments; d++) {
        const nodes = dgx.map((name) =>
          node(name, { placedReplicas: placed[name] ?? 0, placedMemoryBytes: 0 }),
        );
        const plan = planPlacement(nodes, zero({ strategy }));
        expect(plan.chosen).to.have.length(1);
        const chosen = plan.chosen[0]?.node ?? 'none';
        placed[chosen] = (placed[chosen] ?? 0) + 1;
      }
      return placed;
    }

    it('Spread over four equal nodes with a zero-memory model places one replica per node', () => {
      expect(placeOneByOne('Spread', 4)).to.deep.equal({ 'dgx-1': 1, 'dgx-2': 1, 'dgx-3': 1, 'dgx-4': 1 });
      expect(placeOneByOne('Spread', 8)).to.deep.equal({ 'dgx-1': 2, 'dgx-2': 2, 'dgx-3': 2, 'dgx-4': 2 });
      // The fleet from the issue: three replicas on dgx-1 already; the next three go to the empty nodes.
      expect(placeOneByOne('Spread', 3, { 'dgx-1': 3 })).to.deep.equal({
        'dgx-1': 3,
        'dgx-2': 1,
        'dgx-3': 1,
        'dgx-4': 1,
      });
      // One deployment of three replicas on that fleet skips dgx-1 too.
      const plan = planPlacement(
        dgx.map((name) => node(name, { placedReplicas: name === 'dgx-1' ? 3 : 0 })),
        zero({ missingReplicas: 3 }),
      );
      expect(plan.chosen.map((c) => c.node)).to.deep.equal(['dgx-2', 'dgx-3', 'dgx-4']);
    });

    it('Binpack packs: zero-memory replicas by count onto the busiest node, memory onto the fullest that fits', () => {
      expect(placeOneByOne('Binpack', 4, { 'dgx-3': 1 })).to.deep.equal({
        'dgx-1': 0,
        'dgx-2': 0,
        'dgx-3': 5,
        'dgx-4': 0,
      });
      // 24 GiB replicas: dgx-2 (48 GiB claimed) fills before anyone else gets one.
      const nodes = [
        node('dgx-1', { placedMemoryBytes: 24 * GiB, placedReplicas: 1 }),
        node('dgx-2', { placedMemoryBytes: 48 * GiB, placedReplicas: 2 }),
        node('dgx-3'),
      ];
      expect(planPlacement(nodes, request({ strategy: 'Binpack' })).chosen[0]?.node).to.equal('dgx-2');
      // Memory outweighs count: the node one 72 GiB replica nearly fills packs better than three 8 GiB ones.
      const byMemory = [
        node('dgx-1', { placedMemoryBytes: 24 * GiB, placedReplicas: 3 }),
        node('dgx-2', { placedMemoryBytes: 72 * GiB, placedReplicas: 1 }),
      ];
      expect(planPlacement(byMemory, request({ strategy: 'Binpack' })).chosen[0]?.node).to.equal('dgx-2');
    });

    it('runtime load breaks ties in both strategies; a node that reports none counts as the mean of those that do', () => {
      const loads: Record<string, number | null> = {
        'dgx-1': 0.9,
        'dgx-2': 0.2,
        'dgx-3': null,
        'dgx-4': 0.4,
      };
      const nodes = dgx.map((name) => node(name, { runtimeLoad: loads[name] ?? null }));
      // dgx-3 reports nothing: it counts as (0.9 + 0.2 + 0.4) / 3 = 0.5, between dgx-4 and dgx-1.
      for (const strategy of ['Spread', 'Binpack'] as const) {
        const plan = planPlacement(nodes, zero({ strategy, missingReplicas: 4 }));
        expect(
          plan.chosen.map((c) => c.node),
          strategy,
        ).to.deep.equal(['dgx-2', 'dgx-4', 'dgx-3', 'dgx-1']);
      }
      expect(prepareFleet(nodes).neutralLoad).to.be.closeTo(0.5, 1e-12);
      // Under Spread load is a full term: a busy empty node loses to a quiet one that holds a replica.
      const busyEmpty = [
        node('dgx-1', { runtimeLoad: 0.95 }),
        node('dgx-2', { runtimeLoad: 0.05, placedReplicas: 1 }),
      ];
      expect(planPlacement(busyEmpty, zero()).chosen[0]?.node).to.equal('dgx-2');
      // Under Binpack it weighs a tenth: it never outweighs a replica's worth of packing.
      expect(planPlacement(busyEmpty, zero({ strategy: 'Binpack' })).chosen[0]?.node).to.equal('dgx-2');
      expect(PLACEMENT_SCORE_WEIGHTS.Binpack.load).to.be.below(PLACEMENT_SCORE_WEIGHTS.Spread.load);
    });

    it('the explanation names every term with its value', () => {
      const nodes = [
        node('dgx-1', { placedMemoryBytes: 48 * GiB, placedReplicas: 2, runtimeLoad: 0.3 }),
        node('dgx-2', { placedReplicas: 3, runtimeLoad: null }),
      ];
      const spread = planPlacement(nodes, request({ missingReplicas: 2 }));
      // dgx-1: 72 / 103.4 = 0.696, (2 + 1) / (3 + 1) = 0.750, load 0.300 → 1.746; dgx-2: 0.232 + 1.000 + 0.300 → 1.532.
      expect(spread.chosen.map((c) => c.reason)).to.deep.equal([
        'eligible and its hardware fits one replica; Spread rank 1 of 2 eligible: score 1.532 (lowest first) = ' +
          'memory 0.232 (23.2 % claimed after placing: 24.0 GiB of 103.4 GiB) + ' +
          'replicas 1.000 (3 replica(s) there before, 4 after, the busiest node holds 3) + ' +
          'load 0.300 (not reported, counted as the mean of the 1 node(s) that report one)',
        'eligible and its hardware fits one replica; Spread rank 2 of 2 eligible: score 1.746 (lowest first) = ' +
          'memory 0.696 (69.6 % claimed after placing: 72.0 GiB of 103.4 GiB) + ' +
          'replicas 0.750 (2 replica(s) there before, 3 after, the busiest node holds 3) + ' +
          'load 0.300 (runtime load 30 %)',
      ]);
      const binpack = planPlacement(nodes, request({ strategy: 'Binpack' }));
      // dgx-1: 0.304 + 0.5 × 0.250 + 0.1 × 0.3 = 0.459; dgx-2: 0.768 + 0 + 0.03 = 0.798.
      expect(binpack.chosen[0]?.reason).to.equal(
        'eligible and its hardware fits one replica; Binpack rank 1 of 2 eligible: score 0.459 (lowest first) = ' +
          'memory 0.304 (69.6 % claimed after placing: 72.0 GiB of 103.4 GiB, the share left free counts) + ' +
          '0.5 × replicas 0.250 (2 replica(s) there before, 3 after, the busiest node holds 3, the room left counts) + ' +
          '0.1 × load 0.300 (runtime load 30 %)',
      );
    });

    it('refuses a runtime load outside 0..1 with a typed error naming the node', () => {
      for (const runtimeLoad of [-0.1, 1.5, Number.NaN]) {
        expect(() => planPlacement([node('dgx-1', { runtimeLoad })], request()))
          .to.throw()
          .that.satisfies(
            (error: { code: string; violations: { path: string }[] }) =>
              error.code === 'VALIDATION_FAILED' && error.violations[0]?.path === 'nodes[0].runtimeLoad',
          );
      }
    });
  });
});
