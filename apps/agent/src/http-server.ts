import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ErrorCode, LunaNexaError, PROBLEM_CONTENT_TYPE } from '@lunanexa/contracts';
import {
  UNMATCHED_ROUTE,
  resolveRequestIds,
  responseIdHeaders,
  type Logger,
  type RequestIds,
} from '@lunanexa/observability';
import type { AgentHealth } from './health';
import type { AgentMetrics } from './metrics';

export const AGENT_SERVICE = 'agent';

/**
 * The agent's local HTTP surface: health and metrics, read-only. It has no
 * route that changes anything or runs anything on the node; control arrives
 * only over the authenticated southbound channel.
 */
export function createAgentHttpServer(deps: {
  readonly health: () => AgentHealth;
  readonly metrics: AgentMetrics;
  readonly logger: Logger;
}): Server {
  const routes: ReadonlyMap<string, (res: ServerResponse) => void | Promise<void>> = new Map([
    [
      '/health',
      (res: ServerResponse) => {
        sendJson(res, 200, deps.health());
      },
    ],
    [
      '/metrics',
      async (res: ServerResponse) => {
        const body = await deps.metrics.registry.metrics();
        res.writeHead(200, { 'content-type': deps.metrics.registry.contentType });
        res.end(body);
      },
    ],
  ]);

  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const startedAt = process.hrtime.bigint();
    const ids = resolveRequestIds(req.headers);
    for (const [name, value] of Object.entries(responseIdHeaders(ids))) res.setHeader(name, value);
    // The base only lets URL parse a path; the host header is never trusted or used.
    const path = new URL(req.url ?? '/', 'http://agent.invalid').pathname;
    const handler = routes.get(path);
    const readOnly = req.method === 'GET' || req.method === 'HEAD';
    const route = handler === undefined ? UNMATCHED_ROUTE : path;
    const method = req.method ?? 'UNKNOWN';

    res.on('finish', () => {
      const labels = { service: AGENT_SERVICE, route, method };
      deps.metrics.httpRequests.inc({ ...labels, status: String(res.statusCode) });
      deps.metrics.httpDuration.observe(labels, Number(process.hrtime.bigint() - startedAt) / 1e9);
    });

    if (handler === undefined) {
      sendProblem(res, new LunaNexaError(ErrorCode.NOT_FOUND, `no route for ${path}`), ids, path);
      return;
    }
    if (!readOnly) {
      res.setHeader('allow', 'GET, HEAD');
      sendProblem(
        res,
        new LunaNexaError(ErrorCode.METHOD_NOT_ALLOWED, `${path} is read-only; use GET`),
        ids,
        path,
      );
      return;
    }
    // Through a promise so a synchronous throw and a rejected scrape end the same way.
    Promise.resolve()
      .then(() => handler(res))
      .catch((error: unknown) => {
        deps.logger.error({ err: error, request_id: ids.requestId, route }, 'agent http handler failed');
        if (!res.headersSent)
          sendProblem(res, new LunaNexaError(ErrorCode.INTERNAL, 'internal error'), ids, path);
        else res.destroy();
      });
  });
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  contentType = 'application/json',
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': `${contentType}; charset=utf-8`,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function sendProblem(res: ServerResponse, error: LunaNexaError, ids: RequestIds, instance: string): void {
  const problem = error.toProblem({ instance, requestId: ids.requestId, correlationId: ids.correlationId });
  sendJson(res, problem.status, problem, PROBLEM_CONTENT_TYPE);
}
