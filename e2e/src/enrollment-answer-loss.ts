import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AGENT_HTTP_PATHS } from '@lunanexa/agent-protocol';

/**
 * A reverse proxy between one agent and the API that loses the answer to the
 * agent's first enrollment request: the API commits the Pending node, and the
 * agent sees its connection reset — what an API killed between its commit and
 * its reply looks like from the node. Until `release()`, the agent's retries
 * are answered 503 (an API still starting), so a test can act on the Pending
 * node while the agent does not yet trust the controller key. Everything
 * else (heartbeats, and enrollment after release) passes through untouched.
 */
export interface EnrollmentAnswerLoss {
  /** Give this to the agent as its controllerUrl. */
  readonly url: string;
  /** Enrollment requests seen: the one whose answer was lost, then the retries. */
  enrollRequests(): number;
  /** From now on enrollment requests reach the API. */
  release(): void;
  close(): Promise<void>;
}

export async function startEnrollmentAnswerLoss(apiUrl: string): Promise<EnrollmentAnswerLoss> {
  const target = new URL(apiUrl);
  let enrollRequests = 0;
  let released = false;

  const forward = (req: IncomingMessage, res: ServerResponse, loseTheAnswer: boolean): void => {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        if (loseTheAnswer) {
          // Read the whole answer (the API has done its work), then drop the agent's connection unanswered.
          answer.resume();
          answer.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  };

  const server = createServer((req, res) => {
    if (req.method === 'POST' && req.url === AGENT_HTTP_PATHS.enroll) {
      enrollRequests += 1;
      if (enrollRequests === 1) {
        forward(req, res, true);
        return;
      }
      if (!released) {
        req.resume();
        res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1' });
        res.end(JSON.stringify({ status: 503, code: 'DEPENDENCY_UNAVAILABLE', title: 'starting' }));
        return;
      }
    }
    forward(req, res, false);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    enrollRequests: () => enrollRequests,
    release: () => {
      released = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
