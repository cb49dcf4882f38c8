import type { Problem } from './generated/gateway';

/**
 * A refusal or failure from the gateway or the operator API: the LunaNexa
 * `code` (problem+json `code`, GraphQL `extensions.code`), the HTTP status,
 * and the ids to quote when asking an operator about it.
 */
export class LunaNexaError extends Error {
  override readonly name = 'LunaNexaError';
  constructor(
    message: string,
    /** LunaNexa error code (e.g. `QUOTA_EXCEEDED`); `NETWORK` when no answer arrived, `ABORTED` when the caller cancelled. */
    readonly code: string,
    /** HTTP status; 0 when no answer arrived. */
    readonly status: number,
    readonly requestId: string | undefined,
    readonly correlationId: string | undefined,
    /** Seconds the server asked to wait (Retry-After on 429 and 503). */
    readonly retryAfterSeconds: number | undefined,
    /** The problem document as received, when there was one. */
    readonly problem?: Problem,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function retryAfter(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/** The error a non-2xx response stands for; the body is problem+json when the server wrote one. */
export async function errorFromResponse(response: Response): Promise<LunaNexaError> {
  const text = await response.text().catch(() => '');
  let problem: Problem | undefined;
  try {
    const parsed = JSON.parse(text) as Partial<Problem> | null;
    if (parsed !== null && typeof parsed === 'object' && typeof parsed.code === 'string')
      problem = parsed as Problem;
  } catch {
    // Not JSON (a proxy's page, an empty body): the status is all there is.
  }
  return new LunaNexaError(
    problem?.detail ?? problem?.title ?? `HTTP ${response.status}`,
    problem?.code ?? `HTTP_${response.status}`,
    response.status,
    problem?.requestId ?? response.headers.get('x-request-id') ?? undefined,
    problem?.correlationId ?? response.headers.get('x-correlation-id') ?? undefined,
    retryAfter(response.headers),
    problem,
  );
}

/** The error for a request that got no answer: the caller's abort, or the network. */
export function errorFromFailure(error: unknown, signal: AbortSignal | undefined): LunaNexaError {
  if (signal?.aborted) {
    return new LunaNexaError(
      'cancelled by the caller',
      'ABORTED',
      0,
      undefined,
      undefined,
      undefined,
      undefined,
      {
        cause: error,
      },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LunaNexaError(
    `no answer: ${message}`,
    'NETWORK',
    0,
    undefined,
    undefined,
    undefined,
    undefined,
    {
      cause: error,
    },
  );
}
