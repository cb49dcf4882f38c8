import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import type { RouteEndpoint } from './route-table';

/**
 * HTTP client for openai-compatible runtimes. Keep-alive pools per protocol,
 * because a new TCP connection per request would dominate latency for short
 * completions. Each call takes an AbortSignal: deadline and client disconnect
 * abort the upstream request so a replica does not keep generating for nobody.
 */
export class UpstreamClient {
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 512 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 512 });

  /** Parsed targets per base URL and path: parsing a URL per request costs more than the request's own work. */
  private readonly targets = new Map<string, Target>();

  post(endpoint: RouteEndpoint, path: string, body: unknown, signal: AbortSignal): Promise<IncomingMessage> {
    const target = this.target(endpoint.baseUrl, path);
    const payload = JSON.stringify(body);
    const send = target.secure ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        method: 'POST',
        agent: target.secure ? this.httpsAgent : this.httpAgent,
        signal,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(payload)),
          accept: 'application/json, text/event-stream',
        },
      });
      req.once('response', resolve);
      req.once('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  private target(baseUrl: string, path: string): Target {
    const key = `${baseUrl} ${path}`;
    let target = this.targets.get(key);
    if (target === undefined) {
      const url = new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      target = {
        protocol: url.protocol,
        secure: url.protocol === 'https:',
        // node:http wants an IPv6 literal without its brackets.
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
        path: `${url.pathname}${url.search}`,
      };
      // Replicas come and go; the map is cleared rather than grown without bound.
      if (this.targets.size >= 4096) this.targets.clear();
      this.targets.set(key, target);
    }
    return target;
  }
}

interface Target {
  readonly protocol: string;
  readonly secure: boolean;
  readonly hostname: string;
  readonly port: number;
  readonly path: string;
}

/** Upper bound for a non-streamed upstream body: a whole completion, never a stream. */
export const MAX_UPSTREAM_BODY_BYTES = 32 * 1_048_576;

export async function readUpstreamText(res: IncomingMessage, maxBytes: number): Promise<string> {
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
