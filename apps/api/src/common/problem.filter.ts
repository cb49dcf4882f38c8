import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE } from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import { PLAYGROUND_CHAT_PATH } from '../requests';
import { toLunaNexaError } from './errors';
import { requestIdsOf } from './request-ids';

/** Paths whose request bodies are inference payloads: prompts a tenant's data policy may forbid us to keep. */
const PAYLOAD_PATHS: readonly string[] = [`/${PLAYGROUND_CHAT_PATH}`];

export interface PayloadSafeError {
  readonly type: string;
  readonly code: string | null;
  /** Only the `at …` frames: the first line of a stack repeats the message. */
  readonly frames: readonly string[];
}

/**
 * What of an unexpected error may be logged when the request carried a
 * payload: its class, its code and where it was thrown, never its message or
 * properties, which can quote the body (a JSON.parse failure in Node 20
 * quotes the text it could not parse, say).
 */
export function payloadSafeError(error: unknown): PayloadSafeError {
  if (!(error instanceof Error)) return { type: typeof error, code: null, frames: [] };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.constructor.name,
    code: typeof code === 'string' || typeof code === 'number' ? String(code) : null,
    frames: (error.stack ?? '')
      .split('\n')
      .filter((line) => /^\s+at /.test(line))
      .map((line) => line.trim()),
  };
}

function carriesPayload(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0] ?? '';
  return PAYLOAD_PATHS.includes(path.replace(/\/+$/, ''));
}

/**
 * Answers a failed REST request with RFC 9457 problem+json carrying our error
 * code and the request ids; an unexpected error is logged first (without the
 * payload where the request carried one).
 */
export function answerProblem(
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  exception: unknown,
): void {
  const { error, expected } = toLunaNexaError(exception);
  if (!expected) {
    if (carriesPayload(req.url)) {
      logger.error({ error: payloadSafeError(exception), url: req.url }, 'unhandled error');
    } else {
      logger.error({ err: exception, url: req.url }, 'unhandled error');
    }
  }
  const ids = requestIdsOf(req);
  const problem = error.toProblem({
    instance: (req.url ?? '').split('?')[0] ?? '',
    requestId: ids.requestId,
    correlationId: ids.correlationId,
  });
  if (res.headersSent) return;
  res.statusCode = problem.status;
  res.setHeader('content-type', PROBLEM_CONTENT_TYPE);
  res.end(JSON.stringify(problem));
}

/**
 * REST endpoints answer failures with problem+json (answerProblem). GraphQL
 * errors pass through to Apollo's formatter.
 */
@Catch()
export class ProblemJsonFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): unknown {
    if (host.getType<string>() !== 'http') return exception;
    const http = host.switchToHttp();
    answerProblem(
      this.logger,
      http.getRequest<IncomingMessage>(),
      http.getResponse<ServerResponse>(),
      exception,
    );
    return undefined;
  }
}
