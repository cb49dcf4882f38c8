import { expect } from 'chai';
import { Writable } from 'node:stream';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { createLogger } from '../src/logger';
import { activeTraceFields, initTracing, injectContext, tracer, tracesEndpoint } from '../src/tracing';

/** An exporter that keeps what it is given, and counts how often one was built. */
class CollectingExporter implements SpanExporter {
  readonly spans: ReadableSpan[] = [];
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.spans.push(...spans);
    done({ code: ExportResultCode.SUCCESS });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function logLines(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('tracing', () => {
  describe('tracesEndpoint: off unless the OTel variables ask for it', () => {
    it('is off with no variables', () => {
      expect(tracesEndpoint({})).to.equal(null);
    });
    it('appends /v1/traces to OTEL_EXPORTER_OTLP_ENDPOINT and takes the traces endpoint as is', () => {
      expect(tracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).to.equal(
        'http://collector:4318/v1/traces',
      );
      expect(
        tracesEndpoint({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/custom',
        }),
      ).to.equal('http://collector:4318/custom');
      expect(tracesEndpoint({ OTEL_TRACES_EXPORTER: 'otlp' })).to.equal('http://localhost:4318/v1/traces');
    });
    it('OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none win over an endpoint', () => {
      const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
      expect(tracesEndpoint({ ...endpoint, OTEL_SDK_DISABLED: 'true' })).to.equal(null);
      expect(tracesEndpoint({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' })).to.equal(null);
    });
  });

  it('off: no exporter is constructed, spans do not record, nothing is injected or logged', () => {
    let built = 0;
    const tracing = initTracing({
      service: 'test',
      env: {},
      createExporter: () => {
        built += 1;
        return new CollectingExporter();
      },
    });
    expect(tracing.enabled).to.equal(false);
    expect(tracing.spanProcessor).to.equal(null);
    const log = logLines();
    const logger = createLogger({ service: 'test', level: 'info', destination: log.stream });
    tracer().startActiveSpan('work', (span) => {
      expect(span.isRecording()).to.equal(false);
      expect(injectContext()).to.deep.equal({});
      logger.info('inside');
      span.end();
    });
    expect(built).to.equal(0);
    expect(log.lines()[0]).to.not.have.any.keys('trace_id', 'span_id');
  });

  it('on: spans export through the built exporter, propagate as traceparent, and stamp log lines', async () => {
    const exporter = new CollectingExporter();
    const urls: string[] = [];
    const tracing = initTracing({
      service: 'test',
      version: '1.2.3',
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1' },
      createExporter: (url) => {
        urls.push(url);
        return exporter;
      },
    });
    try {
      expect(tracing.enabled).to.equal(true);
      expect(urls).to.deep.equal(['http://127.0.0.1:1/v1/traces']);
      const log = logLines();
      const logger = createLogger({ service: 'test', level: 'info', destination: log.stream });
      let traceId = '';
      let spanId = '';
      let carrier: Record<string, string> = {};
      tracer().startActiveSpan('work', (span) => {
        traceId = span.spanContext().traceId;
        spanId = span.spanContext().spanId;
        expect(activeTraceFields()).to.deep.equal({ trace_id: traceId, span_id: spanId });
        carrier = injectContext();
        logger.info('inside');
        span.end();
      });
      logger.info('outside');
      expect(carrier['traceparent']).to.equal(`00-${traceId}-${spanId}-01`);
      const [inside, outside] = log.lines();
      expect(inside).to.include({ trace_id: traceId, span_id: spanId });
      expect(outside).to.not.have.any.keys('trace_id', 'span_id');
      await tracing.spanProcessor!.forceFlush();
      expect(exporter.spans.map((s) => s.name)).to.deep.equal(['work']);
      expect(exporter.spans[0]?.resource.attributes).to.include({
        'service.name': 'test',
        'service.version': '1.2.3',
      });
    } finally {
      await tracing.shutdown();
    }
    // After shutdown the globals are the no-op ones again (other specs in this process see tracing off).
    expect(tracer().startSpan('after').isRecording()).to.equal(false);
  });
});
