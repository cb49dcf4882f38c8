import type { Queryable } from './fleet';

/**
 * Table `sign_in_throttle` (migration 1768700000000): the failed sign-in counts libs/domain sign-in-throttle.ts
 * decides on, one row per (scope, sha256 of the key). Writers lock the row (`FOR UPDATE`) for the length of
 * their transaction, so a burst of concurrent wrong passwords counts every one.
 */

export type SignInThrottleScopeName = 'account' | 'address';

export interface SignInThrottleRow {
  readonly failures: number;
  readonly lastFailureAt: Date | null;
  readonly blockedUntil: Date | null;
}

interface RawRow {
  readonly scope: SignInThrottleScopeName;
  readonly key_sha256: string;
  readonly failures: number;
  readonly last_failure_at: Date | null;
  readonly blocked_until: Date | null;
}

function rowOf(raw: RawRow): SignInThrottleRow {
  return { failures: raw.failures, lastFailureAt: raw.last_failure_at, blockedUntil: raw.blocked_until };
}

/** The current rows of the given keys, by `${scope}:${key}`; a key with no row has never failed (or was cleared). */
export async function readSignInThrottle(
  q: Queryable,
  keys: readonly { readonly scope: SignInThrottleScopeName; readonly keySha256: string }[],
): Promise<Map<string, SignInThrottleRow>> {
  const rows = await q.query<RawRow[]>(
    `SELECT scope, key_sha256, failures, last_failure_at, blocked_until
       FROM sign_in_throttle
      WHERE (scope, key_sha256) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [keys.map((k) => k.scope), keys.map((k) => k.keySha256)],
  );
  return new Map(rows.map((row) => [`${row.scope}:${row.key_sha256}`, rowOf(row)]));
}

/** Locks the key's row for the caller's transaction, creating it at zero failures if absent. */
export async function lockSignInThrottle(
  q: Queryable,
  scope: SignInThrottleScopeName,
  keySha256: string,
): Promise<SignInThrottleRow> {
  await q.query(
    `INSERT INTO sign_in_throttle (scope, key_sha256, failures) VALUES ($1, $2, 0)
     ON CONFLICT (scope, key_sha256) DO NOTHING`,
    [scope, keySha256],
  );
  const rows = await q.query<RawRow[]>(
    `SELECT scope, key_sha256, failures, last_failure_at, blocked_until
       FROM sign_in_throttle WHERE scope = $1 AND key_sha256 = $2 FOR UPDATE`,
    [scope, keySha256],
  );
  const [row] = rows;
  if (row === undefined)
    throw new Error(`sign_in_throttle row ${scope}/${keySha256} vanished under its lock`);
  return rowOf(row);
}

export async function writeSignInThrottle(
  q: Queryable,
  scope: SignInThrottleScopeName,
  keySha256: string,
  row: SignInThrottleRow,
): Promise<void> {
  await q.query(
    `UPDATE sign_in_throttle SET failures = $3, last_failure_at = $4, blocked_until = $5
      WHERE scope = $1 AND key_sha256 = $2`,
    [scope, keySha256, row.failures, row.lastFailureAt, row.blockedUntil],
  );
}

/** Forgets a key's failures (an account that signed in). */
export async function clearSignInThrottle(
  q: Queryable,
  scope: SignInThrottleScopeName,
  keySha256: string,
): Promise<void> {
  await q.query(`DELETE FROM sign_in_throttle WHERE scope = $1 AND key_sha256 = $2`, [scope, keySha256]);
}
