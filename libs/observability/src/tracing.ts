import type { IncomingHttpHeaders } from 'node:http';
import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { RequestIds } from './request-context';

export {
  SpanKind,
  SpanStatusCode,
  context as otelContext,
  trace as otelTrace,
  propagation as otelPropagation,
};
export type { Context as OtelContext, Span, Tracer };

/** The instrumentation scope every LunaNexa span is recorded under. */
export const TRACER_NAME = 'lunanexa';

/**
 * Tracing is OFF unless the standard OpenTelemetry variables ask for it: an
 * OTLP endpoint (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, used as is, or
 * `OTEL_EXPORTER_OTLP_ENDPOINT`, to which `/v1/traces` is appended) or
 * `OTEL_TRACES_EXPORTER=otlp` (then http://localhost:4318/v1/traces).
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none` turn it off again.
 * The protocol is OTLP/HTTP with JSON bodies (`http/json`).
 * Returns the traces URL when tracing is on, otherwise null.
 */
export function tracesEndpoint(env: Record<string, string | undefined> = process.env): string | null {
  const value = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw === undefined || raw === '' ? undefined : raw;
  };
  if (value('OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const exporter = value('OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter === 'none') return null;
  const traces = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (traces !== undefined) return traces;
  const base = value('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (base !== undefined) return `${base.replace(/\/+$/, '')}/v1/traces`;
  if (exporter === 'otlp') return 'http://localhost:4318/v1/traces';
  return null;
}

export interface TracingSettings {
  readonly service: string;
  readonly version?: string;
  readonly env?: Record<string, string | undefined>;
  /** Builds the exporter for a traces URL; tests pass one to observe construction. */
  readonly createExporter?: (url: string) => SpanExporter;
}

/** What a process holds while tracing is on (or the no-op when it is off). */
export interface Tracing {
  readonly enabled: boolean;
  readonly tracer: Tracer;
  /** The processor and resource the Temporal workflow span sink exports through; null when off. */
  readonly spanProcessor: SpanProcessor | null;
  readonly resource: Resource | null;
  /** Flushes pending spans and stops exporting. */
  shutdown(): Promise<void>;
}

const DISABLED: Tracing = {
  enabled: false,
  tracer: trace.getTracer(TRACER_NAME),
  spanProcessor: null,
  resource: null,
  shutdown: () => Promise.resolve(),
};

let installed: Tracing | null = null;

/**
 * Installs the OpenTelemetry SDK for this process when the environment turns
 * tracing on: a Node tracer provider (AsyncLocalStorage context, W3C
 * traceparent propagation), a batch processor and the OTLP/HTTP exporter.
 * When off, nothing is constructed and every span call goes to the API's
 * no-op implementation. Call once, before anything starts a span.
 */
export function initTracing(settings: TracingSettings): Tracing {
  if (installed !== null) return installed;
  const url = tracesEndpoint(settings.env ?? process.env);
  if (url === null) return DISABLED;
  // Loaded only when tracing is on: the SDK and exporter take hundreds of ms to load, which a
  // process with tracing off (and every short-lived runtime or CLI) should not pay at start.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { Resource } = require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { BatchSpanProcessor } =
    require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
  const { NodeTracerProvider } =
    require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  /* eslint-enable @typescript-eslint/no-require-imports */
  const resource = new Resource({
    'service.name': settings.service,
    ...(settings.version ? { 'service.version': settings.version } : {}),
  });
  const exporter = settings.createExporter?.(url) ?? new OTLPTraceExporter({ url });
  const spanProcessor = new BatchSpanProcessor(exporter);
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  const tracing: Tracing = {
    enabled: true,
    tracer: trace.getTracer(TRACER_NAME, settings.version),
    spanProcessor,
    resource,
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
      installed = null;
    },
  };
  installed = tracing;
  return tracing;
}

/** True once `initTracing` turned tracing on in this process (interceptors are added only then). */
export function tracingEnabled(): boolean {
  return installed !== null;
}

/** The tracer LunaNexa code starts spans with (the no-op tracer until `initTracing` turned tracing on). */
export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/** `{ trace_id, span_id }` of the active span, for log lines; empty when no (sampled or not) span is active. */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (span === undefined) return {};
  const spanContext = span.spanContext();
  if (!isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}

/** The W3C context an incoming request carries (`traceparent`, `tracestate`), as the parent for a server span. */
export function extractContext(headers: IncomingHttpHeaders | Record<string, string>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** `traceparent`/`tracestate` for a request or message sent within `ctx` (empty when tracing is off). */
export function injectContext(ctx: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(ctx, carrier);
  return carrier;
}

/**
 * The request ids as the response and the logs should show them: with a
 * recording server span, the traceparent names that span (so the trace id in
 * the response header, the access log and the exported trace agree); without
 * one, the ids resolved from the headers, unchanged.
 */
export function idsWithSpan(ids: RequestIds, span: Span): RequestIds {
  if (!span.isRecording()) return ids;
  const spanContext = span.spanContext();
  const flags = spanContext.traceFlags.toString(16).padStart(2, '0');
  return {
    ...ids,
    traceId: spanContext.traceId,
    traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`,
  };
}

/** Ends a span with an error status when `error` is set. */
export function endSpan(span: Span, error?: unknown): void {
  if (error !== undefined) {
    span.recordException(
      error instanceof Error ? error : typeof error === 'string' ? error : 'non-error thrown',
    );
    span.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : undefined,
    });
  }
  span.end();
}
