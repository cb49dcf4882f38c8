import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Client } from 'pg';

/**
 * What the gateway needs in its database to route the bench's requests to
 * the fake runtime, inserted the way the control plane would leave it: a
 * node Active with a lease, a model version under the approved synthetic
 * license, a Serving deployment and a Ready assignment at its generation
 * with the runtime's port. Leases lie far in the future so no refresh during
 * the run drops the route.
 */

export const BENCH_MODEL = 'bench-model';
export const BENCH_VERSION = '1';
/** What the runtime serves and what direct and nginx requests name. */
export const BENCH_MODEL_REF = `${BENCH_MODEL}@${BENCH_VERSION}`;
/** What a tenant calls through the gateway: as long as the ref, so every target gets a body of the same size. */
export const BENCH_ALIAS = `${BENCH_MODEL}-${BENCH_VERSION}`;
export const BENCH_TENANT_ID = 'bench';
/** Completion length of every bench request. */
export const MAX_TOKENS = 16;
const PROMPT = 'Measure the proxy, not the model.';
export const BENCH_DEPLOYMENT_ID = 'dep-bench';

/** The built-in license that approves synthetic (fake-runtime) weights; allows every data class. */
const SYNTHETIC_LICENSE_ID = '00000000-0000-4000-8000-000000000001';
const CREATED_BY = 'data-plane-bench';

/** How the load generator calls the gateway, and the same headers for direct and nginx. */
export interface BenchCaller {
  /** `tenant-key`: a tenant's gateway key calling an alias; `none`: no credential, `model@version`. */
  readonly mode: 'tenant-key' | 'none';
  /** The `model` the gateway is asked for (direct and nginx always ask for BENCH_MODEL_REF). */
  readonly gatewayModel: string;
  /** Extra request headers, sent unchanged to every target (`authorization` when a key exists). */
  readonly headers: Readonly<Record<string, string>>;
  /** The key's display prefix, for the results (never the key). */
  readonly keyPrefix: string | null;
}

/** The replica the gateway routes to: the fake runtime on this machine. */
export async function seedRoute(sql: Client, runtimePort: number): Promise<void> {
  const tokenId = randomUUID();
  await sql.query(
    `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
     VALUES ($1, $2, 'lnxb_benchbnc', $3, now(), now() + interval '1 day')`,
    [tokenId, createHash('sha256').update(randomBytes(32)).digest('hex'), CREATED_BY],
  );
  await sql.query(
    `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                        inventory, lease_renewed_at, lease_expires_at, enroll_workflow_id, bootstrap_token_id,
                        enrolled_at, updated_at)
     VALUES ('node-bench', 'bench', 'Active', '127.0.0.1', 22, 'SHA256:bench', 'key-1', 'bench-public-key',
             '{}'::jsonb, now(), now() + interval '10 years', 'enroll-bench', $1, now(), now())`,
    [tokenId],
  );
  const modelId = randomUUID();
  await sql.query(
    `INSERT INTO models (id, name, display_name, created_by, created_at, updated_at)
     VALUES ($1, $2, $2, $3, now(), now())`,
    [modelId, BENCH_MODEL, CREATED_BY],
  );
  await sql.query(
    `INSERT INTO runtimes (id, name, version, kind, document, created_by, created_at, updated_at)
     VALUES ('runtime-bench', 'bench', '1', 'fake', '{}'::jsonb, $1, now(), now())
     ON CONFLICT (id) DO NOTHING`,
    [CREATED_BY],
  );
  const versionId = randomUUID();
  await sql.query(
    `INSERT INTO model_versions (id, model, version, ref, artifact, runtime, created_by, created_at, model_id,
                                 state, license_id, runtime_id, requirements, updated_at)
     VALUES ($1, $2, $3, $4, '{}'::jsonb, '{}'::jsonb, $5, now(), $6, 'Approved', $7, 'runtime-bench',
             '{}'::jsonb, now())`,
    [versionId, BENCH_MODEL, BENCH_VERSION, BENCH_MODEL_REF, CREATED_BY, modelId, SYNTHETIC_LICENSE_ID],
  );
  await sql.query(
    `INSERT INTO deployments (id, name, model_version_id, model_ref, state, generation, observed_generation,
                              desired_replicas, workflow_id, purpose, created_by, created_at, updated_at)
     VALUES ($1, 'bench', $2, $3, 'Ready', 1, 1, 1, 'deploy-bench', 'Serving', $4, now(), now())`,
    [BENCH_DEPLOYMENT_ID, versionId, BENCH_MODEL_REF, CREATED_BY],
  );
  await sql.query(
    `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec,
                              observed_state, observed_generation, endpoint_port, in_flight, observed_at,
                              created_at, updated_at)
     VALUES ('asg-bench', $1, 'node-bench', 1, 'Run', now() + interval '10 years', '{}'::jsonb, 'Ready', 1, $2,
             0, now(), now(), now())`,
    [BENCH_DEPLOYMENT_ID, runtimePort],
  );
}

/** Whether the migrations created tenant gateway keys (the gateway then requires a credential). */
export async function hasGatewayKeys(sql: Client): Promise<boolean> {
  const { rows } = await sql.query<{ present: boolean }>(
    `SELECT to_regclass('public.gateway_keys') IS NOT NULL AS present`,
  );
  return rows[0]?.present === true;
}

/** `lnxk_` and 43 base64url characters (32 random bytes): the tenant key format. */
export function newGatewayKey(): string {
  return `lnxk_${randomBytes(32).toString('base64url')}`;
}

/**
 * A tenant with an alias on the bench deployment and a key for that alias:
 * the path a tenant's request takes (authentication, alias, quota
 * accounting). Quotas are set, far above what two cores can send, so their
 * bookkeeping is on the measured path without ever refusing a request.
 */
export async function seedTenantCaller(sql: Client): Promise<BenchCaller> {
  const aliasId = randomUUID();
  await sql.query(
    `INSERT INTO aliases (id, name, data_class, current_revision, created_by, created_at, updated_at)
     VALUES ($1, $2, 'confidential', 1, $3, now(), now())`,
    [aliasId, BENCH_ALIAS, CREATED_BY],
  );
  await sql.query(
    `INSERT INTO alias_revisions (alias_id, revision, model_version_id, model_ref, deployment_id, reason,
                                  created_by, created_at)
     SELECT $1, 1, d.model_version_id, d.model_ref, d.id, 'promote', $2, now()
       FROM deployments d WHERE d.id = $3`,
    [aliasId, CREATED_BY, BENCH_DEPLOYMENT_ID],
  );
  await sql.query(
    `INSERT INTO tenants (id, display_name, requests_per_minute, tokens_per_minute, max_concurrent_requests,
                          created_by, created_at, updated_by, updated_at)
     VALUES ($1, 'Data-plane bench', 1000000, 10000000000, 100000, $2, now(), $2, now())`,
    [BENCH_TENANT_ID, CREATED_BY],
  );
  const key = newGatewayKey();
  const keyPrefix = key.slice(0, 'lnxk_'.length + 8);
  await sql.query(
    `INSERT INTO gateway_keys (id, tenant_id, name, key_hash, prefix, aliases, created_by, created_at)
     VALUES ($1, $2, 'data-plane bench', $3, $4, $5::text[], $6, now())`,
    [
      randomUUID(),
      BENCH_TENANT_ID,
      createHash('sha256').update(key).digest('hex'),
      keyPrefix,
      [BENCH_ALIAS],
      CREATED_BY,
    ],
  );
  return {
    mode: 'tenant-key',
    gatewayModel: BENCH_ALIAS,
    headers: { authorization: `Bearer ${key}` },
    keyPrefix,
  };
}

/** Before tenant keys exist the gateway takes anonymous `model@version` calls. */
export const ANONYMOUS_CALLER: BenchCaller = {
  mode: 'none',
  gatewayModel: BENCH_MODEL_REF,
  headers: {},
  keyPrefix: null,
};

/** The caller the gateway's schema allows: a tenant key on an alias when keys exist, anonymous otherwise. */
export async function seedCaller(sql: Client): Promise<BenchCaller> {
  return (await hasGatewayKeys(sql)) ? seedTenantCaller(sql) : ANONYMOUS_CALLER;
}

/** The request body; only `model` differs between targets, and never in length. */
export function chatBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    stream,
    max_tokens: MAX_TOKENS,
    seed: 7,
    messages: [{ role: 'user', content: PROMPT }],
  });
}
