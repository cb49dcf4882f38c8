import { randomUUID } from 'node:crypto';
import {
  FieldViolationSchema,
  PROBLEM_CONTENT_TYPE,
  ProblemDetailsSchema,
  REQUEST_ID_HEADER,
  type FieldViolation,
} from '@lunanexa/contracts';
import { z } from 'zod';
import { CliError, CliErrorCode, type ErrorDetail } from './errors';

/** One HTTP exchange as the CLI saw it. */
export interface HttpAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** The id the API logged the call under (its echo), else the one the CLI sent. */
  readonly requestId: string;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
}

export interface Answered<T> {
  readonly data: T;
  readonly requestId: string;
}

/**
 * The contract's problem shape, read tolerantly: a code this CLI does not know
 * yet (added by a newer API) and extra members (e.g. `checks` on /ready) are
 * allowed, since both are compatible changes under the contract rules.
 */
const ProblemSchema = ProblemDetailsSchema.pick({
  type: true,
  title: true,
  status: true,
  detail: true,
  requestId: true,
  violations: true,
})
  .extend({ code: z.string().min(1) })
  .loose();

const GraphQLErrorSchema = z.object({
  message: z.string(),
  extensions: z
    .object({
      code: z.string().optional(),
      violations: z.array(FieldViolationSchema).optional(),
    })
    .optional(),
});

const GraphQLResponseSchema = z.object({
  data: z.unknown().optional(),
  errors: z.array(GraphQLErrorSchema).optional(),
});

/** At most this much of a non-JSON body goes into an error message. */
const SNIPPET_LENGTH = 200;

function snippet(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > SNIPPET_LENGTH ? `${oneLine.slice(0, SNIPPET_LENGTH)}…` : oneLine;
}

function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

function withViolations(
  detail: Omit<ErrorDetail, 'violations'>,
  violations: readonly FieldViolation[] | undefined,
): ErrorDetail {
  return violations !== undefined && violations.length > 0 ? { ...detail, violations } : detail;
}

/** JSON body of an answer; a body that is not JSON is an error saying what came back instead. */
export function jsonBody(answer: HttpAnswer): unknown {
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    if (isSuccess(answer.status)) {
      throw new CliError(
        {
          code: CliErrorCode.BAD_RESPONSE,
          message: `expected JSON, got ${answer.contentType || 'no content type'}: ${snippet(answer.text)}`,
        },
        answer.requestId,
      );
    }
    const body = snippet(answer.text);
    throw new CliError(
      { code: `HTTP_${answer.status}`, message: body === '' ? `HTTP ${answer.status}` : body },
      answer.requestId,
    );
  }
}

/**
 * The error an RFC 9457 problem body states, if the body is one. Recognised by
 * content type or by shape, because proxies sometimes rewrite content types.
 */
export function problemError(answer: HttpAnswer, body: unknown): CliError | undefined {
  const declared = answer.contentType.startsWith(PROBLEM_CONTENT_TYPE);
  if (!declared && isSuccess(answer.status)) return undefined;
  const parsed = ProblemSchema.safeParse(body);
  if (!parsed.success) {
    if (declared) {
      return new CliError(
        { code: CliErrorCode.BAD_RESPONSE, message: `malformed problem+json (HTTP ${answer.status})` },
        answer.requestId,
      );
    }
    return undefined;
  }
  const problem = parsed.data;
  return new CliError(
    withViolations({ code: problem.code, message: problem.detail ?? problem.title }, problem.violations),
    answer.requestId,
  );
}

/** The errors a GraphQL response body states, if any; every error is kept, in order. */
export function graphqlError(answer: HttpAnswer, body: unknown): CliError | undefined {
  const parsed = GraphQLResponseSchema.safeParse(body);
  if (!parsed.success) return undefined;
  const [first, ...rest] = parsed.data.errors ?? [];
  if (first === undefined) return undefined;
  const toDetail = (error: z.infer<typeof GraphQLErrorSchema>): ErrorDetail =>
    withViolations(
      { code: error.extensions?.code ?? CliErrorCode.GRAPHQL_ERROR, message: error.message },
      error.extensions?.violations,
    );
  return new CliError([toDetail(first), ...rest.map(toDetail)], answer.requestId);
}

/** Any failure an answer states, GraphQL or problem+json or bare HTTP status; undefined for success. */
export function answerError(answer: HttpAnswer, body: unknown): CliError | undefined {
  const stated = problemError(answer, body) ?? graphqlError(answer, body);
  if (stated !== undefined) return stated;
  if (!isSuccess(answer.status)) {
    return new CliError(
      { code: `HTTP_${answer.status}`, message: `HTTP ${answer.status} without a LunaNexa error body` },
      answer.requestId,
    );
  }
  return undefined;
}

function badShape(answer: HttpAnswer, what: string, error: z.ZodError): CliError {
  const first = error.issues[0];
  const where =
    first === undefined ? '' : `${first.path.map(String).join('.') || '(root)'}: ${first.message}`;
  return new CliError(
    { code: CliErrorCode.BAD_RESPONSE, message: `${what} has an unexpected shape (${where})` },
    answer.requestId,
  );
}

/**
 * The CLI's only way to reach the API. Every call carries a fresh
 * x-request-id so each line an operator pastes into a ticket identifies one
 * request in the API's logs.
 */
export class ApiClient {
  constructor(
    readonly baseUrl: URL,
    private readonly options: {
      readonly timeoutMs: number;
      readonly userAgent: string;
      readonly newRequestId?: () => string;
      /** API token or session token; sent as `Authorization: Bearer`, never printed. */
      readonly bearer?: string | undefined;
    },
  ) {}

  endpoint(path: string): URL {
    return new URL(path, this.baseUrl);
  }

  /**
   * Sends one request; only a missing answer throws (API_UNREACHABLE).
   * `timeoutMs` overrides the client's timeout for calls the API answers only
   * when a workflow has finished.
   */
  async request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    options: RequestOptions = {},
  ): Promise<HttpAnswer> {
    const url = this.endpoint(path);
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const requestId = (this.options.newRequestId ?? randomUUID)();
    const headers: Record<string, string> = {
      accept: 'application/graphql-response+json, application/json;q=0.9, application/problem+json;q=0.8',
      'user-agent': this.options.userAgent,
      [REQUEST_ID_HEADER]: requestId,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.bearer !== undefined) headers['authorization'] = `Bearer ${this.options.bearer}`;
    try {
      const response = await fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
      const text = await response.text();
      return {
        status: response.status,
        contentType: response.headers.get('content-type') ?? '',
        text,
        requestId: response.headers.get(REQUEST_ID_HEADER) ?? requestId,
      };
    } catch (error: unknown) {
      throw new CliError(
        {
          code: CliErrorCode.API_UNREACHABLE,
          message: `cannot reach ${url.href}: ${unreachableReason(error, timeoutMs)}`,
        },
        requestId,
      );
    }
  }

  async graphql<T>(
    query: string,
    variables: Record<string, unknown> | undefined,
    schema: z.ZodType<T>,
    options: RequestOptions = {},
  ): Promise<Answered<T>> {
    const answer = await this.request(
      'POST',
      'graphql',
      { query, ...(variables === undefined ? {} : { variables }) },
      options,
    );
    const body = jsonBody(answer);
    const error = answerError(answer, body);
    if (error !== undefined) throw error;
    const envelope = GraphQLResponseSchema.safeParse(body);
    if (!envelope.success) throw badShape(answer, 'GraphQL response', envelope.error);
    const data = schema.safeParse(envelope.data.data);
    if (!data.success) throw badShape(answer, 'GraphQL data', data.error);
    return { data: data.data, requestId: answer.requestId };
  }

  /**
   * GETs a file (an evidence bundle): its bytes on success, the error the
   * answer states otherwise (problem+json, or the bare HTTP status).
   */
  async download(
    path: string,
    accept: string,
    options: RequestOptions = {},
  ): Promise<{ bytes: Buffer; contentType: string; fileName: string | null; requestId: string }> {
    const url = this.endpoint(path);
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    const requestId = (this.options.newRequestId ?? randomUUID)();
    const headers: Record<string, string> = {
      accept: `${accept}, application/problem+json;q=0.8`,
      'user-agent': this.options.userAgent,
      [REQUEST_ID_HEADER]: requestId,
    };
    if (this.options.bearer !== undefined) headers['authorization'] = `Bearer ${this.options.bearer}`;
    let response: Response;
    let bytes: Buffer;
    try {
      response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
      bytes = Buffer.from(await response.arrayBuffer());
    } catch (error: unknown) {
      throw new CliError(
        {
          code: CliErrorCode.API_UNREACHABLE,
          message: `cannot reach ${url.href}: ${unreachableReason(error, timeoutMs)}`,
        },
        requestId,
      );
    }
    const answer: HttpAnswer = {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      text: '',
      requestId: response.headers.get(REQUEST_ID_HEADER) ?? requestId,
    };
    if (!isSuccess(answer.status) || answer.contentType.startsWith(PROBLEM_CONTENT_TYPE)) {
      const text = bytes.toString('utf8');
      const failed = { ...answer, text };
      let body: unknown;
      try {
        body = JSON.parse(text) as unknown;
      } catch {
        body = undefined;
      }
      throw (
        answerError(failed, body) ??
        new CliError({ code: `HTTP_${answer.status}`, message: `HTTP ${answer.status}` }, answer.requestId)
      );
    }
    if (!answer.contentType.startsWith(accept)) {
      throw new CliError(
        {
          code: CliErrorCode.BAD_RESPONSE,
          message: `expected ${accept}, got ${answer.contentType || 'no content type'}`,
        },
        answer.requestId,
      );
    }
    const disposition = /filename="([^"/\\]+)"/.exec(response.headers.get('content-disposition') ?? '');
    return {
      bytes,
      contentType: answer.contentType,
      fileName: disposition?.[1] ?? null,
      requestId: answer.requestId,
    };
  }

  async getJson<T>(path: string, schema: z.ZodType<T>): Promise<Answered<T>> {
    const answer = await this.request('GET', path);
    const body = jsonBody(answer);
    const error = answerError(answer, body);
    if (error !== undefined) throw error;
    const data = schema.safeParse(body);
    if (!data.success) throw badShape(answer, `GET /${path}`, data.error);
    return { data: data.data, requestId: answer.requestId };
  }
}

/**
 * fetch wraps the interesting part (ECONNREFUSED, ENOTFOUND, certificate
 * errors) in `cause`; a timeout is an AbortSignal TimeoutError.
 */
function unreachableReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Error) return cause.message;
    return error.message;
  }
  return String(error);
}
