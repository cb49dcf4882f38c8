import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';

/**
 * A failure talking to a store, already classified: NOT_FOUND (no such
 * object, blob, repository or tag), ARTIFACT_UNAUTHORIZED (the store wants
 * credentials we do not have, or refused the ones we sent: 401/403),
 * DEPENDENCY_UNAVAILABLE (unreachable, timed out, 5xx), CANCELLED (the
 * caller aborted).
 */
export class StoreError extends Error {
  constructor(
    readonly code: 'NOT_FOUND' | 'ARTIFACT_UNAUTHORIZED' | 'DEPENDENCY_UNAVAILABLE' | 'CANCELLED',
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

export interface StoreRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Buffer | Readable;
  readonly signal?: AbortSignal;
  /** Connect, first byte and every gap between body chunks. */
  readonly idleTimeoutMs: number;
  /** For https: the certificates trusted (default: the system's roots). */
  readonly ca?: readonly string[];
}

/**
 * Sends one request and resolves with the response head once it arrives; the
 * body is left to the caller to stream (or to `readBody`). The idle timeout
 * keeps applying to the body: a store that stops sending mid-download errors
 * the stream instead of hanging the download forever.
 */
export function send(request: StoreRequest): Promise<IncomingMessage> {
  const { url } = request;
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolvePromise, reject) => {
    if (request.signal?.aborted) {
      reject(cancelled(request.signal));
      return;
    }
    const req = transport.request(url, {
      method: request.method,
      headers: { ...request.headers },
      ...(request.signal === undefined ? {} : { signal: request.signal }),
      ...(request.ca === undefined || url.protocol !== 'https:' ? {} : { ca: [...request.ca] }),
    });
    let answered: IncomingMessage | null = null;
    req.setTimeout(request.idleTimeoutMs, () => {
      const error = new StoreError(
        'DEPENDENCY_UNAVAILABLE',
        answered === null
          ? `${describe(request)}: no answer within ${request.idleTimeoutMs} ms`
          : `${describe(request)}: the body stalled for ${request.idleTimeoutMs} ms`,
      );
      // Whoever is reading the body learns why it ended, not just that it was aborted.
      answered?.destroy(error);
      req.destroy(error);
    });
    req.on('error', (error: Error) => reject(classifyNetworkError(error, request)));
    req.on('response', (response) => {
      answered = response;
      response.on('error', () => undefined);
      resolvePromise(response);
    });
    const body = request.body;
    if (body === undefined) req.end();
    else if (Buffer.isBuffer(body)) req.end(body);
    else {
      body.on('error', (error) => req.destroy(error));
      body.pipe(req);
    }
  });
}

/** Reads a (small) response body whole, e.g. an error document or a manifest, capped at `limit` bytes. */
export async function readBody(response: IncomingMessage, limit = 4 * 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > limit) {
      response.destroy();
      throw new StoreError('DEPENDENCY_UNAVAILABLE', `response body exceeds ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Drains and discards a body so the connection can be reused or closed cleanly. */
export function discard(response: IncomingMessage): void {
  response.resume();
}

export function describe(request: Pick<StoreRequest, 'method' | 'url'>): string {
  return `${request.method} ${request.url.origin}${request.url.pathname}`;
}

function cancelled(signal: AbortSignal): StoreError {
  const reason: unknown = signal.reason;
  return new StoreError('CANCELLED', `cancelled: ${reason instanceof Error ? reason.message : 'aborted'}`);
}

function classifyNetworkError(error: Error, request: StoreRequest): StoreError {
  if (error instanceof StoreError) return error;
  if (request.signal?.aborted) return cancelled(request.signal);
  const code = (error as NodeJS.ErrnoException).code;
  return new StoreError(
    'DEPENDENCY_UNAVAILABLE',
    `${describe(request)} failed: ${code === undefined ? error.message : `${code} ${error.message}`}`,
  );
}

/** The classification of an unexpected status: 404 is NOT_FOUND; everything else means the store cannot serve us now. */
export function statusError(status: number, what: string, detail: string): StoreError {
  if (status === 404)
    return new StoreError('NOT_FOUND', `${what} does not exist (HTTP 404${detail})`, status);
  if (status === 401 || status === 403) {
    return new StoreError(
      'ARTIFACT_UNAUTHORIZED',
      `the store refused access to ${what} (HTTP ${status}${detail}); check its credentials`,
      status,
    );
  }
  return new StoreError(
    'DEPENDENCY_UNAVAILABLE',
    `the store answered HTTP ${status} for ${what}${detail}`,
    status,
  );
}

/** What a (possibly ranged) 200/206 answer carries: the body's length, the whole size, where the body starts. */
export interface RangedAnswer {
  readonly announcedLength: number | null;
  readonly totalLength: number | null;
  readonly offset: number;
}

/**
 * Reads a 200 or 206 answer to a request that may have carried
 * `Range: bytes=<offset>-`. A 206 must start where asked (anything else is a
 * store fault); a 200 is the whole body from byte 0 (the store ignored the
 * Range), which the caller must then start over with.
 */
export function rangedAnswer(response: IncomingMessage, offset: number, what: string): RangedAnswer {
  const length = Number(response.headers['content-length']);
  const announcedLength =
    response.headers['content-length'] !== undefined && Number.isSafeInteger(length) ? length : null;
  if (response.statusCode !== 206) return { announcedLength, totalLength: announcedLength, offset: 0 };
  const range = /^bytes ([0-9]+)-([0-9]+)\/([0-9]+|\*)$/.exec(response.headers['content-range'] ?? '');
  if (range === null || Number(range[1]) !== offset) {
    response.destroy();
    throw new StoreError(
      'DEPENDENCY_UNAVAILABLE',
      `${what}: asked for bytes from ${offset}, the store answered Content-Range ${JSON.stringify(response.headers['content-range'] ?? null)}`,
    );
  }
  return { announcedLength, totalLength: range[3] === '*' ? null : Number(range[3]), offset };
}
