import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `graphql_rate_buckets`: each GraphQL caller's cost bucket (libs/domain query-cost.ts), kept as the instant it is
 * full again, so every api process spends from the same allowance. A caller without a row has a full bucket, so
 * rows whose instant has passed carry nothing and are pruned. UNLOGGED: the buckets are seconds of state, not
 * records; a commit that writes only them waits for no WAL flush, and a database crash just refills every bucket.
 * fillfactor leaves room on each page for the row's next version (a HOT update: no index touched).
 */
export class GraphqlRateBuckets1769000000000 implements MigrationInterface {
  name = 'GraphqlRateBuckets1769000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE UNLOGGED TABLE graphql_rate_buckets (
        caller_key text PRIMARY KEY CHECK (length(caller_key) BETWEEN 1 AND 200),
        full_at timestamptz NOT NULL,
        last_take_granted boolean NOT NULL
      ) WITH (fillfactor = 70)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE graphql_rate_buckets`);
  }
}
