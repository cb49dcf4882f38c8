import type { IncomingMessage } from 'node:http';
import { ErrorCode, LunaNexaError, type Role } from '@lunanexa/contracts';

/** How the caller proved who they are. */
export type CredentialKind = 'session' | 'apiToken';

/** An authenticated caller, as the roles guard established it for one request. */
export interface Principal {
  readonly operatorId: string;
  readonly username: string;
  /** The account's role. */
  readonly operatorRole: Role;
  /** What this request may do: the session's role, or the lower of the token's and its owner's role. */
  readonly role: Role;
  /** `operator:<username>` or `token:<prefix>`. */
  readonly actor: string;
  readonly credential: CredentialKind;
  /** When the credential stops working (null: an API token without expiry). */
  readonly expiresAt: Date | null;
  /** API tokens only. */
  readonly tokenId: string | null;
  readonly tokenPrefix: string | null;
}

const PRINCIPAL = Symbol('lunanexa.principal');
type WithPrincipal = IncomingMessage & { [PRINCIPAL]?: Principal };

/** REST handlers: the guard stores the principal on the request. */
export function attachPrincipal(req: IncomingMessage, principal: Principal): void {
  (req as WithPrincipal)[PRINCIPAL] = principal;
}

export function principalOf(req: IncomingMessage): Principal | null {
  return (req as WithPrincipal)[PRINCIPAL] ?? null;
}

/** For handlers behind @Roles: the guard has authenticated, so a missing principal is a wiring bug. */
export function requirePrincipal(principal: Principal | null): Principal {
  if (!principal) throw new LunaNexaError(ErrorCode.UNAUTHENTICATED, 'authentication required');
  return principal;
}
