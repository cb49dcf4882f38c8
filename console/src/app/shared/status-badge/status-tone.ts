export type StatusTone = 'ok' | 'warn' | 'error' | 'neutral';

/*
 * Schema v1 types health statuses as plain strings; these are the words the
 * API documents in apps/api/schema.gql (Health: ok | degraded, DependencyCheck:
 * ok | failing). Anything else is shown as sent, in a neutral colour, rather
 * than guessed at. When the contract turns them into an enum, map it
 * exhaustively here.
 */
const TONE_BY_STATUS: Readonly<Record<string, StatusTone>> = {
  ok: 'ok',
  degraded: 'warn',
  failing: 'error',
  // Node readiness (FleetNode.readiness, NODE_READINESS in libs/contracts).
  Ready: 'ok',
  NotReady: 'warn',
  Unreachable: 'error',
  // Audit decisions and hash-chain checks (pages/audit).
  allowed: 'ok',
  denied: 'error',
  valid: 'ok',
  verified: 'ok',
  broken: 'error',
};

export function statusTone(status: string): StatusTone {
  return TONE_BY_STATUS[status] ?? 'neutral';
}
