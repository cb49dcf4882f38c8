import { z } from 'zod';
import { API_VERSION, type DataClass, DataClassSchema, NAME_PATTERN } from './common';
import { ErrorCode, LunaNexaError, type ProblemDetails } from './errors';
import type { OpenAiError } from './problem';
import type { WorkloadDeltaChunk } from './streaming';
import type { Usage } from './usage';
import {
  type ChatMessage,
  type ChatWorkloadRequest,
  type CompletionWorkloadRequest,
  type FinishReason,
  type GenerationParameters,
  MAX_DEADLINE_MS,
  MODEL_VERSION_REF_PATTERN,
  type ServedBy,
  type WorkloadCorrelation,
  type WorkloadPriority,
  type WorkloadResponse,
  type WorkloadTarget,
} from './workload';

/**
 * OpenAI-compatible shapes and their mapping to and from the generic workload.
 *
 * The gateway speaks this dialect twice: northbound to OpenAI SDK clients and
 * southbound to openai-compatible runtimes (vLLM, llama.cpp, SGLang). Requests
 * we accept are strict — a feature we do not implement (tools, n > 1,
 * logprobs…) is refused with VALIDATION_FAILED rather than silently ignored.
 * Responses and chunks are NOT strict, on purpose: runtimes add vendor members
 * (`system_fingerprint`, `stop_reason`, `prompt_tokens_details`…) and a reader
 * must drop them instead of failing a request that succeeded.
 *
 * LunaNexa parameters that OpenAI bodies have no field for travel in headers
 * (LUNANEXA_HEADERS). The OpenAI `user` field is accepted and dropped: it is
 * caller identity and must never reach a node.
 */

export const LUNANEXA_HEADERS = {
  dataClass: 'x-lunanexa-data-class',
  priority: 'x-lunanexa-priority',
  deadlineMs: 'x-lunanexa-deadline-ms',
  tenantId: 'x-lunanexa-tenant-id',
  workloadId: 'x-lunanexa-workload-id',
} as const;

/** Prefixes OpenAI uses on ids; the part after the prefix is the LunaNexa workload id. */
export const OPENAI_CHAT_ID_PREFIX = 'chatcmpl-';
export const OPENAI_COMPLETION_ID_PREFIX = 'cmpl-';
/** `owned_by` on /v1/models: models are owned by the operator's fleet, not by a vendor. */
export const OPENAI_MODEL_OWNER = 'lunanexa';

/** An OpenAI `model` string is an alias name or a pinned `name@version`. */
export const OpenAiModelNameSchema = z
  .string()
  .refine((value) => NAME_PATTERN.test(value) || MODEL_VERSION_REF_PATTERN.test(value), {
    message: 'must be an alias name or <model-name>@<version>',
  });

const stopSchema = z
  .union([z.string().min(1).max(256), z.array(z.string().min(1).max(256)).max(4)])
  .nullable();

/** Parameters shared by both request kinds, with OpenAI names and the generic ranges. */
const openAiSamplingFields = {
  model: OpenAiModelNameSchema,
  max_tokens: z.int().min(1).max(1_048_576).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  top_p: z.number().gt(0).max(1).nullable().optional(),
  seed: z.int().nullable().optional(),
  stop: stopSchema.optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).strict().nullable().optional(),
  /** Only one choice per request is implemented; SDKs that send n: 1 explicitly still work. */
  n: z.literal(1).nullable().optional(),
  /** Accepted for SDK compatibility and dropped: caller identity never leaves the gateway. */
  user: z.string().max(256).optional(),
  /** Penalties are not implemented; 0 (no effect) is accepted because common clients send it. */
  presence_penalty: z.literal(0).nullable().optional(),
  frequency_penalty: z.literal(0).nullable().optional(),
};

const openAiTextPartSchema = z.object({ type: z.literal('text'), text: z.string() }).strict();

export const OpenAiChatMessageSchema = z
  .object({
    /** `developer` is OpenAI's newer name for `system`; runtimes only know `system`. */
    role: z.enum(['system', 'developer', 'user', 'assistant']),
    content: z.union([z.string(), z.array(openAiTextPartSchema).min(1)]),
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .optional(),
  })
  .strict();
export type OpenAiChatMessage = z.infer<typeof OpenAiChatMessageSchema>;

export const OpenAiChatRequestSchema = z
  .object({
    ...openAiSamplingFields,
    messages: z.array(OpenAiChatMessageSchema).min(1).max(1024),
    /** Newer OpenAI name for max_tokens; both are accepted, they must agree when both are set. */
    max_completion_tokens: z.int().min(1).max(1_048_576).nullable().optional(),
  })
  .strict();
export type OpenAiChatRequest = z.infer<typeof OpenAiChatRequestSchema>;

export const OpenAiCompletionRequestSchema = z
  .object({
    ...openAiSamplingFields,
    /** A single prompt; batched prompts (arrays of several) are not implemented. */
    prompt: z.union([z.string(), z.array(z.string()).length(1)]),
    echo: z.literal(false).nullable().optional(),
  })
  .strict();
export type OpenAiCompletionRequest = z.infer<typeof OpenAiCompletionRequestSchema>;

const openAiFinishReasonSchema = z.enum(['stop', 'length', 'content_filter', 'tool_calls', 'function_call']);

export const OpenAiUsageSchema = z.object({
  prompt_tokens: z.int().nonnegative(),
  completion_tokens: z.int().nonnegative(),
  total_tokens: z.int().nonnegative(),
});
export type OpenAiUsage = z.infer<typeof OpenAiUsageSchema>;

export const OpenAiChatResponseSchema = z.object({
  id: z.string().min(1),
  object: z.literal('chat.completion'),
  created: z.int().nonnegative(),
  model: z.string().min(1),
  choices: z
    .array(
      z.object({
        index: z.int().nonnegative(),
        message: z.object({ role: z.literal('assistant'), content: z.string().nullable() }),
        finish_reason: openAiFinishReasonSchema.nullable(),
        logprobs: z.null().optional(),
      }),
    )
    .min(1),
  usage: OpenAiUsageSchema,
});
export type OpenAiChatResponse = z.infer<typeof OpenAiChatResponseSchema>;

export const OpenAiCompletionResponseSchema = z.object({
  id: z.string().min(1),
  object: z.literal('text_completion'),
  created: z.int().nonnegative(),
  model: z.string().min(1),
  choices: z
    .array(
      z.object({
        index: z.int().nonnegative(),
        text: z.string(),
        finish_reason: openAiFinishReasonSchema.nullable(),
        logprobs: z.null().optional(),
      }),
    )
    .min(1),
  usage: OpenAiUsageSchema,
});
export type OpenAiCompletionResponse = z.infer<typeof OpenAiCompletionResponseSchema>;

export const OpenAiChatChunkSchema = z.object({
  id: z.string().min(1),
  object: z.literal('chat.completion.chunk'),
  created: z.int().nonnegative(),
  model: z.string().min(1),
  choices: z.array(
    z.object({
      index: z.int().nonnegative(),
      delta: z.object({ role: z.literal('assistant').optional(), content: z.string().nullable().optional() }),
      finish_reason: openAiFinishReasonSchema.nullable(),
      logprobs: z.null().optional(),
    }),
  ),
  /** Present (null, then the totals on a final choice-less chunk) only with stream_options.include_usage. */
  usage: OpenAiUsageSchema.nullable().optional(),
});
export type OpenAiChatChunk = z.infer<typeof OpenAiChatChunkSchema>;

export const OpenAiCompletionChunkSchema = z.object({
  id: z.string().min(1),
  object: z.literal('text_completion'),
  created: z.int().nonnegative(),
  model: z.string().min(1),
  choices: z.array(
    z.object({
      index: z.int().nonnegative(),
      text: z.string(),
      finish_reason: openAiFinishReasonSchema.nullable(),
      logprobs: z.null().optional(),
    }),
  ),
  usage: OpenAiUsageSchema.nullable().optional(),
});
export type OpenAiCompletionChunk = z.infer<typeof OpenAiCompletionChunkSchema>;

/** How a model's serving looks from the gateway: `degraded` still routes, but a router with a choice avoids it. */
export const SERVING_HEALTH_STATES = ['ready', 'degraded', 'unavailable'] as const;
export const ServingHealthStateSchema = z.enum(SERVING_HEALTH_STATES);
export type ServingHealthState = z.infer<typeof ServingHealthStateSchema>;

/** What a caller can do with a model through this gateway. */
export const MODEL_CAPABILITIES = ['chat.completions', 'completions'] as const;
export const ModelCapabilitySchema = z.enum(MODEL_CAPABILITIES);

/**
 * The `lunanexa` member of a `/v1/models` entry: what an application router
 * needs to pick a model — its limits, what it accepts, and live health as
 * this gateway sees it. OpenAI clients ignore the extra member.
 */
export const ModelDiscoverySchema = z
  .object({
    /** `alias` for a name a tenant key lists; `modelVersion` for a pinned `name@version` (operators). */
    kind: z.enum(['alias', 'modelVersion']),
    /** The version serving the stable share right now (`name@version`). */
    modelVersion: z.string().min(1),
    /** Tokens of prompt plus completion one request may use; null when the registry does not know it. */
    contextLength: z.int().positive().nullable(),
    streaming: z.boolean(),
    capabilities: z.array(ModelCapabilitySchema),
    /** Data classes the model's license accepts; a request of another class is refused. */
    dataClasses: z.array(DataClassSchema),
    health: z
      .object({
        state: ServingHealthStateSchema,
        readyReplicas: z.int().nonnegative(),
        recentRequests: z.int().nonnegative(),
        /** Share (0..1) of recent requests that failed on the serving side; 0 without traffic. */
        recentErrorRate: z.number().min(0).max(1),
        windowSeconds: z.int().positive(),
        /** Requests waiting at this gateway for a replica slot, and running now. */
        queued: z.int().nonnegative(),
        inFlight: z.int().nonnegative(),
      })
      .strict(),
  })
  .strict();
export type ModelDiscovery = z.infer<typeof ModelDiscoverySchema>;

export const OpenAiModelSchema = z
  .object({
    id: z.string().min(1),
    object: z.literal('model'),
    created: z.int().nonnegative(),
    owned_by: z.string().min(1),
    /** LunaNexa's discovery member; always present from a LunaNexa gateway (contract v1, additive). */
    lunanexa: ModelDiscoverySchema.optional(),
  })
  .strict();
export type OpenAiModel = z.infer<typeof OpenAiModelSchema>;

export const OpenAiModelListSchema = z
  .object({
    object: z.literal('list'),
    data: z.array(OpenAiModelSchema),
  })
  .strict();
export type OpenAiModelList = z.infer<typeof OpenAiModelListSchema>;

/** LunaNexa parameters for a request that arrived in OpenAI form (read from LUNANEXA_HEADERS). */
export interface OpenAiRequestContext {
  readonly dataClass: DataClass;
  readonly priority?: WorkloadPriority;
  readonly deadlineMs?: number;
  readonly correlation?: WorkloadCorrelation;
}

/** What the generic side needs to label an upstream OpenAI response or chunk with. */
export interface UpstreamContext {
  readonly id: string;
  readonly servedBy: ServedBy;
  readonly correlation: WorkloadCorrelation;
}

export function targetFromOpenAiModel(model: string): WorkloadTarget {
  return model.includes('@') ? { model } : { alias: model };
}

export function openAiModelFromTarget(target: WorkloadTarget): string {
  return 'alias' in target ? target.alias : target.model;
}

/** ISO instant → OpenAI `created` (unix seconds). */
export function unixSeconds(isoTimestamp: string): number {
  return Math.floor(Date.parse(isoTimestamp) / 1000);
}

/** OpenAI `created` → ISO instant; sub-second precision is not recoverable. */
export function isoFromUnixSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

function parametersFromOpenAi(
  request: OpenAiChatRequest | OpenAiCompletionRequest,
  maxCompletionTokens: number | null | undefined,
): GenerationParameters {
  const maxTokens = request.max_tokens ?? undefined;
  const maxCompletion = maxCompletionTokens ?? undefined;
  if (maxTokens !== undefined && maxCompletion !== undefined && maxTokens !== maxCompletion) {
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'max_tokens and max_completion_tokens disagree', [
      { path: 'max_completion_tokens', message: 'must equal max_tokens when both are set' },
    ]);
  }
  const parameters: { -readonly [K in keyof GenerationParameters]: GenerationParameters[K] } = {};
  const limit = maxCompletion ?? maxTokens;
  if (limit !== undefined) parameters.maxTokens = limit;
  if (request.temperature !== undefined && request.temperature !== null)
    parameters.temperature = request.temperature;
  if (request.top_p !== undefined && request.top_p !== null) parameters.topP = request.top_p;
  if (request.seed !== undefined && request.seed !== null) parameters.seed = request.seed;
  if (request.stop !== undefined && request.stop !== null) {
    parameters.stop = typeof request.stop === 'string' ? [request.stop] : [...request.stop];
  }
  return parameters;
}

function commonFromContext(context: OpenAiRequestContext) {
  if (
    context.deadlineMs !== undefined &&
    (!Number.isInteger(context.deadlineMs) || context.deadlineMs < 1 || context.deadlineMs > MAX_DEADLINE_MS)
  ) {
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'invalid deadline', [
      { path: LUNANEXA_HEADERS.deadlineMs, message: `must be an integer between 1 and ${MAX_DEADLINE_MS}` },
    ]);
  }
  return {
    apiVersion: API_VERSION,
    priority: context.priority ?? 'normal',
    ...(context.deadlineMs !== undefined ? { deadlineMs: context.deadlineMs } : {}),
    correlation: { ...(context.correlation ?? {}) },
    dataClass: context.dataClass,
  } as const;
}

function messageFromOpenAi(message: OpenAiChatMessage): ChatMessage {
  const content =
    typeof message.content === 'string'
      ? message.content
      : message.content.map((part) => part.text).join('\n');
  return {
    role: message.role === 'developer' ? 'system' : message.role,
    content,
    ...(message.name !== undefined ? { name: message.name } : {}),
  };
}

export function openAiChatRequestToWorkload(
  request: OpenAiChatRequest,
  context: OpenAiRequestContext,
): ChatWorkloadRequest {
  return {
    ...commonFromContext(context),
    kind: 'chat',
    target: targetFromOpenAiModel(request.model),
    messages: request.messages.map(messageFromOpenAi),
    parameters: parametersFromOpenAi(request, request.max_completion_tokens),
    stream: request.stream ?? false,
  };
}

export function openAiCompletionRequestToWorkload(
  request: OpenAiCompletionRequest,
  context: OpenAiRequestContext,
): CompletionWorkloadRequest {
  return {
    ...commonFromContext(context),
    kind: 'completion',
    target: targetFromOpenAiModel(request.model),
    prompt: typeof request.prompt === 'string' ? request.prompt : (request.prompt[0] ?? ''),
    parameters: parametersFromOpenAi(request, undefined),
    stream: request.stream ?? false,
  };
}

function openAiSamplingFromWorkload(parameters: GenerationParameters) {
  return {
    ...(parameters.maxTokens !== undefined ? { max_tokens: parameters.maxTokens } : {}),
    ...(parameters.temperature !== undefined ? { temperature: parameters.temperature } : {}),
    ...(parameters.topP !== undefined ? { top_p: parameters.topP } : {}),
    ...(parameters.seed !== undefined ? { seed: parameters.seed } : {}),
    ...(parameters.stop !== undefined ? { stop: [...parameters.stop] } : {}),
  };
}

/**
 * Generic → OpenAI request, as the gateway sends it to an openai-compatible
 * runtime. `servedModel` is the name the runtime was launched to serve; by
 * default the target is passed through. A streamed request always asks for
 * usage, because quotas need it.
 */
export function workloadToOpenAiChatRequest(
  request: ChatWorkloadRequest,
  servedModel?: string,
): OpenAiChatRequest {
  return {
    model: servedModel ?? openAiModelFromTarget(request.target),
    messages: request.messages.map((message) => ({ ...message })),
    ...openAiSamplingFromWorkload(request.parameters),
    stream: request.stream,
    ...(request.stream ? { stream_options: { include_usage: true } } : {}),
  };
}

export function workloadToOpenAiCompletionRequest(
  request: CompletionWorkloadRequest,
  servedModel?: string,
): OpenAiCompletionRequest {
  return {
    model: servedModel ?? openAiModelFromTarget(request.target),
    prompt: request.prompt,
    ...openAiSamplingFromWorkload(request.parameters),
    stream: request.stream,
    ...(request.stream ? { stream_options: { include_usage: true } } : {}),
  };
}

function usageToOpenAi(usage: Usage): OpenAiUsage {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.totalTokens,
  };
}

function usageFromOpenAi(usage: OpenAiUsage): Usage {
  if (usage.total_tokens !== usage.prompt_tokens + usage.completion_tokens) {
    throw new LunaNexaError(ErrorCode.UPSTREAM_FAILED, 'upstream usage totals are inconsistent');
  }
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    totalTokens: usage.total_tokens,
  };
}

function finishReasonFromOpenAi(
  reason: z.infer<typeof openAiFinishReasonSchema> | null,
): FinishReason | null {
  if (reason === null || reason === 'stop' || reason === 'length') return reason;
  // tool/function calls and content filtering are not part of v1; a runtime producing them is misconfigured.
  throw new LunaNexaError(ErrorCode.UPSTREAM_FAILED, `upstream finish_reason "${reason}" is not supported`);
}

function requireFinishReason(reason: z.infer<typeof openAiFinishReasonSchema> | null): FinishReason {
  const mapped = finishReasonFromOpenAi(reason);
  if (mapped === null)
    throw new LunaNexaError(ErrorCode.UPSTREAM_FAILED, 'upstream response has no finish_reason');
  return mapped;
}

export function workloadResponseToOpenAiChat(response: WorkloadResponse): OpenAiChatResponse {
  return {
    id: `${OPENAI_CHAT_ID_PREFIX}${response.id}`,
    object: 'chat.completion',
    created: unixSeconds(response.createdAt),
    // Like OpenAI's own snapshots: the response names the exact version that answered.
    model: response.servedBy.model,
    choices: response.choices.map((choice) => ({
      index: choice.index,
      message: { role: 'assistant', content: choice.text },
      finish_reason: choice.finishReason,
      logprobs: null,
    })),
    usage: usageToOpenAi(response.usage),
  };
}

export function workloadResponseToOpenAiCompletion(response: WorkloadResponse): OpenAiCompletionResponse {
  return {
    id: `${OPENAI_COMPLETION_ID_PREFIX}${response.id}`,
    object: 'text_completion',
    created: unixSeconds(response.createdAt),
    model: response.servedBy.model,
    choices: response.choices.map((choice) => ({
      index: choice.index,
      text: choice.text,
      finish_reason: choice.finishReason,
      logprobs: null,
    })),
    usage: usageToOpenAi(response.usage),
  };
}

/** Upstream OpenAI response → generic; identity comes from the gateway, content from upstream. */
export function openAiChatResponseToWorkload(
  response: OpenAiChatResponse,
  context: UpstreamContext,
): WorkloadResponse {
  return {
    apiVersion: API_VERSION,
    kind: 'chat',
    id: context.id,
    createdAt: isoFromUnixSeconds(response.created),
    servedBy: context.servedBy,
    choices: response.choices.map((choice) => ({
      index: choice.index,
      text: choice.message.content ?? '',
      finishReason: requireFinishReason(choice.finish_reason),
    })),
    usage: usageFromOpenAi(response.usage),
    correlation: context.correlation,
  };
}

export function openAiCompletionResponseToWorkload(
  response: OpenAiCompletionResponse,
  context: UpstreamContext,
): WorkloadResponse {
  return {
    apiVersion: API_VERSION,
    kind: 'completion',
    id: context.id,
    createdAt: isoFromUnixSeconds(response.created),
    servedBy: context.servedBy,
    choices: response.choices.map((choice) => ({
      index: choice.index,
      text: choice.text,
      finishReason: requireFinishReason(choice.finish_reason),
    })),
    usage: usageFromOpenAi(response.usage),
    correlation: context.correlation,
  };
}

export interface OpenAiChunkOptions {
  /** The workload's creation time in unix seconds; identical on every chunk of a stream, as OpenAI does. */
  readonly created: number;
  /** The client asked for `stream_options.include_usage`. */
  readonly includeUsage: boolean;
}

/**
 * One generic delta chunk → the OpenAI chunks that represent it: a chunk with
 * the choices (the first one announces the assistant role), then — on the
 * closing chunk and only if the client asked — a choice-less usage chunk.
 */
export function workloadChunkToOpenAiChat(
  chunk: WorkloadDeltaChunk,
  options: OpenAiChunkOptions,
): OpenAiChatChunk[] {
  const base = {
    id: `${OPENAI_CHAT_ID_PREFIX}${chunk.id}`,
    object: 'chat.completion.chunk' as const,
    created: options.created,
    model: chunk.servedBy.model,
  };
  const out: OpenAiChatChunk[] = [];
  if (chunk.choices.length > 0) {
    out.push({
      ...base,
      choices: chunk.choices.map((choice) => ({
        index: choice.index,
        delta: {
          ...(chunk.sequence === 0 ? { role: 'assistant' as const } : {}),
          ...(choice.delta !== '' || chunk.sequence === 0 ? { content: choice.delta } : {}),
        },
        finish_reason: choice.finishReason,
        logprobs: null,
      })),
      ...(options.includeUsage ? { usage: null } : {}),
    });
  }
  if (chunk.usage !== null && options.includeUsage) {
    out.push({ ...base, choices: [], usage: usageToOpenAi(chunk.usage) });
  }
  return out;
}

export function workloadChunkToOpenAiCompletion(
  chunk: WorkloadDeltaChunk,
  options: OpenAiChunkOptions,
): OpenAiCompletionChunk[] {
  const base = {
    id: `${OPENAI_COMPLETION_ID_PREFIX}${chunk.id}`,
    object: 'text_completion' as const,
    created: options.created,
    model: chunk.servedBy.model,
  };
  const out: OpenAiCompletionChunk[] = [];
  if (chunk.choices.length > 0) {
    out.push({
      ...base,
      choices: chunk.choices.map((choice) => ({
        index: choice.index,
        text: choice.delta,
        finish_reason: choice.finishReason,
        logprobs: null,
      })),
      ...(options.includeUsage ? { usage: null } : {}),
    });
  }
  if (chunk.usage !== null && options.includeUsage) {
    out.push({ ...base, choices: [], usage: usageToOpenAi(chunk.usage) });
  }
  return out;
}

export interface UpstreamChunkContext extends Omit<UpstreamContext, 'correlation'> {
  readonly sequence: number;
}

/** One upstream OpenAI chunk → one generic delta chunk (the gateway numbers the sequence). */
export function openAiChatChunkToWorkload(
  chunk: OpenAiChatChunk,
  context: UpstreamChunkContext,
): WorkloadDeltaChunk {
  return {
    apiVersion: API_VERSION,
    type: 'delta',
    kind: 'chat',
    id: context.id,
    sequence: context.sequence,
    servedBy: context.servedBy,
    choices: chunk.choices.map((choice) => ({
      index: choice.index,
      delta: choice.delta.content ?? '',
      finishReason: finishReasonFromOpenAi(choice.finish_reason),
    })),
    usage: chunk.usage === undefined || chunk.usage === null ? null : usageFromOpenAi(chunk.usage),
  };
}

export function openAiCompletionChunkToWorkload(
  chunk: OpenAiCompletionChunk,
  context: UpstreamChunkContext,
): WorkloadDeltaChunk {
  return {
    apiVersion: API_VERSION,
    type: 'delta',
    kind: 'completion',
    id: context.id,
    sequence: context.sequence,
    servedBy: context.servedBy,
    choices: chunk.choices.map((choice) => ({
      index: choice.index,
      delta: choice.text,
      finishReason: finishReasonFromOpenAi(choice.finish_reason),
    })),
    usage: chunk.usage === undefined || chunk.usage === null ? null : usageFromOpenAi(chunk.usage),
  };
}

/**
 * OpenAI error `type` per LunaNexa code. A Record over ErrorCode, so adding a
 * code does not compile until someone decides how OpenAI SDKs should see it.
 */
export const OPENAI_ERROR_TYPE_BY_CODE: Readonly<Record<ErrorCode, OpenAiError['type']>> = {
  VALIDATION_FAILED: 'invalid_request_error',
  MALFORMED_REQUEST: 'invalid_request_error',
  UNAUTHENTICATED: 'invalid_request_error',
  FORBIDDEN: 'invalid_request_error',
  NOT_FOUND: 'not_found_error',
  CONFLICT: 'invalid_request_error',
  IDEMPOTENCY_KEY_REUSED: 'invalid_request_error',
  DEPENDENCY_UNAVAILABLE: 'server_error',
  INVALID_CONFIG: 'server_error',
  RATE_LIMITED: 'rate_limit_error',
  INTERNAL: 'server_error',
  TOKEN_EXPIRED: 'invalid_request_error',
  TOKEN_REUSED: 'invalid_request_error',
  TOKEN_UNKNOWN: 'invalid_request_error',
  SIGNATURE_INVALID: 'invalid_request_error',
  REPLAY_DETECTED: 'invalid_request_error',
  STALE_GENERATION: 'invalid_request_error',
  LEASE_EXPIRED: 'invalid_request_error',
  INVALID_TRANSITION: 'invalid_request_error',
  LICENSE_NOT_APPROVED: 'invalid_request_error',
  DATA_CLASS_NOT_ALLOWED: 'invalid_request_error',
  DIGEST_MISMATCH: 'server_error',
  ARTIFACT_UNAUTHORIZED: 'server_error',
  EVALUATION_NOT_PASSED: 'invalid_request_error',
  HARDWARE_INCOMPATIBLE: 'server_error',
  NO_ELIGIBLE_NODE: 'server_error',
  DRAIN_WOULD_STRAND_REPLICAS: 'invalid_request_error',
  RUNTIME_NOT_ALLOWED: 'invalid_request_error',
  MODEL_VERSION_NOT_APPROVED: 'invalid_request_error',
  UNSIGNED_VERSION_NOT_ALLOWED: 'invalid_request_error',
  MODEL_NOT_FOUND: 'not_found_error',
  NO_CAPACITY: 'server_error',
  QUOTA_EXCEEDED: 'rate_limit_error',
  DEADLINE_EXCEEDED: 'server_error',
  CANCELLED: 'invalid_request_error',
  UPSTREAM_FAILED: 'server_error',
  PAYLOAD_TOO_LARGE: 'invalid_request_error',
  METHOD_NOT_ALLOWED: 'invalid_request_error',
  QUERY_TOO_COSTLY: 'invalid_request_error',
};

/**
 * The `error` member added to problem bodies on OpenAI-compatible endpoints.
 * `param` names the offending request field where one is known: the first
 * violation for validation errors, `model` for an unknown model.
 */
export function openAiErrorFromProblem(problem: ProblemDetails): OpenAiError {
  const param =
    problem.code === ErrorCode.MODEL_NOT_FOUND ? 'model' : (problem.violations?.[0]?.path ?? null);
  return {
    message: problem.detail ?? problem.title,
    type: OPENAI_ERROR_TYPE_BY_CODE[problem.code],
    code: problem.code.toLowerCase(),
    param: param === '' ? null : param,
  };
}
