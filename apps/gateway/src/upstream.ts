import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import {
  SpanKind,
  endSpan,
  injectContext,
  otelContext,
  otelTrace,
  tracer,
  tracingEnabled,
} from '@lunanexa/observability';
import { Agent } from 'undici';
import type { RouteEndpoint } from './route-table';

/** What the relay reads of a runtime's answer. */
export interface UpstreamResponse {
  readonly statusCode: number;
  readonly body: Readable;
}

/**
 * HTTP client for openai-compatible runtimes, on undici: one keep-alive pool
 * per runtime origin, because a new TCP connection per request would dominate
 * latency for short completions, and undici's dispatcher costs a fraction of
 * node:http's ClientRequest per request (measured by `npm run bench`). Each
 * call takes an AbortSignal: deadline and client disconnect abort the
 * upstream request, closing its connection, so a replica stops generating
 * for nobody.
 */
export class UpstreamClient {
  private readonly agent = new Agent({
    connections: 512,
    keepAliveTimeout: 4_000,
    // A runtime may think for minutes before its first token, and a stream may pause between tokens;
    // the request's own deadline (its AbortSignal) bounds the wait, not the pool.
    headersTimeout: 0,
    bodyTimeout: 0,
  });

  /** Parsed targets per base URL and path: parsing a URL per request costs more than the request's own work. */
  private readonly targets = new Map<string, Target>();

  async post(
    endpoint: RouteEndpoint,
    path: string,
    body: unknown,
    signal: AbortSignal,
  ): Promise<UpstreamResponse> {
    const target = this.target(endpoint.baseUrl, path);
    if (!tracingEnabled()) {
      // Tracing off: no span, no context to propagate — nothing per request beyond the call itself.
      const response = await this.agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        signal,
        headers: UPSTREAM_HEADERS,
        body: JSON.stringify(body),
      });
      return { statusCode: response.statusCode, body: response.body };
    }
    // A client span (a child of the request's server span), ended when the body is done;
    // the runtime receives its traceparent, so the runtime's work is its child.
    const span = tracer().startSpan(`POST ${path}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'http.request.method': 'POST', 'server.address': target.origin, 'url.path': target.path },
    });
    const propagated = injectContext(otelTrace.setSpan(otelContext.active(), span));
    let response: Awaited<ReturnType<Agent['request']>>;
    try {
      response = await this.agent.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        signal,
        headers:
          propagated['traceparent'] === undefined ? UPSTREAM_HEADERS : { ...UPSTREAM_HEADERS, ...propagated },
        body: JSON.stringify(body),
      });
    } catch (error: unknown) {
      endSpan(span, error);
      throw error;
    }
    span.setAttribute('http.response.status_code', response.statusCode);
    response.body.once('close', () =>
      endSpan(span, response.statusCode >= 500 ? new Error(`HTTP ${response.statusCode}`) : undefined),
    );
    return { statusCode: response.statusCode, body: response.body };
  }

  close(): void {
    void this.agent.destroy().catch(() => undefined);
  }

  private target(baseUrl: string, path: string): Target {
    const key = `${baseUrl} ${path}`;
    let target = this.targets.get(key);
    if (target === undefined) {
      const url = new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      target = { origin: url.origin, path: `${url.pathname}${url.search}` };
      // Replicas come and go; the map is cleared rather than grown without bound.
      if (this.targets.size >= 4096) this.targets.clear();
      this.targets.set(key, target);
    }
    return target;
  }
}

const UPSTREAM_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

interface Target {
  readonly origin: string;
  readonly path: string;
}

/** Upper bound for a non-streamed upstream body: a whole completion, never a stream. */
export const MAX_UPSTREAM_BODY_BYTES = 32 * 1_048_576;

export async function readUpstreamText(res: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    received += chunk.length;
    if (received > maxBytes) {
      res.destroy();
      throw new LunaNexaError(ErrorCode.UPSTREAM_FAILED, `runtime response exceeds ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, received).toString('utf8');
}

/**
 * Incremental server-sent-events parser: feed it bytes, get the `data`
 * payloads of complete events. Multi-byte characters split across TCP chunks
 * are reassembled by the decoder; comments and other fields are ignored.
 */
export class SseParser {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';

  push(bytes: Buffer): string[] {
    this.buffer += this.decoder.write(bytes);
    const events: string[] = [];
    for (let boundary = findBoundary(this.buffer); boundary !== null; boundary = findBoundary(this.buffer)) {
      const block = this.buffer.slice(0, boundary.index);
      this.buffer = this.buffer.slice(boundary.index + boundary.length);
      const data = block
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, ''));
      if (data.length > 0) events.push(data.join('\n'));
    }
    return events;
  }
}

function findBoundary(text: string): { index: number; length: number } | null {
  const match = /\r?\n\r?\n/.exec(text);
  return match === null ? null : { index: match.index, length: match[0].length };
}
