import { z } from 'zod';
import { API_VERSION } from './common';
import { ErrorCode, HTTP_STATUS_BY_CODE, PROBLEM_CONTENT_TYPE } from './errors';
import {
  LUNANEXA_HEADERS,
  OpenAiChatChunkSchema,
  OpenAiChatRequestSchema,
  OpenAiChatResponseSchema,
  OpenAiCompletionChunkSchema,
  OpenAiCompletionRequestSchema,
  OpenAiCompletionResponseSchema,
  OpenAiModelListSchema,
} from './openai';
import { ProblemDetailsSchema } from './problem';
import { WorkloadStreamChunkSchema } from './streaming';
import { WorkloadRequestSchema, WorkloadResponseSchema, WORKLOAD_PRIORITIES } from './workload';

/**
 * The gateway's HTTP contract as OpenAPI 3.1, served at `GET /openapi.json`
 * and the source the SDK is generated from. Every body schema is derived from
 * the same zod schema the gateway validates with (JSON Schema 2020-12, which
 * OpenAPI 3.1 uses), so the description cannot drift from the code; refinements
 * zod cannot express (an alias or a `name@version`) are in the descriptions.
 */

/** Paths and methods the gateway serves; the gateway's route table is checked against this. */
export const GATEWAY_OPERATIONS = {
  '/health': ['get'],
  '/ready': ['get'],
  '/metrics': ['get'],
  '/openapi.json': ['get'],
  '/v1/models': ['get'],
  '/v1/chat/completions': ['post'],
  '/v1/completions': ['post'],
  '/v1/workloads': ['post'],
} as const satisfies Record<string, readonly string[]>;

const COMPONENT_SCHEMAS = {
  OpenAiChatRequest: { schema: OpenAiChatRequestSchema, io: 'input' },
  OpenAiChatResponse: { schema: OpenAiChatResponseSchema, io: 'output' },
  OpenAiChatChunk: { schema: OpenAiChatChunkSchema, io: 'output' },
  OpenAiCompletionRequest: { schema: OpenAiCompletionRequestSchema, io: 'input' },
  OpenAiCompletionResponse: { schema: OpenAiCompletionResponseSchema, io: 'output' },
  OpenAiCompletionChunk: { schema: OpenAiCompletionChunkSchema, io: 'output' },
  OpenAiModelList: { schema: OpenAiModelListSchema, io: 'output' },
  WorkloadRequest: { schema: WorkloadRequestSchema, io: 'input' },
  WorkloadResponse: { schema: WorkloadResponseSchema, io: 'output' },
  WorkloadStreamChunk: { schema: WorkloadStreamChunkSchema, io: 'output' },
  Problem: { schema: ProblemDetailsSchema, io: 'output' },
} as const;

export type GatewayComponentName = keyof typeof COMPONENT_SCHEMAS;

function jsonSchema(name: GatewayComponentName): Record<string, unknown> {
  const { schema, io } = COMPONENT_SCHEMAS[name];
  const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<
    string,
    unknown
  >;
  // The document declares the dialect once (jsonSchemaDialect); components carry none.
  const { $schema: _dialect, ...rest } = converted;
  return rest;
}

const ref = (name: GatewayComponentName) => ({ $ref: `#/components/schemas/${name}` });

const problemResponse = (description: string) => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: ref('Problem') } },
});

/** The codes a /v1 call can be refused with (the gateway emits no others; a spec checks its source). */
export const GATEWAY_ERROR_CODES: readonly ErrorCode[] = [
  ErrorCode.MALFORMED_REQUEST,
  ErrorCode.VALIDATION_FAILED,
  ErrorCode.UNAUTHENTICATED,
  ErrorCode.TOKEN_EXPIRED,
  ErrorCode.FORBIDDEN,
  ErrorCode.DATA_CLASS_NOT_ALLOWED,
  ErrorCode.NOT_FOUND,
  ErrorCode.MODEL_NOT_FOUND,
  ErrorCode.METHOD_NOT_ALLOWED,
  ErrorCode.PAYLOAD_TOO_LARGE,
  ErrorCode.QUOTA_EXCEEDED,
  ErrorCode.NO_CAPACITY,
  ErrorCode.CANCELLED,
  ErrorCode.DEADLINE_EXCEEDED,
  ErrorCode.UPSTREAM_FAILED,
  ErrorCode.DEPENDENCY_UNAVAILABLE,
  ErrorCode.INTERNAL,
];

/** The refusals a /v1 call can meet, by status, naming the codes of each. */
function refusals(): Record<string, unknown> {
  const byStatus = new Map<number, string[]>();
  for (const code of GATEWAY_ERROR_CODES) {
    const status = HTTP_STATUS_BY_CODE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [String(status), problemResponse(`Refused: ${codes.join(', ')}.`)]),
  );
}

const idHeaders = {
  'x-request-id': {
    description: 'This request’s id (the caller’s when well formed, else generated).',
    schema: { type: 'string' },
  },
  'x-correlation-id': {
    description: 'The correlation id the request travels under (audit, workflows, request records).',
    schema: { type: 'string' },
  },
  traceparent: { description: 'W3C trace context of this request.', schema: { type: 'string' } },
};

const lunanexaParameters = [
  {
    name: LUNANEXA_HEADERS.priority,
    in: 'header',
    description:
      'Admission order when a deployment is saturated: high (interactive) before normal before low (batch).',
    schema: { type: 'string', enum: [...WORKLOAD_PRIORITIES] },
  },
  {
    name: LUNANEXA_HEADERS.deadlineMs,
    in: 'header',
    description: 'Milliseconds the caller will wait; past it the request ends with 504 TIMEOUT.',
    schema: { type: 'integer', minimum: 1 },
  },
  {
    name: LUNANEXA_HEADERS.dataClass,
    in: 'header',
    description: 'Data class of the prompt; a model whose license does not allow it is refused.',
    schema: { type: 'string' },
  },
  {
    name: LUNANEXA_HEADERS.tenantId,
    in: 'header',
    description: 'Tenant the call is for; a tenant key may only name its own tenant.',
    schema: { type: 'string' },
  },
  { name: 'x-request-id', in: 'header', schema: { type: 'string' } },
  { name: 'x-correlation-id', in: 'header', schema: { type: 'string' } },
  { name: 'traceparent', in: 'header', schema: { type: 'string' } },
];

function generation(
  summary: string,
  request: GatewayComponentName,
  response: GatewayComponentName,
  chunk: GatewayComponentName,
) {
  return {
    post: {
      summary,
      security: [{ bearer: [] }],
      parameters: lunanexaParameters,
      requestBody: { required: true, content: { 'application/json': { schema: ref(request) } } },
      responses: {
        '200': {
          description:
            'The whole response, or with `stream: true` server-sent events: one `data:` line per chunk, then `data: [DONE]`.',
          headers: idHeaders,
          content: {
            'application/json': { schema: ref(response) },
            'text/event-stream': { schema: { type: 'string' }, itemSchema: ref(chunk) },
          },
        },
        ...refusals(),
      },
    },
  };
}

export function gatewayOpenApiDocument(version: string): Record<string, unknown> {
  const schemas = Object.fromEntries(
    (Object.keys(COMPONENT_SCHEMAS) as GatewayComponentName[]).map((name) => [name, jsonSchema(name)]),
  );
  const plain = (summary: string, description: string) => ({
    get: {
      summary,
      responses: {
        '200': { description, headers: idHeaders },
        '503': problemResponse('Not ready (DEPENDENCY_UNAVAILABLE), with the failing checks.'),
      },
    },
  });
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'LunaNexa gateway',
      version,
      description: `The data plane: OpenAI-compatible chat and completions, the generic ${API_VERSION} workload, and model discovery. Every /v1 call needs \`Authorization: Bearer\` with a gateway key (tenants: aliases only) or an operator token. Errors are problem+json (RFC 9457) with the LunaNexa \`code\` and, on OpenAI paths, the OpenAI \`error\` member; 429 and 503 carry Retry-After.`,
    },
    servers: [{ url: '/' }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A gateway key (lnxk_…) or an operator token.',
        },
      },
      schemas,
    },
    paths: {
      '/health': plain('Liveness', 'The process runs.'),
      '/ready': plain('Readiness', 'Routes and credentials are loaded.'),
      '/metrics': {
        get: {
          summary: 'Prometheus metrics',
          responses: { '200': { description: 'Text exposition format.' } },
        },
      },
      '/openapi.json': {
        get: {
          summary: 'This description',
          responses: { '200': { description: 'OpenAPI 3.1 document.', content: { 'application/json': {} } } },
        },
      },
      '/v1/models': {
        get: {
          summary: 'Models the caller may name: a tenant’s aliases; for operators every alias and version',
          security: [{ bearer: [] }],
          responses: {
            '200': {
              description: 'OpenAI model list.',
              headers: idHeaders,
              content: { 'application/json': { schema: ref('OpenAiModelList') } },
            },
            ...refusals(),
          },
        },
      },
      '/v1/chat/completions': generation(
        'OpenAI-compatible chat completion (`model`: an alias, or `name@version` for operators)',
        'OpenAiChatRequest',
        'OpenAiChatResponse',
        'OpenAiChatChunk',
      ),
      '/v1/completions': generation(
        'OpenAI-compatible text completion',
        'OpenAiCompletionRequest',
        'OpenAiCompletionResponse',
        'OpenAiCompletionChunk',
      ),
      '/v1/workloads': generation(
        `The generic ${API_VERSION} workload (chat or completion), with correlation and priority in the body`,
        'WorkloadRequest',
        'WorkloadResponse',
        'WorkloadStreamChunk',
      ),
    },
  };
}
