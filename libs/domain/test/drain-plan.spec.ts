import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CompatibleHardwareSchema,
  ErrorCode,
  FIXTURES_DIR,
  NodeInventorySchema,
  type CompatibleHardware,
  type NodeInventory,
} from '@lunanexa/contracts';
import { decideDrain, planDrain, type DrainReplica } from '../src/drain-plan';
import type { PlacementNode } from '../src/placement';

const GiB = 1024 ** 3;
const CONTRACTS = join(__dirname, '..', '..', '..', 'contracts');
const GB10: NodeInventory = NodeInventorySchema.parse(
  JSON.parse(readFileSync(join(CONTRACTS, FIXTURES_DIR, 'node-inventory.gb10-unified.json'), 'utf8')),
);
/** 24 GiB per replica (the golden fixture); a GB10 holds four of them in its ~103 GiB. */
const LLAMA_8B: CompatibleHardware = CompatibleHardwareSchema.parse(
  JSON.parse(readFileSync(join(CONTRACTS, FIXTURES_DIR, 'compatible-hardware.gb10.json'), 'utf8')),
);
const RUNTIME: CompatibleHardware = { ...LLAMA_8B, minCudaVersion: null, minMemoryBytesPerReplica: null };
const NOW = new Date('2026-12-06T12:00:00Z');

function node(name: string, overrides: Partial<PlacementNode> = {}): PlacementNode {
  return {
    id: name,
    name,
    lifecycle: 'Active',
    cordoned: false,
    labels: {},
    taints: [],
    leaseExpiresAt: new Date(NOW.getTime() + 60_000),
    inventory: GB10,
    placedMemoryBytes: 0,
    placedReplicas: 0,
    ...overrides,
  };
}

function replica(name: string, overrides: Partial<DrainReplica> = {}): DrainReplica {
  return {
    deploymentId: `dep-${name}`,
    deploymentName: name,
    nodeSelector: {},
    requestedNodeId: null,
    runningOn: new Set(),
    requirements: LLAMA_8B,
    runtimeSupported: RUNTIME,
    strategy: 'Spread',
    ...overrides,
  };
}

/** The drained node `a` holds the given replicas' claim; nothing else runs. */
const drained = (replicas: number) =>
  node('a', { placedMemoryBytes: replicas * 24 * GiB, placedReplicas: replicas });

describe('drain plan: a drain is refused when a replica on the node has nowhere to go', () => {
  it('moves every replica when another node has room, and never back onto the drained node', () => {
    const plan = planDrain([drained(2), node('b')], 'a', [replica('chat'), replica('embed')], NOW);
    expect(plan.stranded).to.deep.equal([]);
    expect(plan.moves.map((m) => [m.deploymentName, m.node])).to.deep.equal([
      ['chat', 'b'],
      ['embed', 'b'],
    ]);
    expect(decideDrain(plan, { force: false, reason: null })).to.deep.equal({
      allowed: true,
      forced: false,
      stranded: [],
    });
  });

  it('counts each planned replacement against the next: two 24 GiB replicas do not share 40 GiB', () => {
    // b has 3 × 24 GiB claimed: room for one more replica, not two.
    const b = node('b', { placedMemoryBytes: 72 * GiB, placedReplicas: 3 });
    const plan = planDrain([drained(2), b], 'a', [replica('embed'), replica('chat')], NOW);
    expect(plan.moves.map((m) => m.deploymentName)).to.deep.equal(['chat']);
    expect(plan.stranded.map((s) => s.deploymentName)).to.deep.equal(['embed']);
    expect(plan.stranded[0]?.reason).to.match(/^a: being drained of this deployment \| b: memory: /);
  });

  it('strands a replica whose deployment already runs on every other node, or is pinned to the drained node', () => {
    const plan = planDrain(
      [drained(2), node('b')],
      'a',
      [replica('spread', { runningOn: new Set(['b']) }), replica('pinned', { requestedNodeId: 'a' })],
      NOW,
    );
    expect(plan.moves).to.deep.equal([]);
    expect(plan.stranded.map((s) => s.deploymentName)).to.deep.equal(['pinned', 'spread']);
    expect(plan.stranded[1]?.reason).to.contain('b: already runs a replica of this deployment');
  });

  it('refuses a stranding drain with DRAIN_WOULD_STRAND_REPLICAS naming each deployment', () => {
    const plan = planDrain([drained(1), node('b', { cordoned: true })], 'a', [replica('chat')], NOW);
    const decision = decideDrain(plan, { force: false, reason: null });
    if (decision.allowed) throw new Error('expected a refusal');
    expect(decision.error.code).to.equal(ErrorCode.DRAIN_WOULD_STRAND_REPLICAS);
    expect(decision.error.violations.map((v) => v.path)).to.deep.equal(['deployments.chat']);
    expect(decision.error.violations[0]?.message).to.contain('b: cordoned');
  });

  it('lets a forced drain with a reason through, marked forced, and refuses force without a reason', () => {
    const plan = planDrain([drained(1)], 'a', [replica('chat')], NOW);
    const forced = decideDrain(plan, { force: true, reason: ' disk replacement, approved by on-call ' });
    expect(forced.allowed && forced.forced).to.equal(true);
    expect(forced.allowed && forced.stranded.map((s) => s.deploymentName)).to.deep.equal(['chat']);
    for (const reason of [null, '', '   ']) {
      const refused = decideDrain(plan, { force: true, reason });
      expect(!refused.allowed && refused.error.code).to.equal(ErrorCode.VALIDATION_FAILED);
    }
  });

  it('an empty node drains: nothing to move, nothing stranded', () => {
    const plan = planDrain([node('a')], 'a', [], NOW);
    expect(plan).to.deep.equal({ moves: [], stranded: [] });
  });
});
