import { request as httpRequest, createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The test's own load balancer in front of several api or gateway processes, behaving like the ones
 * infra/README.md asks for (nginx `proxy_next_upstream error`, an L7 cloud balancer): round robin over the
 * backends, a backend that refuses or drops a connection is skipped for a while, and a request whose backend
 * failed before any byte of its answer is sent again to the next backend. That re-send is safe for LunaNexa:
 * every mutation carries an idempotency key (the workflow id), and an inference request that got no answer
 * has had no effect a caller could see. Once answer bytes have reached the caller nothing is re-sent: a stream
 * cut by a dying process ends with an error, which is what "not yet streaming" excludes.
 */
export class TestLoadBalancer {
  private next = 0;
  private readonly downUntil = new Map<number, number>();
  /** Requests sent again to another backend because theirs failed before answering. */
  resent = 0;
  /** Requests that no backend answered (every backend failed): each is a failure the caller saw. */
  unanswered = 0;

  private constructor(
    private readonly server: Server,
    private readonly backends: readonly number[],
    private readonly holdDownMs: number,
  ) {}

  /** Listens on 127.0.0.1 (a free port) and spreads requests over `backendPorts` on 127.0.0.1. */
  static async start(backendPorts: readonly number[], options: { holdDownMs?: number } = {}) {
    const server = createServer();
    const balancer = new TestLoadBalancer(server, backendPorts, options.holdDownMs ?? 3_000);
    server.on('request', (req, res) => void balancer.forward(req, res));
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return balancer;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Backends in the order to try for one request: healthy ones round robin, then those held down. */
  private order(): number[] {
    const start = this.next++ % this.backends.length;
    const rotated = [...this.backends.slice(start), ...this.backends.slice(0, start)];
    const now = Date.now();
    const up = rotated.filter((port) => (this.downUntil.get(port) ?? 0) <= now);
    return [...up, ...rotated.filter((port) => !up.includes(port))];
  }

  private async forward(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const tried = this.order();
    for (const [attempt, port] of tried.entries()) {
      const outcome = await this.tryBackend(port, req, body, res);
      if (outcome === 'answered') {
        if (attempt > 0) this.resent++;
        return;
      }
      this.downUntil.set(port, Date.now() + this.holdDownMs);
    }
    this.unanswered++;
    res.writeHead(502, { 'content-type': 'text/plain' }).end('no backend answered');
  }

  /** 'answered' once the backend's status line reached the caller; 'failed' when it failed before that. */
  private tryBackend(
    port: number,
    req: IncomingMessage,
    body: Buffer,
    res: import('node:http').ServerResponse,
  ): Promise<'answered' | 'failed'> {
    return new Promise((resolve) => {
      const headers = { ...req.headers, 'content-length': String(body.length) };
      delete headers['transfer-encoding'];
      const upstream = httpRequest(
        { host: '127.0.0.1', port, method: req.method, path: req.url, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          // A backend that dies mid-answer: the caller sees the cut, as it would behind any balancer.
          answer.on('error', () => res.destroy());
          answer.on('aborted', () => res.destroy());
          resolve('answered');
        },
      );
      upstream.on('error', () => resolve('failed'));
      // The caller went away: let the backend know too.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.end(body);
    });
  }
}
