import type { Role } from '@lunanexa/contracts';
import { In, type EntityManager } from 'typeorm';
import { ApiTokenEntity } from './entities/api-token.entity';
import { OperatorEntity } from './entities/operator.entity';
import type { Queryable } from './fleet';

/**
 * Operator accounts and API tokens (tables `operators` and `api_tokens`). The
 * caller owns the transaction: writes take the EntityManager of the one that
 * also appends the change's audit event; reads take a DataSource or a manager.
 */

type Repositories = Pick<EntityManager, 'getRepository'>;

/** Serialises changes that must keep at least one enabled admin (two admins demoting each other at once). */
export const IDENTITY_LOCK_KEY = 0x4c4e5849; // "LNXI"

/** Holds the identity lock until the caller's transaction ends. */
export async function lockIdentity(manager: Queryable): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock($1)', [IDENTITY_LOCK_KEY]);
}

export function findOperatorById(db: Repositories, id: string): Promise<OperatorEntity | null> {
  return db.getRepository(OperatorEntity).findOne({ where: { id } });
}

/** Usernames are stored lower-case; the caller normalises. */
export function findOperatorByUsername(db: Repositories, username: string): Promise<OperatorEntity | null> {
  return db.getRepository(OperatorEntity).findOne({ where: { username } });
}

/** The operator row, rejecting with TypeORM's EntityNotFoundError when it is gone. */
export function getOperatorById(db: Repositories, id: string): Promise<OperatorEntity> {
  return db.getRepository(OperatorEntity).findOneByOrFail({ id });
}

/** The operator row, locked (FOR UPDATE) until the caller's transaction ends. */
export function findOperatorForUpdate(manager: EntityManager, id: string): Promise<OperatorEntity | null> {
  return manager
    .getRepository(OperatorEntity)
    .findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
}

export function findOperatorsByIds(db: Repositories, ids: readonly string[]): Promise<OperatorEntity[]> {
  return db.getRepository(OperatorEntity).find({ where: { id: In([...ids]) } });
}

export function listOperatorsByUsername(db: Repositories): Promise<OperatorEntity[]> {
  return db.getRepository(OperatorEntity).find({ order: { username: 'ASC' } });
}

/** Enabled admins other than `exceptId`: whether demoting or disabling that one leaves an admin. */
export async function countOtherEnabledAdmins(q: Queryable, exceptId: string): Promise<number> {
  const rows = await q.query<{ n: string }[]>(
    `SELECT count(*) AS n FROM operators WHERE role = 'admin' AND disabled_at IS NULL AND id <> $1`,
    [exceptId],
  );
  return Number(rows[0]?.n ?? 0);
}

/** The earliest-created enabled admin, if any: the installation's first admin and owner of its local tokens. */
export async function findFirstEnabledAdmin(
  q: Queryable,
): Promise<{ readonly id: string; readonly username: string } | undefined> {
  const rows = await q.query<{ id: string; username: string }[]>(
    `SELECT id, username FROM operators WHERE role = 'admin' AND disabled_at IS NULL ORDER BY created_at LIMIT 1`,
  );
  return rows[0];
}

/** Inserts an operator; a taken username fails with unique_violation (23505), which the API reports as CONFLICT. */
export async function insertOperator(manager: EntityManager, operator: OperatorEntity): Promise<void> {
  await manager.getRepository(OperatorEntity).insert(operator);
}

/** Sets the role and the session epoch (a role change ends the operator's sessions). */
export async function updateOperatorRole(
  manager: EntityManager,
  id: string,
  role: Role,
  sessionEpoch: number,
): Promise<void> {
  await manager.getRepository(OperatorEntity).update({ id }, { role, sessionEpoch });
}

/** Sets disabled_at and the session epoch (disabling ends the operator's sessions). */
export async function markOperatorDisabled(
  manager: EntityManager,
  id: string,
  disabledAt: Date,
  sessionEpoch: number,
): Promise<void> {
  await manager.getRepository(OperatorEntity).update({ id }, { disabledAt, sessionEpoch });
}

/** Sets the password hash and the session epoch (a new password ends the operator's other sessions). */
export async function updateOperatorPassword(
  manager: EntityManager,
  id: string,
  passwordHash: string,
  sessionEpoch: number,
): Promise<void> {
  await manager.getRepository(OperatorEntity).update({ id }, { passwordHash, sessionEpoch });
}

/**
 * Ends every session of the operator: bumps the session epoch that each
 * session token carries. Returns the new epoch.
 */
export async function revokeSessionsOfOperator(manager: EntityManager, id: string): Promise<number> {
  await manager.increment(OperatorEntity, { id }, 'sessionEpoch', 1);
  const { sessionEpoch } = await manager.getRepository(OperatorEntity).findOneByOrFail({ id });
  return sessionEpoch;
}

export function findApiTokenByHash(db: Repositories, tokenHash: string): Promise<ApiTokenEntity | null> {
  return db.getRepository(ApiTokenEntity).findOne({ where: { tokenHash } });
}

/** The token row, locked (FOR UPDATE) until the caller's transaction ends. */
export function findApiTokenForUpdate(manager: EntityManager, id: string): Promise<ApiTokenEntity | null> {
  return manager
    .getRepository(ApiTokenEntity)
    .findOne({ where: { id }, lock: { mode: 'pessimistic_write' } });
}

export function listApiTokensNewestFirst(db: Repositories): Promise<ApiTokenEntity[]> {
  return db.getRepository(ApiTokenEntity).find({ order: { createdAt: 'DESC' } });
}

/**
 * The prefix of a token with this hash and role that still authenticates: not
 * revoked, not expired, its owner enabled.
 */
export async function findUsableApiTokenPrefix(
  q: Queryable,
  tokenHash: string,
  role: Role,
): Promise<string | undefined> {
  const rows = await q.query<{ prefix: string }[]>(
    `SELECT t.prefix FROM api_tokens t JOIN operators o ON o.id = t.operator_id
      WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())
        AND o.disabled_at IS NULL AND t.role = $2`,
    [tokenHash, role],
  );
  return rows[0]?.prefix;
}

export async function insertApiToken(manager: EntityManager, token: ApiTokenEntity): Promise<void> {
  await manager.getRepository(ApiTokenEntity).insert(token);
}

export async function markApiTokenRevoked(
  manager: EntityManager,
  id: string,
  revokedAt: Date,
): Promise<void> {
  await manager.getRepository(ApiTokenEntity).update({ id }, { revokedAt });
}

/**
 * Records that the token was used at `now`, unless a use within the last
 * minute is already recorded (so concurrent requests do not each write).
 */
export async function recordApiTokenUse(q: Queryable, id: string, now: Date): Promise<void> {
  await q.query(
    `UPDATE api_tokens SET last_used_at = $2
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
    [id, now.toISOString()],
  );
}
