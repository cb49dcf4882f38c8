import type { IncomingHttpHeaders } from 'node:http';
import {
  DEFAULT_TENANT_ID,
  ErrorCode,
  LUNANEXA_HEADERS,
  LunaNexaError,
  apiTokenActor,
  operatorActor,
  roleHasPermission,
} from '@lunanexa/contracts';
import {
  hashBearerSecret,
  parseAuthorization,
  sessionTokenKeyId,
  verifySessionToken,
  type SessionClaims,
} from '@lunanexa/credentials';
import type { CredentialTable } from './credential-table';

/**
 * Who is calling the data plane. Tenants call with a gateway key and reach
 * only the aliases the key lists; operators call with their own API
 * credential (an API token or a session) and may also name a pinned
 * `model@version` — the playground, `lunanexa invoke`, evaluation tooling.
 */
export type Caller =
  | {
      readonly kind: 'tenant';
      readonly tenantId: string;
      readonly keyId: string;
      /** Display prefix (`lnxk_` + 8): what request records and logs name; never the secret. */
      readonly label: string;
      readonly aliases: ReadonlySet<string>;
    }
  | {
      readonly kind: 'operator';
      /** `operator:<name>` or `token:<prefix>`, as the audit log names operators. */
      readonly label: string;
    };

/** Why a credential was refused: the label of `lunanexa_gateway_auth_refusals_total`. */
export const AUTH_REFUSAL_REASONS = [
  'missing',
  'malformed',
  'unknown',
  'expired',
  'revoked',
  'role',
  'tenant-mismatch',
  'not-loaded',
] as const;
export type AuthRefusalReason = (typeof AUTH_REFUSAL_REASONS)[number];

export class AuthRefusal extends LunaNexaError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly reason: AuthRefusalReason,
  ) {
    super(code, message);
  }
}

function unauthenticated(reason: AuthRefusalReason, message: string): AuthRefusal {
  return new AuthRefusal(ErrorCode.UNAUTHENTICATED, message, reason);
}

/** Verified session tokens, so a busy operator client does not pay an Ed25519 verification per request. */
const SESSION_CACHE_LIMIT = 1024;

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

/**
 * Authenticates `/v1/*` calls against a CredentialTable. Checks mirror the
 * API's (apps/api auth.service): a token's role is the lower of its own and
 * its owner's, a disabled owner or a bumped session epoch ends access at the
 * next credential reload — which a NOTIFY triggers at once.
 */
export class CallerAuthenticator {
  private readonly sessions = new Map<string, SessionClaims>();
  /**
   * SHA-256 of gateway keys the table knew, so a busy tenant does not pay a
   * hash per request; the table is still asked every time, so a revoked key
   * is refused at once. Unknown keys are never kept (a flood of guesses
   * cannot churn it); bounded like the session cache.
   */
  private readonly keyHashes = new Map<string, string>();

  constructor(
    private readonly table: CredentialTable,
    private readonly now: () => number = Date.now,
  ) {}

  authenticate(headers: IncomingHttpHeaders): Caller {
    if (!this.table.ready())
      throw new AuthRefusal(
        ErrorCode.DEPENDENCY_UNAVAILABLE,
        'Gateway credentials have not loaded yet.',
        'not-loaded',
      );
    const credential = parseAuthorization(headers.authorization);
    switch (credential.kind) {
      case 'none':
        throw unauthenticated('missing', 'Send Authorization: Bearer <gateway key>.');
      case 'malformed':
        throw unauthenticated('malformed', 'The Authorization header is not Bearer <gateway key>.');
      case 'gateway-key':
        return this.tenantCaller(credential.key, headers);
      case 'api-token':
        return this.tokenCaller(credential.token);
      case 'session':
        return this.sessionCaller(credential.token);
    }
  }

  private tenantCaller(key: string, headers: IncomingHttpHeaders): Caller {
    let hash = this.keyHashes.get(key);
    const known = hash !== undefined;
    hash ??= hashBearerSecret(key);
    const entry = this.table.gatewayKey(hash);
    // Revoked keys are not in the snapshot at all: unknown and revoked answer alike.
    if (entry === undefined) throw unauthenticated('unknown', 'The gateway key is not valid.');
    if (!known) {
      if (this.keyHashes.size >= SESSION_CACHE_LIMIT) this.keyHashes.clear();
      this.keyHashes.set(key, hash);
    }
    if (entry.expiresAt !== null && entry.expiresAt.getTime() <= this.now())
      throw new AuthRefusal(ErrorCode.TOKEN_EXPIRED, 'The gateway key has expired.', 'expired');
    const claimed = headerValue(headers, LUNANEXA_HEADERS.tenantId);
    if (claimed !== undefined && claimed !== entry.tenantId) throw tenantMismatch();
    this.table.keyUsed(entry.id, new Date(this.now()));
    return {
      kind: 'tenant',
      tenantId: entry.tenantId,
      keyId: entry.id,
      label: entry.prefix,
      aliases: aliasSet(entry.aliases),
    };
  }

  private tokenCaller(token: string): Caller {
    const entry = this.table.operatorToken(hashBearerSecret(token));
    if (entry === undefined) throw unauthenticated('unknown', 'The API token is not valid.');
    if (entry.expiresAt !== null && entry.expiresAt.getTime() <= this.now())
      throw new AuthRefusal(ErrorCode.TOKEN_EXPIRED, 'The API token has expired.', 'expired');
    if (!roleHasPermission(entry.role, 'operate'))
      throw new AuthRefusal(
        ErrorCode.FORBIDDEN,
        'Operator credentials need the operator or admin role to call the gateway; tenants use gateway keys.',
        'role',
      );
    return { kind: 'operator', label: apiTokenActor(entry.prefix) };
  }

  private sessionCaller(token: string): Caller {
    const nowSeconds = Math.floor(this.now() / 1000);
    let claims = this.sessions.get(token);
    if (claims === undefined) {
      const kid = sessionTokenKeyId(token);
      const key = kid === undefined ? undefined : this.table.controllerKey(kid);
      if (key === undefined) throw unauthenticated('unknown', 'The session token is not valid.');
      const check = verifySessionToken(token, key, nowSeconds);
      if (!check.ok) {
        if (check.reason === 'expired')
          throw new AuthRefusal(ErrorCode.TOKEN_EXPIRED, 'The session has expired.', 'expired');
        throw unauthenticated('unknown', 'The session token is not valid.');
      }
      claims = check.claims;
      if (this.sessions.size >= SESSION_CACHE_LIMIT) this.sessions.clear();
      this.sessions.set(token, claims);
    } else if (nowSeconds >= claims.exp) {
      this.sessions.delete(token);
      throw new AuthRefusal(ErrorCode.TOKEN_EXPIRED, 'The session has expired.', 'expired');
    }
    const operator = this.table.operator(claims.sub);
    if (operator === undefined || operator.disabled)
      throw unauthenticated('revoked', 'The session token is not valid.');
    // Logout, role change and disable bump the epoch.
    if (operator.sessionEpoch !== claims.epoch || operator.role !== claims.role)
      throw unauthenticated('revoked', 'The session has ended.');
    if (!roleHasPermission(operator.role, 'operate'))
      throw new AuthRefusal(
        ErrorCode.FORBIDDEN,
        'Operator credentials need the operator or admin role to call the gateway; tenants use gateway keys.',
        'role',
      );
    return { kind: 'operator', label: operatorActor(operator.username) };
  }
}

function tenantMismatch(): AuthRefusal {
  return new AuthRefusal(
    ErrorCode.FORBIDDEN,
    'This gateway key belongs to another tenant than the request names.',
    'tenant-mismatch',
  );
}

/**
 * The tenant a request counts against: a key's own tenant (a request naming
 * another one is refused), or for operators the tenant the request names
 * (`x-lunanexa-tenant-id`, or `correlation.tenantId` in the generic form), else `default`.
 */
export function tenantOf(caller: Caller, declared: string | undefined): string {
  if (caller.kind === 'tenant') {
    if (declared !== undefined && declared !== caller.tenantId) throw tenantMismatch();
    return caller.tenantId;
  }
  return declared ?? DEFAULT_TENANT_ID;
}

/** Keys are few and their alias lists short; the Set is rebuilt only when the snapshot's array changes. */
const aliasSets = new WeakMap<readonly string[], ReadonlySet<string>>();
function aliasSet(aliases: readonly string[]): ReadonlySet<string> {
  let set = aliasSets.get(aliases);
  if (set === undefined) {
    set = new Set(aliases);
    aliasSets.set(aliases, set);
  }
  return set;
}

/**
 * Whether `caller` may send a workload to `target` (an alias or a pinned
 * model ref). Tenants: only aliases their key lists; `model@version` is for
 * operators. The same answer whether or not the alias exists, so a key
 * cannot probe for other tenants' aliases.
 */
export function authorizeTarget(caller: Caller, target: { alias: string } | { model: string }): void {
  if (caller.kind === 'operator') return;
  if (!('alias' in target))
    throw new LunaNexaError(
      ErrorCode.FORBIDDEN,
      'Gateway keys call aliases; a pinned model@version is for operators and evaluation.',
    );
  if (!caller.aliases.has(target.alias))
    throw new LunaNexaError(ErrorCode.FORBIDDEN, `This gateway key may not call "${target.alias}".`);
}

/** `/v1/models` for this caller: tenants see the aliases their key lists, operators everything. */
export function visibleTo(caller: Caller, id: string): boolean {
  return caller.kind === 'operator' || caller.aliases.has(id);
}
