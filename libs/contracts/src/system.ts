import { z } from 'zod';
import { OPAQUE_ID_PATTERN } from './correlation';

/**
 * The `ping` system check: one workflow, one activity, one PostgreSQL row and
 * one audit receipt. It proves the whole control path (API → Temporal →
 * worker → PostgreSQL → audit chain) end to end, and the start command runs
 * one on every boot.
 */
export const PING_MESSAGE_MAX_LENGTH = 200;

export const PingWorkflowInputSchema = z
  .object({
    idempotencyKey: z.string().regex(OPAQUE_ID_PATTERN),
    message: z.string().min(1).max(PING_MESSAGE_MAX_LENGTH),
    actor: z.string().min(1).max(200),
    correlationId: z.string().regex(OPAQUE_ID_PATTERN),
    requestId: z.string().regex(OPAQUE_ID_PATTERN),
  })
  .strict();
export type PingWorkflowInput = z.infer<typeof PingWorkflowInputSchema>;

export const PingWorkflowResultSchema = z
  .object({
    pingId: z.uuid(),
    workflowId: z.string().min(1),
    message: z.string(),
    recordedAt: z.iso.datetime(),
    receipt: z
      .object({
        seq: z.number().int().positive(),
        hash: z.string().regex(/^[0-9a-f]{64}$/),
      })
      .strict(),
  })
  .strict();
export type PingWorkflowResult = z.infer<typeof PingWorkflowResultSchema>;
