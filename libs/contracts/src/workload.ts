import { z } from 'zod';
import { API_VERSION, DataClassSchema, IsoTimestampSchema, NameSchema, OpaqueIdSchema } from './common';
import { UsageSchema } from './usage';

/**
 * The generic, typed data-plane workload: what `POST /v1/workloads` accepts
 * and what the OpenAI-compatible endpoints are mapped to (see openai.ts). It
 * carries only opaque correlation ids from the caller — never a product name,
 * user identity or credential — because it is what reaches nodes and runtimes.
 */

export const WORKLOAD_KINDS = ['chat', 'completion'] as const;
export const WorkloadKindSchema = z.enum(WORKLOAD_KINDS);
export type WorkloadKind = z.infer<typeof WorkloadKindSchema>;

/** A model version pinned by name and version, e.g. `llama-3-1-8b-instruct@2024-07-23`. */
export const MODEL_VERSION_REF_PATTERN =
  /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?@[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const ModelVersionRefSchema = z
  .string()
  .regex(MODEL_VERSION_REF_PATTERN, 'must be <model-name>@<version>, e.g. llama-3-1-8b@2024-07-23');
export type ModelVersionRef = z.infer<typeof ModelVersionRefSchema>;

/**
 * What to run. An alias floats: rollouts and canaries move it between
 * versions. A model ref pins one version and bypasses canary weighting, which
 * is what evaluations and debugging need.
 */
export const AliasTargetSchema = z.object({ alias: NameSchema }).strict();
export const ModelTargetSchema = z.object({ model: ModelVersionRefSchema }).strict();
export const WorkloadTargetSchema = z.union([AliasTargetSchema, ModelTargetSchema], {
  error: 'must be {"alias": "<alias>"} or {"model": "<model-name>@<version>"}',
});
export type WorkloadTarget = z.infer<typeof WorkloadTargetSchema>;

export const CHAT_ROLES = ['system', 'user', 'assistant'] as const;
export const ChatRoleSchema = z.enum(CHAT_ROLES);
export type ChatRole = z.infer<typeof ChatRoleSchema>;

export const ChatMessageSchema = z
  .object({
    role: ChatRoleSchema,
    content: z.string(),
    /** Optional participant name, passed to the runtime's chat template. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 of [A-Za-z0-9_-]')
      .optional(),
  })
  .strict();
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/**
 * Sampling parameters. All optional and without defaults here: an omitted
 * parameter means "the runtime's default", and putting a default into the
 * contract would silently change behaviour for every client the day it moved.
 */
export const GenerationParametersSchema = z
  .object({
    maxTokens: z.int().min(1).max(1_048_576).optional(),
    temperature: z.number().min(0).max(2).optional(),
    topP: z.number().gt(0).max(1).optional(),
    /** Same seed + same prompt + same version ⇒ same output on deterministic runtimes (the fake one is). */
    seed: z.int().optional(),
    stop: z.array(z.string().min(1).max(256)).max(4).optional(),
  })
  .strict();
export type GenerationParameters = z.infer<typeof GenerationParametersSchema>;

/** Admission and queueing order; under pressure `low` is shed first. */
export const WORKLOAD_PRIORITIES = ['low', 'normal', 'high'] as const;
export const WorkloadPrioritySchema = z.enum(WORKLOAD_PRIORITIES);
export type WorkloadPriority = z.infer<typeof WorkloadPrioritySchema>;

/** Caller-chosen opaque tags, echoed in usage and audit so a caller can join its own records. */
export const WorkloadCorrelationSchema = z
  .object({
    tenantId: OpaqueIdSchema.optional(),
    workloadId: OpaqueIdSchema.optional(),
  })
  .strict();
export type WorkloadCorrelation = z.infer<typeof WorkloadCorrelationSchema>;

/** Longest deadline a caller may ask for: one hour. Longer work is not interactive inference. */
export const MAX_DEADLINE_MS = 3_600_000;

const workloadRequestBase = {
  apiVersion: z.literal(API_VERSION),
  target: WorkloadTargetSchema,
  parameters: GenerationParametersSchema.default({}),
  stream: z.boolean().default(false),
  priority: WorkloadPrioritySchema.default('normal'),
  /** Budget from receipt at the gateway to the last byte; exceeded ⇒ DEADLINE_EXCEEDED / TimedOut. */
  deadlineMs: z.int().min(1).max(MAX_DEADLINE_MS).optional(),
  correlation: WorkloadCorrelationSchema.default({}),
  /** Required: the gateway checks it against the model's license, and guessing would be unsafe. */
  dataClass: DataClassSchema,
};

export const ChatWorkloadRequestSchema = z
  .object({
    ...workloadRequestBase,
    kind: z.literal('chat'),
    messages: z.array(ChatMessageSchema).min(1).max(1024),
  })
  .strict();
export type ChatWorkloadRequest = z.infer<typeof ChatWorkloadRequestSchema>;

export const CompletionWorkloadRequestSchema = z
  .object({
    ...workloadRequestBase,
    kind: z.literal('completion'),
    prompt: z.string(),
  })
  .strict();
export type CompletionWorkloadRequest = z.infer<typeof CompletionWorkloadRequestSchema>;

export const WorkloadRequestSchema = z.discriminatedUnion('kind', [
  ChatWorkloadRequestSchema,
  CompletionWorkloadRequestSchema,
]);
export type WorkloadRequest = z.infer<typeof WorkloadRequestSchema>;
/** What a client may send (defaults not yet applied). */
export type WorkloadRequestInput = z.input<typeof WorkloadRequestSchema>;

/**
 * Why generation ended: `stop` (end of sequence or a stop string) or `length`
 * (maxTokens / context exhausted). Failures are errors, not finish reasons.
 */
export const FINISH_REASONS = ['stop', 'length'] as const;
export const FinishReasonSchema = z.enum(FINISH_REASONS);
export type FinishReason = z.infer<typeof FinishReasonSchema>;

export const WorkloadChoiceSchema = z
  .object({
    index: z.int().nonnegative(),
    /** The generated text; for chat it is the assistant message content. */
    text: z.string(),
    finishReason: FinishReasonSchema,
  })
  .strict();
export type WorkloadChoice = z.infer<typeof WorkloadChoiceSchema>;

/** Who served the workload: the resolved version, and the alias when one was asked for. */
export const ServedBySchema = z
  .object({
    model: ModelVersionRefSchema,
    alias: NameSchema.nullable(),
    deploymentId: OpaqueIdSchema,
  })
  .strict();
export type ServedBy = z.infer<typeof ServedBySchema>;

/** Non-streamed result of a workload. */
export const WorkloadResponseSchema = z
  .object({
    apiVersion: z.literal(API_VERSION),
    kind: WorkloadKindSchema,
    /** Gateway-assigned workload id (also the request id of the call that created it). */
    id: OpaqueIdSchema,
    createdAt: IsoTimestampSchema,
    servedBy: ServedBySchema,
    choices: z.array(WorkloadChoiceSchema).min(1),
    usage: UsageSchema,
    correlation: WorkloadCorrelationSchema,
  })
  .strict();
export type WorkloadResponse = z.infer<typeof WorkloadResponseSchema>;
