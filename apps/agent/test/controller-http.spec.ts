import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { MAX_CONTROLLER_RESPONSE_BYTES, postEnvelope } from '../src/controller-http';

describe('postEnvelope (agent → controller HTTP)', () => {
  let server: Server;
  let base = '';
  let handler: (req: IncomingMessage, res: ServerResponse, body: string) => void = () => undefined;
  const remotePorts: number[] = [];

  before(async () => {
    server = createServer((req, res) => {
      remotePorts.push(req.socket.remotePort ?? 0);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('POSTs the envelope as JSON and reads the JSON answer, reusing one connection', async () => {
    handler = (req, res, body) => {
      res.setHeader('content-type', 'application/json');
      const echo = JSON.parse(body) as unknown;
      res.end(JSON.stringify({ method: req.method, type: req.headers['content-type'], echo }));
    };
    remotePorts.length = 0;
    const first = await postEnvelope(`${base}/agent/v1/heartbeat`, { n: 1 }, { timeoutMs: 5000 });
    const second = await postEnvelope(`${base}/agent/v1/heartbeat`, { n: 2 }, { timeoutMs: 5000 });
    expect(first).to.deep.equal({
      kind: 'answer',
      status: 200,
      body: { method: 'POST', type: 'application/json', echo: { n: 1 } },
    });
    expect(second).to.deep.include({ kind: 'answer', status: 200 });
    expect(remotePorts).to.have.length(2);
    expect(remotePorts[1]).to.equal(remotePorts[0]);
  });

  it('hands back a problem answer with its status, and a body that is not JSON as null', async () => {
    handler = (_req, res) => {
      res.statusCode = 429;
      res.setHeader('content-type', 'application/problem+json');
      res.end('{"code":"RATE_LIMITED"}');
    };
    expect(await postEnvelope(base, {}, { timeoutMs: 5000 })).to.deep.equal({
      kind: 'answer',
      status: 429,
      body: { code: 'RATE_LIMITED' },
    });
    handler = (_req, res) => res.end('not json');
    expect(await postEnvelope(base, {}, { timeoutMs: 5000 })).to.deep.equal({
      kind: 'answer',
      status: 200,
      body: null,
    });
  });

  it('does not follow a redirect: the signed envelope goes nowhere else', async () => {
    let redirectedTo = 0;
    handler = (req, res) => {
      if (req.url === '/elsewhere') redirectedTo += 1;
      res.statusCode = 307;
      res.setHeader('location', '/elsewhere');
      res.end();
    };
    const answer = await postEnvelope(`${base}/agent/v1/heartbeat`, {}, { timeoutMs: 5000 });
    expect(answer).to.deep.equal({ kind: 'unreachable', reason: 'unexpected redirect (307)' });
    expect(redirectedTo).to.equal(0);
  });

  it('gives up on a controller that does not answer in time, or answers too much', async () => {
    handler = () => undefined;
    const started = Date.now();
    expect(await postEnvelope(base, {}, { timeoutMs: 300 })).to.deep.equal({
      kind: 'unreachable',
      reason: 'timed out',
    });
    expect(Date.now() - started).to.be.below(3000);
    // An answer that starts but never ends is timed out too.
    handler = (_req, res) => res.write('{"partial":');
    expect(await postEnvelope(base, {}, { timeoutMs: 300 })).to.deep.include({ kind: 'unreachable' });
    handler = (_req, res) => res.end('x'.repeat(MAX_CONTROLLER_RESPONSE_BYTES + 1));
    const oversized = await postEnvelope(base, {}, { timeoutMs: 5000 });
    expect(oversized).to.deep.equal({
      kind: 'unreachable',
      reason: `the answer is larger than ${MAX_CONTROLLER_RESPONSE_BYTES} bytes`,
    });
  });

  it('names the socket error when nothing listens, and stops at once when its caller aborts', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await postEnvelope(`http://127.0.0.1:${port}`, {}, { timeoutMs: 5000 })).to.deep.equal({
      kind: 'unreachable',
      reason: 'ECONNREFUSED',
    });
    handler = () => undefined;
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 50);
    let thrown: unknown = null;
    await postEnvelope(base, {}, { timeoutMs: 5000, signal: controller.signal }).catch(
      (error: unknown) => (thrown = error),
    );
    expect(String(thrown)).to.contain('shutting down');
  });
});
