import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import {
  API_VERSION,
  DATA_CLASSES,
  ErrorCode,
  LUNANEXA_HEADERS,
  REQUEST_ID_HEADER,
  type DataClass,
} from '@lunanexa/contracts';
import { answerError, jsonBody, type HttpAnswer } from '../api-client';
import { parseInteger, parseModelTarget, parseWholeNumber } from '../arguments';
import { displayUrl, parseBaseUrl, type CommandContext } from '../context';
import { CliError, CliErrorCode, ExitCode, usageError } from '../errors';
import { writeJson } from '../output';
import { SseParser, decodeStreamData, type StreamDialect, type StreamUsage } from '../sse';

export const GATEWAY_URL_ENV = 'LUNANEXA_GATEWAY_URL';
/** Where `npm start` serves the gateway on a developer machine. */
export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:4100';
/** A tenant gateway key (`lnxk_…`) to call with instead of the operator credential. */
export const GATEWAY_KEY_ENV = 'LUNANEXA_GATEWAY_KEY';
export const GATEWAY_KEY_FILE_ENV = 'LUNANEXA_GATEWAY_KEY_FILE';
/**
 * Whole-answer deadline when --timeout is not given. Generation takes far
 * longer than an API call, so the 10 s request default would cut answers off.
 */
export const DEFAULT_INVOKE_TIMEOUT_MS = 120_000;
/**
 * The generic API requires a data class; this is the gateway's own default
 * for unlabelled OpenAI traffic, so both dialects behave the same unless told.
 */
export const DEFAULT_GENERIC_DATA_CLASS: DataClass = 'confidential';

export const INVOKE_APIS = ['openai', 'generic'] as const satisfies readonly StreamDialect[];

export interface InvokeOptions {
  readonly prompt?: string;
  readonly gatewayUrl?: string;
  readonly api?: string;
  readonly maxTokens?: string;
  readonly seed?: string;
  readonly dataClass?: string;
  /** File holding a tenant gateway key; without one the operator credential is used. */
  readonly gatewayKeyFile?: string;
}

export interface InvokeRequest {
  /** The gateway's base URL, as resolved from --gateway-url, the environment or the default. */
  readonly gatewayUrl: URL;
  readonly url: URL;
  readonly dialect: StreamDialect;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

function isDialect(value: string): value is StreamDialect {
  return (INVOKE_APIS as readonly string[]).includes(value);
}

function isDataClass(value: string): value is DataClass {
  return (DATA_CLASSES as readonly string[]).includes(value);
}

/** The HTTP request for one streamed chat answer, in the dialect asked for. */
export function invokeRequest(
  model: string,
  options: InvokeOptions,
  env: Readonly<Record<string, string | undefined>>,
  deadlineMs: number,
  requestId: string,
  userAgent: string,
  credential?: string,
): InvokeRequest {
  const target = parseModelTarget(model);
  if (options.prompt === undefined || options.prompt === '') {
    throw usageError('--prompt "<text>" is required and must not be empty');
  }
  const dialect = options.api ?? 'openai';
  if (!isDialect(dialect)) {
    throw usageError(`--api must be one of ${INVOKE_APIS.join(', ')}, not ${JSON.stringify(dialect)}`);
  }
  if (options.dataClass !== undefined && !isDataClass(options.dataClass)) {
    throw usageError(
      `--data-class must be one of ${DATA_CLASSES.join(', ')}, not ${JSON.stringify(options.dataClass)}`,
    );
  }
  const dataClass = options.dataClass;
  const maxTokens =
    options.maxTokens === undefined ? undefined : parseWholeNumber(options.maxTokens, '--max-tokens', 1);
  const seed = options.seed === undefined ? undefined : parseInteger(options.seed, '--seed');
  const fromEnv = env[GATEWAY_URL_ENV] === '' ? undefined : env[GATEWAY_URL_ENV];
  const base =
    options.gatewayUrl !== undefined
      ? parseBaseUrl(options.gatewayUrl, '--gateway-url', DEFAULT_GATEWAY_URL)
      : fromEnv !== undefined
        ? parseBaseUrl(fromEnv, GATEWAY_URL_ENV, DEFAULT_GATEWAY_URL)
        : parseBaseUrl(DEFAULT_GATEWAY_URL, 'default gateway URL', DEFAULT_GATEWAY_URL);
  const headers: Record<string, string> = {
    accept: 'text/event-stream, application/problem+json;q=0.9, application/json;q=0.8',
    'content-type': 'application/json',
    'user-agent': userAgent,
    [REQUEST_ID_HEADER]: requestId,
  };
  // Every /v1 call needs a credential: a tenant's gateway key, or an operator's own token (model@version).
  if (credential !== undefined) headers['authorization'] = `Bearer ${credential}`;
  const messages = [{ role: 'user', content: options.prompt }];
  if (dialect === 'openai') {
    // The gateway stops work at the same deadline the CLI gives up at.
    headers[LUNANEXA_HEADERS.deadlineMs] = String(deadlineMs);
    if (dataClass !== undefined) headers[LUNANEXA_HEADERS.dataClass] = dataClass;
    return {
      gatewayUrl: base,
      url: new URL('v1/chat/completions', base),
      dialect,
      headers,
      body: {
        model: target,
        messages,
        stream: true,
        stream_options: { include_usage: true },
        ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }),
        ...(seed === undefined ? {} : { seed }),
      },
    };
  }
  return {
    gatewayUrl: base,
    url: new URL('v1/workloads', base),
    dialect,
    headers,
    body: {
      apiVersion: API_VERSION,
      kind: 'chat',
      target: target.includes('@') ? { model: target } : { alias: target },
      messages,
      parameters: {
        ...(maxTokens === undefined ? {} : { maxTokens }),
        ...(seed === undefined ? {} : { seed }),
      },
      stream: true,
      deadlineMs,
      dataClass: dataClass ?? DEFAULT_GENERIC_DATA_CLASS,
    },
  };
}

export interface InvokeResult {
  readonly text: string;
  readonly chunks: number;
  readonly timeToFirstChunkMs: number | null;
  readonly totalMs: number;
  readonly model: string;
  readonly requestId: string;
  readonly finishReason: string | null;
  readonly usage: StreamUsage | null;
}

function elapsed(since: number): number {
  return Math.round((performance.now() - since) * 10) / 10;
}

function unreachableReason(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? cause.message : error.message;
  }
  return String(error);
}

/**
 * Sends the request and reads the event stream, calling `onText` for every
 * piece of text the moment its chunk is decoded. `deadlineMs` covers the
 * whole exchange, first byte to last.
 */
export async function streamInvoke(
  request: InvokeRequest,
  deadlineMs: number,
  onText: (text: string) => void,
  fallbackModel: string,
): Promise<InvokeResult> {
  const started = performance.now();
  const signal = AbortSignal.timeout(deadlineMs);
  const sentId = request.headers[REQUEST_ID_HEADER] ?? '';
  const deadline = (requestId: string, got: string): CliError =>
    new CliError(
      { code: ErrorCode.DEADLINE_EXCEEDED, message: `${got} within ${deadlineMs} ms (--timeout)` },
      requestId,
    );

  let response: Response;
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: JSON.stringify(request.body),
      signal,
      redirect: 'error',
    });
  } catch (error: unknown) {
    if (signal.aborted) throw deadline(sentId, 'no answer from the gateway');
    throw new CliError(
      {
        code: CliErrorCode.API_UNREACHABLE,
        message: `cannot reach the gateway at ${request.url.href}: ${unreachableReason(error)}`,
      },
      sentId,
    );
  }
  const requestId = response.headers.get(REQUEST_ID_HEADER) ?? sentId;
  const contentType = response.headers.get('content-type') ?? '';

  if (response.status !== 200 || !contentType.startsWith('text/event-stream') || response.body === null) {
    let text: string;
    try {
      text = await response.text();
    } catch {
      if (signal.aborted) throw deadline(requestId, 'no complete error answer');
      throw new CliError(
        { code: CliErrorCode.STREAM_INTERRUPTED, message: 'the gateway closed the connection mid-answer' },
        requestId,
      );
    }
    const answer: HttpAnswer = { status: response.status, contentType, text, requestId };
    const stated = answerError(answer, jsonBody(answer));
    if (stated !== undefined) throw stated;
    throw new CliError(
      {
        code: CliErrorCode.BAD_RESPONSE,
        message: `expected an event stream, got ${contentType || 'no content type'} (HTTP ${response.status})`,
      },
      requestId,
    );
  }

  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  let text = '';
  let chunks = 0;
  let firstChunkMs: number | null = null;
  let model: string | null = null;
  let finishReason: string | null = null;
  let usage: StreamUsage | null = null;
  let finished = false;
  /** Takes one event's data; true once the stream has said it is complete. */
  const take = (data: string): boolean => {
    const event = decodeStreamData(request.dialect, data, requestId);
    if (event.kind === 'done') return true;
    if (event.sequence !== null && event.sequence !== chunks) {
      throw new CliError(
        {
          code: CliErrorCode.BAD_RESPONSE,
          message: `stream chunk ${event.sequence} arrived where ${chunks} was expected (chunks were lost)`,
        },
        requestId,
      );
    }
    chunks += 1;
    firstChunkMs ??= elapsed(started);
    model = event.model ?? model;
    finishReason = event.finishReason ?? finishReason;
    usage = event.usage ?? usage;
    if (event.text !== '') {
      text += event.text;
      onText(event.text);
    }
    return event.final;
  };
  try {
    while (!finished) {
      let read: Awaited<ReturnType<typeof reader.read>>;
      try {
        read = await reader.read();
      } catch {
        if (signal.aborted) throw deadline(requestId, `no complete answer (${chunks} chunks so far)`);
        throw new CliError(
          {
            code: CliErrorCode.STREAM_INTERRUPTED,
            message: `the connection to the gateway broke after ${chunks} chunks`,
          },
          requestId,
        );
      }
      let events: string[];
      if (read.done) {
        events = parser.push(decoder.decode()).concat(parser.end());
      } else {
        // fetch types body chunks as `any`; they are bytes.
        const bytes: unknown = read.value;
        if (!(bytes instanceof Uint8Array)) {
          throw new CliError(
            { code: CliErrorCode.BAD_RESPONSE, message: 'the stream body is not bytes' },
            requestId,
          );
        }
        events = parser.push(decoder.decode(bytes, { stream: true }));
      }
      finished = events.some(take);
      if (read.done) break;
    }
  } finally {
    // Frees the connection whether the stream finished, failed or was abandoned.
    await reader.cancel().catch(() => undefined);
  }
  if (!finished) {
    throw new CliError(
      {
        code: CliErrorCode.STREAM_INTERRUPTED,
        message: `the stream ended before its final chunk after ${chunks} chunks; the answer is incomplete`,
      },
      requestId,
    );
  }
  return {
    text,
    chunks,
    timeToFirstChunkMs: firstChunkMs,
    totalMs: elapsed(started),
    model: model ?? fallbackModel,
    requestId,
    finishReason,
    usage,
  };
}

/**
 * The tenant gateway key to call with: `--gateway-key-file`, else
 * LUNANEXA_GATEWAY_KEY, else LUNANEXA_GATEWAY_KEY_FILE; undefined means the
 * operator credential. Never a flag value, like the API token.
 */
export function gatewayCredential(
  options: InvokeOptions,
  env: Readonly<Record<string, string | undefined>>,
  readFile: (path: string) => string = (path) => readFileSync(path, 'utf8'),
): string | undefined {
  const fromFile = (path: string, source: string): string => {
    let text: string;
    try {
      text = readFile(path);
    } catch (error) {
      const reason = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
      throw usageError(`${source} ${JSON.stringify(path)} cannot be read (${reason})`);
    }
    const key = text.trim();
    if (key === '' || /\s/.test(key))
      throw usageError(`${source} ${JSON.stringify(path)} does not hold one key`);
    return key;
  };
  if (options.gatewayKeyFile !== undefined) return fromFile(options.gatewayKeyFile, '--gateway-key-file');
  const inline = env[GATEWAY_KEY_ENV];
  if (inline !== undefined && inline !== '') return inline.trim();
  const file = env[GATEWAY_KEY_FILE_ENV];
  if (file !== undefined && file !== '') return fromFile(file, GATEWAY_KEY_FILE_ENV);
  return undefined;
}

/**
 * `lunanexa invoke`: streams one chat answer from the gateway. Text mode
 * writes every token to stdout as its chunk arrives (a person watching sees
 * the answer being generated); --json prints one document at the end.
 */
export async function invokeCommand(
  ctx: CommandContext,
  model: string,
  options: InvokeOptions,
): Promise<ExitCode> {
  const deadlineMs = ctx.timeoutMs ?? DEFAULT_INVOKE_TIMEOUT_MS;
  const request = invokeRequest(
    model,
    options,
    ctx.io.env,
    deadlineMs,
    randomUUID(),
    `lunanexa-cli/${ctx.cliVersion}`,
    gatewayCredential(options, ctx.io.env) ?? ctx.bearer,
  );
  let wroteText = false;
  const onText = (text: string): void => {
    if (ctx.json) return;
    ctx.io.stdout(text);
    wroteText = true;
  };
  let result: InvokeResult;
  try {
    result = await streamInvoke(request, deadlineMs, onText, model);
  } catch (error: unknown) {
    // End the partial answer's line so the error starts on a line of its own.
    if (wroteText) ctx.io.stdout('\n');
    throw error;
  }
  if (ctx.json) {
    writeJson(ctx.io.stdout, { ...result, gatewayUrl: displayUrl(request.gatewayUrl) });
  } else {
    ctx.io.stdout('\n');
  }
  return ExitCode.OK;
}
