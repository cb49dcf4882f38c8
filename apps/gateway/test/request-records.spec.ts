import { expect } from 'chai';
import { request, type ServerResponse } from 'node:http';
import type { RequestLog, RequestRecord } from '../src/request-log';
import { StaticRouteTable } from '../src/route-table';
import {
  FakeRuntime,
  TEST_OPERATOR_TOKEN,
  openAiChatCompletion,
  postJson,
  route,
  startGateway,
  type StartedGateway,
} from './support';

class RecordingLog implements RequestLog {
  readonly records: RequestRecord[] = [];
  private waiters: (() => void)[] = [];
  record(entry: RequestRecord): void {
    this.records.push(entry);
    for (const wake of this.waiters.splice(0)) wake();
  }
  async close(): Promise<void> {}
  /** Records are handed over when the response closes, a moment after the client saw its end. */
  async next(count: number): Promise<RequestRecord[]> {
    while (this.records.length < count) await new Promise<void>((wake) => this.waiters.push(wake));
    return this.records.slice(0, count);
  }
}

const SECRET_PROMPT = 'the launch code is 0000';

function stream(res: ServerResponse, model: string): void {
  const base = { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 1763629000, model };
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }] },
    { ...base, choices: [], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } },
  ]) {
    res.write(`data: ${JSON.stringify(event)}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

describe('gateway request records (metadata for the console, never payloads)', () => {
  let gw: StartedGateway | undefined;
  let up: FakeRuntime | undefined;
  const log = new RecordingLog();

  beforeEach(async () => {
    log.records.length = 0;
    up = await new FakeRuntime((call, res) =>
      call.body['stream'] === true
        ? stream(res, String(call.body['model']))
        : res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify(openAiChatCompletion('Hi', String(call.body['model'])))),
    ).start();
    gw = await startGateway({
      requestLog: log,
      routes: new StaticRouteTable([
        {
          id: 'chat-default',
          createdAt: '2025-11-20T09:00:00.000Z',
          route: route([{ baseUrl: up.baseUrl, servedModel: 'served' }]),
        },
      ]),
    });
  });

  afterEach(async () => {
    await gw?.stop();
    await up?.stop();
  });

  it('records a completed stream: ids, model, deployment, time to first token, tokens — and no prompt or reply', async () => {
    const response = await postJson(
      gw!.url,
      '/v1/chat/completions',
      {
        model: 'chat-default',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: SECRET_PROMPT }],
      },
      { 'x-request-id': 'req-record-1', 'x-correlation-id': 'corr-record-1' },
    );
    expect(response.status).to.equal(200);
    const [record] = await log.next(1);
    expect(record).to.include({
      requestId: 'req-record-1',
      correlationId: 'corr-record-1',
      kind: 'chat',
      dialect: 'openai',
      requestedModel: 'chat-default',
      modelRef: 'llama-3-1-8b-instruct@2024-07-23',
      deploymentId: 'dep-01JD5B9',
      stream: true,
      outcome: 'Completed',
      errorCode: null,
      httpStatus: 200,
      promptTokens: 9,
      completionTokens: 2,
    });
    expect(record.ttftMs).to.be.a('number').and.at.least(0);
    expect(record.durationMs).to.be.at.least(record.ttftMs!);
    expect(record.finishedAt.getTime() - record.receivedAt.getTime()).to.be.closeTo(record.durationMs, 1);
    expect(JSON.stringify(record)).to.not.contain('launch code').and.not.contain('Hello');
  });

  it('records a non-streamed completion with its usage', async () => {
    await postJson(gw!.url, '/v1/chat/completions', {
      model: 'chat-default',
      messages: [{ role: 'user', content: 'hi' }],
    });
    const [record] = await log.next(1);
    expect(record).to.include({ stream: false, outcome: 'Completed', httpStatus: 200, completionTokens: 2 });
  });

  it('records a request for an unknown model as Rejected with MODEL_NOT_FOUND and its 404', async () => {
    const response = await postJson(gw!.url, '/v1/chat/completions', {
      model: 'nope@v1',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.status).to.equal(404);
    const [record] = await log.next(1);
    expect(record).to.include({
      requestedModel: 'nope@v1',
      modelRef: null,
      deploymentId: null,
      outcome: 'Rejected',
      errorCode: 'MODEL_NOT_FOUND',
      httpStatus: 404,
      ttftMs: null,
    });
  });

  it('records a stream the client walked away from as Cancelled, with the tenant and caller', async () => {
    up!.setBehaviour((call, res) => {
      const base = {
        id: 'c',
        object: 'chat.completion.chunk',
        created: 1,
        model: String(call.body['model']),
      };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // One token, then the runtime keeps the stream open: only the client can end it.
      res.write(
        `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] })}\n\n`,
      );
    });
    await new Promise<void>((resolve, reject) => {
      const client = request(
        `${gw!.url}/v1/chat/completions`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
            'x-lunanexa-tenant-id': 'acme',
            'x-request-id': 'req-walked-away',
          },
        },
        (res) => res.once('data', () => (client.destroy(), resolve())),
      );
      client.on('error', (error: NodeJS.ErrnoException) =>
        error.code === 'ECONNRESET' ? undefined : reject(error),
      );
      client.end(
        JSON.stringify({ model: 'chat-default', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      );
    });
    const [record] = await log.next(1);
    expect(record).to.include({
      requestId: 'req-walked-away',
      outcome: 'Cancelled',
      errorCode: 'CANCELLED',
      httpStatus: 200,
      tenantId: 'acme',
      caller: `token:${TEST_OPERATOR_TOKEN.slice(0, 12)}`,
    });
  });

  it('records nothing for a body that is not a workload (it never became one)', async () => {
    const response = await postJson(gw!.url, '/v1/chat/completions', { model: 'chat-default' });
    expect(response.status).to.equal(400);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(log.records).to.deep.equal([]);
  });
});
