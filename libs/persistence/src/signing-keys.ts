import {
  decideArtifactSignature,
  type ArtifactSignatureClaim,
  type ArtifactSignatureDecision,
  type TrustedSigningKey,
} from '@lunanexa/credentials';
import type { Queryable } from './fleet';
import { returnedRows } from './returning';

/**
 * Trusted artifact-signing keys and the per-tenant unsigned-version policy
 * (migration 1768300000000). The decision on a signature is libs/credentials
 * `decideArtifactSignature`; this module only reads and writes the facts.
 */

type Raw = Record<string, unknown>;

export interface TrustedSigningKeyRow {
  readonly keyId: string;
  readonly algorithm: 'ed25519';
  /** Base64 of the raw 32-byte Ed25519 public key. */
  readonly publicKey: string;
  readonly label: string;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
  readonly revokedBy: string | null;
}

const KEY_COLUMNS = 'key_id, algorithm, public_key, label, created_by, created_at, revoked_at, revoked_by';

function keyFromRow(row: Raw): TrustedSigningKeyRow {
  return {
    keyId: row['key_id'] as string,
    algorithm: 'ed25519',
    publicKey: row['public_key'] as string,
    label: row['label'] as string,
    createdBy: row['created_by'] as string,
    createdAt: new Date(row['created_at'] as string),
    revokedAt: row['revoked_at'] ? new Date(row['revoked_at'] as string) : null,
    revokedBy: (row['revoked_by'] as string | null) ?? null,
  };
}

/** Every registered key, revoked ones included, oldest first. */
export async function listTrustedSigningKeys(q: Queryable): Promise<TrustedSigningKeyRow[]> {
  const rows = await q.query<Raw[]>(
    `SELECT ${KEY_COLUMNS} FROM trusted_signing_keys ORDER BY created_at, key_id`,
  );
  return rows.map(keyFromRow);
}

export async function findTrustedSigningKey(
  q: Queryable,
  keyId: string,
): Promise<TrustedSigningKeyRow | null> {
  const rows = await q.query<Raw[]>(`SELECT ${KEY_COLUMNS} FROM trusted_signing_keys WHERE key_id = $1`, [
    keyId,
  ]);
  return rows[0] ? keyFromRow(rows[0]) : null;
}

/** The keys as the signature decision reads them. */
export function trustedKeysForDecision(rows: readonly TrustedSigningKeyRow[]): TrustedSigningKey[] {
  return rows.map((row) => ({ keyId: row.keyId, publicKey: row.publicKey, revoked: row.revokedAt !== null }));
}

/** Inserts a key; a duplicate fingerprint or public key fails with unique_violation (23505). */
export async function insertTrustedSigningKey(
  q: Queryable,
  key: { keyId: string; publicKey: string; label: string; createdBy: string; createdAt: Date },
): Promise<void> {
  await q.query(
    `INSERT INTO trusted_signing_keys (key_id, algorithm, public_key, label, created_by, created_at)
     VALUES ($1, 'ed25519', $2, $3, $4, $5)`,
    [key.keyId, key.publicKey, key.label, key.createdBy, key.createdAt],
  );
}

/** Revokes a key; false when it does not exist or was already revoked. */
export async function revokeTrustedSigningKey(
  q: Queryable,
  keyId: string,
  revokedBy: string,
  revokedAt: Date,
): Promise<boolean> {
  const rows = await q.query<unknown>(
    `UPDATE trusted_signing_keys SET revoked_at = $3, revoked_by = $2
      WHERE key_id = $1 AND revoked_at IS NULL RETURNING key_id`,
    [keyId, revokedBy, revokedAt],
  );
  return returnedRows<Raw>(rows).length > 0;
}

/** Sets a tenant's unsigned-version policy; false when there is no such tenant. */
export async function setTenantAllowUnsignedVersions(
  q: Queryable,
  tenantId: string,
  allow: boolean,
  updatedBy: string,
  updatedAt: Date,
): Promise<boolean> {
  const rows = await q.query<unknown>(
    `UPDATE tenants SET allow_unsigned_versions = $2, updated_by = $3, updated_at = $4 WHERE id = $1 RETURNING id`,
    [tenantId, allow, updatedBy, updatedAt],
  );
  return returnedRows<Raw>(rows).length > 0;
}

/**
 * Whether an unsigned version may serve an alias: tenants only reach
 * versions through aliases their gateway keys list (model@version is for
 * operators), so the alias inherits the strictest policy among the tenants
 * holding a live (unrevoked, unexpired) key for it. Returns the tenants that
 * forbid unsigned versions; empty means allowed. An alias no tenant calls
 * yet allows them (nothing tenant-facing is served until a key names it —
 * and a rollout re-checks on every new version).
 */
export async function tenantsForbiddingUnsignedOnAlias(
  q: Queryable,
  aliasName: string,
  now: Date,
): Promise<string[]> {
  const rows = await q.query<{ id: string }[]>(
    `SELECT DISTINCT t.id FROM tenants t JOIN gateway_keys k ON k.tenant_id = t.id
      WHERE NOT t.allow_unsigned_versions AND $1 = ANY (k.aliases)
        AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)
      ORDER BY t.id`,
    [aliasName, now],
  );
  return rows.map((row) => row.id);
}

export async function tenantAllowsUnsignedVersions(q: Queryable, tenantId: string): Promise<boolean | null> {
  const rows = await q.query<{ allow: boolean }[]>(
    `SELECT allow_unsigned_versions AS allow FROM tenants WHERE id = $1`,
    [tenantId],
  );
  return rows[0] ? rows[0].allow : null;
}

/** The digest, size and provenance signature of a version's stored artifact document. */
export function signedArtifactOf(artifact: unknown): {
  readonly digest: string;
  readonly sizeBytes: number;
  readonly signature: ArtifactSignatureClaim | null;
} {
  const doc = (typeof artifact === 'object' && artifact !== null ? artifact : {}) as Record<string, unknown>;
  const provenance = (doc['provenance'] ?? {}) as Record<string, unknown>;
  const signature = provenance['signature'] as ArtifactSignatureClaim | undefined;
  return {
    digest: typeof doc['digest'] === 'string' ? doc['digest'] : '',
    sizeBytes: typeof doc['sizeBytes'] === 'number' ? doc['sizeBytes'] : -1,
    signature: signature ?? null,
  };
}

/**
 * The signature gate's verdict on a version as the database says now: its
 * artifact's signature against the trusted keys, and — when an alias is
 * named — the policy of the tenants calling that alias. Without an alias
 * (a deployment created directly, a verification) unsigned is allowed.
 */
export async function loadArtifactSignatureDecision(
  q: Queryable,
  version: { readonly ref: string; readonly artifact: unknown },
  options: { readonly aliasName: string | null; readonly now: Date },
): Promise<ArtifactSignatureDecision> {
  const { digest, sizeBytes, signature } = signedArtifactOf(version.artifact);
  const keys = trustedKeysForDecision(await listTrustedSigningKeys(q));
  const forbidding =
    options.aliasName === null
      ? []
      : await tenantsForbiddingUnsignedOnAlias(q, options.aliasName, options.now);
  const decision = decideArtifactSignature({
    ref: version.ref,
    artifact: { digest, sizeBytes },
    signature,
    trustedKeys: keys,
    unsignedAllowed: forbidding.length === 0,
  });
  if (!decision.ok && decision.code === 'UNSIGNED_VERSION_NOT_ALLOWED') {
    return {
      ...decision,
      reason: `${decision.reason} (alias ${options.aliasName} is called by tenant ${forbidding.join(', ')})`,
    };
  }
  return decision;
}
