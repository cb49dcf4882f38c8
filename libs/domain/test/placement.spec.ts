import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CompatibleHardwareSchema,
  FIXTURES_DIR,
  NodeInventorySchema,
  type CompatibleHardware,
  type NodeInventory,
} from '@lunanexa/contracts';
import {
  describeRejections,
  planPlacement,
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
      'eligible and its hardware fits one replica; Spread rank 1 of 3 eligible: 23.2 % of memory claimed after placing (24.0 GiB of 103.4 GiB, 0 replica(s) there before)',
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
      expect(binpack.chosen[0]?.reason).to.match(/Binpack rank 1 of 5 eligible: 92\.8 % of memory claimed/);
      // Every node is explained, chosen or not; the same input gives the same plan in any order.
      expect(binpack.chosen.length + binpack.rejected.length).to.equal(nodes.length);
      expect(
        planPlacement([...nodes].reverse(), request({ missingReplicas: 3, strategy: 'Binpack' })),
      ).to.deep.equal(binpack);
    });
  });
});
