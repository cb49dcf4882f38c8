import { expect } from 'chai';
import {
  PRIORITIES_BY_RANK,
  capacityRetryAfterSeconds,
  chooseReplica,
  priorityRank,
  queueDecision,
  queueLimit,
} from '../src/admission';

describe('gateway admission rules', () => {
  it('serves high (interactive) before normal before low (batch)', () => {
    expect(PRIORITIES_BY_RANK).to.deep.equal(['high', 'normal', 'low']);
    expect(priorityRank('high')).to.be.lessThan(priorityRank('normal'));
    expect(priorityRank('normal')).to.be.lessThan(priorityRank('low'));
  });

  it('sends a request to the least loaded replica below the limit, the earliest on a tie', () => {
    expect(chooseReplica([0, 0, 0], 4)).to.equal(0);
    expect(chooseReplica([2, 1, 1], 4)).to.equal(1);
    expect(chooseReplica([4, 3, 4], 4)).to.equal(1);
    expect(chooseReplica([4, 4], 4)).to.equal(-1);
    expect(chooseReplica([], 4)).to.equal(-1);
  });

  it('bounds the queue per replica, with room for at least one replica', () => {
    expect(queueLimit(3, 8)).to.equal(24);
    expect(queueLimit(0, 8)).to.equal(8);
  });

  it('queues while there is room, then sheds the least urgent waiter for a more urgent newcomer', () => {
    expect(queueDecision([0, 1, 1], 3, 1)).to.deep.equal({ kind: 'enqueue' });
    // Full: a high-priority newcomer displaces a low one, then a normal one once no low is left.
    expect(queueDecision([0, 1, 2], 3, 0)).to.deep.equal({ kind: 'shed', shedRank: 2 });
    expect(queueDecision([1, 2, 0], 3, 0)).to.deep.equal({ kind: 'shed', shedRank: 1 });
    // Nobody less urgent than the newcomer: refused.
    expect(queueDecision([0, 3, 0], 3, 1)).to.deep.equal({ kind: 'refuse' });
    expect(queueDecision([0, 0, 3], 3, 2)).to.deep.equal({ kind: 'refuse' });
    expect(queueDecision([3, 0, 0], 3, 0)).to.deep.equal({ kind: 'refuse' });
  });

  it('Retry-After for capacity is the time the queue ahead takes to drain, 1 to 60 seconds', () => {
    expect(capacityRetryAfterSeconds(2000, 7, 4)).to.equal(4);
    expect(capacityRetryAfterSeconds(10, 0, 4)).to.equal(1);
    expect(capacityRetryAfterSeconds(Number.NaN, 3, 4)).to.equal(1);
    expect(capacityRetryAfterSeconds(600_000, 100, 1)).to.equal(60);
  });
});
