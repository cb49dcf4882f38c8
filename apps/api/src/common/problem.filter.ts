import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE } from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import { toLunaNexaError } from './errors';
import { requestIdsOf } from './request-ids';

/**
 * REST endpoints answer failures with RFC 9457 problem+json carrying our error
 * code and the request ids. GraphQL errors pass through to Apollo's formatter.
 */
@Catch()
export class ProblemJsonFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): unknown {
    if (host.getType<string>() !== 'http') return exception;
    const http = host.switchToHttp();
    const req = http.getRequest<IncomingMessage>();
    const res = http.getResponse<ServerResponse>();
    const { error, expected } = toLunaNexaError(exception);
    if (!expected) this.logger.error({ err: exception, url: req.url }, 'unhandled error');
    const ids = requestIdsOf(req);
    const problem = error.toProblem({
      instance: (req.url ?? '').split('?')[0] ?? '',
      requestId: ids.requestId,
      correlationId: ids.correlationId,
    });
    if (res.headersSent) return undefined;
    res.statusCode = problem.status;
    res.setHeader('content-type', PROBLEM_CONTENT_TYPE);
    res.end(JSON.stringify(problem));
    return undefined;
  }
}
