import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import {
  ErrorCode,
  LunaNexaError,
  USERNAME_PATTERN,
  apiTokenActor,
  isRole,
  lowerRole,
  operatorActor,
} from '@lunanexa/contracts';
import type { RequestIds } from '@lunanexa/observability';
import {
  ACCOUNT_SIGN_IN_THROTTLE,
  ADDRESS_SIGN_IN_THROTTLE,
  NO_SIGN_IN_FAILURES,
  afterSignInFailure,
  signInRetryAfterSeconds,
  type SignInThrottlePolicy,
  type SignInThrottleScope,
} from '@lunanexa/domain';
import {
  type OperatorEntity,
  clearSignInThrottle,
  lockSignInThrottle,
  readSignInThrottle,
  writeSignInThrottle,
  findApiTokenByHash,
  findOperatorById,
  findOperatorByUsername,
  findOperatorForUpdate,
  recordApiTokenUse,
  revokeSessionsOfOperator,
  updateOperatorPassword,
} from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { API_CONFIG, type ApiConfig } from '../config';
import { AuditWriter, type Evidence } from './audit-writer';
import { CONTROLLER_KEY } from './auth.constants';
import type { ControllerKeyRing } from './controller-key';
import { hashApiToken, parseAuthorization } from '@lunanexa/credentials';
import { decoyPasswordHash, hashPassword, verifyPassword } from './password';
import type { Principal } from './principal';
import {
  SESSION_ISSUER,
  SESSION_TTL_SECONDS,
  signSessionToken,
  sessionTokenKeyId,
  verifySessionToken,
} from '@lunanexa/credentials';

/**
 * Sessions are stateless, short-lived JWTs (15 minutes) signed with the
 * controller's Ed25519 key, not rows in a sessions table:
 *
 * - nothing to write per login or to expire afterwards, and the same key and
 *   verification code will sign node assignments;
 * - revocation still works: every token carries the operator's
 *   `session_epoch`, and every request reads the operator row (needed anyway
 *   to refuse disabled accounts), so bumping the epoch — logout, a role
 *   change, disabling — refuses all earlier tokens at once, on their next
 *   request;
 * - the cost is that logout ends all of that operator's sessions, not only
 *   the current one, and that there is no list of active sessions.
 *
 * API tokens are the long-lived credential for automation: looked up by
 * sha256, individually revocable, optionally expiring.
 */
export type Authentication =
  | { readonly ok: true; readonly principal: Principal }
  | {
      readonly ok: false;
      readonly code: typeof ErrorCode.UNAUTHENTICATED | typeof ErrorCode.TOKEN_EXPIRED;
      /** Why, for the audit event; never shown to the caller beyond the code. */
      readonly reason: string;
      readonly evidence: Evidence;
    };

export interface LoginOutcome {
  readonly accessToken: string;
  readonly expiresAt: Date;
  readonly operator: OperatorEntity;
}

/** Same answer for an unknown user, a wrong password and a disabled account. */
const LOGIN_FAILED = 'invalid username or password';

/** last_used_at is written at most this often per token, so busy automation does not write on every call. */
const LAST_USED_RESOLUTION_MS = 60_000;

function refused(code: 'UNAUTHENTICATED' | 'TOKEN_EXPIRED', reason: string, evidence: Evidence = {}) {
  return { ok: false as const, code, reason, evidence };
}

@Injectable()
export class AuthService implements OnModuleInit {
  /** One authentication per HTTP request, shared by every field of a GraphQL document. */
  private readonly perRequest = new WeakMap<IncomingMessage, Promise<Authentication>>();

  private readonly throttles: Readonly<Record<SignInThrottleScope, SignInThrottlePolicy>>;

  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
    @Inject(CONTROLLER_KEY) private readonly ring: ControllerKeyRing,
    @Inject(API_CONFIG) config: ApiConfig,
  ) {
    const tuned = (base: SignInThrottlePolicy, freeFailures: number): SignInThrottlePolicy => {
      const maxBlockSeconds = Math.max(
        config.LUNANEXA_SIGN_IN_MAX_BLOCK_SECONDS,
        config.LUNANEXA_SIGN_IN_BLOCK_SECONDS,
      );
      return {
        freeFailures,
        baseBlockSeconds: config.LUNANEXA_SIGN_IN_BLOCK_SECONDS,
        maxBlockSeconds,
        forgetAfterSeconds: Math.max(base.forgetAfterSeconds, maxBlockSeconds),
      };
    };
    this.throttles = {
      account: tuned(ACCOUNT_SIGN_IN_THROTTLE, config.LUNANEXA_SIGN_IN_ACCOUNT_FAILURES),
      address: tuned(ADDRESS_SIGN_IN_THROTTLE, config.LUNANEXA_SIGN_IN_ADDRESS_FAILURES),
    };
  }

  /** Computes the decoy hash before the first login, so the first unknown-user attempt costs no extra scrypt. */
  async onModuleInit(): Promise<void> {
    await decoyPasswordHash();
  }

  authenticate(req: IncomingMessage): Promise<Authentication> {
    let pending = this.perRequest.get(req);
    if (!pending) {
      pending = this.authenticateHeader(req.headers.authorization);
      this.perRequest.set(req, pending);
    }
    return pending;
  }

  private async authenticateHeader(header: string | undefined): Promise<Authentication> {
    const credential = parseAuthorization(header);
    switch (credential.kind) {
      case 'none':
        return refused('UNAUTHENTICATED', 'no-credentials');
      case 'malformed':
        return refused('UNAUTHENTICATED', 'malformed-credentials');
      case 'session':
        return this.authenticateSession(credential.token);
      case 'api-token':
        return this.authenticateApiToken(credential.token, credential.prefix);
      case 'gateway-key':
        // A tenant's key calls the gateway's /v1/* only; it is never an operator credential.
        return refused('UNAUTHENTICATED', 'gateway-key-not-accepted', { keyPrefix: credential.prefix });
    }
  }

  private async authenticateSession(token: string): Promise<Authentication> {
    // Tokens signed before a key switch stay valid until they expire or the key is retired.
    const kid = sessionTokenKeyId(token);
    const key = kid === undefined ? undefined : this.ring.acceptedByFingerprint(kid);
    if (key === undefined) return refused('UNAUTHENTICATED', 'session-unknown-key');
    const check = verifySessionToken(token, key, Math.floor(Date.now() / 1000));
    if (!check.ok) {
      if (check.reason === 'expired' && check.claims) {
        return refused('TOKEN_EXPIRED', 'session-expired', {
          operatorId: check.claims.sub,
          expiredAt: new Date(check.claims.exp * 1000).toISOString(),
        });
      }
      return refused('UNAUTHENTICATED', `session-${check.reason}`);
    }
    const { claims } = check;
    const operator = await findOperatorById(this.db, claims.sub);
    const evidence = { operatorId: claims.sub };
    if (!operator) return refused('UNAUTHENTICATED', 'operator-unknown', evidence);
    if (operator.disabledAt) return refused('UNAUTHENTICATED', 'operator-disabled', evidence);
    // Role changes bump the epoch too; the role check is a second line.
    if (operator.sessionEpoch !== claims.epoch || operator.role !== claims.role) {
      return refused('UNAUTHENTICATED', 'session-revoked', evidence);
    }
    return {
      ok: true,
      principal: {
        operatorId: operator.id,
        username: operator.username,
        operatorRole: operator.role,
        role: operator.role,
        actor: operatorActor(operator.username),
        credential: 'session',
        expiresAt: new Date(claims.exp * 1000),
        tokenId: null,
        tokenPrefix: null,
      },
    };
  }

  private async authenticateApiToken(token: string, prefix: string): Promise<Authentication> {
    const row = await findApiTokenByHash(this.db, hashApiToken(token));
    if (!row) return refused('UNAUTHENTICATED', 'api-token-unknown', { tokenPrefix: prefix });
    const evidence = { tokenId: row.id, tokenPrefix: row.prefix, operatorId: row.operatorId };
    if (row.revokedAt) return refused('UNAUTHENTICATED', 'api-token-revoked', evidence);
    const now = new Date();
    if (row.expiresAt && row.expiresAt <= now) {
      return refused('TOKEN_EXPIRED', 'api-token-expired', {
        ...evidence,
        expiredAt: row.expiresAt.toISOString(),
      });
    }
    const owner = await findOperatorById(this.db, row.operatorId);
    if (!owner) return refused('UNAUTHENTICATED', 'operator-unknown', evidence);
    if (owner.disabledAt) return refused('UNAUTHENTICATED', 'operator-disabled', evidence);
    if (!isRole(row.role)) return refused('UNAUTHENTICATED', 'api-token-role-unknown', evidence);
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      await recordApiTokenUse(this.db, row.id, now);
    }
    return {
      ok: true,
      principal: {
        operatorId: owner.id,
        username: owner.username,
        operatorRole: owner.role,
        // An owner demoted after issuing the token takes the token down with them.
        role: lowerRole(row.role, owner.role),
        actor: apiTokenActor(row.prefix),
        credential: 'apiToken',
        expiresAt: row.expiresAt,
        tokenId: row.id,
        tokenPrefix: row.prefix,
      },
    };
  }

  /**
   * Password login. Unknown usernames are checked against a decoy hash, so
   * every attempt costs one scrypt and one constant-time compare; unknown
   * user, wrong password and disabled account answer the same
   * UNAUTHENTICATED. Every attempt is audited (the reason is recorded there,
   * not told to the caller).
   */
  async login(
    username: string,
    password: string,
    ids: RequestIds,
    clientAddress = 'unknown',
  ): Promise<LoginOutcome> {
    const normalized = username.toLowerCase();
    const keys = {
      account: sha256Hex(normalized),
      address: sha256Hex(clientAddress),
    } as const satisfies Record<SignInThrottleScope, string>;
    await this.refuseWhileThrottled(keys, normalized, clientAddress, ids);
    const operator = USERNAME_PATTERN.test(normalized)
      ? await findOperatorByUsername(this.db, normalized)
      : null;
    const matches = await verifyPassword(password, operator?.passwordHash ?? (await decoyPasswordHash()));
    if (!operator || !matches || operator.disabledAt) {
      const reason = !operator ? 'operator-unknown' : !matches ? 'password-mismatch' : 'operator-disabled';
      const throttle = await this.countFailure(keys);
      await this.audit.refusal(
        { actor: 'anonymous', action: 'auth.login', ids },
        {
          ...(operator
            ? { operatorId: operator.id, username: operator.username }
            : // People type passwords into the username field; the chain is immutable, so an
              // unknown name is kept only as its sha256 (hash a suspected name to compare).
              { usernameSha256: keys.account }),
          reason,
          clientAddress,
          ...throttle,
        },
      );
      throw new LunaNexaError(ErrorCode.UNAUTHENTICATED, LOGIN_FAILED);
    }
    await clearSignInThrottle(this.db, 'account', keys.account);
    const session = this.issueSession(operator);
    await this.audit.record(
      { actor: operatorActor(operator.username), action: 'auth.login', ids },
      { operatorId: operator.id, role: operator.role, expiresAt: session.expiresAt.toISOString() },
    );
    return session;
  }

  private issueSession(operator: OperatorEntity): LoginOutcome {
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + SESSION_TTL_SECONDS;
    const accessToken = signSessionToken(this.ring.current(), {
      iss: SESSION_ISSUER,
      sub: operator.id,
      role: operator.role,
      epoch: operator.sessionEpoch,
      iat,
      exp,
    });
    return { accessToken, expiresAt: new Date(exp * 1000), operator };
  }

  /**
   * An operator changes their own password, proving the current one (a wrong one counts against the sign-in
   * throttle like a failed sign-in, so a stolen session cannot guess it at API speed). Every session of theirs
   * ends, this one included; the answer is a fresh session, so the caller carries on.
   */
  async changePassword(
    principal: Principal,
    currentPassword: string,
    newPassword: string,
    ids: RequestIds,
    clientAddress = 'unknown',
  ): Promise<LoginOutcome> {
    const context = { actor: principal.actor, action: 'auth.changePassword', ids };
    if (principal.credential !== 'session') {
      await this.audit.refusal(context, { operatorId: principal.operatorId, reason: 'not-a-session' });
      throw new LunaNexaError(
        ErrorCode.FORBIDDEN,
        'A password is changed from a signed-in session, not with an API token.',
      );
    }
    const keys = { account: sha256Hex(principal.username), address: sha256Hex(clientAddress) } as const;
    await this.refuseWhileThrottled(keys, principal.username, clientAddress, ids);
    const operator = await findOperatorById(this.db, principal.operatorId);
    if (!operator || operator.disabledAt) throw new LunaNexaError(ErrorCode.UNAUTHENTICATED, LOGIN_FAILED);
    if (!(await verifyPassword(currentPassword, operator.passwordHash))) {
      const throttle = await this.countFailure(keys);
      await this.audit.refusal(context, {
        operatorId: operator.id,
        reason: 'password-mismatch',
        ...throttle,
      });
      // The caller is authenticated (their session is fine); what they typed is wrong.
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'The current password is not right.', [
        { path: 'currentPassword', message: 'is not your current password' },
      ]);
    }
    if (newPassword === currentPassword) {
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'The new password is the current one.', [
        { path: 'newPassword', message: 'must differ from the current password' },
      ]);
    }
    await clearSignInThrottle(this.db, 'account', keys.account);
    const passwordHash = await hashPassword(newPassword);
    const changed = await this.audit.change(context, { operatorId: operator.id }, async (manager) => {
      const locked = await findOperatorForUpdate(manager, operator.id);
      const sessionEpoch = (locked?.sessionEpoch ?? operator.sessionEpoch) + 1;
      await updateOperatorPassword(manager, operator.id, passwordHash, sessionEpoch);
      return {
        value: { ...operator, passwordHash, sessionEpoch },
        evidence: { username: operator.username, sessionsEnded: true },
      };
    });
    return this.issueSession(changed);
  }

  /**
   * Refuses, before the password is checked, a sign-in whose account or address is blocked for failing too
   * often (RATE_LIMITED, saying when to retry); the refusal is audited with the scope and the time left.
   */
  private async refuseWhileThrottled(
    keys: Readonly<Record<SignInThrottleScope, string>>,
    normalized: string,
    clientAddress: string,
    ids: RequestIds,
  ): Promise<void> {
    const now = new Date();
    const rows = await readSignInThrottle(this.db, [
      { scope: 'account', keySha256: keys.account },
      { scope: 'address', keySha256: keys.address },
    ]);
    const wait = (scope: SignInThrottleScope) =>
      signInRetryAfterSeconds(rows.get(`${scope}:${keys[scope]}`) ?? NO_SIGN_IN_FAILURES, now);
    const scope: SignInThrottleScope | null =
      wait('account') > 0 ? 'account' : wait('address') > 0 ? 'address' : null;
    if (scope === null) return;
    const retryAfterSeconds = Math.max(wait('account'), wait('address'));
    await this.audit.refusal(
      { actor: 'anonymous', action: 'auth.login', ids },
      { reason: 'throttled', scope, retryAfterSeconds, usernameSha256: sha256Hex(normalized), clientAddress },
    );
    throw new LunaNexaError(
      ErrorCode.RATE_LIMITED,
      `Too many failed sign-ins ${scope === 'account' ? 'for this account' : 'from this address'}; ` +
        `try again in ${retryAfterSeconds} s.`,
    );
  }

  /** Counts a failed sign-in against its account and its address, under their row locks; what the audit records. */
  private async countFailure(keys: Readonly<Record<SignInThrottleScope, string>>): Promise<Evidence> {
    return this.db.transaction(async (manager) => {
      const now = new Date();
      const evidence: Record<string, unknown> = {};
      for (const scope of ['account', 'address'] as const) {
        const before = await lockSignInThrottle(manager, scope, keys[scope]);
        const after = afterSignInFailure(before, now, this.throttles[scope]);
        await writeSignInThrottle(manager, scope, keys[scope], after);
        evidence[`${scope}Failures`] = after.failures;
        if (after.blockStarted && after.blockedUntil !== null)
          evidence[`${scope}BlockedUntil`] = after.blockedUntil.toISOString();
      }
      return evidence;
    });
  }

  /** Ends every session of the caller (bumps the session epoch). API tokens are revoked with revokeApiToken. */
  async logout(principal: Principal, ids: RequestIds): Promise<void> {
    const context = { actor: principal.actor, action: 'auth.logout', ids };
    await this.audit.change(context, { operatorId: principal.operatorId }, async (manager) => {
      if (principal.credential !== 'session') {
        throw new LunaNexaError(
          ErrorCode.VALIDATION_FAILED,
          'logout ends sessions; an API token is revoked with revokeApiToken',
        );
      }
      const sessionEpoch = await revokeSessionsOfOperator(manager, principal.operatorId);
      return { value: undefined, evidence: { sessionEpoch } };
    });
  }
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
