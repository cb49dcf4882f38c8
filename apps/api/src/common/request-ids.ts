import type { IncomingMessage, ServerResponse } from 'node:http';
import { AGENT_HTTP_PATHS } from '@lunanexa/agent-protocol';
import {
  SpanKind,
  endSpan,
  extractContext,
  idsWithSpan,
  otelContext,
  otelTrace,
  resolveRequestIds,
  responseIdHeaders,
  tracer,
  tracingEnabled,
  type RequestIds,
} from '@lunanexa/observability';

const IDS = Symbol('lunanexa.requestIds');

type WithIds = IncomingMessage & { [IDS]?: RequestIds };

/**
 * Requests that get a server span: the POSTs that do work (GraphQL, enrollment,
 * the playground). Probes, scrapes, static files and heartbeats (one per node
 * every few seconds) would bury the traces that matter.
 */
function traced(req: IncomingMessage): boolean {
  if (req.method !== 'POST') return false;
  const path = (req.url ?? '/').split('?', 1)[0];
  return path !== AGENT_HTTP_PATHS.heartbeat;
}

/**
 * Middleware: resolves request/correlation/trace ids once and echoes them on
 * the response. With tracing on, a traced request runs inside a server span
 * whose parent is the caller's `traceparent`; the echoed traceparent then
 * names that span, and everything downstream (GraphQL, Temporal) is its child.
 */
export function requestIdsMiddleware(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  let ids = resolveRequestIds(req.headers);
  if (!tracingEnabled() || !traced(req)) {
    (req as WithIds)[IDS] = ids;
    for (const [name, value] of Object.entries(responseIdHeaders(ids))) res.setHeader(name, value);
    next();
    return;
  }
  const path = (req.url ?? '/').split('?', 1)[0] ?? '/';
  const span = tracer().startSpan(
    `${req.method ?? 'POST'} ${path}`,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '', 'url.path': path } },
    extractContext(req.headers),
  );
  ids = idsWithSpan(ids, span);
  (req as WithIds)[IDS] = ids;
  for (const [name, value] of Object.entries(responseIdHeaders(ids))) res.setHeader(name, value);
  res.once('close', () => {
    span.setAttribute('http.response.status_code', res.statusCode);
    endSpan(span, res.statusCode >= 500 ? new Error(`HTTP ${res.statusCode}`) : undefined);
  });
  const active = otelTrace.setSpan(otelContext.active(), span);
  // Body parsing and Apollo continue from the request's events: bind them, or they would run outside the span.
  otelContext.bind(active, req);
  otelContext.bind(active, res);
  otelContext.with(active, next);
}

export function requestIdsOf(req: IncomingMessage): RequestIds {
  const ids = (req as WithIds)[IDS];
  // Requests reach handlers only through the middleware; resolve lazily for safety.
  return ids ?? resolveRequestIds(req.headers);
}
