import { expect } from 'chai';
import {
  CACHE_PRESSURE_HIGH,
  PRIORITIES_BY_RANK,
  RUNTIME_LOAD_STALE_MS,
  capacityRetryAfterSeconds,
  chooseReplica,
  freshReplicaLoad,
  type ReportedReplicaLoad,
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

  describe('with the load the runtimes report', () => {
    const now = 1_800_000_000_000;
    const report = (over: Partial<ReportedReplicaLoad> = {}): ReportedReplicaLoad => ({
      waiting: 0,
      running: 0,
      cachePressure: 0.2,
      scrapedAtMs: now - 1000,
      ...over,
    });
    const choose = (inFlight: number[], reported: (ReportedReplicaLoad | null)[]): number =>
      chooseReplica(inFlight, 4, { reported, nowMs: now });

    it('with equal in-flight, the replica with the shorter runtime queue wins', () => {
      expect(choose([1, 1], [report({ waiting: 3 }), report({ waiting: 1 })])).to.equal(1);
      expect(choose([1, 1], [report({ waiting: 0 }), report({ waiting: 1 })])).to.equal(0);
    });

    it("penalises a replica other gateways are queueing on, but this gateway's own count stays in the sum", () => {
      // 0 own + 5 waiting inside the runtime is busier than 2 own and an empty runtime queue.
      expect(choose([0, 2], [report({ waiting: 5 }), report()])).to.equal(1);
      // ...but 3 own + 0 waiting is busier than 0 own + 2 waiting.
      expect(choose([0, 3], [report({ waiting: 2 }), report()])).to.equal(0);
    });

    it('avoids a replica whose KV cache is nearly full while another has room', () => {
      expect(choose([0, 3], [report({ cachePressure: 0.99 }), report({ cachePressure: 0.5 })])).to.equal(1);
      expect(choose([0, 3], [report({ cachePressure: CACHE_PRESSURE_HIGH }), report()])).to.equal(1);
      // Every other replica full by this gateway's count: the nearly full cache still takes the request.
      expect(choose([0, 4], [report({ cachePressure: 1 }), report()])).to.equal(0);
      // Equal otherwise: the emptier cache.
      expect(choose([1, 1], [report({ cachePressure: 0.6 }), report({ cachePressure: 0.3 })])).to.equal(1);
    });

    it('treats unknown load as neutral: neither preferred nor avoided', () => {
      expect(choose([1, 1], [null, report({ waiting: 0 })])).to.equal(0);
      expect(choose([1, 1], [report({ waiting: 0 }), null])).to.equal(0);
      expect(choose([1, 1], [null, report({ waiting: 2 })])).to.equal(0);
      expect(choose([1, 1], [report({ waiting: null, cachePressure: null }), report()])).to.equal(0);
      // A llama.cpp runtime reports no cache gauge: no tie-break on cache against it.
      expect(choose([1, 1], [report({ cachePressure: null }), report({ cachePressure: 0.1 })])).to.equal(0);
      expect(choose([2, 1], [null, null])).to.equal(1);
    });

    it('ignores a report older than the staleness bound', () => {
      const stale = now - RUNTIME_LOAD_STALE_MS - 1;
      expect(choose([1, 1], [report({ waiting: 9, scrapedAtMs: stale }), report()])).to.equal(0);
      expect(choose([0, 1], [report({ cachePressure: 1, scrapedAtMs: stale }), report()])).to.equal(0);
      expect(
        choose([1, 1], [report({ waiting: 9, scrapedAtMs: now - RUNTIME_LOAD_STALE_MS }), report()]),
      ).to.equal(1);
      expect(freshReplicaLoad(report({ scrapedAtMs: Number.NaN }), now)).to.equal(undefined);
      expect(freshReplicaLoad(undefined, now)).to.equal(undefined);
    });

    it("never lets the runtime's figures lift the limit on this gateway's own count", () => {
      expect(choose([4, 4], [report(), report()])).to.equal(-1);
      expect(choose([4, 3], [report(), report({ waiting: 50, cachePressure: 1 })])).to.equal(1);
    });
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
