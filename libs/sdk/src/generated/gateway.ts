// Generated from libs/sdk/openapi.json (libs/contracts gateway-openapi) by scripts/generate-sdk.mjs; do not edit.
// Regenerate with `npm run sdk:generate`.

/** OpenAPI version of the description these types come from. */
export const GATEWAY_OPENAPI_INFO_VERSION = '0.2.0';

/** Every operation the gateway describes. */
export const GATEWAY_OPERATIONS = [
  'GET /health',
  'GET /ready',
  'GET /metrics',
  'GET /openapi.json',
  'GET /v1/models',
  'POST /v1/chat/completions',
  'POST /v1/completions',
  'POST /v1/workloads',
] as const;
export type GatewayOperation = (typeof GATEWAY_OPERATIONS)[number];

/** The codes a /v1 call can be refused with, and the HTTP status of each. */
export const GATEWAY_ERROR_STATUS = {
  MALFORMED_REQUEST: 400,
  VALIDATION_FAILED: 400,
  UNAUTHENTICATED: 401,
  TOKEN_EXPIRED: 401,
  FORBIDDEN: 403,
  DATA_CLASS_NOT_ALLOWED: 422,
  NOT_FOUND: 404,
  MODEL_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  QUOTA_EXCEEDED: 429,
  NO_CAPACITY: 503,
  CANCELLED: 499,
  DEADLINE_EXCEEDED: 504,
  UPSTREAM_FAILED: 502,
  DEPENDENCY_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;
export type GatewayErrorCode = keyof typeof GATEWAY_ERROR_STATUS;

export type OpenAiChatChunk = {
  readonly id: string;
  readonly object: 'chat.completion.chunk';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly {
    readonly index: number;
    readonly delta: {
      readonly role?: 'assistant';
      readonly content?: string | null;
    };
    readonly finish_reason: ('stop' | 'length' | 'content_filter' | 'tool_calls' | 'function_call') | null;
    readonly logprobs?: null;
  }[];
  readonly usage?: {
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly total_tokens: number;
  } | null;
};

export type OpenAiChatRequest = {
  readonly model: string;
  readonly max_tokens?: number | null;
  readonly temperature?: number | null;
  readonly top_p?: number | null;
  readonly seed?: number | null;
  readonly stop?: (string | readonly string[]) | null;
  readonly stream?: boolean | null;
  readonly stream_options?: {
    readonly include_usage?: boolean;
  } | null;
  readonly n?: 1 | null;
  readonly user?: string;
  readonly presence_penalty?: 0 | null;
  readonly frequency_penalty?: 0 | null;
  readonly messages: readonly {
    readonly role: 'system' | 'developer' | 'user' | 'assistant';
    readonly content:
      | string
      | readonly {
          readonly type: 'text';
          readonly text: string;
        }[];
    readonly name?: string;
  }[];
  readonly max_completion_tokens?: number | null;
};

export type OpenAiChatResponse = {
  readonly id: string;
  readonly object: 'chat.completion';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly {
    readonly index: number;
    readonly message: {
      readonly role: 'assistant';
      readonly content: string | null;
    };
    readonly finish_reason: ('stop' | 'length' | 'content_filter' | 'tool_calls' | 'function_call') | null;
    readonly logprobs?: null;
  }[];
  readonly usage: {
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly total_tokens: number;
  };
};

export type OpenAiCompletionChunk = {
  readonly id: string;
  readonly object: 'text_completion';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly {
    readonly index: number;
    readonly text: string;
    readonly finish_reason: ('stop' | 'length' | 'content_filter' | 'tool_calls' | 'function_call') | null;
    readonly logprobs?: null;
  }[];
  readonly usage?: {
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly total_tokens: number;
  } | null;
};

export type OpenAiCompletionRequest = {
  readonly model: string;
  readonly max_tokens?: number | null;
  readonly temperature?: number | null;
  readonly top_p?: number | null;
  readonly seed?: number | null;
  readonly stop?: (string | readonly string[]) | null;
  readonly stream?: boolean | null;
  readonly stream_options?: {
    readonly include_usage?: boolean;
  } | null;
  readonly n?: 1 | null;
  readonly user?: string;
  readonly presence_penalty?: 0 | null;
  readonly frequency_penalty?: 0 | null;
  readonly prompt: string | readonly string[];
  readonly echo?: false | null;
};

export type OpenAiCompletionResponse = {
  readonly id: string;
  readonly object: 'text_completion';
  readonly created: number;
  readonly model: string;
  readonly choices: readonly {
    readonly index: number;
    readonly text: string;
    readonly finish_reason: ('stop' | 'length' | 'content_filter' | 'tool_calls' | 'function_call') | null;
    readonly logprobs?: null;
  }[];
  readonly usage: {
    readonly prompt_tokens: number;
    readonly completion_tokens: number;
    readonly total_tokens: number;
  };
};

export type OpenAiModelList = {
  readonly object: 'list';
  readonly data: readonly {
    readonly id: string;
    readonly object: 'model';
    readonly created: number;
    readonly owned_by: string;
    readonly lunanexa?: {
      readonly kind: 'alias' | 'modelVersion';
      readonly modelVersion: string;
      readonly contextLength: number | null;
      readonly streaming: boolean;
      readonly capabilities: readonly ('chat.completions' | 'completions')[];
      readonly dataClasses: readonly ('public' | 'internal' | 'confidential' | 'restricted')[];
      readonly health: {
        readonly state: 'ready' | 'degraded' | 'unavailable';
        readonly readyReplicas: number;
        readonly recentRequests: number;
        readonly recentErrorRate: number;
        readonly windowSeconds: number;
        readonly queued: number;
        readonly inFlight: number;
      };
    };
  }[];
};

export type Problem = {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly code:
    | 'VALIDATION_FAILED'
    | 'MALFORMED_REQUEST'
    | 'UNAUTHENTICATED'
    | 'FORBIDDEN'
    | 'NOT_FOUND'
    | 'CONFLICT'
    | 'IDEMPOTENCY_KEY_REUSED'
    | 'DEPENDENCY_UNAVAILABLE'
    | 'INVALID_CONFIG'
    | 'RATE_LIMITED'
    | 'INTERNAL'
    | 'TOKEN_EXPIRED'
    | 'TOKEN_REUSED'
    | 'TOKEN_UNKNOWN'
    | 'SIGNATURE_INVALID'
    | 'REPLAY_DETECTED'
    | 'STALE_GENERATION'
    | 'LEASE_EXPIRED'
    | 'INVALID_TRANSITION'
    | 'LICENSE_NOT_APPROVED'
    | 'DATA_CLASS_NOT_ALLOWED'
    | 'DIGEST_MISMATCH'
    | 'ARTIFACT_UNAUTHORIZED'
    | 'EVALUATION_NOT_PASSED'
    | 'HARDWARE_INCOMPATIBLE'
    | 'NO_ELIGIBLE_NODE'
    | 'DRAIN_WOULD_STRAND_REPLICAS'
    | 'RUNTIME_NOT_ALLOWED'
    | 'MODEL_VERSION_NOT_APPROVED'
    | 'UNSIGNED_VERSION_NOT_ALLOWED'
    | 'MODEL_NOT_FOUND'
    | 'NO_CAPACITY'
    | 'QUOTA_EXCEEDED'
    | 'DEADLINE_EXCEEDED'
    | 'CANCELLED'
    | 'UPSTREAM_FAILED'
    | 'PAYLOAD_TOO_LARGE'
    | 'METHOD_NOT_ALLOWED'
    | 'QUERY_TOO_COSTLY';
  readonly detail?: string;
  readonly instance?: string;
  readonly requestId?: string;
  readonly correlationId?: string;
  readonly violations?: readonly {
    readonly path: string;
    readonly message: string;
  }[];
  readonly error?: {
    readonly message: string;
    readonly type: 'invalid_request_error' | 'not_found_error' | 'rate_limit_error' | 'server_error';
    readonly code: string;
    readonly param: string | null;
  };
  readonly checks?: readonly {
    readonly name: string;
    readonly status: 'ok' | 'failing';
    readonly detail: string | null;
    readonly latencyMs: number | null;
  }[];
};

export type WorkloadRequest =
  | {
      readonly apiVersion: 'lunanexa.v1';
      readonly target:
        | {
            readonly alias: string;
          }
        | {
            readonly model: string;
          };
      readonly parameters?: {
        readonly maxTokens?: number;
        readonly temperature?: number;
        readonly topP?: number;
        readonly seed?: number;
        readonly stop?: readonly string[];
      };
      readonly stream?: boolean;
      readonly priority?: 'low' | 'normal' | 'high';
      readonly deadlineMs?: number;
      readonly correlation?: {
        readonly tenantId?: string;
        readonly workloadId?: string;
      };
      readonly dataClass: 'public' | 'internal' | 'confidential' | 'restricted';
      readonly kind: 'chat';
      readonly messages: readonly {
        readonly role: 'system' | 'user' | 'assistant';
        readonly content: string;
        readonly name?: string;
      }[];
    }
  | {
      readonly apiVersion: 'lunanexa.v1';
      readonly target:
        | {
            readonly alias: string;
          }
        | {
            readonly model: string;
          };
      readonly parameters?: {
        readonly maxTokens?: number;
        readonly temperature?: number;
        readonly topP?: number;
        readonly seed?: number;
        readonly stop?: readonly string[];
      };
      readonly stream?: boolean;
      readonly priority?: 'low' | 'normal' | 'high';
      readonly deadlineMs?: number;
      readonly correlation?: {
        readonly tenantId?: string;
        readonly workloadId?: string;
      };
      readonly dataClass: 'public' | 'internal' | 'confidential' | 'restricted';
      readonly kind: 'completion';
      readonly prompt: string;
    };

export type WorkloadResponse = {
  readonly apiVersion: 'lunanexa.v1';
  readonly kind: 'chat' | 'completion';
  readonly id: string;
  readonly createdAt: string;
  readonly servedBy: {
    readonly model: string;
    readonly alias: string | null;
    readonly deploymentId: string;
  };
  readonly choices: readonly {
    readonly index: number;
    readonly text: string;
    readonly finishReason: 'stop' | 'length';
  }[];
  readonly usage: {
    readonly promptTokens: number;
    readonly completionTokens: number;
    readonly totalTokens: number;
  };
  readonly correlation: {
    readonly tenantId?: string;
    readonly workloadId?: string;
  };
};

export type WorkloadStreamChunk =
  | {
      readonly apiVersion: 'lunanexa.v1';
      readonly type: 'delta';
      readonly kind: 'chat' | 'completion';
      readonly id: string;
      readonly sequence: number;
      readonly servedBy: {
        readonly model: string;
        readonly alias: string | null;
        readonly deploymentId: string;
      };
      readonly choices: readonly {
        readonly index: number;
        readonly delta: string;
        readonly finishReason: ('stop' | 'length') | null;
      }[];
      readonly usage: {
        readonly promptTokens: number;
        readonly completionTokens: number;
        readonly totalTokens: number;
      } | null;
    }
  | {
      readonly apiVersion: 'lunanexa.v1';
      readonly type: 'error';
      readonly id: string;
      readonly sequence: number;
      readonly error: {
        readonly code:
          | 'VALIDATION_FAILED'
          | 'MALFORMED_REQUEST'
          | 'UNAUTHENTICATED'
          | 'FORBIDDEN'
          | 'NOT_FOUND'
          | 'CONFLICT'
          | 'IDEMPOTENCY_KEY_REUSED'
          | 'DEPENDENCY_UNAVAILABLE'
          | 'INVALID_CONFIG'
          | 'RATE_LIMITED'
          | 'INTERNAL'
          | 'TOKEN_EXPIRED'
          | 'TOKEN_REUSED'
          | 'TOKEN_UNKNOWN'
          | 'SIGNATURE_INVALID'
          | 'REPLAY_DETECTED'
          | 'STALE_GENERATION'
          | 'LEASE_EXPIRED'
          | 'INVALID_TRANSITION'
          | 'LICENSE_NOT_APPROVED'
          | 'DATA_CLASS_NOT_ALLOWED'
          | 'DIGEST_MISMATCH'
          | 'ARTIFACT_UNAUTHORIZED'
          | 'EVALUATION_NOT_PASSED'
          | 'HARDWARE_INCOMPATIBLE'
          | 'NO_ELIGIBLE_NODE'
          | 'DRAIN_WOULD_STRAND_REPLICAS'
          | 'RUNTIME_NOT_ALLOWED'
          | 'MODEL_VERSION_NOT_APPROVED'
          | 'UNSIGNED_VERSION_NOT_ALLOWED'
          | 'MODEL_NOT_FOUND'
          | 'NO_CAPACITY'
          | 'QUOTA_EXCEEDED'
          | 'DEADLINE_EXCEEDED'
          | 'CANCELLED'
          | 'UPSTREAM_FAILED'
          | 'PAYLOAD_TOO_LARGE'
          | 'METHOD_NOT_ALLOWED'
          | 'QUERY_TOO_COSTLY';
        readonly message: string;
      };
    };
