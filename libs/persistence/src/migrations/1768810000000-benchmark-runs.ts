import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `benchmark_runs`: saturation sweeps, long streams and mixed loads measured on one deployment's replicas
 * (contracts benchmark-runs.ts), outside an evaluation. The plan and the profile are snapshots (profiles are
 * immutable, but a run must stay readable if one is ever removed); results gain one key per kind as each kind
 * ends, so a run that fails halfway keeps what it measured.
 */
export class BenchmarkRuns1768810000000 implements MigrationInterface {
  name = 'BenchmarkRuns1768810000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE benchmark_runs (
        id text PRIMARY KEY,
        deployment_id text NOT NULL REFERENCES deployments (id),
        model_ref text NOT NULL,
        profile_id uuid NOT NULL REFERENCES benchmark_profiles (id),
        profile_name text NOT NULL,
        profile_snapshot jsonb NOT NULL CHECK (jsonb_typeof(profile_snapshot) = 'object'),
        plan jsonb NOT NULL CHECK (jsonb_typeof(plan) = 'object'),
        state text NOT NULL CHECK (state IN ('Running', 'Succeeded', 'Failed')),
        results jsonb NOT NULL DEFAULT '{}'::jsonb CHECK (jsonb_typeof(results) = 'object'),
        error_code text,
        error text,
        workflow_id text NOT NULL UNIQUE,
        correlation_id text NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        CHECK ((state = 'Running') = (finished_at IS NULL)),
        CHECK ((state = 'Failed') = (error_code IS NOT NULL))
      )`);
    // The capacity view reads the newest finished saturation sweep of a deployment.
    await q.query(
      `CREATE INDEX benchmark_runs_deployment_idx ON benchmark_runs (deployment_id, created_at DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE benchmark_runs`);
  }
}
