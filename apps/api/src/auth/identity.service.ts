import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ErrorCode, LunaNexaError, roleAtLeast, type Role } from '@lunanexa/contracts';
import type { RequestIds } from '@lunanexa/observability';
import {
  ApiTokenEntity,
  OperatorEntity,
  countOtherEnabledAdmins,
  findApiTokenForUpdate,
  findOperatorById,
  findOperatorForUpdate,
  findOperatorsByIds,
  getOperatorById,
  insertApiToken,
  insertOperator,
  listApiTokensNewestFirst,
  listOperatorsByUsername,
  lockIdentity,
  markApiTokenRevoked,
  markOperatorDisabled,
  updateOperatorRole,
  revokeSessionsOfOperator,
  updateOperatorPassword,
} from '@lunanexa/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import { AuditWriter, Denied } from './audit-writer';
import { generateApiToken } from '@lunanexa/credentials';
import { hashPassword } from './password';
import type { Principal } from './principal';

/**
 * Operator accounts and API tokens. Each change is one transaction holding the
 * change and its audit event (see AuditWriter for why these single-step
 * changes are not Temporal workflows).
 */

const UNIQUE_VIOLATION = '23505';

export interface ApiTokenView extends ApiTokenEntity {
  readonly ownerUsername: string;
}

export interface CreatedApiToken {
  readonly token: string;
  readonly apiToken: ApiTokenView;
}

function pgCode(error: unknown): string | undefined {
  const failure = error as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = failure?.driverError?.code ?? failure?.code;
  return typeof code === 'string' ? code : undefined;
}

async function operatorForUpdate(manager: EntityManager, id: string): Promise<OperatorEntity> {
  const operator = await findOperatorForUpdate(manager, id);
  if (!operator) throw new LunaNexaError(ErrorCode.NOT_FOUND, `no operator ${id}`);
  return operator;
}

export interface NewOperator {
  readonly username: string;
  readonly password: string;
  readonly role: Role;
}

/**
 * Adds an operator account; a taken username is a CONFLICT. Shared by the
 * `createOperator` mutation and the first-admin entry point; the caller owns
 * the transaction and its audit event.
 */
export async function addOperator(
  manager: EntityManager,
  input: Pick<NewOperator, 'username' | 'role'>,
  passwordHash: string,
): Promise<OperatorEntity> {
  const operator: OperatorEntity = {
    id: randomUUID(),
    username: input.username.toLowerCase(),
    passwordHash,
    role: input.role,
    sessionEpoch: 0,
    disabledAt: null,
    createdAt: new Date(),
  };
  try {
    await insertOperator(manager, operator);
  } catch (error) {
    if (pgCode(error) === UNIQUE_VIOLATION) {
      throw new LunaNexaError(ErrorCode.CONFLICT, `operator ${operator.username} already exists`);
    }
    throw error;
  }
  return operator;
}

@Injectable()
export class IdentityService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  async createOperator(principal: Principal, input: NewOperator, ids: RequestIds): Promise<OperatorEntity> {
    // Hash outside the transaction: scrypt takes a while and needs no lock.
    const passwordHash = await hashPassword(input.password);
    return this.audit.change(
      { actor: principal.actor, action: 'operator.create', ids },
      { username: input.username.toLowerCase(), role: input.role },
      async (manager) => {
        const operator = await addOperator(manager, input, passwordHash);
        return { value: operator, evidence: { operatorId: operator.id } };
      },
    );
  }

  /** Changes an operator's role and ends their sessions; the last enabled admin cannot be demoted. */
  async setOperatorRole(
    principal: Principal,
    operatorId: string,
    role: Role,
    ids: RequestIds,
  ): Promise<OperatorEntity> {
    return this.audit.change(
      { actor: principal.actor, action: 'operator.setRole', ids },
      { operatorId, role },
      async (manager) => {
        await lockIdentity(manager);
        const operator = await operatorForUpdate(manager, operatorId);
        const previous = operator.role;
        if (previous === role)
          return { value: operator, evidence: { previousRole: previous, changed: false } };
        if (
          previous === 'admin' &&
          !operator.disabledAt &&
          (await countOtherEnabledAdmins(manager, operator.id)) === 0
        ) {
          throw new LunaNexaError(ErrorCode.CONFLICT, `${operator.username} is the last enabled admin`);
        }
        await updateOperatorRole(manager, operator.id, role, operator.sessionEpoch + 1);
        return {
          value: { ...operator, role, sessionEpoch: operator.sessionEpoch + 1 },
          evidence: { username: operator.username, previousRole: previous, changed: true },
        };
      },
    );
  }

  /** Disables an operator: sessions and API tokens stop working at once. The last enabled admin cannot be disabled. */
  async disableOperator(principal: Principal, operatorId: string, ids: RequestIds): Promise<OperatorEntity> {
    return this.audit.change(
      { actor: principal.actor, action: 'operator.disable', ids },
      { operatorId },
      async (manager) => {
        await lockIdentity(manager);
        const operator = await operatorForUpdate(manager, operatorId);
        if (operator.disabledAt) {
          return { value: operator, evidence: { username: operator.username, changed: false } };
        }
        if (operator.role === 'admin' && (await countOtherEnabledAdmins(manager, operator.id)) === 0) {
          throw new LunaNexaError(ErrorCode.CONFLICT, `${operator.username} is the last enabled admin`);
        }
        const disabledAt = new Date();
        await markOperatorDisabled(manager, operator.id, disabledAt, operator.sessionEpoch + 1);
        return {
          value: { ...operator, disabledAt, sessionEpoch: operator.sessionEpoch + 1 },
          evidence: { username: operator.username, changed: true },
        };
      },
    );
  }

  /**
   * An admin sets another operator's password (a forgotten one, a suspected leak): their sessions end at once.
   * The new password is told to them out of band; nothing here shows it again.
   */
  async resetOperatorPassword(
    principal: Principal,
    operatorId: string,
    password: string,
    ids: RequestIds,
  ): Promise<OperatorEntity> {
    const passwordHash = await hashPassword(password);
    return this.audit.change(
      { actor: principal.actor, action: 'operator.resetPassword', ids },
      { operatorId },
      async (manager) => {
        const operator = await operatorForUpdate(manager, operatorId);
        const sessionEpoch = operator.sessionEpoch + 1;
        await updateOperatorPassword(manager, operator.id, passwordHash, sessionEpoch);
        return {
          value: { ...operator, passwordHash, sessionEpoch },
          evidence: { username: operator.username, sessionsEnded: true },
        };
      },
    );
  }

  /** Ends every session of another operator (a lost laptop) without touching their password or API tokens. */
  async endOperatorSessions(
    principal: Principal,
    operatorId: string,
    ids: RequestIds,
  ): Promise<OperatorEntity> {
    return this.audit.change(
      { actor: principal.actor, action: 'operator.endSessions', ids },
      { operatorId },
      async (manager) => {
        const operator = await operatorForUpdate(manager, operatorId);
        const sessionEpoch = await revokeSessionsOfOperator(manager, operator.id);
        return { value: { ...operator, sessionEpoch }, evidence: { username: operator.username } };
      },
    );
  }

  findOperator(id: string): Promise<OperatorEntity | null> {
    return findOperatorById(this.db, id);
  }

  listOperators(): Promise<OperatorEntity[]> {
    return listOperatorsByUsername(this.db);
  }

  /**
   * Issues an API token owned by the caller. Its role defaults to the caller's
   * role and may not exceed it (FORBIDDEN, audited as a refusal). The token is
   * returned here once; only its sha256 is stored.
   */
  async createApiToken(
    principal: Principal,
    input: { name: string; role: Role | null; expiresInDays: number | null },
    ids: RequestIds,
  ): Promise<CreatedApiToken> {
    const role = input.role ?? principal.role;
    const generated = generateApiToken();
    const createdAt = new Date();
    const expiresAt =
      input.expiresInDays === null ? null : new Date(createdAt.getTime() + input.expiresInDays * 86_400_000);
    const row: ApiTokenEntity = {
      id: randomUUID(),
      operatorId: principal.operatorId,
      name: input.name,
      tokenHash: generated.tokenHash,
      prefix: generated.prefix,
      role,
      createdAt,
      expiresAt,
      revokedAt: null,
      lastUsedAt: null,
    };
    const apiToken = await this.audit.change(
      { actor: principal.actor, action: 'apiToken.create', ids },
      {
        name: input.name,
        role,
        ownerId: principal.operatorId,
        expiresAt: expiresAt?.toISOString() ?? null,
      },
      async (manager) => {
        if (!roleAtLeast(principal.role, role)) {
          throw new Denied(
            new LunaNexaError(
              ErrorCode.FORBIDDEN,
              `an API token cannot have more than your role (${principal.role})`,
            ),
            { reason: 'token-role-exceeds-caller', callerRole: principal.role },
          );
        }
        await insertApiToken(manager, row);
        return {
          value: { ...row, ownerUsername: principal.username },
          evidence: { tokenId: row.id, tokenPrefix: row.prefix },
        };
      },
    );
    return { token: generated.token, apiToken };
  }

  /** Revokes a token (any owner's). Revoking a revoked token changes nothing and says so. */
  async revokeApiToken(principal: Principal, tokenId: string, ids: RequestIds): Promise<ApiTokenView> {
    return this.audit.change(
      { actor: principal.actor, action: 'apiToken.revoke', ids },
      { tokenId },
      async (manager) => {
        const token = await findApiTokenForUpdate(manager, tokenId);
        if (!token) throw new LunaNexaError(ErrorCode.NOT_FOUND, `no API token ${tokenId}`);
        const owner = await getOperatorById(manager, token.operatorId);
        const evidence = { tokenPrefix: token.prefix, ownerId: token.operatorId };
        if (token.revokedAt) {
          return {
            value: { ...token, ownerUsername: owner.username },
            evidence: { ...evidence, changed: false },
          };
        }
        const revokedAt = new Date();
        await markApiTokenRevoked(manager, token.id, revokedAt);
        return {
          value: { ...token, revokedAt, ownerUsername: owner.username },
          evidence: { ...evidence, changed: true },
        };
      },
    );
  }

  async listApiTokens(): Promise<ApiTokenView[]> {
    const tokens = await listApiTokensNewestFirst(this.db);
    const ownerIds = [...new Set(tokens.map((t) => t.operatorId))];
    const owners = ownerIds.length ? await findOperatorsByIds(this.db, ownerIds) : [];
    const usernames = new Map(owners.map((o) => [o.id, o.username]));
    return tokens.map((t) => ({ ...t, ownerUsername: usernames.get(t.operatorId) ?? '' }));
  }
}
