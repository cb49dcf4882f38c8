import type { MigrationInterface, QueryRunner } from 'typeorm';

const NAME = `'^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'`;

/**
 * The model registry (models, licenses, runtimes, full model versions with
 * lifecycle state, verification and evaluation), versioned aliases with their
 * revision history, and rollouts.
 *
 * Model versions registered before this migration were synthetic fake-runtime
 * versions: they get a model row, the built-in `lunanexa-synthetic` license
 * (the only license a `fake`-format artifact may carry, and the only one that
 * is approved without a reviewer: synthetic weights carry no third-party
 * terms) and state Verified, since their digest is derived, not downloaded.
 */
export class RegistryAndRollouts1767484800000 implements MigrationInterface {
  name = 'RegistryAndRollouts1767484800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE models (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE CHECK (name ~ ${NAME}),
        display_name text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 256),
        description text CHECK (description IS NULL OR length(description) <= 4096),
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE licenses (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE CHECK (name ~ ${NAME}),
        -- The contracts' License document (kind spdx | custom, terms, approval) as last written.
        document jsonb NOT NULL,
        approval_state text NOT NULL CHECK (approval_state IN ('PendingReview', 'Approved', 'Rejected')),
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE runtimes (
        id text PRIMARY KEY,
        name text NOT NULL CHECK (name ~ ${NAME}),
        version text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('fake', 'openai-compatible')),
        -- The contracts' Runtime document (packaging with digest, launch spec, health, supported hardware).
        document jsonb NOT NULL,
        -- The runtime allowlist: a version deploys only on an allowed runtime.
        allowed boolean NOT NULL DEFAULT true,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (name, version)
      )`);
    await q.query(`
      ALTER TABLE model_versions
        ADD COLUMN model_id uuid REFERENCES models (id),
        ADD COLUMN state text NOT NULL DEFAULT 'Registered' CHECK (state IN
          ('Registered', 'Verified', 'VerificationFailed', 'Evaluating', 'Evaluated', 'EvaluationFailed',
           'Approved', 'Deprecated', 'Retired')),
        ADD COLUMN state_reason text,
        ADD COLUMN license_id uuid REFERENCES licenses (id),
        ADD COLUMN runtime_id text REFERENCES runtimes (id),
        -- CompatibleHardware: what one replica needs.
        ADD COLUMN requirements jsonb,
        -- The last digest verification against the artifact store: { ok, digest, sizeBytes, store, verifiedAt, code? }.
        ADD COLUMN verification jsonb,
        -- The latest evaluation summary (EvaluationSummary); a failed one blocks rollouts.
        ADD COLUMN evaluation jsonb,
        ADD COLUMN context_length integer CHECK (context_length IS NULL OR context_length > 0),
        ADD COLUMN parameter_count bigint CHECK (parameter_count IS NULL OR parameter_count > 0),
        ADD COLUMN updated_at timestamptz`);

    const now = `now()`;
    await q.query(`
      INSERT INTO licenses (id, name, document, approval_state, created_by, created_at, updated_at)
      VALUES ('00000000-0000-4000-8000-000000000001', 'lunanexa-synthetic', jsonb_build_object(
        'kind', 'spdx', 'spdxId', 'LicenseRef-LunaNexa-Synthetic', 'commercialUse', true,
        'allowedDataClasses', '["public","internal","confidential","restricted"]'::jsonb,
        'attribution', null,
        'approval', jsonb_build_object('state', 'Approved', 'decidedBy', 'system', 'decidedAt',
          to_char(${now} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
          'note', 'Synthetic weights of the fake runtime: no third-party terms.')),
        'Approved', 'system', ${now}, ${now})`);
    await q.query(`
      INSERT INTO runtimes (id, name, version, kind, document, allowed, created_by, created_at, updated_at)
      SELECT DISTINCT ON (runtime->>'id') runtime->>'id', runtime->>'name', runtime->>'version', runtime->>'kind',
             runtime, true, 'system', ${now}, ${now}
        FROM model_versions ORDER BY runtime->>'id', created_at DESC`);
    await q.query(`
      INSERT INTO models (id, name, display_name, description, created_by, created_at, updated_at)
      SELECT gen_random_uuid(), model, model, NULL, min(created_by), min(created_at), min(created_at)
        FROM model_versions GROUP BY model`);
    await q.query(`
      UPDATE model_versions mv SET
        model_id = m.id,
        state = 'Verified',
        license_id = '00000000-0000-4000-8000-000000000001',
        runtime_id = mv.runtime->>'id',
        requirements = mv.runtime->'supportedHardware',
        verification = jsonb_build_object('ok', true, 'digest', mv.artifact->>'digest', 'sizeBytes', 0,
          'store', 'synthetic', 'verifiedAt', to_char(mv.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
        updated_at = mv.created_at
        FROM models m WHERE m.name = mv.model`);
    await q.query(`
      ALTER TABLE model_versions
        ALTER COLUMN model_id SET NOT NULL,
        ALTER COLUMN license_id SET NOT NULL,
        ALTER COLUMN runtime_id SET NOT NULL,
        ALTER COLUMN requirements SET NOT NULL,
        ALTER COLUMN updated_at SET NOT NULL`);
    await q.query(`CREATE INDEX model_versions_model_id ON model_versions (model_id)`);

    await q.query(`
      ALTER TABLE deployments
        -- Candidate: a version under evaluation (not reachable through an alias); Serving: behind an alias.
        ADD COLUMN purpose text NOT NULL DEFAULT 'Candidate' CHECK (purpose IN ('Candidate', 'Serving')),
        ADD COLUMN rollout_id text`);

    await q.query(`
      CREATE TABLE aliases (
        id uuid PRIMARY KEY,
        name text NOT NULL UNIQUE CHECK (name ~ ${NAME}),
        description text,
        -- The class of data callers send through this alias; a version's license must allow it.
        data_class text NOT NULL CHECK (data_class IN ('public', 'internal', 'confidential', 'restricted')),
        -- 0 until the first promotion; alias_revisions (alias_id, current_revision) is what callers get.
        current_revision integer NOT NULL DEFAULT 0 CHECK (current_revision >= 0),
        -- The live traffic split while a rollout runs: canary deployment and its share in percent.
        canary_deployment_id text REFERENCES deployments (id),
        canary_weight integer NOT NULL DEFAULT 0 CHECK (canary_weight BETWEEN 0 AND 100),
        active_rollout_id text,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CHECK (canary_weight = 0 OR canary_deployment_id IS NOT NULL)
      )`);
    await q.query(`
      CREATE TABLE alias_revisions (
        alias_id uuid NOT NULL REFERENCES aliases (id),
        revision integer NOT NULL CHECK (revision >= 1),
        model_version_id uuid NOT NULL REFERENCES model_versions (id),
        model_ref text NOT NULL,
        deployment_id text NOT NULL REFERENCES deployments (id),
        -- promote: a rollout's version took over; rollback: a copy of an earlier revision (restored_from).
        reason text NOT NULL CHECK (reason IN ('promote', 'rollback')),
        restored_from integer,
        rollout_id text,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (alias_id, revision)
      )`);
    await q.query(`
      CREATE TABLE rollouts (
        id text PRIMARY KEY,
        alias_id uuid NOT NULL REFERENCES aliases (id),
        model_version_id uuid NOT NULL REFERENCES model_versions (id),
        model_ref text NOT NULL,
        -- The alias revision serving when the rollout started (0: none); rollback restores it.
        base_revision integer NOT NULL CHECK (base_revision >= 0),
        -- The RolloutPlan: canary steps in percent, analysis window and thresholds, replicas.
        plan jsonb NOT NULL,
        state text NOT NULL CHECK (state IN
          ('Verifying', 'Deploying', 'Canary', 'Paused', 'Promoted', 'RolledBack', 'Aborted', 'Refused', 'Failed')),
        state_reason text,
        refusal_code text,
        -- Index into plan.steps of the step being analysed (or last finished); -1 before the first.
        current_step integer NOT NULL DEFAULT -1,
        -- When the current step's weight took effect: its traffic sample starts here.
        step_started_at timestamptz,
        -- Named before its deployment workflow writes the row, so no foreign key.
        canary_deployment_id text,
        -- The last analysis per step (canary vs stable), in step order.
        analyses jsonb NOT NULL DEFAULT '[]'::jsonb,
        workflow_id text NOT NULL UNIQUE,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        finished_at timestamptz
      )`);
    await q.query(`CREATE INDEX rollouts_alias_id ON rollouts (alias_id, created_at DESC)`);
    // At most one rollout in flight per alias: the database, not the API, is the last word.
    await q.query(`
      CREATE UNIQUE INDEX rollouts_one_active_per_alias ON rollouts (alias_id)
        WHERE state IN ('Verifying', 'Deploying', 'Canary', 'Paused')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE rollouts`);
    await q.query(`DROP TABLE alias_revisions`);
    await q.query(`DROP TABLE aliases`);
    await q.query(`ALTER TABLE deployments DROP COLUMN purpose, DROP COLUMN rollout_id`);
    await q.query(`
      ALTER TABLE model_versions
        DROP COLUMN model_id, DROP COLUMN state, DROP COLUMN state_reason, DROP COLUMN license_id,
        DROP COLUMN runtime_id, DROP COLUMN requirements, DROP COLUMN verification, DROP COLUMN evaluation,
        DROP COLUMN context_length, DROP COLUMN parameter_count, DROP COLUMN updated_at`);
    await q.query(`DROP TABLE runtimes`);
    await q.query(`DROP TABLE licenses`);
    await q.query(`DROP TABLE models`);
  }
}
