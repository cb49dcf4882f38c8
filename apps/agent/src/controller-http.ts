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

export async function postEnvelope(
  url: string,
  envelope: unknown,
  options: { readonly timeoutMs: number; readonly signal?: AbortSignal },
): Promise<ControllerAnswer> {
  let response: Response;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(envelope),
      signal: options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]),
      redirect: 'error',
    });
  } catch (error: unknown) {
    options.signal?.throwIfAborted();
    return { kind: 'unreachable', reason: describeFetchError(error) };
  }
  let text: string;
  try {
    text = await readBounded(response);
  } catch (error: unknown) {
    return { kind: 'unreachable', reason: describeFetchError(error) };
  }
  let body: unknown = null;
  if (text !== '') {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      body = null;
    }
  }
  return { kind: 'answer', status: response.status, body };
}

async function readBounded(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > MAX_CONTROLLER_RESPONSE_BYTES) {
    await response.body?.cancel();
    throw new Error(`the answer is larger than ${MAX_CONTROLLER_RESPONSE_BYTES} bytes`);
  }
  if (response.body === null) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_CONTROLLER_RESPONSE_BYTES) {
      throw new Error(`the answer is larger than ${MAX_CONTROLLER_RESPONSE_BYTES} bytes`);
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** fetch hides the socket error in `cause`; that is the part an operator can act on. */
function describeFetchError(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return 'timed out';
  }
  const cause = (error as { cause?: unknown }).cause;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined) return code;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/** `base` + `path`, keeping any path prefix `base` has (a controller behind a reverse proxy). */
export function controllerEndpoint(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
