import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One registry per process with default process metrics and the HTTP metrics
 * every LunaNexa server exposes. Labels are bounded: `route` is the matched
 * route template (never the raw path), `status` is the numeric status code.
 */
export interface ServiceMetrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'service' | 'route' | 'method' | 'status'>;
  readonly httpDuration: Histogram<'service' | 'route' | 'method'>;
  readonly buildInfo: { set(labels: { service: string; version: string; commit: string }): void };
}

export function createServiceMetrics(
  service: string,
  info: { version: string; commit: string },
): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'lunanexa_' });
  const httpRequests = new Counter({
    name: 'lunanexa_http_requests_total',
    help: 'HTTP requests served, by matched route and status code.',
    labelNames: ['service', 'route', 'method', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'lunanexa_http_request_duration_seconds',
    help: 'HTTP request duration until the response finished.',
    labelNames: ['service', 'route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const build = new Counter({
    name: 'lunanexa_build_info',
    help: 'Constant 1, labelled with the running build.',
    labelNames: ['service', 'version', 'commit'] as const,
    registers: [registry],
  });
  build.inc({ service, version: info.version, commit: info.commit });
  return {
    registry,
    httpRequests,
    httpDuration,
    buildInfo: { set: (labels) => build.inc(labels, 0) },
  };
}

/** Routes outside the known set are reported under one label to keep cardinality bounded. */
export const UNMATCHED_ROUTE = '(unmatched)';
