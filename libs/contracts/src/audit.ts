import { z } from 'zod';
import { canonicalJson } from './canonical-json';
import { DigestSchema, IsoTimestampSchema, OpaqueIdSchema } from './common';
import { ErrorCodeSchema } from './problem';

/**
 * Audit events and receipts. Events form one append-only hash chain:
 * `hash` = sha256 over `auditHashInput(event)` (the canonical JSON of the event
 * without `hash`), and `prevHash` is the previous event's `hash` (null only for
 * seq 0). Changing any byte of any event breaks every later link, which
 * libs/audit verifies. Hashing needs crypto, so it lives there, not here.
 */

export const ACTOR_KINDS = ['operator', 'service', 'node', 'system'] as const;
export const ActorSchema = z
  .object({
    kind: z.enum(ACTOR_KINDS),
    id: OpaqueIdSchema,
  })
  .strict();
export type Actor = z.infer<typeof ActorSchema>;

export const SUBJECT_KINDS = [
  'node',
  'model',
  'modelVersion',
  'runtime',
  'deployment',
  'alias',
  'license',
  'credential',
  'payloadCapture',
  'system',
] as const;
export const SubjectSchema = z
  .object({
    kind: z.enum(SUBJECT_KINDS),
    id: OpaqueIdSchema,
  })
  .strict();
export type Subject = z.infer<typeof SubjectSchema>;

/** `area.verb`, e.g. `node.approve`, `rollout.promote`, `payload.delete`. */
export const AuditActionSchema = z
  .string()
  .regex(/^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)+$/, 'must be area.verb, e.g. node.approve');

/** The authorization decision made before acting: who was allowed, by which rule. */
export const AuditDecisionSchema = z
  .object({
    outcome: z.enum(['allowed', 'denied']),
    /** The role or policy that decided, e.g. `role:fleet-operator` or `policy:auto-approve-lab`. */
    basis: z.string().min(1).max(256),
    reason: z.string().min(1).max(1024),
  })
  .strict();
export type AuditDecision = z.infer<typeof AuditDecisionSchema>;

export const AuditResultSchema = z
  .object({
    outcome: z.enum(['succeeded', 'failed', 'rejected']),
    /** The typed failure; null when the outcome is succeeded. */
    errorCode: ErrorCodeSchema.nullable(),
  })
  .strict()
  .superRefine((result, ctx) => {
    if ((result.outcome === 'succeeded') !== (result.errorCode === null)) {
      ctx.addIssue({
        code: 'custom',
        path: ['errorCode'],
        message: 'is null exactly when the outcome is succeeded',
      });
    }
  });
export type AuditResult = z.infer<typeof AuditResultSchema>;

/** Workflow ids are `<operation>/<idempotency key>` (see workflowIdFor). */
export const WorkflowIdSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/-]*$/);

export const AuditEventSchema = z
  .object({
    seq: z.int().nonnegative(),
    id: OpaqueIdSchema,
    occurredAt: IsoTimestampSchema,
    actor: ActorSchema,
    action: AuditActionSchema,
    subject: SubjectSchema,
    decision: AuditDecisionSchema,
    /**
     * What the decision and result rest on (digests checked, evaluation run
     * ids, placement explanation). Identifiers and figures only — never a
     * request or response payload.
     */
    evidence: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/), z.json()),
    result: AuditResultSchema,
    correlationId: OpaqueIdSchema,
    /** Null only for events not produced by a workflow (e.g. a denied API call that started none). */
    workflowId: WorkflowIdSchema.nullable(),
    prevHash: DigestSchema.nullable(),
    hash: DigestSchema,
  })
  .strict()
  .superRefine((event, ctx) => {
    if ((event.seq === 0) !== (event.prevHash === null)) {
      ctx.addIssue({
        code: 'custom',
        path: ['prevHash'],
        message: 'is null exactly for seq 0, the start of the chain',
      });
    }
    if (event.decision.outcome === 'denied' && event.result.outcome !== 'rejected') {
      ctx.addIssue({
        code: 'custom',
        path: ['result', 'outcome'],
        message: 'a denied decision can only be rejected',
      });
    }
  });
export type AuditEvent = z.infer<typeof AuditEventSchema>;

/** The exact text whose sha256 is an event's `hash`: the event's canonical JSON without `hash`. */
export function auditHashInput(event: Omit<AuditEvent, 'hash'>): string {
  const unhashed: Record<string, unknown> = { ...event };
  // Callers may pass a full event; the hash cannot cover itself.
  delete unhashed['hash'];
  return canonicalJson(unhashed);
}

export const RECEIPT_KINDS = ['operation', 'deletion'] as const;

/**
 * What a caller gets back when an operation finishes: the decision, the
 * result, and the audit events (by seq and hash) that prove it, plus the
 * workflow to open in the Temporal UI. A deletion receipt records that a
 * retained payload capture was deleted on expiry.
 */
export const ReceiptSchema = z
  .object({
    id: OpaqueIdSchema,
    kind: z.enum(RECEIPT_KINDS),
    action: AuditActionSchema,
    subject: SubjectSchema,
    actor: ActorSchema,
    idempotencyKey: OpaqueIdSchema,
    workflowId: WorkflowIdSchema,
    runId: z.string().min(1).max(128).nullable(),
    correlationId: OpaqueIdSchema,
    decision: AuditDecisionSchema,
    result: AuditResultSchema,
    auditEvents: z.array(z.object({ seq: z.int().nonnegative(), hash: DigestSchema }).strict()).min(1),
    issuedAt: IsoTimestampSchema,
  })
  .strict();
export type Receipt = z.infer<typeof ReceiptSchema>;
