import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The load each replica's runtime last reported (heartbeat observedAssignments[].load): requests waiting and
 * running inside the runtime, KV cache share in use, and when it was scraped. Written by the heartbeat fold,
 * read by the gateway's route snapshot (to prefer less loaded replicas) and the api's runtime load metrics.
 * Nullable columns without defaults: adding them touches no rows, and a controller of the previous release
 * keeps working on this schema (it neither reads nor writes them).
 */
export class AssignmentRuntimeLoad1768520000000 implements MigrationInterface {
  name = 'AssignmentRuntimeLoad1768520000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE assignments
        ADD COLUMN load_waiting integer CHECK (load_waiting >= 0),
        ADD COLUMN load_running integer CHECK (load_running >= 0),
        ADD COLUMN load_cache_pressure double precision CHECK (load_cache_pressure BETWEEN 0 AND 1),
        ADD COLUMN load_scraped_at timestamptz`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE assignments
        DROP COLUMN load_waiting,
        DROP COLUMN load_running,
        DROP COLUMN load_cache_pressure,
        DROP COLUMN load_scraped_at`);
  }
}
