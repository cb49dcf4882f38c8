import { Injectable, InjectionToken, inject } from '@angular/core';
import { CORRELATION_ID_HEADER, REQUEST_ID_HEADER, isOpaqueId } from '@lunanexa/contracts/correlation';
import type { FieldViolation } from '@lunanexa/contracts/errors';

import { GraphqlRequestError, TransportErrorCode } from '../../shared/graphql/graphql-error';
import { randomId } from '../../shared/graphql/random-id';
import { Session, refusesCredential } from '../../shared/session/session';
import { SseDataParser } from './sse';

/** The API's playground endpoint (HTTP, not GraphQL), on the console's origin; override it only in tests. */
export const PLAYGROUND_CHAT_ENDPOINT = new InjectionToken<string>('PLAYGROUND_CHAT_ENDPOINT', {
  providedIn: 'root',
  factory: () => '/console/v1/playground/chat',
});

/** How long to wait for the response to start; the stream itself may then take as long as it takes. */
const RESPONSE_TIMEOUT_MS = 30_000;

export const MAX_TOKENS_LIMIT = 4096;
export const DEFAULT_MAX_TOKENS = 128;

export interface PlaygroundMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

/** The endpoint's body: a deployment by name or id, the conversation, and sampling limits. */
export interface PlaygroundChatRequest {
  readonly deployment: string;
  readonly messages: readonly PlaygroundMessage[];
  readonly maxTokens: number;
  readonly seed?: number;
}

export interface PlaygroundIds {
  readonly requestId: string;
  readonly correlationId: string;
}

export interface PlaygroundHandlers {
  /** The call's ids: first the ones sent, then the ones the API echoed (what its records carry). */
  readonly onIds: (ids: PlaygroundIds) => void;
  /** Each piece of reply text, as it arrives. */
  readonly onDelta: (text: string) => void;
}

export interface PlaygroundOutcome extends PlaygroundIds {
  /** Completion tokens as the gateway counted them; null when the stream did not report usage. */
  readonly completionTokens: number | null;
  /** Why generation stopped (`stop`, `length`), when the stream said. */
  readonly finishReason: string | null;
}

/**
 * Streams one chat completion through the API's playground endpoint: the
 * session token authenticates it, a fresh request id and correlation id name
 * it (so it can be found in the request list), and the reply arrives as
 * OpenAI chat-completion chunks over server-sent events.
 *
 * Every failure rejects with a {@link GraphqlRequestError} (the console's one
 * error type, whatever the transport) carrying the code and both ids; a
 * cancellation through `signal` rejects with the abort reason instead.
 */
@Injectable({ providedIn: 'root' })
export class PlaygroundClient {
  private readonly endpoint = inject(PLAYGROUND_CHAT_ENDPOINT);
  private readonly session = inject(Session);

  async chat(
    request: PlaygroundChatRequest,
    handlers: PlaygroundHandlers,
    signal: AbortSignal,
  ): Promise<PlaygroundOutcome> {
    const bearer = this.session.accessToken();
    let ids: PlaygroundIds = { requestId: randomId(), correlationId: randomId() };
    handlers.onIds(ids);

    const waiting = new AbortController();
    const timer = setTimeout(() => waiting.abort(), RESPONSE_TIMEOUT_MS);
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream, application/problem+json',
          [REQUEST_ID_HEADER]: ids.requestId,
          [CORRELATION_ID_HEADER]: ids.correlationId,
          ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        },
        body: JSON.stringify(request),
        signal: AbortSignal.any([signal, waiting.signal]),
      });
    } catch (cause: unknown) {
      if (signal.aborted) {
        throw signal.reason ?? cause;
      }
      throw new GraphqlRequestError({
        code: TransportErrorCode.API_UNREACHABLE,
        message: waiting.signal.aborted
          ? `The API did not start answering within ${RESPONSE_TIMEOUT_MS / 1000} s.`
          : 'The API could not be reached. Check that the API process is running and the network path to it.',
        ...ids,
      });
    } finally {
      clearTimeout(timer);
    }

    ids = {
      requestId: echoed(response.headers.get(REQUEST_ID_HEADER)) ?? ids.requestId,
      correlationId: echoed(response.headers.get(CORRELATION_ID_HEADER)) ?? ids.correlationId,
    };
    handlers.onIds(ids);

    const eventStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
    if (!response.ok || !eventStream || response.body === null) {
      const error = await problemError(response, ids);
      if (bearer !== undefined && refusesCredential(error.code)) {
        this.session.refused(bearer, error.code);
      }
      throw error;
    }
    return readStream(response.body, response.status, ids, handlers, signal);
  }
}

async function readStream(
  body: ReadableStream<Uint8Array>,
  httpStatus: number,
  ids: PlaygroundIds,
  handlers: PlaygroundHandlers,
  signal: AbortSignal,
): Promise<PlaygroundOutcome> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseDataParser();
  let completionTokens: number | null = null;
  let finishReason: string | null = null;
  let done = false;
  try {
    while (!done) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch (cause: unknown) {
        if (signal.aborted) {
          throw signal.reason ?? cause;
        }
        throw new GraphqlRequestError({
          code: TransportErrorCode.API_UNREACHABLE,
          message: 'The reply stream broke off before it was complete.',
          httpStatus,
          ...ids,
        });
      }
      if (read.done) {
        break;
      }
      for (const data of parser.push(decoder.decode(read.value, { stream: true }))) {
        if (data === '[DONE]') {
          done = true;
          break;
        }
        const chunk = asRecord(parseJson(data));
        const error = asRecord(chunk?.['error']);
        if (error !== undefined) {
          // An error after the stream started: the status line (200) was already sent.
          throw new GraphqlRequestError({
            code: text(error['code'])?.toUpperCase() ?? 'UPSTREAM_FAILED',
            message: text(error['message']) ?? 'The reply stream reported an error without a message.',
            httpStatus,
            ...ids,
          });
        }
        const choices = chunk?.['choices'];
        const choice = Array.isArray(choices) ? asRecord(choices[0]) : undefined;
        const content = asRecord(choice?.['delta'])?.['content'];
        if (typeof content === 'string' && content.length > 0) {
          handlers.onDelta(content);
        }
        finishReason = text(choice?.['finish_reason']) ?? finishReason;
        const tokens = asRecord(chunk?.['usage'])?.['completion_tokens'];
        if (typeof tokens === 'number') {
          completionTokens = tokens;
        }
      }
    }
  } finally {
    // After [DONE] there is nothing more to read; after a failure nothing more is wanted.
    reader.cancel().catch(() => undefined);
  }
  if (!done) {
    throw new GraphqlRequestError({
      code: TransportErrorCode.UNEXPECTED_RESPONSE,
      message: 'The reply stream ended without its closing [DONE] line; the reply may be incomplete.',
      httpStatus,
      ...ids,
    });
  }
  return { ...ids, completionTokens, finishReason };
}

/** A failure before streaming, from its problem+json body (RFC 9457) where there is one. */
async function problemError(response: Response, ids: PlaygroundIds): Promise<GraphqlRequestError> {
  let body: Record<string, unknown> | undefined;
  try {
    body = asRecord(parseJson(await response.text()));
  } catch {
    body = undefined;
  }
  // 502/503/504 without a problem body come from whatever sits in front of the API when the API is down.
  const gatewayFailure = [502, 503, 504].includes(response.status);
  const status = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
  const fallbackCode =
    !response.ok && gatewayFailure
      ? TransportErrorCode.API_UNREACHABLE
      : TransportErrorCode.UNEXPECTED_RESPONSE;
  const fallbackMessage = response.ok
    ? `${status}: the answer was not an event stream.`
    : `${status}: the answer was not a problem report.`;
  return new GraphqlRequestError({
    code: text(body?.['code']) ?? fallbackCode,
    message: text(body?.['detail']) ?? text(body?.['title']) ?? fallbackMessage,
    requestId: echoed(body?.['requestId']) ?? ids.requestId,
    correlationId: echoed(body?.['correlationId']) ?? ids.correlationId,
    httpStatus: response.status,
    violations: violationsOf(body?.['violations'] ?? body?.['errors']),
  });
}

function violationsOf(value: unknown): FieldViolation[] {
  if (!Array.isArray(value)) {
    return [];
  }
  return value.flatMap((item: unknown) => {
    const violation = asRecord(item);
    const path = violation?.['path'];
    const message = violation?.['message'];
    return typeof path === 'string' && typeof message === 'string' ? [{ path, message }] : [];
  });
}

function echoed(value: unknown): string | undefined {
  return isOpaqueId(value) ? value : undefined;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function parseJson(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
