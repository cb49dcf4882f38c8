import { expect } from 'chai';
import {
  DEFAULT_QUERY_BUDGET,
  ROOT_FIELD_COST,
  UNBOUNDED_LIST_SIZE,
  costWithSelection,
  describeQueryRefusal,
  fullQueryBucket,
  judgeLexicalMeasure,
  judgeOperation,
  listSize,
  priceField,
  queryBucketIsFull,
  takeQueryCost,
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

  describe('takeQueryCost (token bucket per caller)', () => {
    const policy: QueryRatePolicy = { capacity: 1_000, refillPerSecond: 100 };

    it('takes each operation’s cost until the bucket cannot pay, then says when it can', () => {
      let bucket = fullQueryBucket(policy, 0);
      const first = takeQueryCost(bucket, 700, 0, policy);
      expect(first).to.deep.include({ allowed: true, bucket: { level: 300, refilledAtMs: 0 } });
      bucket = first.bucket;
      const second = takeQueryCost(bucket, 700, 0, policy);
      expect(second).to.deep.include({ allowed: false, retryAfterSeconds: 4 });
      // A refusal takes nothing.
      expect(second.bucket.level).to.equal(300);
      const later = takeQueryCost(second.bucket, 700, 4_000, policy);
      expect(later).to.deep.include({ allowed: true, bucket: { level: 0, refilledAtMs: 4_000 } });
    });

    it('refills up to the capacity, never past it, and nothing when the clock goes back', () => {
      const spent = takeQueryCost(fullQueryBucket(policy, 0), 1_000, 0, policy).bucket;
      expect(takeQueryCost(spent, 0, 60_000, policy).bucket.level).to.equal(1_000);
      expect(takeQueryCost(spent, 0, -5_000, policy).bucket).to.deep.equal({ level: 0, refilledAtMs: 0 });
      expect(queryBucketIsFull(spent, 9_999, policy)).to.equal(false);
      expect(queryBucketIsFull(spent, 10_000, policy)).to.equal(true);
    });

    it('charges a cost above the capacity as the capacity, so a full bucket still pays it once', () => {
      const decision = takeQueryCost(fullQueryBucket(policy, 0), 50_000, 0, policy);
      expect(decision).to.deep.include({ allowed: true, bucket: { level: 0, refilledAtMs: 0 } });
      expect(takeQueryCost(decision.bucket, 50_000, 0, policy)).to.include({
        allowed: false,
        retryAfterSeconds: 10,
      });
    });
  });
});
