import { OPAQUE_ID_PATTERN } from '@lunanexa/contracts/correlation';
import {
  type Permission,
  PRIVACY_MUTATION_PERMISSIONS,
  TENANCY_MUTATION_PERMISSIONS,
} from '@lunanexa/contracts/roles';
import {
  GATEWAY_KEY_NAME_MAX_LENGTH,
  QUOTA_BOUNDS,
  type QuotaField,
  TENANT_DISPLAY_NAME_MAX_LENGTH,
} from '@lunanexa/contracts/tenancy-rules';

import type { GatewayKeySummary, PayloadCaptureSummary, TenantQuota } from './tenants.queries';

type Can = (permission: Permission) => boolean;

/** Tenants and their keys decide who may call the data plane: an administrator's change, like credentials. */
export function canChangeTenants(can: Can): boolean {
  return can(TENANCY_MUTATION_PERMISSIONS.createTenant);
}

export function canIssueKeys(can: Can): boolean {
  return can(TENANCY_MUTATION_PERMISSIONS.createGatewayKey);
}

export function canRevokeKeys(can: Can): boolean {
  return can(TENANCY_MUTATION_PERMISSIONS.revokeGatewayKey);
}

/** Tenant ids are opaque ids, as the gateway reads them from x-lunanexa-tenant-id and from a key's tenant. */
export const TENANT_ID_PATTERN = OPAQUE_ID_PATTERN;
export const DISPLAY_NAME_MAX = TENANT_DISPLAY_NAME_MAX_LENGTH;
export const KEY_NAME_MAX = GATEWAY_KEY_NAME_MAX_LENGTH;

/** The three quotas as the forms and tables show them, in order. */
export const QUOTAS: readonly {
  readonly field: QuotaField;
  readonly label: string;
  readonly min: number;
  readonly max: number;
}[] = [
  { field: 'requestsPerMinute', label: 'Requests per minute', ...QUOTA_BOUNDS.requestsPerMinute },
  { field: 'tokensPerMinute', label: 'Tokens per minute', ...QUOTA_BOUNDS.tokensPerMinute },
  { field: 'maxConcurrentRequests', label: 'Concurrent requests', ...QUOTA_BOUNDS.maxConcurrentRequests },
];

const NUMBER = new Intl.NumberFormat('en-US');

/** "600" or "unlimited". */
export function quotaText(value: number | null): string {
  return value === null ? 'unlimited' : NUMBER.format(value);
}

/** One line for a tenant's quotas: "600 req/min · 2,000,000 tokens/min · 32 concurrent". */
export function quotaSummary(quota: TenantQuota): string {
  return [
    `${quotaText(quota.requestsPerMinute)} req/min`,
    `${quotaText(quota.tokensPerMinute)} tokens/min`,
    `${quotaText(quota.maxConcurrentRequests)} concurrent`,
  ].join(' · ');
}

/** A form's quota field: empty is unlimited (null); otherwise a whole number within the bounds. */
export function quotaFieldValid(value: number | null, field: QuotaField): boolean {
  if (value === null) return true;
  const { min, max } = QUOTA_BOUNDS[field];
  return Number.isInteger(value) && value >= min && value <= max;
}

/** How long a new key lasts: the choices the create-key dialog offers (the API takes any future instant). */
export const KEY_LIFETIMES: readonly { readonly label: string; readonly days: number | null }[] = [
  { label: 'Never expires', days: null },
  { label: '7 days', days: 7 },
  { label: '30 days', days: 30 },
  { label: '90 days', days: 90 },
  { label: '365 days', days: 365 },
];

export function expiresAtFor(days: number | null, now: Date): string | null {
  return days === null ? null : new Date(now.getTime() + days * 86_400_000).toISOString();
}

/** What revoking a key does, for the confirmation. */
export function revokeEffect(key: Pick<GatewayKeySummary, 'prefix' | 'name' | 'aliases'>): string {
  return (
    `Revokes ${key.prefix}… (${key.name}). Every gateway refuses it from its next request on ` +
    `(401 UNAUTHENTICATED), for ${key.aliases.join(', ')}. This cannot be undone: issue a new key instead.`
  );
}

/** Deleting a tenant's kept payloads decides over customer data: an administrator's action. */
export function canPurgePayloads(can: Can): boolean {
  return can(PRIVACY_MUTATION_PERMISSIONS.purgePayloadCaptures);
}

/** What purging does, for the confirmation: how many are listed, and that the rest go too. */
export function purgeEffect(
  tenantId: string,
  listed: readonly PayloadCaptureSummary[],
  limit: number,
): string {
  const count =
    listed.length >= limit
      ? `at least ${listed.length} kept payloads`
      : `${listed.length} kept payload${listed.length === 1 ? '' : 's'}`;
  return (
    `Deletes ${count} of ${tenantId} now (request and response text; the request records stay), each with a ` +
    `payload.delete receipt in the audit log. This cannot be undone.`
  );
}
