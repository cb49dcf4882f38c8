import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carried it (ids in hex), with its process's `service.name`. */
export interface ReceivedSpan {
  readonly service: string;
  readonly name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
}

export const OTLP_SPAN_KIND = { internal: 1, server: 2, client: 3 } as const;

interface OtlpAttribute {
  key: string;
  value?: { stringValue?: string };
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: { name: string; kind?: number; traceId: string; spanId: string; parentSpanId?: string }[];
    }[];
  }[];
}

/**
 * A real OTLP/HTTP receiver for tests: accepts `POST /v1/traces` with the
 * JSON encoding (what the processes' exporter sends), decodes every span and
 * keeps it. Anything else (another path, protobuf, bad JSON) is answered 4xx
 * and counted, so a test can assert the exports were all understood.
 */
export class OtlpSink {
  readonly spans: ReceivedSpan[] = [];
  rejected = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<OtlpSink> {
    const server = createServer();
    const sink = new OtlpSink(server);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const json = (req.headers['content-type'] ?? '').startsWith('application/json');
        if (req.method !== 'POST' || req.url !== '/v1/traces' || !json) {
          sink.rejected += 1;
          res.writeHead(415).end();
          return;
        }
        try {
          sink.accept(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport);
        } catch {
          sink.rejected += 1;
          res.writeHead(400).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return sink;
  }

  /** What OTEL_EXPORTER_OTLP_ENDPOINT should be for the processes under test. */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  inTrace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private accept(body: OtlpExport): void {
    for (const resourceSpans of body.resourceSpans ?? []) {
      const service =
        resourceSpans.resource?.attributes?.find((a) => a.key === 'service.name')?.value?.stringValue ?? '';
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            name: span.name,
            kind: span.kind ?? 0,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ? span.parentSpanId : null,
          });
        }
      }
    }
  }
}
