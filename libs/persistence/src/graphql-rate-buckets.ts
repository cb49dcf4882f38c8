import type { QueryBucketTake, QueryRateCharge } from '@lunanexa/domain';
import type { Queryable } from './fleet';

/**
 * Table `graphql_rate_buckets` (migration 1769000000000): each GraphQL caller's cost bucket as the instant it is
 * full again (libs/domain query-cost.ts, `takeFromQueryBucket`), shared by every api process. Times are the
 * database's (`statement_timestamp()`), so api hosts' clocks never disagree about a bucket.
 */

interface RawTake {
  readonly granted: boolean;
  readonly full_at_ms: number;
  readonly now_ms: number;
}

/**
 * Takes one operation's charge from `callerKey`'s bucket in one statement (one round trip, atomic under
 * concurrent takes: the row is locked by the upsert), doing `takeFromQueryBucket`'s arithmetic: the full instant
 * moves `chargeMs` later, from now if it had passed, when it stays within `burstMs` of now; otherwise it stays
 * where it was. Answers the take as the database made it, times in epoch milliseconds (microsecond fractions).
 * A caller without a row starts full, and a full bucket always pays one charge (`chargeMs ≤ burstMs`).
 */
export async function takeGraphQLRateBucket(
  q: Queryable,
  callerKey: string,
  charge: QueryRateCharge,
): Promise<QueryBucketTake> {
  if (!(charge.chargeMs >= 0 && charge.chargeMs <= charge.burstMs))
    throw new Error(`a query charge of ${charge.chargeMs} ms does not fit a burst of ${charge.burstMs} ms`);
  const rows = await q.query<RawTake[]>(
    `INSERT INTO graphql_rate_buckets AS b (caller_key, full_at, last_take_granted)
     VALUES ($1, statement_timestamp() + $2::float8 * interval '1 millisecond', true)
     ON CONFLICT (caller_key) DO UPDATE SET
       last_take_granted =
         greatest(b.full_at, statement_timestamp()) + $2::float8 * interval '1 millisecond'
           <= statement_timestamp() + $3::float8 * interval '1 millisecond',
       full_at = CASE
         WHEN greatest(b.full_at, statement_timestamp()) + $2::float8 * interval '1 millisecond'
                <= statement_timestamp() + $3::float8 * interval '1 millisecond'
         THEN greatest(b.full_at, statement_timestamp()) + $2::float8 * interval '1 millisecond'
         ELSE b.full_at
       END
     RETURNING last_take_granted AS granted,
               (extract(epoch FROM full_at) * 1000)::float8 AS full_at_ms,
               (extract(epoch FROM statement_timestamp()) * 1000)::float8 AS now_ms`,
    [callerKey, charge.chargeMs, charge.burstMs],
  );
  const [row] = rows;
  if (row === undefined) throw new Error('the rate bucket upsert returned no row');
  return { granted: row.granted, fullAtMs: row.full_at_ms, nowMs: row.now_ms };
}

/**
 * Deletes the buckets that are full again (their instant has passed: a missing row means the same), so callers
 * who went idle leave nothing behind. Safe beside concurrent takes: a row a take just moved into the future no
 * longer matches when the delete re-checks it. Answers how many were deleted.
 */
export async function pruneFullGraphQLRateBuckets(q: Queryable): Promise<number> {
  const rows = await q.query<{ pruned: number }[]>(
    `WITH pruned AS (DELETE FROM graphql_rate_buckets WHERE full_at <= statement_timestamp() RETURNING 1)
     SELECT count(*)::int AS pruned FROM pruned`,
  );
  return rows[0]?.pruned ?? 0;
}

/** How many callers have a bucket that is not full (rows kept), for tests and operators. */
export async function countGraphQLRateBuckets(q: Queryable): Promise<number> {
  const rows = await q.query<{ buckets: number }[]>(
    `SELECT count(*)::int AS buckets FROM graphql_rate_buckets`,
  );
  return rows[0]?.buckets ?? 0;
}
