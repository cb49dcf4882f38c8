import { z } from 'zod';
import { IsoTimestampSchema, NameSchema, OpaqueIdSchema } from './common';
import { WorkloadPrioritySchema } from './workload';
import {
  GATEWAY_KEY_DISPLAY_PREFIX_PATTERN,
  GATEWAY_KEY_MAX_ALIASES,
  GATEWAY_KEY_NAME_MAX_LENGTH,
  GATEWAY_KEY_PATTERN,
  QUOTA_BOUNDS,
  TENANT_DISPLAY_NAME_MAX_LENGTH,
  type QuotaField,
} from './tenancy-rules';

export * from './tenancy-rules';

/**
 * Tenants, their quotas and their gateway keys as v1 documents (the
 * zod-free vocabulary — key prefix and pattern, quota bounds, key states —
 * is in tenancy-rules.ts and re-exported here). The mutation permissions
 * are `TENANCY_MUTATION_PERMISSIONS` in roles.ts, next to the other tables
 * the console reads without zod.
 */

/** The caller's opaque tenant id, as sent in `x-lunanexa-tenant-id`; never a product or user identity. */
export const TenantIdSchema = OpaqueIdSchema;

function quotaSchema(field: QuotaField) {
  const { min, max } = QUOTA_BOUNDS[field];
  return z
    .int('must be a whole number, or null for unlimited')
    .min(min, `must be ${min}-${max}, or null for unlimited`)
    .max(max, `must be ${min}-${max}, or null for unlimited`)
    .nullable();
}

/**
 * What the gateway lets one tenant use; each limit `null` = unlimited.
 * Requests and tokens are counted per minute across all of the tenant's
 * keys; concurrency is requests in flight at once.
 */
export const TenantQuotaSchema = z
  .object({
    requestsPerMinute: quotaSchema('requestsPerMinute'),
    tokensPerMinute: quotaSchema('tokensPerMinute'),
    maxConcurrentRequests: quotaSchema('maxConcurrentRequests'),
  })
  .strict();
export type TenantQuota = z.infer<typeof TenantQuotaSchema>;

/** No limit at all: what a tenant gets unless an operator sets one. */
export const UNLIMITED_QUOTA: TenantQuota = Object.freeze({
  requestsPerMinute: null,
  tokensPerMinute: null,
  maxConcurrentRequests: null,
});

const ActorTextSchema = z.string().min(1).max(256);

export const TenantDisplayNameSchema = z
  .string()
  .min(1)
  .max(TENANT_DISPLAY_NAME_MAX_LENGTH)
  .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters');

export const TenantSchema = z
  .object({
    id: TenantIdSchema,
    /** For people; requests name the tenant by `id`. */
    displayName: TenantDisplayNameSchema.nullable(),
    quota: TenantQuotaSchema,
    /**
     * The highest priority the gateway lets this tenant's requests run at; a
     * higher `x-lunanexa-priority` is lowered to it (and recorded). Null or
     * absent: any priority.
     */
    maxPriority: WorkloadPrioritySchema.nullable().optional(),
    /** Actors as audit events name them (`operator:<name>`, `token:<prefix>`). */
    createdBy: ActorTextSchema,
    createdAt: IsoTimestampSchema,
    updatedBy: ActorTextSchema,
    updatedAt: IsoTimestampSchema,
  })
  .strict();
export type Tenant = z.infer<typeof TenantSchema>;

/** What an operator sends to create a tenant; who and when are recorded by the API. */
export const CreateTenantInputSchema = z
  .object({
    id: TenantIdSchema,
    displayName: TenantDisplayNameSchema.nullable().default(null),
    quota: TenantQuotaSchema.default(UNLIMITED_QUOTA),
  })
  .strict();
export type CreateTenantInput = z.input<typeof CreateTenantInputSchema>;

export const GatewayKeyNameSchema = z
  .string()
  .min(1)
  .max(GATEWAY_KEY_NAME_MAX_LENGTH)
  .regex(/^[^\p{Cc}]+$/u, 'must not contain control characters');

/** The aliases a key may call: 1..100 distinct alias names. Never `model@version`: that is for operators. */
export const GatewayKeyAliasesSchema = z
  .array(NameSchema)
  .min(1, 'must name at least one alias')
  .max(GATEWAY_KEY_MAX_ALIASES, `must name at most ${GATEWAY_KEY_MAX_ALIASES} aliases`)
  .superRefine((aliases, ctx) => {
    const seen = new Set<string>();
    aliases.forEach((alias, i) => {
      if (seen.has(alias)) ctx.addIssue({ code: 'custom', path: [i], message: `repeats ${alias}` });
      seen.add(alias);
    });
  });

/** A whole key as a caller presents it. Only its creator ever sees one; nothing stores it. */
export const GatewayKeySecretSchema = z
  .string()
  .regex(GATEWAY_KEY_PATTERN, 'must be lnxk_ followed by 43 base64url characters');

/** A gateway key as stored and listed: never the secret, never its hash. */
export const GatewayKeySchema = z
  .object({
    id: z.uuid(),
    tenantId: TenantIdSchema,
    name: GatewayKeyNameSchema,
    /** `lnxk_` + the first 8 random characters: how operators and audit events recognise the key. */
    prefix: z.string().regex(GATEWAY_KEY_DISPLAY_PREFIX_PATTERN, 'must be lnxk_ followed by 8 characters'),
    aliases: GatewayKeyAliasesSchema,
    createdBy: ActorTextSchema,
    createdAt: IsoTimestampSchema,
    /** Null: does not expire. */
    expiresAt: IsoTimestampSchema.nullable(),
    revokedAt: IsoTimestampSchema.nullable(),
    revokedBy: ActorTextSchema.nullable(),
    /** When the gateway last accepted it (written in batches, so up to about a minute behind). */
    lastUsedAt: IsoTimestampSchema.nullable(),
  })
  .strict()
  .superRefine((key, ctx) => {
    if (key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.parse(key.createdAt))
      ctx.addIssue({ code: 'custom', path: ['expiresAt'], message: 'must be after createdAt' });
    if ((key.revokedAt === null) !== (key.revokedBy === null))
      ctx.addIssue({ code: 'custom', path: ['revokedBy'], message: 'is set exactly when revokedAt is' });
  });
export type GatewayKey = z.infer<typeof GatewayKeySchema>;

/** What an operator sends to issue a key; the API generates the secret and records who and when. */
export const CreateGatewayKeyInputSchema = z
  .object({
    tenantId: TenantIdSchema,
    name: GatewayKeyNameSchema,
    aliases: GatewayKeyAliasesSchema,
    expiresAt: IsoTimestampSchema.nullable().default(null),
  })
  .strict();
export type CreateGatewayKeyInput = z.input<typeof CreateGatewayKeyInputSchema>;
