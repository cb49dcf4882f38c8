import { expect } from 'chai';
import {
  AFFINITY_LOAD_FACTOR,
  affinityLoadBound,
  buildHashRing,
  chatPrefixHash,
  chooseAffinityReplica,
  chooseRotationReplica,
  completionPrefixHash,
  policyHashesPrefix,
  ringOrder,
} from '../src/routing';

const REPLICAS = [
  'http://10.0.0.1:8000',
  'http://10.0.0.2:8000',
  'http://10.0.0.3:8000',
  'http://10.0.0.4:8000',
];

describe('routing policies', () => {
  it('hashes a chat by its system prompt (else its first user message), not by later turns or the question', () => {
    const system = { role: 'system' as const, content: 'You are the billing assistant of tenant 7.' };
    const a = chatPrefixHash([system, { role: 'user', content: 'What is my balance?' }]);
    const b = chatPrefixHash([system, { role: 'user', content: 'Cancel my plan.' }]);
    const other = chatPrefixHash([
      { role: 'system', content: 'You are the billing assistant of tenant 8.' },
      { role: 'user', content: 'What is my balance?' },
    ]);
    expect(a).to.equal(b);
    expect(a).to.not.equal(other);
    const first = { role: 'user' as const, content: 'Plan a trip to Lisbon.' };
    const turn1 = chatPrefixHash([first]);
    const turn3 = chatPrefixHash([
      first,
      { role: 'assistant', content: 'Sure: when?' },
      { role: 'user', content: 'In May.' },
    ]);
    expect(turn1).to.equal(turn3);
    expect(chatPrefixHash([{ role: 'user', content: 'Plan a trip to Porto.' }])).to.not.equal(turn1);
    expect(completionPrefixHash('abc')).to.equal(completionPrefixHash('abc'));
    expect(completionPrefixHash('abc')).to.not.equal(completionPrefixHash('abd'));
  });

  it('puts every replica once on the ring walk, the same whatever order the replicas are listed in', () => {
    const ring = buildHashRing(REPLICAS);
    const reversed = buildHashRing([...REPLICAS].reverse());
    for (const key of [0, 1, 12345, 0xffffffff, chatPrefixHash([{ role: 'user', content: 'x' }])]) {
      const order = ringOrder(ring, key);
      expect([...order].sort()).to.deep.equal([...REPLICAS].sort());
      expect(ringOrder(reversed, key)).to.deep.equal(order);
    }
    expect(ringOrder(buildHashRing([]), 5)).to.deep.equal([]);
  });

  it('spreads prefixes over the replicas and moves only the removed replica’s prefixes when one goes', () => {
    const ring = buildHashRing(REPLICAS);
    const smaller = buildHashRing(REPLICAS.slice(0, 3));
    const homes = new Map<string, number>();
    let moved = 0;
    for (let i = 0; i < 4000; i += 1) {
      const key = completionPrefixHash(`tenant ${i} system prompt`);
      const home = ringOrder(ring, key)[0];
      homes.set(home, (homes.get(home) ?? 0) + 1);
      const after = ringOrder(smaller, key)[0];
      if (home !== REPLICAS[3] && after !== home) moved += 1;
    }
    for (const count of homes.values()) expect(count).to.be.within(700, 1300);
    expect(moved).to.equal(0);
  });

  it('bounds affinity at 1.25 × the mean in flight (with the arrival) and spills along the ring', () => {
    expect(AFFINITY_LOAD_FACTOR).to.equal(1.25);
    expect(affinityLoadBound(0, 4)).to.equal(0.3125);
    expect(affinityLoadBound(11, 4)).to.equal(3.75);
    // Nothing in flight: the bound is below 1, so the least loaded replica, the prefix's own on a tie.
    expect(chooseAffinityReplica([2, 0, 1, 3], [0, 0, 0, 0], 8)).to.deep.equal({
      index: 2,
      reason: 'affinity',
    });
    // 12 in flight: bound 1.25 × 13 / 4 = 4.06; replica 2 would hold 6, replica 0 would hold 3: spill to 0.
    expect(chooseAffinityReplica([2, 0, 1, 3], [2, 3, 5, 2], 8)).to.deep.equal({
      index: 0,
      reason: 'affinity-overflow',
    });
    // Within the bound the prefix's own replica keeps it.
    expect(chooseAffinityReplica([2, 0, 1, 3], [3, 3, 3, 3], 8)).to.deep.equal({
      index: 2,
      reason: 'affinity',
    });
    // Few in flight: nobody within the bound, so the least loaded — never one above the mean.
    expect(chooseAffinityReplica([1, 0, 2, 3], [0, 1, 0, 0], 8)).to.deep.equal({
      index: 0,
      reason: 'affinity-overflow',
    });
    // The per-replica concurrency limit applies too, and all full is -1.
    expect(chooseAffinityReplica([1, 0], [0, 1], 1)).to.deep.equal({ index: 0, reason: 'affinity-overflow' });
    expect(chooseAffinityReplica([1, 0], [1, 1], 1).index).to.equal(-1);
  });

  it('round robin takes the first replica in rotation with room and ignores load reports', () => {
    expect(chooseRotationReplica([3, 0, 0], 4)).to.equal(0);
    expect(chooseRotationReplica([4, 0, 0], 4)).to.equal(1);
    expect(chooseRotationReplica([4, 4], 4)).to.equal(-1);
  });

  it('hashes prompts only for prefix-affinity', () => {
    expect(policyHashesPrefix('prefix-affinity')).to.equal(true);
    expect(policyHashesPrefix('least-loaded')).to.equal(false);
    expect(policyHashesPrefix('round-robin')).to.equal(false);
  });
});
