import { z } from 'zod';
import { DataClassSchema, IsoTimestampSchema, OpaqueIdSchema } from './common';
import type { OperationContext } from './fleet-workflows';

/**
 * Payload privacy (DESIGN.md invariant 5): what the gateway may keep of a
 * tenant's prompts and completions. Request/response bodies are never kept
 * unless the tenant's typed policy says so — retention for N days, or an
 * explicit evaluation-capture consent — and every kept payload has an expiry
 * after which the RetentionExpiry workflow deletes it with a receipt. Kept
 * payloads are never used for training.
 */

/** The tenant a request without `x-lunanexa-tenant-id` (or `correlation.tenantId`) belongs to. */
export const DEFAULT_TENANT_ID = 'default';

/** The longest retention a policy may ask for: ten years. */
export const MAX_RETENTION_DAYS = 3650;

/**
 * How long an evaluation capture is kept when the tenant's retention is
 * `none`: bounded, so a consent flag alone never keeps text indefinitely.
 * With a retention of N days an evaluation capture expires after N days
 * (never longer than the tenant's retention).
 */
export const EVALUATION_CAPTURE_DEFAULT_DAYS = 30;

export const RetentionSchema = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('none') }).strict(),
  z
    .object({
      mode: z.literal('days'),
      days: z
        .int('must be a whole number of days')
        .min(1, 'must be at least 1 day')
        .max(MAX_RETENTION_DAYS, `must be at most ${MAX_RETENTION_DAYS} days`),
    })
    .strict(),
]);
export type Retention = z.infer<typeof RetentionSchema>;

export const TenantDataPolicySchema = z
  .object({
    /** The caller's opaque tenant id, as sent in `x-lunanexa-tenant-id`; never a product or user identity. */
    tenantId: OpaqueIdSchema,
    /**
     * The class of data this tenant sends. The gateway refuses a request
     * when a route's license does not allow it (DATA_CLASS_NOT_ALLOWED),
     * in addition to the class the request itself declares.
     */
    dataClass: DataClassSchema,
    retention: RetentionSchema,
    /** Explicit, off by default: completed requests are captured for evaluation only while this is true. */
    evaluationCaptureConsent: z.boolean().default(false),
    /** The actor who last changed it (`operator:<name>`, `token:<prefix>`); `system:default` for the default. */
    updatedBy: z.string().min(1).max(256),
    updatedAt: IsoTimestampSchema,
  })
  .strict();
export type TenantDataPolicy = z.infer<typeof TenantDataPolicySchema>;

/** What an operator sets; who and when are recorded by the API. */
export const TenantDataPolicyInputSchema = TenantDataPolicySchema.omit({ updatedBy: true, updatedAt: true });
export type TenantDataPolicyInput = z.input<typeof TenantDataPolicyInputSchema>;

/**
 * The policy of every tenant nobody configured: keep nothing, no consent.
 * Its data class is `internal` — not `public`, because unlabeled traffic
 * must not reach a model licensed for public data only, and not higher, so a
 * default installation serves ordinary internal traffic.
 */
export function defaultDataPolicy(tenantId: string = DEFAULT_TENANT_ID): TenantDataPolicy {
  return {
    tenantId,
    dataClass: 'internal',
    retention: { mode: 'none' },
    evaluationCaptureConsent: false,
    updatedBy: 'system:default',
    updatedAt: '1970-01-01T00:00:00.000Z',
  };
}

export const PAYLOAD_CAPTURE_PURPOSES = ['retention', 'evaluation'] as const;
export const PayloadCapturePurposeSchema = z.enum(PAYLOAD_CAPTURE_PURPOSES);
export type PayloadCapturePurpose = z.infer<typeof PayloadCapturePurposeSchema>;

/** Whether and how long a completed request's payload is kept. */
export type CaptureDecision =
  | { readonly capture: false }
  | { readonly capture: true; readonly purpose: PayloadCapturePurpose; readonly days: number };

const NO_CAPTURE: CaptureDecision = { capture: false };

/**
 * The one rule for what the gateway keeps. Retention `none` without consent
 * keeps nothing. With consent the capture's purpose is `evaluation` (one row
 * serves both purposes) and it expires after the retention days, or after
 * EVALUATION_CAPTURE_DEFAULT_DAYS when retention is `none`. Without consent a
 * retention of N days keeps it for N days under purpose `retention`.
 */
export function captureDecision(policy: TenantDataPolicy): CaptureDecision {
  const retentionDays = policy.retention.mode === 'days' ? policy.retention.days : null;
  if (policy.evaluationCaptureConsent) {
    return { capture: true, purpose: 'evaluation', days: retentionDays ?? EVALUATION_CAPTURE_DEFAULT_DAYS };
  }
  if (retentionDays !== null) return { capture: true, purpose: 'retention', days: retentionDays };
  return NO_CAPTURE;
}

/** When a capture taken at `capturedAt` under `decision` expires. */
export function captureExpiresAt(capturedAt: Date, days: number): Date {
  return new Date(capturedAt.getTime() + days * 86_400_000);
}

/** A kept payload as listings show it: metadata only, never the text. */
export interface PayloadCaptureMetadata {
  readonly id: string;
  readonly tenantId: string;
  readonly requestId: string;
  readonly correlationId: string;
  readonly deploymentId: string | null;
  readonly modelRef: string | null;
  readonly purpose: PayloadCapturePurpose;
  readonly capturedAt: string;
  readonly expiresAt: string;
  /** Sizes, so an operator can see what is held without seeing it. */
  readonly requestBytes: number;
  readonly responseBytes: number;
}

/** Deletion batches are bounded so one run never holds a long transaction. */
export const RETENTION_EXPIRY_BATCH_SIZE = 500;

/** The one long-running expiry loop has this fixed id, so the worker can start it idempotently at boot. */
export const RETENTION_EXPIRY_WORKFLOW_ID = 'retentionExpiry/expiry-loop';

export interface RetentionExpiryWorkflowInput extends OperationContext {
  /**
   * `expired`: delete captures past their expiry, forever — sleep `intervalSeconds`
   * between passes and continue-as-new after a bounded number of passes.
   * `purge`: delete every capture of `tenantId` now, once (an operator's request).
   */
  readonly mode: 'expired' | 'purge';
  readonly tenantId?: string;
  readonly intervalSeconds: number;
  readonly batchSize: number;
  /** Stop the loop after this many passes (tests); absent: run until cancelled. */
  readonly maxPasses?: number;
  /** Passes completed before the last continue-as-new; names receipts uniquely across runs. */
  readonly passesSoFar?: number;
}

export interface RetentionExpiryWorkflowResult {
  readonly passes: number;
  readonly deleted: number;
  /** Hashes of the `payload.delete` receipts written, one per non-empty batch. */
  readonly receiptHashes: readonly string[];
}

/** One deletion batch's outcome (activity result). */
export interface PayloadDeletionBatch {
  readonly deleted: number;
  readonly receiptHash: string | null;
}
