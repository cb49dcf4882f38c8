import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  CORRELATION_ID_HEADER,
  REQUEST_ID_HEADER,
  TRACEPARENT_HEADER,
  TRACEPARENT_PATTERN,
  isOpaqueId,
} from '@lunanexa/contracts';

/** The identity of one request as it travels through logs, workflows and receipts. */
export interface RequestIds {
  readonly requestId: string;
  readonly correlationId: string;
  readonly traceparent: string;
  readonly traceId: string;
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name];
  return Array.isArray(raw) ? raw[0] : raw;
}

function newTraceparent(): string {
  return `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
}

/**
 * Accepts caller-supplied ids when they are well formed and generates them
 * otherwise. A malformed id is replaced rather than rejected: ids are for
 * investigation, and refusing a request because of one would be hostile.
 * The correlation id defaults to the request id so a single call is its own flow.
 */
export function resolveRequestIds(headers: IncomingHttpHeaders): RequestIds {
  const suppliedRequestId = headerValue(headers, REQUEST_ID_HEADER);
  const requestId = isOpaqueId(suppliedRequestId) ? suppliedRequestId : randomUUID();
  const suppliedCorrelationId = headerValue(headers, CORRELATION_ID_HEADER);
  const correlationId = isOpaqueId(suppliedCorrelationId) ? suppliedCorrelationId : requestId;
  const suppliedTraceparent = headerValue(headers, TRACEPARENT_HEADER);
  const traceparent =
    suppliedTraceparent !== undefined && TRACEPARENT_PATTERN.test(suppliedTraceparent)
      ? suppliedTraceparent
      : newTraceparent();
  const traceId = TRACEPARENT_PATTERN.exec(traceparent)?.[1] ?? '';
  return { requestId, correlationId, traceparent, traceId };
}

/** Headers to echo on every response. */
export function responseIdHeaders(ids: RequestIds): Record<string, string> {
  return {
    [REQUEST_ID_HEADER]: ids.requestId,
    [CORRELATION_ID_HEADER]: ids.correlationId,
    [TRACEPARENT_HEADER]: ids.traceparent,
  };
}
