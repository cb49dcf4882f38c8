import { expect } from 'chai';
import type { ServerResponse } from 'node:http';
import {
  EVALUATION_CAPTURE_DEFAULT_DAYS,
  ProblemDetailsSchema,
  defaultDataPolicy,
  type TenantDataPolicy,
} from '@lunanexa/contracts';
import { createLogger } from '@lunanexa/observability';
import { StaticDataPolicyTable, type DataPolicyTable } from '../src/data-policy-table';
import { redactedError, type PayloadCapture, type PayloadCaptureSink } from '../src/payload-capture';
import { StaticRouteTable } from '../src/route-table';
import { createGatewayServer, type GatewayServer } from '../src/server';
import {
  CapturedLog,
  FakeRuntime,
  FIXED_NOW,
  openAiChatCompletion,
  postJson,
  route,
  type UpstreamCall,
  TEST_ADMISSION,
  testCredentials,
} from './support';

/** The sink port's in-memory implementation: what the server decided to keep, and nothing else. */
class MemoryCaptureSink implements PayloadCaptureSink {
  readonly captured: PayloadCapture[] = [];
  capture(entry: PayloadCapture): void {
    this.captured.push(entry);
  }
  async close(): Promise<void> {}
}

const MARKER = 'zebra-quartz-7731';
const DAY_MS = 86_400_000;

function policy(tenantId: string, overrides: Partial<TenantDataPolicy>): TenantDataPolicy {
  return { ...defaultDataPolicy(tenantId), updatedBy: 'operator:test', ...overrides };
}

function streamChat(res: ServerResponse, call: UpstreamCall): void {
  const base = {
    id: 'c',
    object: 'chat.completion.chunk',
    created: 1763629000,
    model: String(call.body['model']),
  };
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'Stre' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'amed' }, finish_reason: 'stop' }] },
    { ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } },
  ])
    res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end('data: [DONE]\n\n');
}

describe('gateway payload capture under tenant data policies', () => {
  let upstream: FakeRuntime;
  let gateway: GatewayServer | undefined;
  let log: CapturedLog;

  before(async () => {
    upstream = await new FakeRuntime((call, res) => {
      if (call.body['stream'] === true) streamChat(res, call);
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify(openAiChatCompletion(`answer to ${MARKER}`)));
    }).start();
  });

  after(async () => {
    await upstream.stop();
  });

  afterEach(async () => {
    await gateway?.close(1000);
    gateway = undefined;
  });

  async function start(
    dataPolicies: DataPolicyTable | undefined,
    sink: PayloadCaptureSink,
    allowedDataClasses: TenantDataPolicy['dataClass'][] = ['public', 'internal'],
  ): Promise<string> {
    log = new CapturedLog();
    gateway = createGatewayServer({
      credentials: testCredentials(),
      admission: TEST_ADMISSION,
      routes: new StaticRouteTable([
        {
          id: 'chat-default',
          createdAt: '2025-11-20T09:00:00.000Z',
          route: route([{ baseUrl: upstream.baseUrl, servedModel: 'a' }], { allowedDataClasses }),
        },
      ]),
      logger: createLogger({ service: 'gateway', level: 'debug', destination: log }),
      build: { version: '0.1.0-test', commit: 'test' },
      maxBodyBytes: 1_048_576,
      defaultDataClass: 'internal',
      clock: () => FIXED_NOW,
      payloadCapture: sink,
      ...(dataPolicies === undefined ? {} : { dataPolicies }),
    });
    const address = await gateway.listen(0, '127.0.0.1');
    return `http://127.0.0.1:${address.port}`;
  }

  function chat(tenant: string | undefined, stream = false) {
    return {
      body: {
        model: 'chat-default',
        stream,
        messages: [{ role: 'user', content: `tell me about ${MARKER}` }],
      },
      headers: (tenant === undefined ? {} : { 'x-lunanexa-tenant-id': tenant }) as Record<string, string>,
    };
  }

  async function send(url: string, tenant: string | undefined, stream = false): Promise<number> {
    const { body, headers } = chat(tenant, stream);
    const response = await postJson(url, '/v1/chat/completions', body, headers);
    // The capture is handed over when the response closes.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return response.status;
  }

  it('retention none (the default tenant, no header): nothing is captured and the prompt is in no log line', async () => {
    const sink = new MemoryCaptureSink();
    const url = await start(new StaticDataPolicyTable(), sink);
    expect(await send(url, undefined)).to.equal(200);
    expect(await send(url, 'tenant-without-policy', true)).to.equal(200);
    expect(sink.captured).to.deep.equal([]);
    expect(log.lines.length).to.be.greaterThan(0);
    expect(log.raw).not.to.include(MARKER);
  });

  it('retention of 2 days: the completed request is captured with prompt, answer and an expiry 2 days on', async () => {
    const sink = new MemoryCaptureSink();
    const url = await start(
      new StaticDataPolicyTable([policy('tenant-2d', { retention: { mode: 'days', days: 2 } })]),
      sink,
    );
    expect(await send(url, 'tenant-2d')).to.equal(200);
    expect(await send(url, 'tenant-2d', true)).to.equal(200);
    expect(sink.captured).to.have.length(2);
    const [plain, streamed] = sink.captured as [PayloadCapture, PayloadCapture];
    expect(plain).to.deep.include({
      tenantId: 'tenant-2d',
      purpose: 'retention',
      responseText: `answer to ${MARKER}`,
    });
    expect(plain.expiresAt.getTime() - plain.capturedAt.getTime()).to.equal(2 * DAY_MS);
    expect(plain.capturedAt.toISOString()).to.equal(FIXED_NOW.toISOString());
    expect(JSON.stringify(plain.request)).to.include(MARKER);
    expect(streamed.responseText).to.equal('Streamed');
    // Kept in the capture, still never logged.
    expect(log.raw).not.to.include(MARKER);
  });

  it('evaluation consent: purpose evaluation, bounded default expiry without retention', async () => {
    const sink = new MemoryCaptureSink();
    const url = await start(
      new StaticDataPolicyTable([policy('tenant-eval', { evaluationCaptureConsent: true })]),
      sink,
    );
    expect(await send(url, 'tenant-eval')).to.equal(200);
    expect(await send(url, 'someone-else')).to.equal(200);
    expect(sink.captured.map((c) => [c.tenantId, c.purpose])).to.deep.equal([['tenant-eval', 'evaluation']]);
    const [capture] = sink.captured;
    if (capture === undefined) throw new Error('nothing captured');
    expect(capture.expiresAt.getTime() - capture.capturedAt.getTime()).to.equal(
      EVALUATION_CAPTURE_DEFAULT_DAYS * DAY_MS,
    );
  });

  it("a tenant whose data class the route's license does not allow is refused with DATA_CLASS_NOT_ALLOWED and nothing is kept", async () => {
    const sink = new MemoryCaptureSink();
    const url = await start(
      new StaticDataPolicyTable([
        policy('tenant-restricted', { dataClass: 'restricted', retention: { mode: 'days', days: 5 } }),
      ]),
      sink,
    );
    const calls = upstream.calls.length;
    const { body, headers } = chat('tenant-restricted');
    const refused = await postJson(url, '/v1/chat/completions', body, headers);
    expect(refused.status).to.equal(422);
    expect(ProblemDetailsSchema.parse(refused.json()).code).to.equal('DATA_CLASS_NOT_ALLOWED');
    expect(upstream.calls.length).to.equal(calls);
    // The request itself may declare a permitted class; the tenant's class still applies.
    const declared = await postJson(url, '/v1/chat/completions', body, {
      ...headers,
      'x-lunanexa-data-class': 'public',
    });
    expect(declared.status).to.equal(422);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sink.captured).to.deep.equal([]);
  });

  it('until the policy snapshot has loaded, inference is refused (503) and /ready says so', async () => {
    const notLoaded: DataPolicyTable = { policyFor: (id) => defaultDataPolicy(id), ready: () => false };
    const url = await start(notLoaded, new MemoryCaptureSink());
    const { body } = chat(undefined);
    const response = await postJson(url, '/v1/chat/completions', body);
    expect(response.status).to.equal(503);
    expect(ProblemDetailsSchema.parse(response.json()).code).to.equal('DEPENDENCY_UNAVAILABLE');
    expect((await fetch(`${url}/ready`)).status).to.equal(503);
  });

  it('redactedError keeps type, code and frames but never the message', () => {
    const error = Object.assign(new SyntaxError(`Unexpected token in "${MARKER}"`), { code: '22P02' });
    const redacted = JSON.stringify(redactedError(error));
    expect(redacted).not.to.include(MARKER);
    expect(redactedError(error)).to.include({ type: 'SyntaxError', code: '22P02' });
  });
});
