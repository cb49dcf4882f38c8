import type { MigrationInterface, QueryRunner } from 'typeorm';

const NAME = `'^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'`;
const DIGEST = `'^sha256:[0-9a-f]{64}$'`;

/**
 * Evaluation suites, benchmark profiles and evaluation runs.
 *
 * Suites and profiles are immutable once created (a trigger refuses UPDATE):
 * a result is only comparable with another if both ran the same definition,
 * so a change is a new name. Each run also keeps a snapshot of the suite and
 * profile it ran and their digests, and a finished run cannot be changed —
 * history is not rewritten by a later edit or a late retry.
 */
export class Evaluations1767571200000 implements MigrationInterface {
  name = 'Evaluations1767571200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE evaluation_suites (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE CHECK (name ~ ${NAME}),
        -- The contracts' EvaluationSuiteDefinition (cases with graders, pass threshold).
        definition jsonb NOT NULL CHECK (jsonb_typeof(definition) = 'object' AND definition->>'name' = name),
        -- sha256 of the definition's canonical JSON: runs of equal digests ran the same suite.
        digest text NOT NULL CHECK (digest ~ ${DIGEST}),
        case_count integer NOT NULL CHECK (case_count BETWEEN 1 AND 500),
        created_by text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE benchmark_profiles (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE CHECK (name ~ ${NAME}),
        -- The contracts' BenchmarkProfileDefinition (concurrency, lengths, duration or count, SLOs).
        definition jsonb NOT NULL CHECK (jsonb_typeof(definition) = 'object' AND definition->>'name' = name),
        digest text NOT NULL CHECK (digest ~ ${DIGEST}),
        concurrency integer NOT NULL CHECK (concurrency BETWEEN 1 AND 256),
        created_by text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE FUNCTION evaluation_definitions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '% rows are immutable; create a new one under a new name', TG_TABLE_NAME
          USING ERRCODE = 'integrity_constraint_violation';
      END $$`);
    for (const table of ['evaluation_suites', 'benchmark_profiles']) {
      await q.query(`
        CREATE TRIGGER ${table}_immutable BEFORE UPDATE ON ${table}
          FOR EACH ROW EXECUTE FUNCTION evaluation_definitions_immutable()`);
    }

    await q.query(`
      CREATE TABLE evaluation_runs (
        id text PRIMARY KEY,
        model_version_id uuid NOT NULL REFERENCES model_versions (id),
        model_ref text NOT NULL,
        deployment_id text NOT NULL REFERENCES deployments (id),
        suite_id uuid NOT NULL REFERENCES evaluation_suites (id),
        suite_name text NOT NULL,
        suite_digest text NOT NULL CHECK (suite_digest ~ ${DIGEST}),
        suite_snapshot jsonb NOT NULL,
        profile_id uuid REFERENCES benchmark_profiles (id),
        profile_name text,
        profile_digest text CHECK (profile_digest IS NULL OR profile_digest ~ ${DIGEST}),
        profile_snapshot jsonb,
        state text NOT NULL CHECK (state IN ('Running', 'Passed', 'Failed', 'Errored')),
        -- Unmet pass criteria (Failed) or what stopped the run (Errored).
        reasons jsonb NOT NULL DEFAULT '[]'::jsonb CHECK (jsonb_typeof(reasons) = 'array'),
        error_code text,
        -- EvaluationScores (pass rate, per-case outcomes) and BenchmarkMetrics (TTFT, tokens/s, error rate).
        scores jsonb,
        metrics jsonb,
        passed boolean,
        workflow_id text NOT NULL UNIQUE,
        correlation_id text NOT NULL,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        finished_at timestamptz,
        CHECK ((state = 'Running') = (finished_at IS NULL)),
        CHECK ((state = 'Running') = (passed IS NULL)),
        CHECK (state NOT IN ('Passed', 'Failed') OR (passed = (state = 'Passed') AND scores IS NOT NULL)),
        CHECK (state <> 'Errored' OR (passed = false AND error_code IS NOT NULL)),
        CHECK ((profile_id IS NULL) = (profile_snapshot IS NULL)),
        CHECK ((profile_id IS NULL) = (profile_name IS NULL) AND (profile_id IS NULL) = (profile_digest IS NULL)),
        CHECK (finished_at IS NULL OR finished_at >= created_at)
      )`);
    await q.query(
      `CREATE INDEX evaluation_runs_version ON evaluation_runs (model_version_id, created_at DESC)`,
    );
    await q.query(`CREATE INDEX evaluation_runs_profile ON evaluation_runs (profile_id, finished_at DESC)`);
    // One evaluation of a version at a time, like the Evaluating state it holds: the database decides.
    await q.query(`
      CREATE UNIQUE INDEX evaluation_runs_one_running_per_version ON evaluation_runs (model_version_id)
        WHERE state = 'Running'`);
    await q.query(`
      CREATE FUNCTION evaluation_runs_finished_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.state <> 'Running' THEN
          RAISE EXCEPTION 'evaluation run % is finished (%); its result is history', OLD.id, OLD.state
            USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER evaluation_runs_finished_immutable BEFORE UPDATE ON evaluation_runs
        FOR EACH ROW EXECUTE FUNCTION evaluation_runs_finished_immutable()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE evaluation_runs`);
    await q.query(`DROP FUNCTION evaluation_runs_finished_immutable()`);
    await q.query(`DROP TABLE benchmark_profiles`);
    await q.query(`DROP TABLE evaluation_suites`);
    await q.query(`DROP FUNCTION evaluation_definitions_immutable()`);
  }
}
