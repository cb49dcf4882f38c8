import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type DataClass,
  CORRELATION_ID_HEADER,
  ErrorCode,
  HTTP_STATUS_BY_CODE,
  LunaNexaError,
  MODEL_CAPABILITIES,
  type ModelDiscovery,
  OPENAI_MODEL_OWNER,
  REQUEST_ID_HEADER,
  TRACEPARENT_HEADER,
  type OpenAiModelList,
  type WorkloadTarget,
  captureDecision,
  gatewayOpenApiDocument,
  unixSeconds,
} from '@lunanexa/contracts';
import type { Counter, Histogram } from 'prom-client';
import {
  UNMATCHED_ROUTE,
  resolveRequestIds,
  type BuildInfo,
  type Logger,
  type RequestIds,
  SpanKind,
  endSpan,
  extractContext,
  idsWithSpan,
  otelContext,
  otelTrace,
  tracer,
  tracingEnabled,
  keepIdleConnectionsOpen,
} from '@lunanexa/observability';
import type { AccessLogMode } from './access-log';
import { clampPriority, countsAsServingFailure, RecentOutcomes, servingHealth } from '@lunanexa/domain';
import { AdmissionController, type AdmissionLimits, deploymentGroupKey, refGroupKey } from './admission';
import {
  AuthRefusal,
  type Caller,
  CallerAuthenticator,
  authorizeTarget,
  tenantOf,
  visibleTo,
} from './callers';
import { GATEWAY_SERVICE } from './config';
import type { CredentialTable } from './credential-table';
import type { DataPolicyTable } from './data-policy-table';
import { closeWithoutReadingBody, readJsonBody, sendJson, sendProblem } from './http';
import { createGatewayMetrics, type GatewayMetrics } from './metrics';
import { type PayloadCaptureSink, payloadCaptureOf, redactedError } from './payload-capture';
import type { RequestLog, RequestRecord } from './request-log';
import type { RouteModel, RouteTable } from './route-table';
import { RetryLaterError, type TenantQuotaGate, TenantQuotas } from './tenant-quotas';
import { UpstreamClient } from './upstream';
import {
  type PreparedWorkload,
  WorkloadTracker,
  prepareGenericWorkload,
  prepareOpenAiChat,
  prepareOpenAiCompletion,
  runWorkload,
} from './workloads';

export interface GatewayDeps {
  readonly routes: RouteTable;
  /** Gateway keys, operator credentials and tenant quotas: who may call /v1 and how much. */
  readonly credentials: CredentialTable;
  /** Per-replica concurrency, queue bound and longest queue wait. */
  readonly admission: AdmissionLimits;
  readonly logger: Logger;
  readonly build: BuildInfo;
  readonly maxBodyBytes: number;
  /** Data class of OpenAI-dialect requests without the data-class header. */
  readonly defaultDataClass: DataClass;
  /** Injected so tests can pin timestamps; defaults to the system clock. */
  readonly clock?: () => Date;
  /** A fresh metrics registry per server unless one is passed. */
  readonly metrics?: GatewayMetrics;
  /** Where finished workloads' metadata goes (the console's Requests view); none when absent. */
  readonly requestLog?: RequestLog;
  /**
   * Tenant data policies: the tenant's data class is checked against the
   * route's license and its retention/consent decide payload capture. Absent:
   * no tenant policy applies (only the request's own data class) and nothing is captured.
   */
  readonly dataPolicies?: DataPolicyTable;
  /** Where payloads the policy keeps are written; absent: nothing is ever captured. */
  readonly payloadCapture?: PayloadCaptureSink;
  /**
   * Which requests get an access-log line: every one, only those answered
   * 4xx/5xx (or abandoned), or none. Request records and metrics cover every
   * request either way; a log line per request is the costliest thing on the
   * path at high rates. Default `all`; the process default is `errors`.
   */
  readonly accessLog?: AccessLogMode;
  /** Tenant quota counters; default: this process's own. A cluster worker asks the primary (cluster.ts). */
  readonly quotas?: TenantQuotaGate;
  /** The /metrics body; default: this process's registry. A cluster worker serves every worker's, summed. */
  readonly metricsText?: () => Promise<string>;
}

export interface GatewayServer {
  readonly server: Server;
  readonly metrics: GatewayMetrics;
  /** Requests running and waiting per replica group (published for the console). */
  readonly admission: AdmissionController;
  listen(port: number, host: string): Promise<AddressInfo>;
  /**
   * Graceful stop: refuse new connections, report not-ready, let in-flight
   * requests finish, then close. After `graceMs` remaining connections are
   * cut so a stuck client cannot block a deploy forever.
   */
  close(graceMs?: number): Promise<void>;
}

interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly ids: RequestIds;
  readonly receivedAt: bigint;
  /** Set once authenticated; the access log names it. */
  caller: Caller | undefined;
}

type Handler = (exchange: Exchange) => Promise<void> | void;

interface RouteSpec {
  readonly methods: Readonly<Partial<Record<'GET' | 'POST', Handler>>>;
  /** Errors on these paths also carry the OpenAI `error` member. */
  readonly openAi: boolean;
}

/** Methods we label metrics with; anything else is "OTHER" so a client cannot mint label values. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Status recorded when the client disconnected before a response was sent (nginx convention). */
const CLIENT_CLOSED_STATUS = 499;

/**
 * The data plane's HTTP server: plain `node:http` with a static route map,
 * so per-request overhead is a Map lookup and no framework middleware.
 */
export function createGatewayServer(deps: GatewayDeps): GatewayServer {
  const clock = deps.clock ?? (() => new Date());
  // Without an injected clock, milliseconds need no Date each.
  const now = deps.clock === undefined ? Date.now : (): number => clock().getTime();
  const admission = new AdmissionController(deps.admission, now);
  const metrics = deps.metrics ?? createGatewayMetrics(GATEWAY_SERVICE, deps.build);
  // Built once: the SDK generator and clients read it, and it only changes with a release.
  const openApiDocument = Buffer.from(JSON.stringify(gatewayOpenApiDocument(deps.build.version)));
  metrics.observeAdmission(admission);
  const upstream = new UpstreamClient();
  const authenticator = new CallerAuthenticator(deps.credentials, now);
  const quotas = deps.quotas ?? new TenantQuotas(deps.credentials, now);
  const workloadDeps = { routes: deps.routes, upstream, clock, metrics, admission };
  const httpMetrics = cachedHttpMetrics(metrics);
  const accessLog = deps.accessLog ?? 'all';
  /** Finished requests per name the caller used (alias or model@version): the error rate discovery reports. */
  const recentOutcomes = new RecentOutcomes();
  const targetName = (target: WorkloadTarget): string => ('alias' in target ? target.alias : target.model);
  const discoveryOf = (model: RouteModel): ModelDiscovery => {
    const keys =
      model.kind === 'alias'
        ? model.deploymentIds.map(deploymentGroupKey)
        : [refGroupKey(model.modelVersion)];
    const load = admission.queueLoad(keys);
    return {
      kind: model.kind,
      modelVersion: model.modelVersion,
      contextLength: model.contextLength,
      // Every runtime kind behind the gateway speaks both OpenAI endpoints and streams over SSE.
      streaming: true,
      capabilities: [...MODEL_CAPABILITIES],
      dataClasses: [...model.allowedDataClasses],
      health: servingHealth({
        readyReplicas: model.readyReplicas,
        recent: recentOutcomes.counts(model.id, now()),
        queued: load.queued,
        inFlight: load.inFlight,
      }),
    };
  };
  let draining = false;

  /**
   * Who is calling, or a typed 401/403/503 (counted by reason; a flood of bad
   * keys writes no audit rows). A credential the snapshot does not know gets
   * one more look after a (rate-limited) reload: a key created a moment ago
   * works on its first call even when its notification is still on the way.
   */
  const authenticate = async (exchange: Exchange): Promise<Caller> => {
    try {
      try {
        return authenticator.authenticate(exchange.req.headers);
      } catch (error: unknown) {
        const unknown = error instanceof AuthRefusal && error.reason === 'unknown';
        if (!unknown || !deps.credentials.reloadAfterMiss) throw error;
        await deps.credentials.reloadAfterMiss();
        return authenticator.authenticate(exchange.req.headers);
      }
    } catch (error: unknown) {
      if (error instanceof AuthRefusal) metrics.authRefusals.inc({ reason: error.reason });
      throw error;
    }
  };

  const handleWorkload = async (
    exchange: Exchange,
    prepare: (body: unknown) => PreparedWorkload,
  ): Promise<void> => {
    const caller = await authenticate(exchange);
    exchange.caller = caller;
    const body = await readJsonBody(exchange.req, deps.maxBodyBytes);
    const parsed = prepare(body);
    const tenantId = tenantOf(caller, parsed.request.correlation.tenantId);
    authorizeTarget(caller, parsed.request.target);
    // Quota after validation and authorization: a refused request costs the tenant nothing.
    const admitted = quotas.admit(tenantId);
    const ticket = admitted instanceof Promise ? await admitted : admitted;
    const track = new WorkloadTracker();
    const finishTicket = (): void => ticket.finish((track.promptTokens ?? 0) + (track.completionTokens ?? 0));
    // The client may have gone while the quota answer was on its way: its close event is already past.
    if (exchange.res.closed) finishTicket();
    else exchange.res.once('close', finishTicket);
    // The authenticated tenant is the request's tenant, whatever it declared; its priority is at most
    // what an admin allowed the tenant (clamped, not refused: the request still runs, at the lower band).
    const requestedPriority = parsed.request.priority;
    const { priority } = clampPriority(requestedPriority, deps.credentials.maxPriority(tenantId));
    const prepared: PreparedWorkload = {
      ...parsed,
      request: { ...parsed.request, priority, correlation: { ...parsed.request.correlation, tenantId } },
    };
    if (deps.dataPolicies !== undefined && !deps.dataPolicies.ready())
      throw new LunaNexaError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'Tenant data policies have not loaded yet.');
    const policy = deps.dataPolicies?.policyFor(tenantId);
    const decision = policy === undefined ? ({ capture: false } as const) : captureDecision(policy);
    // Completion text is collected only for a request whose policy keeps it.
    if (decision.capture && deps.payloadCapture !== undefined) track.completionText = [];
    let thrownCode: string | null = null;
    // Recorded once the workload settled AND the response closed: the status of a problem answer is only
    // known after the throw, and a client that walks away closes the response before the workload ends.
    let settled = false;
    let closed = false;
    const record = (): void => {
      if (!settled || !closed || !track.finished || deps.requestLog === undefined) return;
      deps.requestLog.record(
        requestRecordOf(exchange, prepared, caller.label, track, thrownCode, clock(), requestedPriority),
      );
    };
    exchange.res.once('close', () => {
      closed = true;
      record();
    });
    if (track.completionText !== null && deps.payloadCapture !== undefined) {
      const sink = deps.payloadCapture;
      exchange.res.once('close', () => {
        // Only completed requests: a failed one has no answer worth keeping.
        if (track.state !== 'Completed' || track.completionText === null) return;
        const capture = payloadCaptureOf(decision, {
          tenantId,
          requestId: exchange.ids.requestId,
          correlationId: exchange.ids.correlationId,
          deploymentId: track.deploymentId,
          modelRef: track.modelRef,
          request: prepared.request,
          responseText: track.completionText.join(''),
          capturedAt: clock(),
        });
        if (capture !== null) sink.capture(capture);
      });
    }
    try {
      await runWorkload(
        workloadDeps,
        prepared,
        exchange.ids,
        exchange.res,
        track,
        exchange.receivedAt,
        policy?.dataClass,
      );
    } catch (error: unknown) {
      thrownCode = error instanceof LunaNexaError ? error.code : ErrorCode.INTERNAL;
      throw error;
    } finally {
      recentOutcomes.record(
        targetName(prepared.request.target),
        countsAsServingFailure(
          track.state,
          thrownCode === null ? undefined : (HTTP_STATUS_BY_CODE[thrownCode as ErrorCode] ?? 500),
        ),
        now(),
      );
      if (track.finished) {
        metrics.workloads.inc({
          kind: prepared.request.kind,
          dialect: prepared.dialect,
          outcome: track.state,
        });
      }
      settled = true;
      record();
    }
  };

  const routes: ReadonlyMap<string, RouteSpec> = new Map<string, RouteSpec>([
    [
      '/health',
      {
        openAi: false,
        methods: {
          GET: ({ res }) =>
            sendJson(res, 200, {
              status: 'ok',
              service: GATEWAY_SERVICE,
              version: deps.build.version,
              commit: deps.build.commit,
            }),
        },
      },
    ],
    [
      '/ready',
      {
        openAi: false,
        methods: {
          GET: ({ res }) => {
            if (draining)
              throw new LunaNexaError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'The gateway is shutting down.');
            if (!deps.routes.ready())
              throw new LunaNexaError(
                ErrorCode.DEPENDENCY_UNAVAILABLE,
                'The route table has not loaded yet.',
              );
            if (deps.dataPolicies !== undefined && !deps.dataPolicies.ready())
              throw new LunaNexaError(
                ErrorCode.DEPENDENCY_UNAVAILABLE,
                'Tenant data policies have not loaded yet.',
              );
            if (!deps.credentials.ready())
              throw new LunaNexaError(
                ErrorCode.DEPENDENCY_UNAVAILABLE,
                'Gateway credentials have not loaded yet.',
              );
            sendJson(res, 200, { status: 'ready' });
          },
        },
      },
    ],
    [
      '/metrics',
      {
        openAi: false,
        methods: {
          GET: async ({ res }) => {
            const text = await (deps.metricsText ?? (() => metrics.service.registry.metrics()))();
            res.writeHead(200, {
              'content-type': metrics.service.registry.contentType,
              'content-length': String(Buffer.byteLength(text)),
            });
            res.end(text);
          },
        },
      },
    ],
    [
      '/openapi.json',
      {
        openAi: false,
        methods: {
          GET: ({ res }) => {
            res.writeHead(200, {
              'content-type': 'application/json',
              'content-length': String(openApiDocument.length),
              'cache-control': 'no-cache',
            });
            res.end(openApiDocument);
          },
        },
      },
    ],
    [
      '/v1/models',
      {
        openAi: true,
        methods: {
          GET: async (exchange) => {
            const caller = await authenticate(exchange);
            const list: OpenAiModelList = {
              object: 'list',
              data: deps.routes
                .models()
                .filter((model) => visibleTo(caller, model.id))
                .map((model) => ({
                  id: model.id,
                  object: 'model',
                  created: unixSeconds(model.createdAt),
                  owned_by: OPENAI_MODEL_OWNER,
                  lunanexa: discoveryOf(model),
                })),
            };
            sendJson(exchange.res, 200, list);
          },
        },
      },
    ],
    [
      '/v1/chat/completions',
      {
        openAi: true,
        methods: {
          POST: (exchange) =>
            handleWorkload(exchange, (body) =>
              prepareOpenAiChat(body, exchange.req.headers, deps.defaultDataClass),
            ),
        },
      },
    ],
    [
      '/v1/completions',
      {
        openAi: true,
        methods: {
          POST: (exchange) =>
            handleWorkload(exchange, (body) =>
              prepareOpenAiCompletion(body, exchange.req.headers, deps.defaultDataClass),
            ),
        },
      },
    ],
    [
      '/v1/workloads',
      {
        openAi: false,
        methods: { POST: (exchange) => handleWorkload(exchange, prepareGenericWorkload) },
      },
    ],
  ]);

  // Read once: tracing is installed (or not) before the server is created.
  const tracingOn = tracingEnabled();

  /**
   * With tracing on, an inference request (/v1/*) runs inside a server span
   * whose parent is the caller's `traceparent`; the upstream call is its child
   * (upstream.ts), and the traceparent echoed to the caller names this span.
   */
  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const receivedAt = process.hrtime.bigint();
    const path = pathOf(req.url);
    if (!tracingOn || !path.startsWith('/v1/')) {
      serve(req, res, path, resolveRequestIds(req.headers), receivedAt);
      return;
    }
    const span = tracer().startSpan(
      `${req.method ?? 'OTHER'} ${routes.has(path) ? path : UNMATCHED_ROUTE}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': req.method ?? '', 'url.path': path } },
      extractContext(req.headers),
    );
    res.once('close', () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      endSpan(span, res.statusCode >= 500 ? new Error(`HTTP ${res.statusCode}`) : undefined);
    });
    const active = otelTrace.setSpan(otelContext.active(), span);
    // The body arrives in the request's events: bound, the upstream call made after it is the span's child.
    otelContext.bind(active, req);
    otelContext.with(active, () =>
      serve(req, res, path, idsWithSpan(resolveRequestIds(req.headers), span), receivedAt),
    );
  };

  const serve = (
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    ids: RequestIds,
    receivedAt: bigint,
  ): void => {
    res.setHeader(REQUEST_ID_HEADER, ids.requestId);
    res.setHeader(CORRELATION_ID_HEADER, ids.correlationId);
    res.setHeader(TRACEPARENT_HEADER, ids.traceparent);
    if (draining) res.setHeader('connection', 'close');
    const spec = routes.get(path);
    const routeLabel = spec === undefined ? UNMATCHED_ROUTE : path;
    const method = KNOWN_METHODS.has(req.method ?? '') ? (req.method as string) : 'OTHER';

    res.once('close', () => {
      const status = res.headersSent ? res.statusCode : CLIENT_CLOSED_STATUS;
      const seconds = Number(process.hrtime.bigint() - receivedAt) / 1e9;
      httpMetrics.record(routeLabel, method, status, seconds);
      if (accessLog === 'none' || (accessLog === 'errors' && status < 400)) return;
      // Method, route, status, timing and ids only: bodies and headers never reach the log.
      deps.logger.info(
        {
          method,
          route: routeLabel,
          status,
          durationMs: Math.round(seconds * 1e6) / 1e3,
          request_id: ids.requestId,
          correlation_id: ids.correlationId,
          trace_id: ids.traceId,
          caller: exchange.caller?.label,
        },
        'request',
      );
    });

    const exchange: Exchange = { req, res, ids, receivedAt, caller: undefined };
    const fail = (error: unknown): void => {
      const typed =
        error instanceof LunaNexaError
          ? error
          : new LunaNexaError(
              ErrorCode.INTERNAL,
              'An internal error occurred; quote the request id when reporting it.',
            );
      if (!(error instanceof LunaNexaError)) {
        // Redacted: an unexpected error's message may quote the request body.
        deps.logger.error(
          { err: redactedError(error), route: routeLabel, request_id: ids.requestId },
          'unhandled error',
        );
      }
      if (res.headersSent || res.destroyed) {
        // Too late for a status line; the only honest signal left is cutting the connection.
        res.destroy();
        return;
      }
      const headers: Record<string, string> = {};
      if (typed instanceof RetryLaterError) {
        headers['retry-after'] = String(typed.retryAfterSeconds);
        if (typed.code === ErrorCode.QUOTA_EXCEEDED) metrics.quotaRefusals.inc({ limit: typed.reason });
        else metrics.capacityRefusals.inc({ reason: typed.reason });
      }
      if (typed.code === ErrorCode.UNAUTHENTICATED || typed.code === ErrorCode.TOKEN_EXPIRED)
        headers['www-authenticate'] = 'Bearer realm="lunanexa"';
      if (typed.code === ErrorCode.METHOD_NOT_ALLOWED && spec !== undefined)
        headers['allow'] = allowHeader(spec);
      // Unread request bytes would otherwise be parsed as the next request on this connection.
      if (!req.complete) closeWithoutReadingBody(req, res);
      sendProblem(res, typed, { ids, instance: path, openAi: spec?.openAi ?? false, headers });
    };

    try {
      if (spec === undefined) throw new LunaNexaError(ErrorCode.NOT_FOUND, `No route ${path}.`);
      const handler = handlerFor(spec, req.method);
      if (handler === undefined) {
        throw new LunaNexaError(
          ErrorCode.METHOD_NOT_ALLOWED,
          `${req.method ?? ''} is not allowed on ${path}; use ${allowHeader(spec)}.`,
        );
      }
      const outcome = handler(exchange);
      if (outcome instanceof Promise) outcome.catch(fail);
    } catch (error: unknown) {
      fail(error);
    }
  };

  const server = createServer(onRequest);
  keepIdleConnectionsOpen(server);

  return {
    server,
    metrics,
    admission,
    listen(port: number, host: string): Promise<AddressInfo> {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    close(graceMs = 10_000): Promise<void> {
      draining = true;
      return new Promise((resolve) => {
        const closed = new Promise<void>((done) => server.close(() => done()));
        // Connections become idle as their in-flight request finishes; close each one then.
        const sweep = setInterval(() => server.closeIdleConnections(), 25);
        const cutoff = setTimeout(() => server.closeAllConnections(), graceMs);
        server.closeIdleConnections();
        void closed.then(() => {
          clearInterval(sweep);
          clearTimeout(cutoff);
          upstream.close();
          resolve();
        });
      });
    },
  };

  function handlerFor(spec: RouteSpec, method: string | undefined): Handler | undefined {
    if (method === 'GET' || method === 'HEAD') return spec.methods.GET;
    if (method === 'POST') return spec.methods.POST;
    return undefined;
  }
}

/**
 * The HTTP metrics with their label children looked up once per label set:
 * prom-client hashes a label object on every call, which costs more than the
 * increment itself.
 */
function cachedHttpMetrics(metrics: GatewayMetrics) {
  const counters = new Map<string, Counter.Internal>();
  const histograms = new Map<string, Histogram.Internal<'service' | 'route' | 'method'>>();
  return {
    record(route: string, method: string, status: number, seconds: number): void {
      const countKey = `${route} ${method} ${status}`;
      let counter = counters.get(countKey);
      if (counter === undefined) {
        counter = metrics.service.httpRequests.labels({
          service: GATEWAY_SERVICE,
          route,
          method,
          status: String(status),
        });
        counters.set(countKey, counter);
      }
      counter.inc();
      const timeKey = `${route} ${method}`;
      let histogram = histograms.get(timeKey);
      if (histogram === undefined) {
        histogram = metrics.service.httpDuration.labels({ service: GATEWAY_SERVICE, route, method });
        histograms.set(timeKey, histogram);
      }
      histogram.observe(seconds);
    },
  };
}

function requestRecordOf(
  exchange: Exchange,
  prepared: PreparedWorkload,
  caller: string,
  track: WorkloadTracker,
  thrownCode: string | null,
  finishedAt: Date,
  requestedPriority: string,
): RequestRecord {
  const { request } = prepared;
  const { res } = exchange;
  const now = process.hrtime.bigint();
  const durationMs = Number(now - exchange.receivedAt) / 1e6;
  return {
    requestId: exchange.ids.requestId,
    correlationId: exchange.ids.correlationId,
    receivedAt: new Date(finishedAt.getTime() - durationMs),
    finishedAt,
    kind: request.kind,
    dialect: prepared.dialect,
    requestedModel: 'alias' in request.target ? request.target.alias : request.target.model,
    modelRef: track.modelRef,
    deploymentId: track.deploymentId,
    stream: request.stream,
    outcome: track.state,
    errorCode: track.errorCode ?? thrownCode,
    httpStatus: res.headersSent ? res.statusCode : CLIENT_CLOSED_STATUS,
    ttftMs: track.firstByteAt === null ? null : Number(track.firstByteAt - exchange.receivedAt) / 1e6,
    durationMs,
    promptTokens: track.promptTokens,
    completionTokens: track.completionTokens,
    tenantId: request.correlation.tenantId ?? null,
    caller,
    routingPolicy: track.routingPolicy,
    routedTo: track.routedTo,
    routingReason: track.routingReason,
    queueWaitMs: track.queueWaitMs,
    priority: request.priority,
    requestedPriority,
  };
}

function allowHeader(spec: RouteSpec): string {
  return Object.keys(spec.methods)
    .flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]))
    .join(', ');
}

function pathOf(url: string | undefined): string {
  const raw = url ?? '/';
  const query = raw.indexOf('?');
  return query === -1 ? raw : raw.slice(0, query);
}
