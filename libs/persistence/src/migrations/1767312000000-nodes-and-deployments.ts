import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Node lifecycle and the one-node vertical slice: bootstrap tokens, nodes
 * (identity, lease, observed state), minimal model versions, deployments and
 * their per-node assignments (desired state with generation and lease, plus
 * what the agent last reported about it).
 *
 * The lease is stored, readiness is not: Ready / NotReady / Unreachable is
 * derived on read from `lease_expires_at` (libs/domain node-readiness), so it
 * can never be stale in the database.
 */
export class NodesAndDeployments1767312000000 implements MigrationInterface {
  name = 'NodesAndDeployments1767312000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE bootstrap_tokens (
        id uuid PRIMARY KEY,
        -- sha256 (hex) of the whole token; the token is shown once and never stored.
        token_hash char(64) NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        prefix text NOT NULL CHECK (prefix ~ '^lnxb_[A-Za-z0-9_-]{8}$'),
        -- The node name the token is for (the agent must enroll under it), or any name when null.
        node_name text CHECK (node_name IS NULL OR node_name ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
        labels jsonb NOT NULL DEFAULT '{}'::jsonb,
        auto_approve boolean NOT NULL DEFAULT false,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL CHECK (expires_at > created_at),
        used_at timestamptz,
        used_by_node_id text,
        revoked_at timestamptz
      )`);
    await q.query(`
      CREATE TABLE nodes (
        id text PRIMARY KEY,
        name text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
        lifecycle text NOT NULL
          CHECK (lifecycle IN ('Pending', 'Approved', 'Active', 'Draining', 'Drained', 'Rejected', 'Revoked')),
        cordoned boolean NOT NULL DEFAULT false,
        labels jsonb NOT NULL DEFAULT '{}'::jsonb,
        taints jsonb NOT NULL DEFAULT '[]'::jsonb,
        address text NOT NULL,
        ssh_port integer NOT NULL CHECK (ssh_port BETWEEN 1 AND 65535),
        host_key_fingerprint text NOT NULL,
        key_id text NOT NULL,
        public_key text NOT NULL,
        -- A rotation in progress: the agent's next key, trusted alongside key_id until it signs a heartbeat.
        next_key_id text,
        next_public_key text,
        rotation_requested_at timestamptz,
        credential jsonb,
        credential_serial integer NOT NULL DEFAULT 0 CHECK (credential_serial >= 0),
        credential_expires_at timestamptz,
        agent_credential_serial integer,
        inventory jsonb NOT NULL,
        observed jsonb NOT NULL DEFAULT '{"observedAssignments":[],"runtimes":[]}'::jsonb,
        last_heartbeat_sequence bigint,
        lease_renewed_at timestamptz,
        lease_expires_at timestamptz,
        enroll_workflow_id text NOT NULL,
        bootstrap_token_id uuid NOT NULL REFERENCES bootstrap_tokens (id),
        enrolled_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE model_versions (
        id uuid PRIMARY KEY,
        model text NOT NULL CHECK (model ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
        version text NOT NULL CHECK (version ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
        ref text NOT NULL UNIQUE,
        artifact jsonb NOT NULL,
        -- The runtime record this version is served with (id, kind, packaging, launch, health).
        runtime jsonb NOT NULL,
        runtime_env jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (model, version),
        CHECK (ref = model || '@' || version)
      )`);
    await q.query(`
      CREATE TABLE deployments (
        id text PRIMARY KEY,
        name text NOT NULL UNIQUE CHECK (name ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
        model_version_id uuid NOT NULL REFERENCES model_versions (id),
        model_ref text NOT NULL,
        state text NOT NULL CHECK (state IN
          ('Pending', 'Placing', 'Assigned', 'Starting', 'Ready', 'Degraded', 'Updating', 'Stopping', 'Stopped', 'Failed')),
        state_reason text,
        generation integer NOT NULL CHECK (generation >= 1),
        observed_generation integer NOT NULL DEFAULT 0 CHECK (observed_generation >= 0),
        desired_replicas integer NOT NULL CHECK (desired_replicas BETWEEN 0 AND 1024),
        node_selector jsonb NOT NULL DEFAULT '{}'::jsonb,
        -- Set when the operator names the node; otherwise the placement activity chooses.
        requested_node_id text REFERENCES nodes (id),
        workflow_id text NOT NULL UNIQUE,
        created_by text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE assignments (
        id text PRIMARY KEY,
        deployment_id text NOT NULL REFERENCES deployments (id),
        node_id text NOT NULL REFERENCES nodes (id),
        generation integer NOT NULL CHECK (generation >= 1),
        intent text NOT NULL CHECK (intent IN ('Run', 'Stop')),
        lease_expires_at timestamptz NOT NULL,
        -- The Assignment document exactly as signed and pushed (libs/contracts AssignmentSchema).
        spec jsonb NOT NULL,
        acked_generation integer,
        acked_at timestamptz,
        observed_state text,
        observed_generation integer,
        endpoint_port integer,
        in_flight integer,
        observed_message text,
        observed_at timestamptz,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        UNIQUE (deployment_id, node_id)
      )`);
    await q.query(`CREATE INDEX assignments_node_id ON assignments (node_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE assignments`);
    await q.query(`DROP TABLE deployments`);
    await q.query(`DROP TABLE model_versions`);
    await q.query(`DROP TABLE nodes`);
    await q.query(`DROP TABLE bootstrap_tokens`);
  }
}
