import { expect } from 'chai';
import {
  DEFAULT_QUERY_BUDGET,
  ROOT_FIELD_COST,
  UNBOUNDED_LIST_SIZE,
  costWithSelection,
  describeQueryRefusal,
  judgeLexicalMeasure,
  judgeOperation,
  listSize,
  priceField,
  queryBucketIsFull,
  queryRateCharge,
  queryRateDecision,
  takeFromQueryBucket,
  takeQueryCost,
  type QueryBucket,
  type QueryRatePolicy,
} from '../src/query-cost';

const field = (
  name: string,
  args: Record<string, unknown> = {},
  returnsList = false,
  parentType = 'Query',
  returnsLeaf = false,
) => ({ parentType, name, args, returnsList, returnsLeaf });

describe('query cost', () => {
  describe('priceField', () => {
    it('prices a root field at a round trip, an object field at 1, scalars and __typename at nothing', () => {
      expect(priceField(field('node'))).to.deep.equal({ own: ROOT_FIELD_COST, multiplier: 1 });
      expect(priceField(field('lease', {}, false, 'FleetNode'))).to.deep.equal({ own: 1, multiplier: 1 });
      expect(priceField(field('name', {}, false, 'FleetNode', true))).to.deep.equal({
        own: 0,
        multiplier: 1,
      });
      expect(priceField(field('labels', {}, true, 'FleetNode', true))).to.deep.equal({
        own: 0,
        multiplier: 50,
      });
      expect(priceField(field('__typename', {}, false, 'FleetNode', true))).to.deep.equal({
        own: 0,
        multiplier: 1,
      });
    });

    it('pays a list’s sub-selection once per item it may hold: first/last/limit, else the unbounded size', () => {
      expect(priceField(field('auditEvents', { first: 10 }, true)).multiplier).to.equal(10);
      expect(priceField(field('rollouts', { limit: 3 }, true)).multiplier).to.equal(3);
      expect(priceField(field('nodes', {}, true)).multiplier).to.equal(UNBOUNDED_LIST_SIZE);
      expect(listSize({ first: -1 })).to.equal(UNBOUNDED_LIST_SIZE);
      expect(listSize({ first: 'ten' })).to.equal(UNBOUNDED_LIST_SIZE);
      expect(listSize({ first: 2.5 })).to.equal(3);
      expect(costWithSelection({ own: 1, multiplier: 10 }, 4)).to.equal(41);
    });

    it('prices chain verification and search high, a full verification ten times an incremental one', () => {
      expect(priceField(field('auditChainStatus')).own).to.equal(1_000);
      expect(priceField(field('auditChainStatus', { mode: 'INCREMENTAL' })).own).to.equal(1_000);
      expect(priceField(field('auditChainStatus', { mode: 'FULL' })).own).to.equal(10_000);
      expect(priceField(field('search', { term: 'x' }, true)).own).to.equal(500);
      expect(priceField(field('controlPlaneDigest')).own).to.equal(10_000);
      // Only on Query: a field of the same name elsewhere is a plain one.
      expect(priceField(field('search', {}, false, 'Node')).own).to.equal(1);
    });
  });

  describe('judging a document', () => {
    const within = { tokens: 10, depth: 2 };
    it('lets a document within every limit through', () => {
      expect(judgeLexicalMeasure(within, DEFAULT_QUERY_BUDGET)).to.deep.equal({ allowed: true });
      expect(
        judgeOperation({ depth: 3, aliases: 2, cost: 40, introspectionListNesting: 3 }, DEFAULT_QUERY_BUDGET),
      ).to.deep.equal({ allowed: true });
    });

    it('names the first limit exceeded with what was measured and the maximum', () => {
      expect(judgeLexicalMeasure({ tokens: 5_001, depth: 5_000 }, DEFAULT_QUERY_BUDGET)).to.deep.equal({
        allowed: false,
        limit: 'tokens',
        measured: 5_001,
        max: 5_000,
      });
      expect(judgeLexicalMeasure({ tokens: 100, depth: 25 }, DEFAULT_QUERY_BUDGET)).to.include({
        limit: 'depth',
        max: 24,
      });
      const verdict = judgeOperation(
        { depth: 2, aliases: 2_000, cost: 1_000_000, introspectionListNesting: 0 },
        DEFAULT_QUERY_BUDGET,
      );
      expect(verdict).to.deep.equal({ allowed: false, limit: 'aliases', measured: 2_000, max: 40 });
      if (verdict.allowed) throw new Error('unreachable');
      expect(describeQueryRefusal(verdict)).to.include('2000').and.to.include('40');
      expect(
        judgeOperation(
          { depth: 1, aliases: 0, cost: 20_001, introspectionListNesting: 0 },
          DEFAULT_QUERY_BUDGET,
        ),
      ).to.include({ limit: 'cost', measured: 20_001, max: 20_000 });
      expect(
        judgeOperation(
          { depth: 1, aliases: 0, cost: 100, introspectionListNesting: 4 },
          DEFAULT_QUERY_BUDGET,
        ),
      ).to.include({ limit: 'introspectionListNesting', max: 3 });
    });
  });

  describe('takeQueryCost (token bucket per caller, kept as the instant it is full again)', () => {
    const policy: QueryRatePolicy = { capacity: 1_000, refillPerSecond: 100 };

    it('takes each operation’s cost until the bucket cannot pay, then says when it can', () => {
      const first = takeQueryCost(undefined, 700, 0, policy);
      // 700 of 1,000 spent: full again in 7 s.
      expect(first).to.deep.equal({ allowed: true, bucket: { fullAtMs: 7_000 } });
      const second = takeQueryCost(first.bucket, 700, 0, policy);
      // 300 left, 700 asked: 400 more at 100 a second. A refusal takes nothing.
      expect(second).to.deep.equal({ allowed: false, retryAfterSeconds: 4, bucket: { fullAtMs: 7_000 } });
      const later = takeQueryCost(second.bucket, 700, 4_000, policy);
      expect(later).to.deep.equal({ allowed: true, bucket: { fullAtMs: 14_000 } });
      expect(takeQueryCost(later.bucket, 1, 4_000, policy)).to.include({
        allowed: false,
        retryAfterSeconds: 1,
      });
    });

    it('refills up to the capacity, never past it, and nothing when the clock goes back', () => {
      const spent = takeQueryCost(undefined, 1_000, 0, policy).bucket;
      expect(spent).to.deep.equal({ fullAtMs: 10_000 });
      // A minute later it is full, not six times full: two whole buckets do not fit.
      const rested = takeQueryCost(spent, 1_000, 60_000, policy);
      expect(rested).to.deep.equal({ allowed: true, bucket: { fullAtMs: 70_000 } });
      expect(takeQueryCost(rested.bucket, 1, 60_000, policy).allowed).to.equal(false);
      // Seen from 5 s before it was spent, the bucket is that much further from full: the wait grows, never shrinks.
      expect(takeQueryCost(spent, 1, -5_000, policy)).to.include({ allowed: false, retryAfterSeconds: 6 });
      expect(takeQueryCost(spent, 1, -5_000, policy).bucket).to.deep.equal({ fullAtMs: 10_000 });
      expect(queryBucketIsFull(spent, 9_999)).to.equal(false);
      expect(queryBucketIsFull(spent, 10_000)).to.equal(true);
    });

    it('charges a cost above the capacity as the capacity, so a full bucket still pays it once', () => {
      expect(queryRateCharge(50_000, policy)).to.deep.equal({ chargeMs: 10_000, burstMs: 10_000 });
      expect(queryRateCharge(-3, policy)).to.deep.equal({ chargeMs: 0, burstMs: 10_000 });
      const decision = takeQueryCost(undefined, 50_000, 0, policy);
      expect(decision).to.deep.equal({ allowed: true, bucket: { fullAtMs: 10_000 } });
      expect(takeQueryCost(decision.bucket, 50_000, 0, policy)).to.include({
        allowed: false,
        retryAfterSeconds: 10,
      });
    });

    it('answers a take the database made: Retry-After from the full instant it returned', () => {
      const charge = queryRateCharge(700, policy);
      expect(queryRateDecision({ granted: true, fullAtMs: 9_000, nowMs: 2_000 }, charge)).to.deep.equal({
        allowed: true,
      });
      // Full at 9.5 s, now 2 s: 250 left, 700 asked, 4.5 s to wait: 5 whole seconds.
      expect(queryRateDecision({ granted: false, fullAtMs: 9_500, nowMs: 2_000 }, charge)).to.deep.equal({
        allowed: false,
        retryAfterSeconds: 5,
      });
    });

    it('decides exactly as a bucket with a level refilled by elapsed time would, over a long random run', () => {
      // The textbook form, written out independently: level and last refill.
      const reference = { level: policy.capacity, atMs: 0 };
      let bucket: QueryBucket | undefined;
      let seed = 7;
      const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
      let nowMs = 0;
      let refused = 0;
      for (let i = 0; i < 5_000; i++) {
        nowMs += Math.floor(random() * 800);
        const cost = Math.floor(random() * 600);
        reference.level = Math.min(
          policy.capacity,
          reference.level + ((nowMs - reference.atMs) / 1000) * policy.refillPerSecond,
        );
        reference.atMs = nowMs;
        const fits = reference.level >= cost - 1e-9;
        if (fits) reference.level -= cost;
        const decision = takeQueryCost(bucket, cost, nowMs, policy);
        expect(decision.allowed, `step ${i}`).to.equal(fits);
        if (!decision.allowed) {
          refused++;
          expect(decision.retryAfterSeconds).to.equal(
            Math.max(1, Math.ceil((cost - reference.level) / policy.refillPerSecond - 1e-9)),
          );
        }
        bucket = decision.bucket;
        const level =
          policy.capacity - Math.max(0, bucket.fullAtMs - nowMs) * (policy.refillPerSecond / 1000);
        expect(level).to.be.closeTo(reference.level, 1e-6);
      }
      expect(refused, 'the run exercised refusals').to.be.within(500, 4_500);
    });

    it('takeFromQueryBucket starts a missing bucket full', () => {
      const charge = queryRateCharge(1_000, policy);
      expect(takeFromQueryBucket(undefined, charge, 500)).to.deep.equal({
        granted: true,
        fullAtMs: 10_500,
        nowMs: 500,
      });
    });
  });
});
