import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
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

/** Only the plain heartbeat — UTF-8 JSON, no content encoding, a declared length within the body limit. */
export function plainHeartbeat(req: IncomingMessage): boolean {
  if (req.method !== 'POST' || (req.url ?? '').split('?', 1)[0] !== AGENT_HTTP_PATHS.heartbeat) return false;
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  const encoding = req.headers['content-encoding'];
  return (
    plainJson(req.headers['content-type']) &&
    (encoding === undefined || encoding.toLowerCase() === 'identity') &&
    Number.isInteger(declared) &&
    declared <= HEARTBEAT_BODY_LIMIT_BYTES
  );
}

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * `POST /agent/v1/heartbeat` without Express and the Nest request pipeline:
 * at fleet scale (a heartbeat a second per node) routing, body parsing,
 * guards, pipes and the response layer cost the api more CPU than the
 * heartbeat's own work. The server's request listener answers a plain
 * heartbeat (plainHeartbeat) itself, after the same request-id and metrics
 * middleware Express runs first (ids and the duration histogram unchanged),
 * and hands every other request to Express as before — including a
 * heartbeat that is not plain, which the Nest route (AgentController)
 * answers. Either way AgentChannelService.heartbeat verifies and ingests it,
 * and a failure is the same problem+json (answerProblem).
 */
export function answerHeartbeatsFirst(
  server: Server,
  channel: AgentChannelService,
  logger: Logger,
  middleware: readonly Middleware[],
): void {
  const others = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (!plainHeartbeat(req)) {
      for (const listener of others) listener(req, res);
      return;
    }
    const receivedAt = new Date();
    const run = (index: number): void => {
      const step = middleware[index];
      if (step === undefined) readAndAnswer(channel, logger, req, res, receivedAt);
      else step(req, res, () => run(index + 1));
    };
    run(0);
  });
}

function readAndAnswer(
  channel: AgentChannelService,
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  receivedAt: Date,
): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('error', () => undefined);
  req.on('end', () => {
    void answer(channel, logger, req, res, Buffer.concat(chunks).toString('utf8'), receivedAt);
  });
}

async function answer(
  channel: AgentChannelService,
  logger: Logger,
  req: IncomingMessage,
  res: ServerResponse,
  text: string,
  receivedAt: Date,
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
    const ack = await channel.heartbeat(body, requestIdsOf(req), remoteAddressOf(req), receivedAt);
    const payload = JSON.stringify(ack);
    res.statusCode = 200;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', Buffer.byteLength(payload));
    res.end(payload);
  } catch (error: unknown) {
    answerProblem(logger, req, res, error);
  }
}
