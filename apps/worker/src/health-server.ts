import { createServer, type Server } from 'node:http';
import { resolveRequestIds, responseIdHeaders, type BuildInfo } from '@lunanexa/observability';
import { ErrorCode, LunaNexaError, PROBLEM_CONTENT_TYPE } from '@lunanexa/contracts';
import type { Worker } from '@temporalio/worker';
import type { WorkerMetrics } from './metrics';

/**
 * The worker has no API of its own; this small server lets the launcher,
 * systemd and Prometheus see whether it is polling.
 */
export function createWorkerHealthServer(worker: Worker, build: BuildInfo, metrics: WorkerMetrics): Server {
  return createServer((req, res) => {
    const ids = resolveRequestIds(req.headers);
    for (const [k, v] of Object.entries(responseIdHeaders(ids))) res.setHeader(k, v);
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'ok', ...build }));
      return;
    }
    if (req.method === 'GET' && path === '/ready') {
      const state = worker.getState();
      if (state === 'RUNNING') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ status: 'ready', state }));
      } else {
        const problem = new LunaNexaError(ErrorCode.DEPENDENCY_UNAVAILABLE, `worker is ${state}`).toProblem({
          requestId: ids.requestId,
          correlationId: ids.correlationId,
        });
        res.writeHead(503, { 'content-type': PROBLEM_CONTENT_TYPE }).end(JSON.stringify(problem));
      }
      return;
    }
    if (req.method === 'GET' && path === '/metrics') {
      metrics.registry
        .metrics()
        .then((body) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(body))
        .catch(() => res.writeHead(500).end());
      return;
    }
    const problem = new LunaNexaError(
      ErrorCode.NOT_FOUND,
      `no route ${req.method ?? ''} ${path ?? ''}`,
    ).toProblem({
      requestId: ids.requestId,
      correlationId: ids.correlationId,
    });
    res.writeHead(404, { 'content-type': PROBLEM_CONTENT_TYPE }).end(JSON.stringify(problem));
  });
}
