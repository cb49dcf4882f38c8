import { z } from 'zod';
import { API_VERSION, OpaqueIdSchema } from './common';
import { ErrorCodeSchema } from './problem';
import { UsageSchema } from './usage';
import { FinishReasonSchema, ServedBySchema, WorkloadKindSchema } from './workload';

/**
 * Server-sent events of a streamed workload. Each SSE `data:` line carries one
 * chunk. `sequence` starts at 0 and has no gaps, so a consumer can tell a
 * truncated stream from a finished one. A stream ends with exactly one chunk
 * that has `usage` set (success) or with one `error` chunk (failure after the
 * first byte, when an HTTP status can no longer be sent).
 */

export const StreamChoiceDeltaSchema = z
  .object({
    index: z.int().nonnegative(),
    /** Text generated since the previous chunk; may be empty on the closing chunk. */
    delta: z.string(),
    /** Set on the last chunk of this choice, null before. */
    finishReason: FinishReasonSchema.nullable(),
  })
  .strict();
export type StreamChoiceDelta = z.infer<typeof StreamChoiceDeltaSchema>;

export const WorkloadDeltaChunkSchema = z
  .object({
    apiVersion: z.literal(API_VERSION),
    type: z.literal('delta'),
    kind: WorkloadKindSchema,
    id: OpaqueIdSchema,
    sequence: z.int().nonnegative(),
    servedBy: ServedBySchema,
    choices: z.array(StreamChoiceDeltaSchema),
    /** Null on every chunk except the last one of a successful stream. */
    usage: UsageSchema.nullable(),
  })
  .strict();
export type WorkloadDeltaChunk = z.infer<typeof WorkloadDeltaChunkSchema>;

export const WorkloadErrorChunkSchema = z
  .object({
    apiVersion: z.literal(API_VERSION),
    type: z.literal('error'),
    id: OpaqueIdSchema,
    sequence: z.int().nonnegative(),
    error: z
      .object({
        code: ErrorCodeSchema,
        message: z.string().min(1).max(1024),
      })
      .strict(),
  })
  .strict();
export type WorkloadErrorChunk = z.infer<typeof WorkloadErrorChunkSchema>;

export const WorkloadStreamChunkSchema = z.discriminatedUnion('type', [
  WorkloadDeltaChunkSchema,
  WorkloadErrorChunkSchema,
]);
export type WorkloadStreamChunk = z.infer<typeof WorkloadStreamChunkSchema>;
