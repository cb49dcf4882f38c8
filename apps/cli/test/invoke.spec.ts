import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  API_VERSION,
  ErrorCode,
  LunaNexaError,
  WorkloadRequestSchema,
  openAiErrorFromProblem,
  workloadChunkToOpenAiChat,
  type WorkloadDeltaChunk,
} from '@lunanexa/contracts';
import { expect } from 'chai';
import { runCli } from '../src/cli';
import type { CliIo } from '../src/context';
import { UUID_PATTERN, captureIo, closedPort } from './support';

/**
 * A test double of the gateway's wire format: chunks are built with the
 * contract's own mapping functions, the ones the gateway's pumpStream uses,
 * and written one `data:` event at a time.
 */
const SERVED_BY = { model: 'demo@v1', alias: null, deploymentId: 'dep-5e1c0a9b3f2d4e6a' } as const;
const TOKENS = ['Larger', ' pools', ' of', ' memory'] as const;

function delta(sequence: number, text: string, last = false): WorkloadDeltaChunk {
  return {
    apiVersion: API_VERSION,
    type: 'delta',
    kind: 'chat',
    id: 'wl-req-1',
    sequence,
    servedBy: SERVED_BY,
    choices: [{ index: 0, delta: text, finishReason: last ? 'stop' : null }],
    usage: last ? { promptTokens: 3, completionTokens: TOKENS.length, totalTokens: 3 + TOKENS.length } : null,
  };
}

function openAiEvents(chunk: WorkloadDeltaChunk): string {
  return workloadChunkToOpenAiChat(chunk, { created: 1763630100, includeUsage: true })
    .map((event) => `data: ${JSON.stringify(event)}\n\n`)
    .join('');
}

interface Received {
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: unknown;
}

type Handler = (received: Received, res: ServerResponse) => Promise<void> | void;

async function gateway(handler: Handler): Promise<{
  url: string;
  received: Received[];
  close: () => Promise<void>;
}> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const request: Received = {
        path: req.url ?? '',
        headers: req.headers,
        body: JSON.parse(Buffer.concat(parts).toString('utf8')) as unknown,
      };
      received.push(request);
      Promise.resolve()
        .then(() => handler(request, res))
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function startStream(res: ServerResponse, requestId: string | string[] | undefined): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    ...(typeof requestId === 'string' ? { 'x-request-id': requestId } : {}),
  });
}

/** The OpenAI stream of TOKENS, a few milliseconds apart, ending in usage and [DONE]. */
const streamTokens: Handler = async ({ headers }, res) => {
  startStream(res, headers['x-request-id']);
  for (const [sequence, token] of TOKENS.entries()) {
    res.write(openAiEvents(delta(sequence, token)));
    await sleep(5);
  }
  res.write(openAiEvents(delta(TOKENS.length, '', true)));
  res.end('data: [DONE]\n\n');
};

describe('lunanexa invoke', () => {
  let gw: Awaited<ReturnType<typeof gateway>> | undefined;
  async function serve(handler: Handler): Promise<NonNullable<typeof gw>> {
    gw = await gateway(handler);
    return gw;
  }
  afterEach(async () => {
    await gw?.close();
    gw = undefined;
  });

  it('writes the first token to stdout before the gateway has sent the rest of the stream', async () => {
    let firstWriteAt: number | undefined;
    let lastChunkSentAt: number | undefined;
    let firstWritten: () => void = () => undefined;
    const firstWrite = new Promise<void>((resolve) => (firstWritten = resolve));
    const writes: string[] = [];
    const io: CliIo = {
      stdout: (text) => {
        writes.push(text);
        if (firstWriteAt === undefined) {
          firstWriteAt = performance.now();
          firstWritten();
        }
      },
      stderr: (text) => writes.push(`stderr: ${text}`),
      env: {},
    };
    const { url } = await serve(async ({ headers }, res) => {
      startStream(res, headers['x-request-id']);
      res.write(openAiEvents(delta(0, TOKENS[0])));
      // Holds the rest back until the CLI has shown the first token; a CLI that
      // buffered the answer would never write, and the race below would time out.
      await Promise.race([firstWrite, sleep(2000)]);
      for (const [index, token] of TOKENS.slice(1).entries()) {
        await sleep(20);
        res.write(openAiEvents(delta(index + 1, token)));
      }
      await sleep(20);
      lastChunkSentAt = performance.now();
      res.write(openAiEvents(delta(TOKENS.length, '', true)));
      res.end('data: [DONE]\n\n');
    });

    const code = await runCli(
      ['invoke', 'demo@v1', '--prompt', 'Name a use of unified memory.', '--gateway-url', url],
      io,
      '0.1.0',
    );

    expect(code).to.equal(0);
    expect(firstWriteAt, 'first stdout write').to.be.a('number');
    expect(lastChunkSentAt, 'last chunk sent').to.be.a('number');
    expect(firstWriteAt!).to.be.lessThan(lastChunkSentAt!);
    // One write per token as it arrived, then the closing newline: nothing was batched.
    expect(writes).to.deep.equal([...TOKENS, '\n']);
  });

  it('the lunanexa process flushes each token to its stdout pipe as it arrives, then exits 0', async function () {
    this.timeout(20_000);
    let firstOutputAt: number | undefined;
    let lastChunkSentAt: number | undefined;
    let sawOutput: () => void = () => undefined;
    const output = new Promise<void>((resolve) => (sawOutput = resolve));
    const { url } = await serve(async ({ headers }, res) => {
      startStream(res, headers['x-request-id']);
      res.write(openAiEvents(delta(0, TOKENS[0])));
      await Promise.race([output, sleep(5000)]);
      for (const [index, token] of TOKENS.slice(1).entries())
        res.write(openAiEvents(delta(index + 1, token)));
      lastChunkSentAt = performance.now();
      res.write(openAiEvents(delta(TOKENS.length, '', true)));
      res.end('data: [DONE]\n\n');
    });
    const child = spawn(
      process.execPath,
      [join(__dirname, '..', 'src', 'main.js'), 'invoke', 'demo@v1', '--prompt', 'hi', '--gateway-url', url],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => {
      firstOutputAt ??= performance.now();
      stdout += data.toString('utf8');
      sawOutput();
    });
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(exitCode, stderr).to.equal(0);
    expect(stdout).to.equal('Larger pools of memory\n');
    expect(firstOutputAt!).to.be.lessThan(lastChunkSentAt!);
  });

  it('sends an OpenAI chat request with the deadline, a request id and the operator token', async () => {
    const { url, received } = await serve(streamTokens);
    const io = captureIo({ LUNANEXA_TOKEN: 'lnx_secret_operator_token', LUNANEXA_GATEWAY_URL: url });
    const code = await runCli(
      ['--timeout', '5000', 'invoke', 'chat-default', '--prompt', 'hi', '--max-tokens', '16', '--seed', '7'],
      io,
      '0.1.0',
    );
    expect(code, io.err()).to.equal(0);
    expect(io.out()).to.equal('Larger pools of memory\n');
    const [request] = received;
    expect(request?.path).to.equal('/v1/chat/completions');
    expect(request?.body).to.deep.equal({
      model: 'chat-default',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 16,
      seed: 7,
    });
    expect(request?.headers['x-request-id']).to.match(UUID_PATTERN);
    expect(request?.headers['x-lunanexa-deadline-ms']).to.equal('5000');
    expect(request?.headers['accept']).to.match(/^text\/event-stream/);
    // The gateway authenticates every /v1 call; operators may name model@version with their own token.
    expect(request?.headers['authorization']).to.equal('Bearer lnx_secret_operator_token');
  });

  it('calls as a tenant with a gateway key from the environment or a file, never the operator token', async () => {
    const key = `lnxk_${'k'.repeat(43)}`;
    const { url, received } = await serve(streamTokens);
    const io = captureIo({
      LUNANEXA_TOKEN: 'lnx_secret_operator_token',
      LUNANEXA_GATEWAY_URL: url,
      LUNANEXA_GATEWAY_KEY: key,
    });
    expect(await runCli(['invoke', 'chat-default', '--prompt', 'hi'], io, '0.1.0'), io.err()).to.equal(0);
    expect(received[0]?.headers['authorization']).to.equal(`Bearer ${key}`);
    const dir = mkdtempSync(join(tmpdir(), 'lnx-key-'));
    try {
      const file = join(dir, 'acme.key');
      writeFileSync(file, `${key}\n`, { mode: 0o600 });
      const fromFile = captureIo({ LUNANEXA_TOKEN: 'lnx_secret_operator_token', LUNANEXA_GATEWAY_URL: url });
      expect(
        await runCli(
          ['invoke', 'chat-default', '--prompt', 'hi', '--gateway-key-file', file],
          fromFile,
          '0.1.0',
        ),
        fromFile.err(),
      ).to.equal(0);
      expect(received[1]?.headers['authorization']).to.equal(`Bearer ${key}`);
      const missing = captureIo({ LUNANEXA_GATEWAY_URL: url });
      expect(
        await runCli(
          ['invoke', 'chat-default', '--prompt', 'hi', '--gateway-key-file', join(dir, 'nope')],
          missing,
          '0.1.0',
        ),
      ).to.equal(64);
      expect(missing.err()).to.include('--gateway-key-file');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints one JSON document at the end with --json, and no tokens before it', async () => {
    const { url, received } = await serve(streamTokens);
    const io = captureIo();
    expect(
      await runCli(['--json', 'invoke', 'demo@v1', '--prompt', 'hi', '--gateway-url', url], io, '0.1.0'),
    ).to.equal(0);
    const report = JSON.parse(io.out()) as Record<string, unknown>;
    expect(report).to.deep.include({
      text: 'Larger pools of memory',
      // four tokens, the closing choice chunk and the usage chunk
      chunks: 6,
      model: 'demo@v1',
      requestId: received[0]?.headers['x-request-id'],
      finishReason: 'stop',
      usage: { promptTokens: 3, completionTokens: 4, totalTokens: 7 },
      gatewayUrl: url,
    });
    expect(report['timeToFirstChunkMs']).to.be.a('number');
    expect(report['totalMs']).to.be.at.least(report['timeToFirstChunkMs'] as number);
  });

  it('speaks the generic workload API with --api generic (request valid under the contract)', async () => {
    const { url, received } = await serve(({ headers }, res) => {
      startStream(res, headers['x-request-id']);
      for (const [sequence, token] of TOKENS.entries())
        res.write(`data: ${JSON.stringify(delta(sequence, token))}\n\n`);
      res.end(`data: ${JSON.stringify(delta(TOKENS.length, '', true))}\n\n`);
    });
    const io = captureIo();
    const code = await runCli(
      [
        '--timeout',
        '8000',
        'invoke',
        'demo@v1',
        '--api',
        'generic',
        '--prompt',
        'hi',
        '--seed',
        '3',
        '--gateway-url',
        url,
      ],
      io,
      '0.1.0',
    );
    expect(code, io.err()).to.equal(0);
    expect(io.out()).to.equal('Larger pools of memory\n');
    expect(received[0]?.path).to.equal('/v1/workloads');
    const parsed = WorkloadRequestSchema.safeParse(received[0]?.body);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).to.equal(true);
    expect(received[0]?.body).to.deep.include({
      target: { model: 'demo@v1' },
      stream: true,
      deadlineMs: 8000,
      dataClass: 'confidential',
      parameters: { seed: 3 },
    });
  });

  it('maps a problem+json refusal to error[CODE] and its exit code, printing nothing on stdout', async () => {
    const { url } = await serve(({ headers }, res) => {
      const problem = new LunaNexaError(
        ErrorCode.MODEL_NOT_FOUND,
        'No model or alias named "chat-large".',
      ).toProblem({
        instance: '/v1/chat/completions',
        requestId: String(headers['x-request-id']),
      });
      res.writeHead(404, {
        'content-type': 'application/problem+json',
        'x-request-id': String(headers['x-request-id']),
      });
      res.end(JSON.stringify({ ...problem, error: openAiErrorFromProblem(problem) }));
    });
    const io = captureIo();
    expect(
      await runCli(['invoke', 'chat-large', '--prompt', 'hi', '--gateway-url', url], io, '0.1.0'),
    ).to.equal(1);
    expect(io.out()).to.equal('');
    expect(io.err()).to.match(
      /^error\[MODEL_NOT_FOUND\]: No model or alias named "chat-large"\. \(request [0-9a-f-]{36}\)\n$/,
    );
  });

  it('ends the partial answer and reports the code of an error chunk sent mid-stream', async () => {
    const { url } = await serve(({ headers }, res) => {
      startStream(res, headers['x-request-id']);
      res.write(openAiEvents(delta(0, 'Larger')));
      const failure = new LunaNexaError(ErrorCode.UPSTREAM_FAILED, 'A replica ended its stream early.');
      // As the gateway does: an error event and no [DONE] after it.
      res.end(`data: ${JSON.stringify({ error: openAiErrorFromProblem(failure.toProblem()) })}\n\n`);
    });
    const io = captureIo();
    expect(await runCli(['invoke', 'demo@v1', '--prompt', 'hi', '--gateway-url', url], io, '0.1.0')).to.equal(
      69,
    );
    expect(io.out()).to.equal('Larger\n');
    expect(io.err()).to.match(/^error\[UPSTREAM_FAILED\]: A replica ended its stream early\. \(request /);
  });

  it('reports a stream that stops before its final chunk as STREAM_INTERRUPTED', async () => {
    const { url } = await serve(({ headers }, res) => {
      startStream(res, headers['x-request-id']);
      res.end(openAiEvents(delta(0, 'Larger')));
    });
    const io = captureIo();
    expect(await runCli(['invoke', 'demo@v1', '--prompt', 'hi', '--gateway-url', url], io, '0.1.0')).to.equal(
      69,
    );
    expect(io.err()).to.contain(
      'error[STREAM_INTERRUPTED]: the stream ended before its final chunk after 1 chunks',
    );
  });

  it('refuses a generic stream with a gap in its sequence', async () => {
    const { url } = await serve(({ headers }, res) => {
      startStream(res, headers['x-request-id']);
      res.write(`data: ${JSON.stringify(delta(0, 'Larger'))}\n\n`);
      res.end(`data: ${JSON.stringify(delta(2, '', true))}\n\n`);
    });
    const io = captureIo();
    const code = await runCli(
      ['invoke', 'demo@v1', '--api', 'generic', '--prompt', 'hi', '--gateway-url', url],
      io,
      '0.1.0',
    );
    expect(code).to.equal(76);
    expect(io.err()).to.contain('stream chunk 2 arrived where 1 was expected');
  });

  it('gives up at the global --timeout with DEADLINE_EXCEEDED, even mid-stream', async () => {
    const { url } = await serve(async ({ headers }, res) => {
      startStream(res, headers['x-request-id']);
      res.write(openAiEvents(delta(0, 'Larger')));
      await sleep(5000);
    });
    const io = captureIo();
    const started = performance.now();
    const code = await runCli(
      ['--timeout', '300', 'invoke', 'demo@v1', '--prompt', 'hi', '--gateway-url', url],
      io,
      '0.1.0',
    );
    expect(code).to.equal(75);
    expect(performance.now() - started).to.be.lessThan(3000);
    expect(io.out()).to.equal('Larger\n');
    expect(io.err()).to.contain(
      'error[DEADLINE_EXCEEDED]: no complete answer (1 chunks so far) within 300 ms (--timeout)',
    );
  });

  it('exits 69 when the gateway is unreachable, naming it', async () => {
    const io = captureIo({ LUNANEXA_GATEWAY_URL: `http://127.0.0.1:${await closedPort()}` });
    expect(await runCli(['invoke', 'demo@v1', '--prompt', 'hi'], io, '0.1.0')).to.equal(69);
    expect(io.err()).to.match(
      /^error\[API_UNREACHABLE\]: cannot reach the gateway at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: .*ECONNREFUSED/,
    );
  });

  for (const [title, argv, fragment] of [
    ['no prompt', ['invoke', 'demo@v1'], '--prompt "<text>" is required'],
    ['an empty prompt', ['invoke', 'demo@v1', '--prompt', ''], '--prompt "<text>" is required'],
    [
      'a model that is neither alias nor name@version',
      ['invoke', 'Demo V1', '--prompt', 'hi'],
      'must be an alias',
    ],
    [
      'an unknown --api',
      ['invoke', 'demo@v1', '--prompt', 'hi', '--api', 'grpc'],
      'Allowed choices are openai, generic',
    ],
    [
      'a zero --max-tokens',
      ['invoke', 'demo@v1', '--prompt', 'hi', '--max-tokens', '0'],
      '--max-tokens must be',
    ],
    [
      'a fractional --seed',
      ['invoke', 'demo@v1', '--prompt', 'hi', '--seed', '1.5'],
      '--seed must be a whole number',
    ],
    [
      'a bad --gateway-url',
      ['invoke', 'demo@v1', '--prompt', 'hi', '--gateway-url', 'ftp://x'],
      '--gateway-url must be',
    ],
  ] as const) {
    it(`exits 64 for ${title}`, async () => {
      const io = captureIo();
      expect(await runCli([...argv], io, '0.1.0')).to.equal(64);
      expect(io.err()).to.contain('error[USAGE]: ');
      expect(io.err()).to.contain(fragment);
    });
  }
});
