import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, type Permission } from '@lunanexa/contracts/roles';

import type { OperatorSummary } from './access.queries';

type Can = (permission: Permission) => boolean;

export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH };

/** Operator accounts are credentials: an administrator's business, like API tokens and gateway keys. */
export function canManageOperators(can: Can): boolean {
  return can('administer');
}

/** Why a new password cannot be used (null when it can): the API's bounds, and the repeat must match. */
export function newPasswordProblem(
  password: string,
  repeated: string,
  current: string | null,
): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `At least ${PASSWORD_MIN_LENGTH} characters.`;
  if (password.length > PASSWORD_MAX_LENGTH) return `At most ${PASSWORD_MAX_LENGTH} characters.`;
  if (current !== null && password === current) return 'The new password is the current one.';
  if (password !== repeated) return 'The two new passwords differ.';
  return null;
}

export type OperatorAction = 'create' | 'resetPassword' | 'endSessions' | 'disable';

/** What an action on an account does, for its confirmation. */
export function operatorActionEffect(
  action: OperatorAction,
  operator: Pick<OperatorSummary, 'username'> | null,
): string {
  const who = operator?.username ?? 'the new operator';
  switch (action) {
    case 'create':
      return 'Creates an account that can sign in with this password at once. Tell them the password out of band.';
    case 'resetPassword':
      return `Sets a new password for ${who} and ends every session of theirs now. Tell them the password out of band.`;
    case 'endSessions':
      return `Ends every session of ${who} now (they sign in again). Their password and API tokens stay.`;
    case 'disable':
      return `Disables ${who}: no sign-in, their sessions and API tokens stop working at once. There is no re-enable.`;
  }
}

/** The actions a row offers: none on a disabled account, and none that would lock the caller out of their own. */
export function operatorActions(operator: OperatorSummary, callerId: string | undefined): OperatorAction[] {
  if (operator.disabledAt !== null && operator.disabledAt !== undefined) return [];
  if (operator.id === callerId) return [];
  return ['resetPassword', 'endSessions', 'disable'];
}

export type TokenState = 'Active' | 'Used' | 'Revoked' | 'Expired';

/** A credential's state as a list shows it: revoked wins, then used (bootstrap tokens are single-use), then expired. */
export function tokenState(
  token: {
    readonly revokedAt?: string | null;
    readonly usedAt?: string | null;
    readonly expiresAt?: string | null;
  },
  now: Date,
): TokenState {
  if (token.revokedAt) return 'Revoked';
  if (token.usedAt) return 'Used';
  if (token.expiresAt && Date.parse(token.expiresAt) <= now.getTime()) return 'Expired';
  return 'Active';
}

/** Why an API token's name or lifetime cannot be sent (null when they can): the API's bounds. */
export function apiTokenInputProblem(name: string, expiresInDays: number | null): string | null {
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100) return 'A name of 1 to 100 characters.';
  if (
    expiresInDays !== null &&
    (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > 365)
  )
    return 'Expires in 1 to 365 days, or never.';
  return null;
}
