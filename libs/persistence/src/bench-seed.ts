import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Queryable } from './fleet';
import { likePrefix } from './search';

/**
 * Rows the gateway data-plane benchmark seeds into its scratch database, inserted the way the control plane
 * would leave them: a node Active with a lease, a model version under the approved synthetic license, a Ready
 * deployment and assignment with the runtime's port, and optionally a tenant with an alias and a gateway key.
 * Leases lie far in the future so no route refresh during a run drops the route. Never used by a service.
 */

export interface BenchRouteSeed {
  readonly model: string;
  readonly version: string;
  readonly modelRef: string;
  readonly deploymentId: string;
  readonly licenseId: string;
  readonly createdBy: string;
  readonly runtimePort: number;
}

/** The replica the gateway routes to: the fake runtime on this machine. */
export async function seedBenchRoute(q: Queryable, seed: BenchRouteSeed): Promise<void> {
  const { model: BENCH_MODEL, version: BENCH_VERSION, modelRef: BENCH_MODEL_REF } = seed;
  const { deploymentId: BENCH_DEPLOYMENT_ID, licenseId: SYNTHETIC_LICENSE_ID, createdBy: CREATED_BY } = seed;
  const runtimePort = seed.runtimePort;
  const tokenId = randomUUID();
  await q.query(
    `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
     VALUES ($1, $2, 'lnxb_benchbnc', $3, now(), now() + interval '1 day')`,
    [tokenId, createHash('sha256').update(randomBytes(32)).digest('hex'), CREATED_BY],
  );
  await q.query(
    `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                        inventory, lease_renewed_at, lease_expires_at, enroll_workflow_id, bootstrap_token_id,
                        enrolled_at, updated_at)
     VALUES ('node-bench', 'bench', 'Active', '127.0.0.1', 22, 'SHA256:bench', 'key-1', 'bench-public-key',
             '{}'::jsonb, now(), now() + interval '10 years', 'enroll-bench', $1, now(), now())`,
    [tokenId],
  );
  const modelId = randomUUID();
  await q.query(
    `INSERT INTO models (id, name, display_name, created_by, created_at, updated_at)
     VALUES ($1, $2, $2, $3, now(), now())`,
    [modelId, BENCH_MODEL, CREATED_BY],
  );
  await q.query(
    `INSERT INTO runtimes (id, name, version, kind, document, created_by, created_at, updated_at)
     VALUES ('runtime-bench', 'bench', '1', 'fake', '{}'::jsonb, $1, now(), now())
     ON CONFLICT (id) DO NOTHING`,
    [CREATED_BY],
  );
  const versionId = randomUUID();
  await q.query(
    `INSERT INTO model_versions (id, model, version, ref, artifact, runtime, created_by, created_at, model_id,
                                 state, license_id, runtime_id, requirements, updated_at)
     VALUES ($1, $2, $3, $4, '{}'::jsonb, '{}'::jsonb, $5, now(), $6, 'Approved', $7, 'runtime-bench',
             '{}'::jsonb, now())`,
    [versionId, BENCH_MODEL, BENCH_VERSION, BENCH_MODEL_REF, CREATED_BY, modelId, SYNTHETIC_LICENSE_ID],
  );
  await q.query(
    `INSERT INTO deployments (id, name, model_version_id, model_ref, state, generation, observed_generation,
                              desired_replicas, workflow_id, purpose, created_by, created_at, updated_at)
     VALUES ($1, 'bench', $2, $3, 'Ready', 1, 1, 1, 'deploy-bench', 'Serving', $4, now(), now())`,
    [BENCH_DEPLOYMENT_ID, versionId, BENCH_MODEL_REF, CREATED_BY],
  );
  await q.query(
    `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec,
                              observed_state, observed_generation, endpoint_port, in_flight, observed_at,
                              created_at, updated_at)
     VALUES ('asg-bench', $1, 'node-bench', 1, 'Run', now() + interval '10 years', '{}'::jsonb, 'Ready', 1, $2,
             0, now(), now(), now())`,
    [BENCH_DEPLOYMENT_ID, runtimePort],
  );
}

/** Whether the migrations created tenant gateway keys (the gateway then requires a credential). */
export async function hasGatewayKeysTable(q: Queryable): Promise<boolean> {
  const rows = await q.query<{ present: boolean }[]>(
    `SELECT to_regclass('public.gateway_keys') IS NOT NULL AS present`,
  );
  return rows[0]?.present === true;
}

export interface BenchTenantSeed {
  readonly alias: string;
  readonly tenantId: string;
  readonly deploymentId: string;
  readonly createdBy: string;
  /** The gateway key's secret; only its hash is stored. */
  readonly key: string;
  readonly keyPrefix: string;
}

/**
 * A tenant with an alias on the bench deployment and a key for that alias. Quotas are set far above what two
 * cores can send, so their bookkeeping is on the measured path without ever refusing a request.
 */
export async function seedBenchTenant(q: Queryable, seed: BenchTenantSeed): Promise<void> {
  const { alias: BENCH_ALIAS, tenantId: BENCH_TENANT_ID, deploymentId: BENCH_DEPLOYMENT_ID } = seed;
  const { createdBy: CREATED_BY, key, keyPrefix } = seed;
  const aliasId = randomUUID();
  await q.query(
    `INSERT INTO aliases (id, name, data_class, current_revision, created_by, created_at, updated_at)
     VALUES ($1, $2, 'confidential', 1, $3, now(), now())`,
    [aliasId, BENCH_ALIAS, CREATED_BY],
  );
  await q.query(
    `INSERT INTO alias_revisions (alias_id, revision, model_version_id, model_ref, deployment_id, reason,
                                  created_by, created_at)
     SELECT $1, 1, d.model_version_id, d.model_ref, d.id, 'promote', $2, now()
       FROM deployments d WHERE d.id = $3`,
    [aliasId, CREATED_BY, BENCH_DEPLOYMENT_ID],
  );
  await q.query(
    `INSERT INTO tenants (id, display_name, requests_per_minute, tokens_per_minute, max_concurrent_requests,
                          created_by, created_at, updated_by, updated_at)
     VALUES ($1, 'Data-plane bench', 1000000, 10000000000, 100000, $2, now(), $2, now())`,
    [BENCH_TENANT_ID, CREATED_BY],
  );
  await q.query(
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
}

/** Request records per outcome, for the bench to compare with what it sent. */
export async function requestRecordCountsByOutcome(
  q: Queryable,
): Promise<{ outcome: string; count: string }[]> {
  return q.query<{ outcome: string; count: string }[]>(
    'SELECT outcome, count(*) AS count FROM request_records GROUP BY outcome ORDER BY outcome',
  );
}

/**
 * Nodes NodeRecovery started on besides `killed` (bench:scale): a live node whose lease lapsed anyway because
 * heartbeat ingest fell behind the lease, and was declared lost.
 */
export async function countNodesRecoveredBesides(q: Queryable, killed: readonly string[]): Promise<number> {
  const [row] = await q.query<{ n: string }[]>(
    `SELECT count(DISTINCT evidence->>'nodeId') AS n FROM audit_events
      WHERE action = 'node.recovery.start' AND NOT (evidence->>'nodeId' = ANY($1::text[]))`,
    [killed],
  );
  return Number(row?.n ?? 0);
}

/** Nodes Active with a lease still running (bench:scale waits for its whole simulated fleet). */
export async function countActiveLeasedNodes(q: Queryable): Promise<number> {
  const [row] = await q.query<{ n: string }[]>(
    `SELECT count(*) AS n FROM nodes WHERE lifecycle = 'Active' AND lease_expires_at > now()`,
  );
  return Number(row?.n ?? 0);
}

/** Which deployments a benchmark counts: one by name, or every one whose name starts with a prefix. */
export type BenchDeployments = { readonly name: string } | { readonly namePrefix: string };

function deploymentFilter(which: BenchDeployments): { sql: string; value: string } {
  return 'name' in which
    ? { sql: 'd.name = $1', value: which.name }
    : { sql: "d.name LIKE $1 ESCAPE '\\'", value: likePrefix(which.namePrefix) };
}

/**
 * Replicas of the benchmark's deployments that run Ready at their current generation, leaving out those on
 * `excludingNodes` (the nodes a benchmark killed: their rows may still say Ready until recovery marks them).
 */
export async function countReadyReplicas(
  q: Queryable,
  which: BenchDeployments,
  excludingNodes: readonly string[] = [],
): Promise<number> {
  const filter = deploymentFilter(which);
  const [row] = await q.query<{ n: string }[]>(
    `SELECT count(*) AS n FROM assignments a JOIN deployments d ON d.id = a.deployment_id
      WHERE ${filter.sql} AND a.intent = 'Run' AND a.observed_state = 'Ready'
        AND a.observed_generation = a.generation AND NOT (a.node_id = ANY($2::text[]))`,
    [filter.value, excludingNodes],
  );
  return Number(row?.n ?? 0);
}

/** The nodes that run the benchmark's replicas, with how many each, by node name. */
export async function nodesRunningReplicas(
  q: Queryable,
  which: BenchDeployments,
): Promise<{ id: string; name: string; replicas: number }[]> {
  const filter = deploymentFilter(which);
  const rows = await q.query<{ id: string; name: string; replicas: string }[]>(
    `SELECT n.id, n.name, count(*) AS replicas FROM assignments a JOIN deployments d ON d.id = a.deployment_id
       JOIN nodes n ON n.id = a.node_id
      WHERE ${filter.sql} AND a.intent = 'Run' GROUP BY n.id, n.name ORDER BY n.name`,
    [filter.value],
  );
  return rows.map((row) => ({ id: row.id, name: row.name, replicas: Number(row.replicas) }));
}

/** How many distinct nodes, besides `excludingNodes`, run the benchmark's replicas. */
export async function countNodesRunningReplicas(
  q: Queryable,
  which: BenchDeployments,
  excludingNodes: readonly string[],
): Promise<number> {
  const filter = deploymentFilter(which);
  const [row] = await q.query<{ n: string }[]>(
    `SELECT count(DISTINCT a.node_id) AS n FROM assignments a JOIN deployments d ON d.id = a.deployment_id
      WHERE ${filter.sql} AND a.intent = 'Run' AND NOT (a.node_id = ANY($2::text[]))`,
    [filter.value, excludingNodes],
  );
  return Number(row?.n ?? 0);
}

/**
 * Of `nodeIds` (nodes that ran replicas), those NodeRecovery has started on: its node.recovery.start receipt
 * commits with the node's replicas marked Lost (markNodeLost), and those are read by node from the indexed
 * assignments. A bench polls this every 200 ms while it measures heartbeats: scanning the audit log for the
 * receipt cost PostgreSQL more than the heartbeats it was meant to watch.
 */
export async function nodesWithRecoveryStarted(q: Queryable, nodeIds: readonly string[]): Promise<string[]> {
  const rows = await q.query<{ node_id: string }[]>(
    `SELECT DISTINCT node_id FROM assignments WHERE node_id = ANY($1::text[]) AND observed_state = 'Lost'`,
    [nodeIds],
  );
  return rows.map((row) => row.node_id);
}

/** The node.recovery.complete receipts written for `nodeIds`. */
export async function recoveryReceipts(
  q: Queryable,
  nodeIds: readonly string[],
): Promise<{ nodeId: string; replaced: boolean; secondsToReplaced: number }[]> {
  const rows = await q.query<
    { evidence: { nodeId: string; replaced: boolean; secondsToReplaced: number } }[]
  >(
    `SELECT evidence FROM audit_events WHERE action = 'node.recovery.complete' AND evidence->>'nodeId' = ANY($1::text[])`,
    [nodeIds],
  );
  return rows.map((row) => row.evidence);
}

/**
 * The server settings a benchmark's figures depend on (autovacuum decides
 * whether `nodes` gets statistics and dead versions get vacuumed at all),
 * recorded beside its results.
 */
export async function benchServerSettings(q: Queryable): Promise<Record<string, string>> {
  const rows = await q.query<{ name: string; setting: string; unit: string | null }[]>(
    `SELECT name, setting, unit FROM pg_settings
      WHERE name IN ('server_version', 'autovacuum', 'shared_buffers', 'synchronous_commit', 'fsync',
                     'max_connections', 'wal_writer_delay')
      ORDER BY name`,
  );
  return Object.fromEntries(
    rows.map((row) => [row.name, row.unit ? `${row.setting} × ${row.unit}` : row.setting]),
  );
}

/** The server process of every session connected to this database, by the application name its pool set (pg_stat_activity). */
export async function sessionPidsByApplication(q: Queryable): Promise<Map<string, number[]>> {
  const rows = await q.query<{ pid: number; application_name: string }[]>(
    `SELECT pid, application_name FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  const byApplication = new Map<string, number[]>();
  for (const row of rows) {
    const name = row.application_name === '' ? 'unnamed' : row.application_name;
    byApplication.set(name, [...(byApplication.get(name) ?? []), row.pid]);
  }
  return byApplication;
}
