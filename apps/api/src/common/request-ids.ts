import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolveRequestIds, responseIdHeaders, type RequestIds } from '@lunanexa/observability';

const IDS = Symbol('lunanexa.requestIds');

type WithIds = IncomingMessage & { [IDS]?: RequestIds };

/** Middleware: resolves request/correlation/trace ids once and echoes them on the response. */
export function requestIdsMiddleware(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  const ids = resolveRequestIds(req.headers);
  (req as WithIds)[IDS] = ids;
  for (const [name, value] of Object.entries(responseIdHeaders(ids))) res.setHeader(name, value);
  next();
}

export function requestIdsOf(req: IncomingMessage): RequestIds {
  const ids = (req as WithIds)[IDS];
  // Requests reach handlers only through the middleware; resolve lazily for safety.
  return ids ?? resolveRequestIds(req.headers);
}
