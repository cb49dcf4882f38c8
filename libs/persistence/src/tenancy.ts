import { type GatewayKey, type Tenant, WorkloadPrioritySchema } from '@lunanexa/contracts';
import type { Queryable } from './fleet';
import { returnedRows } from './returning';

/**
 * Tenants and gateway keys (migration 1767830400000): typed rows and the
 * queries the API uses to manage them. Nothing here reads or returns a
 * key's hash: it is written once, by insertGatewayKey, and looked up only by
 * the gateway's own snapshot query. Every write fires the
 * `lunanexa_gateway_credentials` notification from the database triggers,
 * except touchGatewayKeysLastUsed, which changes nothing a gateway checks.
 */

type Raw = Record<string, unknown>;

const iso = (value: unknown): string => new Date(value as string).toISOString();
const isoOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : iso(value);
/** bigint and integer columns; pg returns bigint as a string. */
const numberOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);

// ------------------------------------------------------------------------------------------- tenants

const TENANT_COLUMNS = `id, display_name, requests_per_minute, tokens_per_minute, max_concurrent_requests,
  created_by, created_at, updated_by, updated_at, max_priority`;

export function tenantFromRow(row: Raw): Tenant {
  return {
    id: row['id'] as string,
    displayName: (row['display_name'] as string | null) ?? null,
    quota: {
      requestsPerMinute: numberOrNull(row['requests_per_minute']),
      tokensPerMinute: numberOrNull(row['tokens_per_minute']),
      maxConcurrentRequests: numberOrNull(row['max_concurrent_requests']),
    },
    maxPriority: WorkloadPrioritySchema.safeParse(row['max_priority']).data ?? null,
    createdBy: row['created_by'] as string,
    createdAt: iso(row['created_at']),
    updatedBy: row['updated_by'] as string,
    updatedAt: iso(row['updated_at']),
  };
}

/** Inserts a new tenant; a duplicate id fails with unique_violation (23505), which the API reports as CONFLICT. */
export async function insertTenant(q: Queryable, tenant: Tenant): Promise<void> {
  await q.query(`INSERT INTO tenants (${TENANT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [
    tenant.id,
    tenant.displayName,
    tenant.quota.requestsPerMinute,
    tenant.quota.tokensPerMinute,
    tenant.quota.maxConcurrentRequests,
    tenant.createdBy,
    tenant.createdAt,
    tenant.updatedBy,
    tenant.updatedAt,
    tenant.maxPriority ?? null,
  ]);
}

/** Writes a tenant's display name, quotas, highest allowed priority and who/when updated; false when there is no such tenant. */
export async function updateTenant(q: Queryable, tenant: Tenant): Promise<boolean> {
  const raw = await q.query<unknown[]>(
    `UPDATE tenants SET display_name = $2, requests_per_minute = $3, tokens_per_minute = $4,
            max_concurrent_requests = $5, updated_by = $6, updated_at = $7, max_priority = $8
      WHERE id = $1 RETURNING id`,
    [
      tenant.id,
      tenant.displayName,
      tenant.quota.requestsPerMinute,
      tenant.quota.tokensPerMinute,
      tenant.quota.maxConcurrentRequests,
      tenant.updatedBy,
      tenant.updatedAt,
      tenant.maxPriority ?? null,
    ],
  );
  return returnedRows<Raw>(raw).length === 1;
}

export async function findTenant(
  q: Queryable,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<Tenant | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${TENANT_COLUMNS} FROM tenants WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0] ? tenantFromRow(rows[0]) : null;
}

/** Every tenant, by id. */
export async function listTenants(q: Queryable): Promise<Tenant[]> {
  const rows = await q.query<Raw[]>(`SELECT ${TENANT_COLUMNS} FROM tenants ORDER BY id`);
  return rows.map(tenantFromRow);
}

export interface GatewayKeyCounts {
  /** Every key the tenant was ever issued, revoked and expired ones included. */
  readonly total: number;
  /** Keys the gateway accepts at the given instant: not revoked, not expired. */
  readonly active: number;
}

/** Key counts per tenant (tenants without keys are absent), one grouped query. */
export async function gatewayKeyCountsByTenant(
  q: Queryable,
  at: Date,
): Promise<Map<string, GatewayKeyCounts>> {
  const rows = await q.query<{ tenant_id: string; total: string; active: string }[]>(
    `SELECT tenant_id, count(*) AS total,
            count(*) FILTER (WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $1)) AS active
       FROM gateway_keys GROUP BY tenant_id`,
    [at.toISOString()],
  );
  return new Map(
    rows.map((row) => [row.tenant_id, { total: Number(row.total), active: Number(row.active) }]),
  );
}

// -------------------------------------------------------------------------------------- gateway keys

const KEY_COLUMNS = `id, tenant_id, name, prefix, aliases, created_by, created_at, expires_at, revoked_at,
  revoked_by, last_used_at`;

export function gatewayKeyFromRow(row: Raw): GatewayKey {
  return {
    id: row['id'] as string,
    tenantId: row['tenant_id'] as string,
    name: row['name'] as string,
    prefix: row['prefix'] as string,
    aliases: [...(row['aliases'] as string[])],
    createdBy: row['created_by'] as string,
    createdAt: iso(row['created_at']),
    expiresAt: isoOrNull(row['expires_at']),
    revokedAt: isoOrNull(row['revoked_at']),
    revokedBy: (row['revoked_by'] as string | null) ?? null,
    lastUsedAt: isoOrNull(row['last_used_at']),
  };
}

/**
 * Stores a new key: its document and the sha256 of the secret (never the
 * secret). The tenant must exist (foreign key); a hash collision would fail
 * the unique index rather than share a row.
 */
export async function insertGatewayKey(q: Queryable, key: GatewayKey, keyHash: string): Promise<void> {
  await q.query(
    `INSERT INTO gateway_keys (id, tenant_id, name, key_hash, prefix, aliases, created_by, created_at, expires_at,
            revoked_at, revoked_by, last_used_at)
     VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8, $9, $10, $11, $12)`,
    [
      key.id,
      key.tenantId,
      key.name,
      keyHash,
      key.prefix,
      key.aliases,
      key.createdBy,
      key.createdAt,
      key.expiresAt,
      key.revokedAt,
      key.revokedBy,
      key.lastUsedAt,
    ],
  );
}

export async function findGatewayKey(
  q: Queryable,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<GatewayKey | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${KEY_COLUMNS} FROM gateway_keys WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0] ? gatewayKeyFromRow(rows[0]) : null;
}

/** A tenant's keys, newest first; revoked ones only when asked for (expired ones always: they are not revoked). */
export async function listGatewayKeys(
  q: Queryable,
  options: { readonly tenantId: string; readonly includeRevoked: boolean },
): Promise<GatewayKey[]> {
  const rows = await q.query<Raw[]>(
    `SELECT ${KEY_COLUMNS} FROM gateway_keys
      WHERE tenant_id = $1 AND ($2 OR revoked_at IS NULL)
      ORDER BY created_at DESC, id`,
    [options.tenantId, options.includeRevoked],
  );
  return rows.map(gatewayKeyFromRow);
}

/**
 * Revokes a key that is not revoked yet and returns it as revoked; null when
 * there is no such key or it was already revoked (the first revocation's
 * time and actor stay). The UPDATE fires the credentials notification, so
 * gateways drop the key at once — a statement-level trigger fires even when
 * no row matched, so callers that want no spurious reload check the key
 * first (the API does, under FOR UPDATE).
 */
export async function revokeGatewayKey(
  q: Queryable,
  id: string,
  revocation: { readonly revokedAt: string; readonly revokedBy: string },
): Promise<GatewayKey | null> {
  const raw = await q.query<unknown[]>(
    `UPDATE gateway_keys SET revoked_at = $2, revoked_by = $3
      WHERE id = $1 AND revoked_at IS NULL
      RETURNING ${KEY_COLUMNS}`,
    [id, revocation.revokedAt, revocation.revokedBy],
  );
  const row = returnedRows<Raw>(raw)[0];
  return row ? gatewayKeyFromRow(row) : null;
}

export interface GatewayKeyUse {
  readonly id: string;
  readonly lastUsedAt: Date | string;
}

/**
 * Records when keys were last accepted, for a whole batch in one statement
 * (the gateway flushes every ~30 s). Never moves a time backwards, so
 * several gateways flushing in any order keep the latest; an id listed
 * twice counts with its latest time; unknown ids are ignored. Sets only
 * `last_used_at`, which the credentials trigger does not watch. Returns how
 * many rows changed.
 */
export async function touchGatewayKeysLastUsed(
  q: Queryable,
  entries: readonly GatewayKeyUse[],
): Promise<number> {
  if (entries.length === 0) return 0;
  const raw = await q.query<unknown[]>(
    `UPDATE gateway_keys AS k SET last_used_at = u.last_used_at
       FROM (SELECT id, max(used_at) AS last_used_at
               FROM unnest($1::uuid[], $2::timestamptz[]) AS t(id, used_at)
              GROUP BY id) AS u
      WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.last_used_at)
      RETURNING k.id`,
    [entries.map((entry) => entry.id), entries.map((entry) => new Date(entry.lastUsedAt).toISOString())],
  );
  return returnedRows<Raw>(raw).length;
}

/** Which of `names` are aliases that exist (a key may only name existing aliases). */
export async function existingAliasNames(q: Queryable, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const rows = await q.query<{ name: string }[]>(
    `SELECT name FROM aliases WHERE name = ANY($1::text[]) ORDER BY name`,
    [[...names]],
  );
  return rows.map((row) => row.name);
}
