/**
 * When a call may be sent again. Retrying a generation that reached a runtime
 * would run (and bill) it twice, so a POST is retried only when the gateway
 * certainly did not start it:
 *
 * - the connection was refused or the host not found (ECONNREFUSED, ENOTFOUND,
 *   EAI_AGAIN): the request was never sent;
 * - the gateway answered 429 (QUOTA_EXCEEDED) or 503 (NO_CAPACITY,
 *   DEPENDENCY_UNAVAILABLE) with Retry-After: it refused before admission,
 *   and no byte of a response body had been produced.
 *
 * A GET (model list, discovery) is idempotent and is also retried after a
 * reset connection, a timeout, 502 and 504. Nothing is retried after the
 * caller aborted, or once a stream's first byte arrived.
 */
export interface RetryPolicy {
  /** Further attempts after the first (0 turns retries off). */
  readonly maxRetries: number;
  /** First backoff; doubled each attempt, with jitter, capped at maxDelayMs. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 250, maxDelayMs: 8_000 };

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);
const IDEMPOTENT_NETWORK_CODES = new Set([
  ...NOT_SENT_CODES,
  'ECONNRESET',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'EPIPE',
]);

function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether a fetch that threw (no response) may be repeated. */
export function retryableFailure(error: unknown, idempotent: boolean): boolean {
  const code = networkCode(error);
  if (code === undefined) return false;
  return (idempotent ? IDEMPOTENT_NETWORK_CODES : NOT_SENT_CODES).has(code);
}

/** Whether a response status may be retried. */
export function retryableStatus(status: number, idempotent: boolean, hasRetryAfter: boolean): boolean {
  if (status === 429 || status === 503) return idempotent || hasRetryAfter;
  return idempotent && (status === 502 || status === 504);
}

/** Milliseconds before attempt `attempt` (1-based retry number), honouring the server's Retry-After. */
export function backoffMs(
  policy: RetryPolicy,
  attempt: number,
  retryAfterSeconds: number | undefined,
): number {
  if (retryAfterSeconds !== undefined) return Math.min(retryAfterSeconds * 1000, policy.maxDelayMs);
  const exponential = Math.min(policy.baseDelayMs * 2 ** (attempt - 1), policy.maxDelayMs);
  return exponential / 2 + Math.random() * (exponential / 2);
}

export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted', { cause: signal.reason }));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error('aborted', { cause: signal?.reason }));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
