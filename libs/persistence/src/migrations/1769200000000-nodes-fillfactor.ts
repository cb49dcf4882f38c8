import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `nodes` is rewritten by every heartbeat (a row a second per node). Half of
 * each page is left free so a row's next version fits on its own page: the
 * update is then HOT (no index entry added) and the versions it leaves behind
 * are pruned in place the next time the page is written, without waiting
 * for a vacuum. Full pages had sent about four renewals in ten to a new page
 * with a new index entry, and the table and its indexes grew with every
 * heartbeat until a vacuum ran (with autovacuum off, without end). Pages
 * written before this migration fill the same way until their rows move.
 */
export class NodesFillfactor1769200000000 implements MigrationInterface {
  name = 'NodesFillfactor1769200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes SET (fillfactor = 50)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes RESET (fillfactor)`);
  }
}
