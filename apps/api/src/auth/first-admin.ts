import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, USERNAME_PATTERN } from '@lunanexa/contracts';
import {
  appendAuditEvent,
  findFirstEnabledAdmin,
  findOperatorByUsername,
  findUsableApiTokenPrefix,
  insertApiToken,
  lockIdentity,
} from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import { addOperator } from './identity.service';
import { API_TOKEN_PATTERN, generateApiToken, hashApiToken } from '@lunanexa/credentials';
import { hashPassword } from './password';

export type FirstAdminOutcome =
  | { readonly created: false; readonly existingAdmin: string }
  | {
      readonly created: true;
      readonly operatorId: string;
      readonly username: string;
      /** Set only when no password was given: the caller shows it once and keeps it nowhere. */
      readonly generatedPassword: string | null;
    };

export const FIRST_ADMIN_ACTOR = 'system:first-admin';

/**
 * Makes sure the installation has an enabled admin. With one present it does
 * nothing. Otherwise it creates `username` as admin with `password`, or with
 * a random 32-character password returned once in `generatedPassword`. The
 * account creation and its audit event commit together, under the same lock
 * as role changes, so two starts racing create one admin.
 *
 * If `username` exists but is not an enabled admin (someone edited the
 * database by hand), it refuses rather than silently promoting that account.
 */
export async function ensureFirstAdmin(
  ds: DataSource,
  options: { readonly username: string; readonly password?: string },
): Promise<FirstAdminOutcome> {
  const username = options.username.toLowerCase();
  if (!USERNAME_PATTERN.test(username)) throw new Error(`first admin username ${username} is not valid`);
  if (
    options.password !== undefined &&
    (options.password.length < PASSWORD_MIN_LENGTH || options.password.length > PASSWORD_MAX_LENGTH)
  ) {
    throw new Error(
      `the first admin password must be ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters`,
    );
  }
  const existing = await findFirstEnabledAdmin(ds);
  if (existing) return { created: false, existingAdmin: existing.username };
  const generatedPassword = options.password === undefined ? randomBytes(24).toString('base64url') : null;
  const passwordHash = await hashPassword(options.password ?? generatedPassword ?? '');
  return ds.transaction(async (manager) => {
    await lockIdentity(manager);
    const raced = await findFirstEnabledAdmin(manager);
    if (raced) return { created: false, existingAdmin: raced.username };
    const taken = await findOperatorByUsername(manager, username);
    if (taken) {
      throw new Error(
        `no enabled admin exists and operator ${username} exists as a ${taken.disabledAt ? 'disabled ' : ''}${taken.role}; ` +
          'choose another first-admin username or repair the account by hand',
      );
    }
    const operator = await addOperator(manager, { username, role: 'admin' }, passwordHash);
    await appendAuditEvent(manager, {
      id: randomUUID(),
      occurredAt: new Date().toISOString(),
      actor: FIRST_ADMIN_ACTOR,
      action: 'operator.create',
      decision: 'allowed',
      evidence: {
        operatorId: operator.id,
        username,
        role: 'admin',
        passwordSource: generatedPassword === null ? 'provided' : 'generated',
      },
      result: 'succeeded',
      correlationId: `first-admin-${operator.id}`,
      workflowId: null,
    });
    return { created: true, operatorId: operator.id, username, generatedPassword };
  });
}

export const LOCAL_OPERATOR_TOKEN_NAME = 'local-operator';
/** The launcher's own admin credential: it mints the bootstrap tokens that enroll the simulated agents. */
export const LOCAL_ADMIN_TOKEN_NAME = 'local-admin';

/**
 * The credential a single-machine installation hands to its own launcher and
 * CLI (like a kubeconfig): an API token with role `operator`, owned by the
 * first enabled admin, written to `file` with mode 0600. Only its sha256 is in
 * the database. If the file holds a token that is still valid, nothing
 * changes; if that token was revoked or the file is gone, a new one replaces
 * it. Creation is audited like any other token.
 */
export async function ensureLocalOperatorToken(
  ds: DataSource,
  file: string,
): Promise<{ readonly created: boolean; readonly prefix: string }> {
  return ensureLocalToken(ds, file, 'operator', LOCAL_OPERATOR_TOKEN_NAME, 'local launcher and CLI');
}

/**
 * The same for an `admin` token the launcher uses for credential
 * administration it does on the operator's behalf (bootstrap tokens for the
 * simulated agents). Kept apart from the operator token so day-to-day CLI use
 * runs with the smaller role.
 */
export async function ensureLocalAdminToken(
  ds: DataSource,
  file: string,
): Promise<{ readonly created: boolean; readonly prefix: string }> {
  return ensureLocalToken(
    ds,
    file,
    'admin',
    LOCAL_ADMIN_TOKEN_NAME,
    'local launcher: enrolling simulated agents',
  );
}

async function ensureLocalToken(
  ds: DataSource,
  file: string,
  role: 'operator' | 'admin',
  name: string,
  purpose: string,
): Promise<{ readonly created: boolean; readonly prefix: string }> {
  const current = readTokenFile(file);
  if (current) {
    const prefix = await findUsableApiTokenPrefix(ds, hashApiToken(current), role);
    if (prefix !== undefined) return { created: false, prefix };
  }
  const generated = generateApiToken();
  await ds.transaction(async (manager) => {
    const ownerId = (await findFirstEnabledAdmin(manager))?.id;
    if (!ownerId)
      throw new Error('no enabled admin owns the local operator token; run the first-admin step first');
    const tokenId = randomUUID();
    await insertApiToken(manager, {
      id: tokenId,
      operatorId: ownerId,
      name,
      tokenHash: generated.tokenHash,
      prefix: generated.prefix,
      role,
      createdAt: new Date(),
      expiresAt: null,
      revokedAt: null,
      lastUsedAt: null,
    });
    await appendAuditEvent(manager, {
      id: randomUUID(),
      occurredAt: new Date().toISOString(),
      actor: FIRST_ADMIN_ACTOR,
      action: 'apiToken.create',
      decision: 'allowed',
      evidence: {
        tokenId,
        tokenPrefix: generated.prefix,
        role,
        ownerId,
        purpose,
      },
      result: 'succeeded',
      correlationId: `${name}-token-${tokenId}`,
      workflowId: null,
    });
  });
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${generated.token}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  return { created: true, prefix: generated.prefix };
}

function readTokenFile(file: string): string | undefined {
  try {
    const token = readFileSync(file, 'utf8').trim();
    return API_TOKEN_PATTERN.test(token) ? token : undefined;
  } catch {
    return undefined;
  }
}
