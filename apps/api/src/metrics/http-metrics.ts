import type { IncomingMessage, ServerResponse } from 'node:http';
import { AGENT_HTTP_PATHS } from '@lunanexa/agent-protocol';
import { UNMATCHED_ROUTE, type ServiceMetrics } from '@lunanexa/observability';

/**
 * Route labels are this fixed set, so a scan of random paths cannot explode
 * cardinality. The agent endpoints are in it so heartbeat ingest time is a
 * series of its own (what `bench:scale` reads, and what to alert on at fleet scale).
 */
const KNOWN_ROUTES = new Set([
  '/graphql',
  '/health',
  '/ready',
  '/metrics',
  '/version',
  AGENT_HTTP_PATHS.enroll,
  AGENT_HTTP_PATHS.heartbeat,
]);

export function routeLabel(url: string | undefined, consoleServed: boolean): string {
  const path = (url ?? '/').split('?')[0] ?? '/';
  if (KNOWN_ROUTES.has(path)) return path;
  return consoleServed ? 'console' : UNMATCHED_ROUTE;
}

export function httpMetricsMiddleware(metrics: ServiceMetrics, consoleServed: boolean) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const started = process.hrtime.bigint();
    // Labelled now: routers mounted on a prefix rewrite req.url before the response finishes.
    const route = routeLabel(req.url, consoleServed);
    const method = req.method ?? 'GET';
    res.on('finish', () => {
      metrics.httpRequests.inc({ service: 'api', route, method, status: String(res.statusCode) });
      metrics.httpDuration.observe(
        { service: 'api', route, method },
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    next();
  };
}
