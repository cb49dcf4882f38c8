import { randomFillSync, randomUUID } from 'node:crypto';
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

/**
 * Random bytes for trace and span ids, drawn from a pool refilled in one
 * call: a crypto call per id costs more than the rest of a gateway request.
 */
const POOL_BYTES = 24 * 256;
const pool = Buffer.alloc(POOL_BYTES);
let poolOffset = POOL_BYTES;

function newTraceIds(): { traceparent: string; traceId: string } {
  if (poolOffset + 24 > POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const traceId = pool.toString('hex', poolOffset, poolOffset + 16);
  const spanId = pool.toString('hex', poolOffset + 16, poolOffset + 24);
  poolOffset += 24;
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId };
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
  const supplied = suppliedTraceparent === undefined ? null : TRACEPARENT_PATTERN.exec(suppliedTraceparent);
  if (supplied !== null && suppliedTraceparent !== undefined)
    return { requestId, correlationId, traceparent: suppliedTraceparent, traceId: supplied[1] ?? '' };
  return { requestId, correlationId, ...newTraceIds() };
}

/** Headers to echo on every response. */
export function responseIdHeaders(ids: RequestIds): Record<string, string> {
  return {
    [REQUEST_ID_HEADER]: ids.requestId,
    [CORRELATION_ID_HEADER]: ids.correlationId,
    [TRACEPARENT_HEADER]: ids.traceparent,
  };
}
