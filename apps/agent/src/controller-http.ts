import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ErrorCodeSchema, type ErrorCode } from '@lunanexa/contracts';
import { z } from 'zod';

/**
 * The agent → controller HTTP direction (enrollment, heartbeats): one signed
 * envelope POSTed as JSON, one JSON answer. Nothing here retries; callers
 * decide what a failure means for them.
 */

/** Largest answer read from the controller; an ack or enrollment answer is a few KiB. */
export const MAX_CONTROLLER_RESPONSE_BYTES = 1024 * 1024;

export type ControllerAnswer =
  | {
      readonly kind: 'answer';
      readonly status: number;
      /** The parsed JSON body, or null when the body was empty or not JSON. */
      readonly body: unknown;
    }
  | {
      /** No HTTP answer at all: connection refused or reset, DNS, timeout, oversize body. */
      readonly kind: 'unreachable';
      readonly reason: string;
    };

/** What the agent reads from an RFC 9457 problem+json answer; other members are tolerated. */
const ProblemSchema = z.object({
  code: ErrorCodeSchema,
  title: z.string().optional(),
  detail: z.string().optional(),
});

export interface ControllerProblem {
  readonly code: ErrorCode | null;
  /** `detail`, else `title`, bounded; null when the body said neither. */
  readonly detail: string | null;
}

export function problemOf(body: unknown): ControllerProblem {
  const parsed = ProblemSchema.safeParse(body);
  if (!parsed.success) return { code: null, detail: null };
  const text = parsed.data.detail ?? parsed.data.title ?? null;
  return { code: parsed.data.code, detail: text === null ? null : text.slice(0, 512) };
}

/** Statuses worth asking again later: the controller is busy, restarting or overloaded. */
export function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * Connections kept open between requests: a heartbeat a second reuses one
 * socket instead of a handshake each. node:http rather than fetch: fetch's
 * streams and promises cost the agent (and a simulator running a thousand
 * agents in one process) several times the CPU of the request itself.
 */
/**
 * Node's default keeps at most 256 idle sockets per host: an agent needs one,
 * but a process speaking for many nodes (the fleet simulator, a thousand at
 * once) would close and reopen the rest every second, which real agents,
 * each in its own process, never do.
 */
const IDLE_SOCKETS_PER_HOST = 4096;
const KEEP_ALIVE = {
  http: new HttpAgent({ keepAlive: true, maxFreeSockets: IDLE_SOCKETS_PER_HOST }),
  https: new HttpsAgent({ keepAlive: true, maxFreeSockets: IDLE_SOCKETS_PER_HOST }),
};

export async function postEnvelope(
  url: string,
  envelope: unknown,
  options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
): Promise<ControllerAnswer> {
  let answer: { status: number; text: string };
  try {
    answer = await post(new URL(url), JSON.stringify(envelope), options.timeoutMs, options.signal);
  } catch (error: unknown) {
    options.signal?.throwIfAborted();
    return { kind: 'unreachable', reason: describeRequestError(error) };
  }
  let body: unknown = null;
  if (answer.text !== '') {
    try {
      body = JSON.parse(answer.text) as unknown;
    } catch {
      body = null;
    }
  }
  return { kind: 'answer', status: answer.status, body };
}

/**
 * One POST, its answer read whole (bounded); the timeout and the signal cover
 * the answer's body too. The timeout is a plain timer rather than
 * AbortSignal.timeout: a heartbeat a second per node made the signal's
 * allocation and listeners a measurable share of a simulator's CPU.
 */
function post(
  url: URL,
  payload: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<{ status: number; text: string }> {
  const https = url.protocol === 'https:';
  if (!https && url.protocol !== 'http:')
    return Promise.reject(new Error(`unsupported scheme ${url.protocol}`));
  return new Promise((resolveAnswer, rejectAnswer) => {
    const timer = setTimeout(() => {
      const error = new Error(`no answer within ${timeoutMs} ms`);
      error.name = 'TimeoutError';
      request.destroy(error);
    }, timeoutMs);
    const resolve = (answer: { status: number; text: string }): void => {
      clearTimeout(timer);
      resolveAnswer(answer);
    };
    const reject = (error: Error): void => {
      clearTimeout(timer);
      rejectAnswer(error);
    };
    const request = (https ? httpsRequest : httpRequest)(
      url,
      {
        method: 'POST',
        agent: https ? KEEP_ALIVE.https : KEEP_ALIVE.http,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
        ...(signal === undefined ? {} : { signal }),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        // The controller never redirects an agent: following one could hand a signed envelope to someone else.
        if (status >= 300 && status < 400) {
          response.destroy();
          reject(new Error(`unexpected redirect (${status})`));
          return;
        }
        const declared = Number(response.headers['content-length'] ?? Number.NaN);
        if (Number.isFinite(declared) && declared > MAX_CONTROLLER_RESPONSE_BYTES) {
          response.destroy();
          reject(new Error(`the answer is larger than ${MAX_CONTROLLER_RESPONSE_BYTES} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.byteLength;
          if (size > MAX_CONTROLLER_RESPONSE_BYTES) {
            response.destroy();
            reject(new Error(`the answer is larger than ${MAX_CONTROLLER_RESPONSE_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
        response.on('close', () => {
          if (!response.complete) reject(new Error('the answer was cut off'));
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** An aborted request says "aborted"; what an operator can act on is the timeout or the socket error code. */
function describeRequestError(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return 'timed out';
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && code !== 'ABORT_ERR') return code;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error && cause.name === 'TimeoutError') return 'timed out';
  return error instanceof Error ? error.message : String(error);
}

/** `base` + `path`, keeping any path prefix `base` has (a controller behind a reverse proxy). */
export function controllerEndpoint(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
