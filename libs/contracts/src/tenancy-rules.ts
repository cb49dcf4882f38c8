// No zod here: the console imports this file (`@lunanexa/contracts/tenancy-rules`)
// and must not pull a validation library into its bundle. The schemas are in tenancy.ts.
/**
 * Tenants and their gateway keys: the vocabulary every side shares — the
 * API that issues keys, the gateway that checks them, the CLI and the console.
 *
 * A tenant is an opaque id (the `x-lunanexa-tenant-id` of DESIGN.md) with
 * optional quotas. A gateway key is the bearer credential a tenant's
 * application sends to the gateway's `/v1/*`: `lnxk_` followed by 43
 * base64url characters (32 random bytes). It is shown once, when it is
 * created; the database keeps only its sha256 and a display prefix (`lnxk_`
 * + the first 8 random characters), which is also what audit evidence names.
 */

/** Every gateway key starts with this, so it is recognisable (and secret scanners can find leaked ones). */
export const GATEWAY_KEY_PREFIX = 'lnxk_';
/** base64url characters after the prefix: 32 random bytes. */
export const GATEWAY_KEY_SECRET_CHARS = 43;
/** Random characters kept, after the prefix, as the key's display prefix. */
export const GATEWAY_KEY_DISPLAY_CHARS = 8;

/** A whole gateway key. */
export const GATEWAY_KEY_PATTERN = /^lnxk_[A-Za-z0-9_-]{43}$/;
/** A key's display prefix, as stored and shown (`lnxk_AbCd12_-`). */
export const GATEWAY_KEY_DISPLAY_PREFIX_PATTERN = /^lnxk_[A-Za-z0-9_-]{8}$/;

/** A key is granted 1..100 aliases. */
export const GATEWAY_KEY_MAX_ALIASES = 100;
/** What a key is for ("chat app, production"): 1..100 characters without control characters. */
export const GATEWAY_KEY_NAME_MAX_LENGTH = 100;
/** Keys may expire at most ten years ahead (a guard against a mistyped year, not a policy). */
export const GATEWAY_KEY_MAX_LIFETIME_DAYS = 3650;
/** A tenant's display name: 1..256 characters. */
export const TENANT_DISPLAY_NAME_MAX_LENGTH = 256;

/** The three per-tenant quotas, in the order they are shown. */
export const QUOTA_FIELDS = ['requestsPerMinute', 'tokensPerMinute', 'maxConcurrentRequests'] as const;
export type QuotaField = (typeof QUOTA_FIELDS)[number];

/**
 * Bounds of each quota when it is set; `null` means unlimited. Tokens per
 * minute go to ten billion, past GraphQL's 32-bit Int: the API carries them
 * as Float holding a whole number, the database as bigint.
 */
export const QUOTA_BOUNDS: Readonly<Record<QuotaField, { readonly min: number; readonly max: number }>> = {
  requestsPerMinute: { min: 1, max: 1_000_000 },
  tokensPerMinute: { min: 1, max: 10_000_000_000 },
  maxConcurrentRequests: { min: 1, max: 100_000 },
};

/** Why a quota value is refused, or null when it is a whole number within the bounds (or null: unlimited). */
export function quotaViolation(field: QuotaField, value: number | null): string | null {
  if (value === null) return null;
  const { min, max } = QUOTA_BOUNDS[field];
  if (!Number.isSafeInteger(value)) return 'must be a whole number, or null for unlimited';
  if (value < min || value > max) return `must be ${min}-${max}, or null for unlimited`;
  return null;
}

export const GATEWAY_KEY_STATES = ['Active', 'Expired', 'Revoked'] as const;
export type GatewayKeyState = (typeof GATEWAY_KEY_STATES)[number];

/**
 * Whether the gateway accepts a key at `now`: revoked beats expired (a
 * revocation is a decision; an expiry only a date), and a key expires at
 * its `expiresAt` instant exactly.
 */
export function gatewayKeyState(
  key: { readonly expiresAt: string | null; readonly revokedAt: string | null },
  now: Date,
): GatewayKeyState {
  if (key.revokedAt !== null) return 'Revoked';
  if (key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime()) return 'Expired';
  return 'Active';
}
