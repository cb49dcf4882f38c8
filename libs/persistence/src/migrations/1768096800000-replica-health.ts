import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the healing rules read, kept where heartbeats are ingested:
 * - `assignments.observed_restarts`: the agent's restart counter for the
 *   replica as last reported; `restarts_baseline`: its value when healing
 *   last restarted the replica (crash loops count from there);
 *   `health_failures`: consecutive heartbeats that reported it Unhealthy;
 *   `healed_at`: when healing last acted on it (cooldown).
 * - `nodes.healed_at`: when healing last acted on the node.
 * - `runtime_crashes`: one row per runtime crash seen (an increase of a
 *   replica's restart counter), for the per-node crash window.
 */
export class ReplicaHealth1768096800000 implements MigrationInterface {
  name = 'ReplicaHealth1768096800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE assignments
         ADD COLUMN observed_restarts integer NOT NULL DEFAULT 0 CHECK (observed_restarts >= 0),
         ADD COLUMN restarts_baseline integer NOT NULL DEFAULT 0 CHECK (restarts_baseline >= 0),
         ADD COLUMN health_failures integer NOT NULL DEFAULT 0 CHECK (health_failures >= 0),
         ADD COLUMN healed_at timestamptz`,
    );
    await q.query(`ALTER TABLE nodes ADD COLUMN healed_at timestamptz`);
    await q.query(`
      CREATE TABLE runtime_crashes (
        id bigserial PRIMARY KEY,
        node_id text NOT NULL REFERENCES nodes (id),
        assignment_id text NOT NULL,
        observed_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX runtime_crashes_node_time ON runtime_crashes (node_id, observed_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE runtime_crashes`);
    await q.query(`ALTER TABLE nodes DROP COLUMN healed_at`);
    await q.query(
      `ALTER TABLE assignments DROP COLUMN observed_restarts, DROP COLUMN restarts_baseline,
         DROP COLUMN health_failures, DROP COLUMN healed_at`,
    );
  }
}
