import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayClient, LunaNexaError } from '../src';

/** A real HTTP server answering from a script, counting what arrived. */
async function serve(
  answer: (req: IncomingMessage, res: ServerResponse, attempt: number) => void,
): Promise<{ url: string; attempts: () => number; close: () => Promise<void> }> {
  let attempts = 0;
  const server: Server = createServer((req, res) => {
    attempts += 1;
    req.resume();
    req.on('end', () => answer(req, res, attempts));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    attempts: () => attempts,
    // Idle keep-alive sockets would hold close() for seconds; each test has had its answer by now.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function problem(
  res: ServerResponse,
  status: number,
  code: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/problem+json', 'x-request-id': 'req-1', ...headers });
  res.end(
    JSON.stringify({
      type: 'about:blank',
      title: code,
      status,
      code,
      requestId: 'req-1',
      correlationId: 'cor-1',
    }),
  );
}

const fast = { baseDelayMs: 1, maxDelayMs: 20 };
const chat = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected a refusal'),
    (error: unknown) => error as LunaNexaError,
  );

describe('GatewayClient', () => {
  it('a problem+json refusal becomes a LunaNexaError with code, status, request and correlation ids', async () => {
    const server = await serve((_req, res) => problem(res, 403, 'FORBIDDEN'));
    try {
      const error = await failure(
        new GatewayClient({ baseUrl: server.url, apiKey: 'k' }).createChatCompletion(chat),
      );
      expect(error).to.be.instanceOf(LunaNexaError);
      expect(error).to.include({
        code: 'FORBIDDEN',
        status: 403,
        requestId: 'req-1',
        correlationId: 'cor-1',
      });
      expect(server.attempts()).to.equal(1);
    } finally {
      await server.close();
    }
  });

  it('a POST refused with 503 + Retry-After (before admission) is retried; the second answer wins', async () => {
    const server = await serve((_req, res, attempt) => {
      if (attempt === 1) return problem(res, 503, 'NO_CAPACITY', { 'retry-after': '0' });
      res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-2' });
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [] }));
    });
    try {
      const answer = await new GatewayClient({
        baseUrl: server.url,
        apiKey: 'k',
        retry: fast,
      }).createChatCompletion(chat);
      expect(answer.requestId).to.equal('req-2');
      expect(server.attempts()).to.equal(2);
    } finally {
      await server.close();
    }
  });

  it('a POST that failed after it was sent (500, 502, 504, a 503 without Retry-After) is not retried', async () => {
    for (const [status, code, headers] of [
      [500, 'INTERNAL', {}],
      [502, 'UPSTREAM_FAILED', {}],
      [504, 'DEADLINE_EXCEEDED', {}],
      [503, 'NO_CAPACITY', {}],
    ] as const) {
      const server = await serve((_req, res) => problem(res, status, code, headers));
      try {
        const client = new GatewayClient({ baseUrl: server.url, apiKey: 'k', retry: fast });
        const error = await failure(client.createChatCompletion(chat));
        expect(error.code).to.equal(code);
        expect(server.attempts(), `${status}`).to.equal(1);
      } finally {
        await server.close();
      }
    }
  });

  it('a POST whose connection was reset after sending is not retried; a GET is', async () => {
    const server = await serve((_req, res, attempt) => {
      if (attempt <= 2) return res.socket?.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ object: 'list', data: [{ id: 'a', object: 'model', created: 1, owned_by: 'x' }] }),
      );
    });
    try {
      const client = new GatewayClient({ baseUrl: server.url, apiKey: 'k', retry: fast });
      const error = await failure(client.createChatCompletion(chat));
      expect(error.code).to.equal('NETWORK');
      expect(server.attempts()).to.equal(1);
      const models = await client.listModels();
      expect(models.data.map((m) => m.id)).to.deep.equal(['a']);
      expect(server.attempts()).to.equal(3);
    } finally {
      await server.close();
    }
  });

  it('a refused connection (nothing sent) is retried for a POST too, up to maxRetries', async () => {
    const server = await serve(() => undefined);
    const { url } = server;
    await server.close();
    const started = Date.now();
    const error = await failure(
      new GatewayClient({
        baseUrl: url,
        apiKey: 'k',
        retry: { ...fast, maxRetries: 2 },
      }).createChatCompletion(chat),
    );
    expect(error.code).to.equal('NETWORK');
    expect(Date.now() - started).to.be.below(2_000);
  });

  it('streams chunks, keeps usage, and an abort mid-stream closes the request with ABORTED', async () => {
    let closed = false;
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req-s' });
      const chunk = (content: string) =>
        `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
      res.write(chunk('a'));
      res.write(chunk('b'));
      res.on('close', () => (closed = true));
      // Never ends by itself: only the client's abort ends it.
    });
    try {
      const controller = new AbortController();
      const stream = await new GatewayClient({ baseUrl: server.url, apiKey: 'k' }).streamChatCompletion(
        chat,
        {
          signal: controller.signal,
        },
      );
      expect(stream.requestId).to.equal('req-s');
      let text = '';
      const error = await (async () => {
        for await (const c of stream) {
          text += c.choices[0]?.delta.content ?? '';
          if (text === 'ab') controller.abort();
        }
      })().then(
        () => null,
        (e: unknown) => e as LunaNexaError,
      );
      expect(text).to.equal('ab');
      expect(error?.code).to.equal('ABORTED');
      for (let i = 0; i < 50 && !closed; i += 1) await new Promise((r) => setTimeout(r, 10));
      expect(closed, 'the server saw the request close').to.equal(true);
    } finally {
      await server.close();
    }
  });

  it('an error event inside a stream is a LunaNexaError with the upper-case code', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req-e' });
      res.end(
        `data: ${JSON.stringify({ error: { message: 'runtime failed', code: 'upstream_failed' } })}\n\n`,
      );
    });
    try {
      const stream = await new GatewayClient({ baseUrl: server.url, apiKey: 'k' }).streamChatCompletion(chat);
      const error = await (async () => {
        for await (const _ of stream) void _;
      })().then(
        () => null,
        (e: unknown) => e as LunaNexaError,
      );
      expect(error).to.include({ code: 'UPSTREAM_FAILED', requestId: 'req-e' });
    } finally {
      await server.close();
    }
  });
});
