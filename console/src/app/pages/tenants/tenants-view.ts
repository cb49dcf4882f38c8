import type { LiveEvent } from '../../shared/graphql/schema-types';

/** The route parameter of `/tenants/:id`. */
export const TENANT_ID_PARAM = 'id';

/** Router commands for a link to one tenant's detail (`/tenants/<id>`). */
export function tenantDetailLink(id: string): readonly string[] {
  return ['/tenants', id];
}

/** Tenants change only when someone changes them (each change is audited and announced), so polling is a safety net. */
export const REFRESH_INTERVAL_MS = 15_000;

/** Dialogs fill a phone screen but stay readable on a desktop one. */
export const DIALOG_SIZE = { width: '640px', maxWidth: 'calc(100vw - 32px)' } as const;

/** Whether a live event may change what the Tenants view shows: an audited tenant or key change, or a gap. */
export function changesTenants(event: LiveEvent): boolean {
  if (event.dropped > 0) return true;
  const action = event.action ?? '';
  return event.kind === 'audit' && (action.startsWith('tenant.') || action.startsWith('gatewayKey.'));
}
