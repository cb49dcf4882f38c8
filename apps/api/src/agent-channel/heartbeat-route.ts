import type { IncomingMessage, ServerResponse } from 'node:http';
import { AGENT_HTTP_PATHS } from '@lunanexa/agent-protocol';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import { answerProblem } from '../common/problem.filter';
import { requestIdsOf } from '../common/request-ids';
import type { AgentChannelService } from './agent-channel.service';
import { remoteAddressOf } from './agent.controller';

/** The JSON body parser's limit (Nest's default, 100 KiB): a heartbeat is a few KiB. */
export const HEARTBEAT_BODY_LIMIT_BYTES = 100 * 1024;

/** `application/json`, with no charset or UTF-8: what body-parser would read as UTF-8 JSON. */
function plainJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [type, ...parameters] = contentType.toLowerCase().split(';');
  if (type?.trim() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name, value] = parameter.split('=').map((part) => part.trim());
    return name !== 'charset' || value === 'utf-8' || value === '"utf-8"';
  });
}

/**
 * `POST /agent/v1/heartbeat` without the Nest and Express request pipeline:
 * at fleet scale (a heartbeat a second per node) routing, body parsing,
 * guards, pipes and the response layer cost the api more CPU than the
 * heartbeat's own work. Mounted after the request-id and metrics middleware
 * (ids and the duration histogram are unchanged), before the body parsers.
 *
 * Only the plain request takes this path — UTF-8 JSON, no content encoding,
 * a declared length within the body parser's limit. Anything else goes on to
 * the Nest route (AgentController), which answers exactly as before. Either
 * way the same AgentChannelService.heartbeat verifies and ingests it, and a
 * failure is the same problem+json (answerProblem).
 */
export function heartbeatRoute(channel: AgentChannelService, logger: Logger) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    if (req.method !== 'POST' || (req.url ?? '').split('?', 1)[0] !== AGENT_HTTP_PATHS.heartbeat) {
      next();
      return;
    }
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    const encoding = req.headers['content-encoding'];
    if (
      !plainJson(req.headers['content-type']) ||
      (encoding !== undefined && encoding.toLowerCase() !== 'identity') ||
      !Number.isInteger(declared) ||
      declared > HEARTBEAT_BODY_LIMIT_BYTES
    ) {
      next();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => undefined);
    req.on('end', () => {
      void answer(channel, logger, req, res, Buffer.concat(chunks).toString('utf8'));
    });
  };
}

async function answer(
  channel: AgentChannelService,
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  text: string,
): Promise<void> {
  try {
    let body: unknown;
    // As body-parser's strict mode: an object or an array, else the body is malformed.
    const first = /^[ \t\n\r]*(.)/.exec(text)?.[1];
    try {
      if (first !== '{' && first !== '[') throw new SyntaxError('not an object or array');
      body = JSON.parse(text) as unknown;
    } catch {
      throw new LunaNexaError(ErrorCode.MALFORMED_REQUEST, 'request body is not valid JSON');
    }
    const ack = await channel.heartbeat(body, requestIdsOf(req), remoteAddressOf(req));
    const payload = JSON.stringify(ack);
    res.statusCode = 200;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', Buffer.byteLength(payload));
    res.end(payload);
  } catch (error: unknown) {
    answerProblem(logger, req, res, error);
  }
}
