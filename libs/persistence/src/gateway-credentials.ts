import { isRole, lowerRole, type Role } from '@lunanexa/contracts';
import type { Queryable } from './fleet';

/**
 * What the gateway needs to authenticate and limit callers without touching
 * the database on the request path: read whole, held in memory, reloaded
 * when `GATEWAY_CREDENTIALS_CHANNEL` announces a change (and periodically as
 * a safety net). Only hashes of secrets are read, never secrets.
 */

/** Triggers on tenants, gateway_keys, operators, api_tokens and controller_keys notify this channel. */
export const GATEWAY_CREDENTIALS_CHANNEL = 'lunanexa_gateway_credentials';

export interface TenantQuotaRow {
  readonly tenantId: string;
  readonly requestsPerMinute: number | null;
  readonly tokensPerMinute: number | null;
  readonly maxConcurrentRequests: number | null;
  /** The highest priority its requests may run at (`low`/`normal`/`high`); null: any. */
  readonly maxPriority?: string | null;
}

/** A gateway key that is not revoked (expired ones are kept so the answer can say "expired"). */
export interface GatewayKeyCredential {
  readonly id: string;
  readonly tenantId: string;
  readonly keyHash: string;
  readonly prefix: string;
  readonly aliases: readonly string[];
  readonly expiresAt: Date | null;
}

/** An operator API token that is not revoked, with the role it may use now (the lower of its own and its owner's). */
export interface OperatorTokenCredential {
  readonly id: string;
  readonly tokenHash: string;
  readonly prefix: string;
  readonly operatorId: string;
  readonly role: Role;
  readonly expiresAt: Date | null;
}

export interface OperatorCredential {
  readonly id: string;
  readonly username: string;
  readonly role: Role;
  readonly sessionEpoch: number;
  readonly disabled: boolean;
}

export interface ControllerPublicKey {
  readonly fingerprint: string;
  /** SPKI PEM. */
  readonly publicKeyPem: string;
}

export interface GatewayCredentialSnapshot {
  readonly tenants: readonly TenantQuotaRow[];
  readonly gatewayKeys: readonly GatewayKeyCredential[];
  readonly operatorTokens: readonly OperatorTokenCredential[];
  readonly operators: readonly OperatorCredential[];
  readonly controllerKeys: readonly ControllerPublicKey[];
}

type Raw = Record<string, unknown>;

const nullableNumber = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);
const nullableDate = (value: unknown): Date | null =>
  value === null || value === undefined ? null : new Date(value as string);

/**
 * One statement, so the snapshot is consistent: a key is never seen without
 * its tenant, nor a token after its owner was disabled.
 */
const SNAPSHOT_SQL = `
SELECT
  (SELECT coalesce(json_agg(json_build_object('id', id, 'rpm', requests_per_minute,
            'tpm', tokens_per_minute, 'concurrent', max_concurrent_requests, 'max_priority', max_priority)), '[]'::json)
     FROM tenants) AS tenants,
  (SELECT coalesce(json_agg(json_build_object('id', id, 'tenant_id', tenant_id, 'key_hash', key_hash,
            'prefix', prefix, 'aliases', aliases, 'expires_at', expires_at)), '[]'::json)
     FROM gateway_keys WHERE revoked_at IS NULL) AS keys,
  (SELECT coalesce(json_agg(json_build_object('id', t.id, 'token_hash', t.token_hash, 'prefix', t.prefix,
            'operator_id', t.operator_id, 'role', t.role, 'owner_role', o.role, 'expires_at', t.expires_at)), '[]'::json)
     FROM api_tokens t JOIN operators o ON o.id = t.operator_id
    WHERE t.revoked_at IS NULL AND o.disabled_at IS NULL) AS tokens,
  (SELECT coalesce(json_agg(json_build_object('id', id, 'username', username, 'role', role,
            'session_epoch', session_epoch, 'disabled', disabled_at IS NOT NULL)), '[]'::json)
     FROM operators) AS operators,
  (SELECT coalesce(json_agg(json_build_object('fingerprint', fingerprint, 'public_key', public_key)), '[]'::json)
     FROM controller_keys WHERE state <> 'retired') AS controller_keys`;

export async function loadGatewayCredentials(q: Queryable): Promise<GatewayCredentialSnapshot> {
  const [row] = await q.query<Raw[]>(SNAPSHOT_SQL);
  const list = (name: string): Raw[] => (row?.[name] as Raw[] | undefined) ?? [];
  const tenants = list('tenants');
  const keys = list('keys');
  const tokens = list('tokens');
  const operators = list('operators');
  const controllerKeys = list('controller_keys');
  return {
    tenants: tenants.map((row) => ({
      tenantId: row['id'] as string,
      requestsPerMinute: nullableNumber(row['rpm']),
      tokensPerMinute: nullableNumber(row['tpm']),
      maxConcurrentRequests: nullableNumber(row['concurrent']),
      maxPriority: (row['max_priority'] as string | null | undefined) ?? null,
    })),
    gatewayKeys: keys.map((row) => ({
      id: row['id'] as string,
      tenantId: row['tenant_id'] as string,
      keyHash: (row['key_hash'] as string).trim(),
      prefix: row['prefix'] as string,
      aliases: (row['aliases'] as string[] | null) ?? [],
      expiresAt: nullableDate(row['expires_at']),
    })),
    operatorTokens: tokens.flatMap((row) => {
      const role = row['role'];
      const ownerRole = row['owner_role'];
      // A role this build does not know grants nothing.
      if (!isRole(role) || !isRole(ownerRole)) return [];
      return [
        {
          id: row['id'] as string,
          tokenHash: (row['token_hash'] as string).trim(),
          prefix: row['prefix'] as string,
          operatorId: row['operator_id'] as string,
          role: lowerRole(role, ownerRole),
          expiresAt: nullableDate(row['expires_at']),
        },
      ];
    }),
    operators: operators.flatMap((row) => {
      const role = row['role'];
      if (!isRole(role)) return [];
      return [
        {
          id: row['id'] as string,
          username: row['username'] as string,
          role,
          sessionEpoch: Number(row['session_epoch']),
          disabled: row['disabled'] === true,
        },
      ];
    }),
    controllerKeys: controllerKeys.map((row) => ({
      fingerprint: row['fingerprint'] as string,
      publicKeyPem: row['public_key'] as string,
    })),
  };
}

/** One gateway instance's admission state for one group of replicas, published every few seconds. */
export interface GatewayLoadRow {
  readonly groupKey: string;
  readonly deploymentId: string;
  readonly inFlight: number;
  readonly queued: number;
  readonly capacity: number;
}

/**
 * Replaces this gateway's published load (what the console shows as queue
 * depth): one statement, so a reader never sees half an update. Rows of
 * groups that went idle are removed; rows of gateways that stopped
 * publishing are ignored by readers after `GATEWAY_LOAD_FRESH_SECONDS`.
 */
export async function publishGatewayLoad(
  q: Queryable,
  gatewayId: string,
  rows: readonly GatewayLoadRow[],
  at: Date,
): Promise<void> {
  await q.query(
    `WITH fresh AS (
       SELECT * FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::int[])
         AS u(group_key, deployment_id, in_flight, queued, capacity)),
     gone AS (
       DELETE FROM gateway_load WHERE gateway_id = $1 AND group_key NOT IN (SELECT group_key FROM fresh))
     INSERT INTO gateway_load (gateway_id, group_key, deployment_id, in_flight, queued, capacity, updated_at)
     SELECT $1, group_key, deployment_id, in_flight, queued, capacity, $7 FROM fresh
     ON CONFLICT (gateway_id, group_key) DO UPDATE SET
       deployment_id = EXCLUDED.deployment_id, in_flight = EXCLUDED.in_flight,
       queued = EXCLUDED.queued, capacity = EXCLUDED.capacity, updated_at = EXCLUDED.updated_at`,
    [
      gatewayId,
      rows.map((row) => row.groupKey),
      rows.map((row) => row.deploymentId),
      rows.map((row) => row.inFlight),
      rows.map((row) => row.queued),
      rows.map((row) => row.capacity),
      at,
    ],
  );
}

/** A gateway that has not published for this long is gone; its queue is not counted. */
export const GATEWAY_LOAD_FRESH_SECONDS = 15;

/** Requests waiting in (and running through) every live gateway's admission, per deployment. */
export async function gatewayLoadByDeployment(
  q: Queryable,
): Promise<{ deploymentId: string; inFlight: number; queued: number; capacity: number }[]> {
  const rows = await q.query<Raw[]>(
    `SELECT deployment_id, sum(in_flight)::int AS in_flight, sum(queued)::int AS queued,
            max(capacity)::int AS capacity
       FROM gateway_load
      WHERE updated_at > now() - make_interval(secs => $1)
      GROUP BY deployment_id`,
    [GATEWAY_LOAD_FRESH_SECONDS],
  );
  return rows.map((row) => ({
    deploymentId: row['deployment_id'] as string,
    inFlight: Number(row['in_flight']),
    queued: Number(row['queued']),
    capacity: Number(row['capacity']),
  }));
}
