import { expect } from 'chai';
import {
  OpenAiChatChunkSchema,
  OpenAiChatResponseSchema,
  OpenAiCompletionResponseSchema,
  PROBLEM_CONTENT_TYPE,
  ProblemDetailsSchema,
  WorkloadResponseSchema,
  WorkloadStreamChunkSchema,
} from '@lunanexa/contracts';
import type { ServerResponse } from 'node:http';
import { StaticRouteTable, type Route } from '../src/route-table';
import {
  FakeRuntime,
  openAiChatCompletion,
  postJson,
  route,
  sseData,
  startGateway,
  refusingBaseUrl,
  type RawResponse,
  type StartedGateway,
  type UpstreamCall,
} from './support';

const chatBody = { model: 'chat-default', messages: [{ role: 'user', content: 'hello' }] };
const genericChat = {
  apiVersion: 'lunanexa.v1',
  kind: 'chat',
  target: { alias: 'chat-default' },
  messages: [{ role: 'user', content: 'hello' }],
  dataClass: 'internal',
};

function replyJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A vLLM-like stream: role chunk, two content chunks, finish chunk, usage chunk, [DONE]. */
function streamChat(res: ServerResponse, call: UpstreamCall, options: { breakAfter?: number } = {}): void {
  const base = {
    id: 'chatcmpl-up',
    object: 'chat.completion.chunk',
    created: 1763629000,
    model: String(call.body['model']),
  };
  const events = [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop', stop_reason: null }] },
    { ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } },
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  events.forEach((event, i) => {
    if (options.breakAfter !== undefined && i >= options.breakAfter) return;
    res.write(`data: ${JSON.stringify(event)}\n\n`);
  });
  if (options.breakAfter !== undefined) {
    // Let the written events reach the gateway before the connection dies, as a crashing runtime's would.
    setTimeout(() => res.destroy(), 50);
    return;
  }
  res.end('data: [DONE]\n\n');
}

function expectProblem(response: RawResponse, status: number, code: string): void {
  expect(response.status, response.text).to.equal(status);
  expect(response.headers['content-type']).to.equal(PROBLEM_CONTENT_TYPE);
  expect(ProblemDetailsSchema.parse(response.json()).code).to.equal(code);
}

describe('gateway forwarding to openai-compatible runtimes', () => {
  const runtimes: FakeRuntime[] = [];
  let gw: StartedGateway | undefined;

  async function runtime(behaviour: ConstructorParameters<typeof FakeRuntime>[0]): Promise<FakeRuntime> {
    const started = await new FakeRuntime(behaviour).start();
    runtimes.push(started);
    return started;
  }

  async function gatewayWith(routeEntry: Route): Promise<StartedGateway> {
    gw = await startGateway({
      routes: new StaticRouteTable([
        { id: 'chat-default', createdAt: '2025-11-20T09:00:00.000Z', route: routeEntry },
        {
          id: 'llama-3-1-8b-instruct@2024-07-23',
          createdAt: '2025-11-20T09:00:00.000Z',
          route: { ...routeEntry, alias: null },
        },
      ]),
    });
    return gw;
  }

  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
    await Promise.all(runtimes.splice(0).map((r) => r.stop()));
  });

  it('relays a non-streamed OpenAI chat completion, naming the version that answered', async () => {
    const up = await runtime((call, res) =>
      replyJson(res, 200, openAiChatCompletion('Hi there', String(call.body['model']))),
    );
    const g = await gatewayWith(route([{ baseUrl: up.baseUrl, servedModel: 'served-llama' }]));
    const response = await postJson(
      g.url,
      '/v1/chat/completions',
      { ...chatBody, user: 'alice@example.com', seed: 3 },
      { 'x-request-id': 'req-fwd-1' },
    );
    expect(response.status, response.text).to.equal(200);
    const body = OpenAiChatResponseSchema.parse(response.json());
    expect(body.id).to.equal('chatcmpl-req-fwd-1');
    expect(body.model).to.equal('llama-3-1-8b-instruct@2024-07-23');
    expect(body.created).to.equal(1763630100);
    expect(body.choices[0]?.message.content).to.equal('Hi there');
    expect(body.usage).to.deep.equal({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
    expect(response.json()).to.not.have.property('system_fingerprint');
    // The runtime sees its own served name, the sampling parameters, and nothing that identifies the caller.
    expect(up.calls).to.have.length(1);
    expect(up.calls[0]?.path).to.equal('/v1/chat/completions');
    expect(up.calls[0]?.body).to.deep.equal({
      model: 'served-llama',
      messages: [{ role: 'user', content: 'hello' }],
      seed: 3,
      stream: false,
    });
  });

  it('relays a generic workload as a schema-valid WorkloadResponse', async () => {
    const up = await runtime((_call, res) => replyJson(res, 200, openAiChatCompletion('Hi')));
    const g = await gatewayWith(route([{ baseUrl: up.baseUrl, servedModel: 'served-llama' }]));
    const response = await postJson(
      g.url,
      '/v1/workloads',
      { ...genericChat, correlation: { tenantId: 't-1' } },
      { 'x-request-id': 'req-gen-1' },
    );
    expect(response.status, response.text).to.equal(200);
    const body = WorkloadResponseSchema.parse(response.json());
    expect(body).to.deep.include({
      id: 'req-gen-1',
      kind: 'chat',
      createdAt: '2025-11-20T09:15:00.000Z',
      correlation: { tenantId: 't-1' },
    });
    expect(body.servedBy).to.deep.equal({
      model: 'llama-3-1-8b-instruct@2024-07-23',
      alias: 'chat-default',
      deploymentId: 'dep-01JD5B9',
    });
    expect(body.choices).to.deep.equal([{ index: 0, text: 'Hi', finishReason: 'stop' }]);
  });

  it('relays /v1/completions to the runtime completions endpoint', async () => {
    const up = await runtime((_call, res) =>
      replyJson(res, 200, {
        id: 'cmpl-up',
        object: 'text_completion',
        created: 1,
        model: 'served-llama',
        choices: [{ index: 0, text: ' Paris.', finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 },
      }),
    );
    const g = await gatewayWith(route([{ baseUrl: up.baseUrl, servedModel: 'served-llama' }]));
    const response = await postJson(g.url, '/v1/completions', {
      model: 'llama-3-1-8b-instruct@2024-07-23',
      prompt: 'The capital of France is',
      max_tokens: 8,
    });
    expect(response.status, response.text).to.equal(200);
    const body = OpenAiCompletionResponseSchema.parse(response.json());
    expect(body.choices[0]?.text).to.equal(' Paris.');
    expect(up.calls[0]?.path).to.equal('/v1/completions');
    expect(up.calls[0]?.body).to.deep.include({ prompt: 'The capital of France is', max_tokens: 8 });
  });

  it('streams OpenAI chunks with role first, usage when asked, then [DONE]', async () => {
    const up = await runtime((call, res) => streamChat(res, call));
    const g = await gatewayWith(route([{ baseUrl: up.baseUrl, servedModel: 'served-llama' }]));
    const response = await postJson(g.url, '/v1/chat/completions', {
      ...chatBody,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(response.status).to.equal(200);
    expect(response.headers['content-type']).to.equal('text/event-stream; charset=utf-8');
    const data = sseData(response.text);
    expect(data.at(-1)).to.equal('[DONE]');
    const chunks = data.slice(0, -1).map((text) => OpenAiChatChunkSchema.parse(JSON.parse(text)));
    expect(chunks[0]?.choices[0]?.delta).to.deep.equal({ role: 'assistant', content: '' });
    expect(
      chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? '')).join(''),
    ).to.equal('Hello');
    expect(chunks.at(-2)?.choices[0]?.finish_reason).to.equal('stop');
    expect(chunks.at(-1)?.choices).to.deep.equal([]);
    expect(chunks.at(-1)?.usage).to.deep.equal({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });
    // The runtime is always asked for usage (quotas need it) even when the client was not.
    expect(up.calls[0]?.body['stream_options']).to.deep.equal({ include_usage: true });
  });

  it('leaves usage out of the OpenAI stream when the client did not ask for it', async () => {
    const up = await runtime((call, res) => streamChat(res, call));
    const g = await gatewayWith(route([{ baseUrl: up.baseUrl, servedModel: 'served-llama' }]));
    const response = await postJson(g.url, '/v1/chat/completions', { ...chatBody, stream: true });
    const chunks = sseData(response.text)
      .slice(0, -1)
      .map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(chunks.every((chunk) => !('usage' in chunk))).to.equal(true);
  });

  it('streams generic chunks with gap-free sequence numbers ending in usage', async () => {
    const up = await runtime((call, res) => streamChat(res, call));
    const g = await gatewayWith(route([{ baseUrl: up.baseUrl, servedModel: 'served-llama' }]));
    const response = await postJson(g.url, '/v1/workloads', { ...genericChat, stream: true });
    expect(response.status).to.equal(200);
    const chunks = sseData(response.text).map((text) => WorkloadStreamChunkSchema.parse(JSON.parse(text)));
    expect(chunks.map((chunk) => chunk.sequence)).to.deep.equal([0, 1, 2, 3, 4]);
    const last = chunks.at(-1);
    expect(last?.type === 'delta' ? last.usage : undefined).to.deep.equal({
      promptTokens: 5,
      completionTokens: 2,
      totalTokens: 7,
    });
    expect(chunks.slice(0, -1).every((chunk) => chunk.type === 'delta' && chunk.usage === null)).to.equal(
      true,
    );
  });

  it('ends a stream that breaks after the first byte with an error event', async () => {
    const up = await runtime((call, res) => streamChat(res, call, { breakAfter: 2 }));
    const g = await gatewayWith(route([{ baseUrl: up.baseUrl, servedModel: 'served-llama' }]));
    const response = await postJson(g.url, '/v1/workloads', { ...genericChat, stream: true });
    expect(response.status).to.equal(200);
    const chunks = sseData(response.text).map((text) => WorkloadStreamChunkSchema.parse(JSON.parse(text)));
    const last = chunks.at(-1);
    expect(last?.type).to.equal('error');
    expect(last?.type === 'error' ? last.error.code : undefined).to.equal('UPSTREAM_FAILED');
    expect(last?.sequence).to.equal(2);
    // After the first byte there is no failover: the second replica would duplicate output.
    expect(up.calls).to.have.length(1);
  });

  it('fails over before the first byte: unreachable and 503 replicas are skipped', async () => {
    const dead = await refusingBaseUrl();
    const busy = await runtime((_call, res) => replyJson(res, 503, { message: 'overloaded' }));
    const healthy = await runtime((_call, res) =>
      replyJson(res, 200, openAiChatCompletion('from the third')),
    );
    const g = await gatewayWith(
      route([
        { baseUrl: dead, servedModel: 'a' },
        { baseUrl: busy.baseUrl, servedModel: 'b' },
        { baseUrl: healthy.baseUrl, servedModel: 'c' },
      ]),
    );
    const response = await postJson(g.url, '/v1/chat/completions', chatBody);
    expect(response.status, response.text).to.equal(200);
    expect(OpenAiChatResponseSchema.parse(response.json()).choices[0]?.message.content).to.equal(
      'from the third',
    );
    expect(busy.calls).to.have.length(1);
    expect(healthy.calls).to.have.length(1);
  });

  it('names the deployment of the replica that answered when a route merges deployments', async () => {
    const dead = await refusingBaseUrl();
    const healthy = await runtime((_call, res) => replyJson(res, 200, openAiChatCompletion('Hi')));
    const g = await gatewayWith(
      route([
        { baseUrl: dead, servedModel: 'a', deploymentId: 'dep-first' },
        { baseUrl: healthy.baseUrl, servedModel: 'b', deploymentId: 'dep-second' },
      ]),
    );
    const response = await postJson(g.url, '/v1/workloads', genericChat);
    expect(response.status, response.text).to.equal(200);
    expect(WorkloadResponseSchema.parse(response.json()).servedBy).to.deep.equal({
      model: 'llama-3-1-8b-instruct@2024-07-23',
      alias: 'chat-default',
      deploymentId: 'dep-second',
    });
  });

  it('fails over a streamed request whose replica broke before sending anything', async () => {
    const broken = await runtime((_call, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.destroy();
    });
    const healthy = await runtime((call, res) => streamChat(res, call));
    const g = await gatewayWith(
      route([
        { baseUrl: broken.baseUrl, servedModel: 'a' },
        { baseUrl: healthy.baseUrl, servedModel: 'b' },
      ]),
    );
    const response = await postJson(g.url, '/v1/workloads', { ...genericChat, stream: true });
    expect(response.status).to.equal(200);
    expect(sseData(response.text)).to.have.length(5);
  });

  it('502 UPSTREAM_FAILED when every replica fails, and counts the workload as Failed', async () => {
    const bad = await runtime((_call, res) => replyJson(res, 200, { not: 'a completion' }));
    const g = await gatewayWith(
      route([
        { baseUrl: bad.baseUrl, servedModel: 'a' },
        { baseUrl: bad.baseUrl, servedModel: 'b' },
      ]),
    );
    const response = await postJson(g.url, '/v1/chat/completions', chatBody);
    expectProblem(response, 502, 'UPSTREAM_FAILED');
    expect(bad.calls).to.have.length(2);
    const metrics = await g.gateway.metrics.service.registry.metrics();
    expect(metrics).to.include(
      'lunanexa_gateway_workloads_total{kind="chat",dialect="openai",outcome="Failed"} 1',
    );
  });

  it('does not retry a request the runtime refused as invalid (4xx)', async () => {
    const refusing = await runtime((_call, res) =>
      replyJson(res, 400, {
        object: 'error',
        message: "This model's maximum context length is 8192 tokens.",
      }),
    );
    const other = await runtime((_call, res) => replyJson(res, 200, openAiChatCompletion('never')));
    const g = await gatewayWith(
      route([
        { baseUrl: refusing.baseUrl, servedModel: 'a' },
        { baseUrl: other.baseUrl, servedModel: 'b' },
      ]),
    );
    const response = await postJson(g.url, '/v1/chat/completions', chatBody);
    expectProblem(response, 400, 'VALIDATION_FAILED');
    expect(response.json<{ detail: string }>().detail).to.include('maximum context length');
    expect(other.calls).to.have.length(0);
  });

  it('504 DEADLINE_EXCEEDED when the replica is slower than the deadline, and aborts it', async () => {
    let upstreamClosed = false;
    const slow = await runtime((_call, res) => {
      res.on('close', () => {
        upstreamClosed = true;
      });
      setTimeout(() => {
        if (!res.destroyed) replyJson(res, 200, openAiChatCompletion('too late'));
      }, 2000);
    });
    const g = await gatewayWith(route([{ baseUrl: slow.baseUrl, servedModel: 'a' }]));
    const started = Date.now();
    const response = await postJson(g.url, '/v1/chat/completions', chatBody, {
      'x-lunanexa-deadline-ms': '150',
    });
    expectProblem(response, 504, 'DEADLINE_EXCEEDED');
    expect(Date.now() - started).to.be.lessThan(1500);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(upstreamClosed).to.equal(true);
    const metrics = await g.gateway.metrics.service.registry.metrics();
    expect(metrics).to.include('outcome="TimedOut"} 1');
  });

  it('422 DATA_CLASS_NOT_ALLOWED when the license does not cover the data class', async () => {
    const up = await runtime((_call, res) => replyJson(res, 200, openAiChatCompletion('never')));
    const g = await gatewayWith(
      route([{ baseUrl: up.baseUrl, servedModel: 'a' }], { allowedDataClasses: ['public'] }),
    );
    // No header: the configured default class (internal in tests) applies.
    expectProblem(await postJson(g.url, '/v1/chat/completions', chatBody), 422, 'DATA_CLASS_NOT_ALLOWED');
    const allowed = await postJson(g.url, '/v1/chat/completions', chatBody, {
      'x-lunanexa-data-class': 'public',
    });
    expect(allowed.status).to.equal(200);
    expect(up.calls).to.have.length(1);
  });

  it('503 NO_CAPACITY when the model exists but has no ready replica', async () => {
    const g = await gatewayWith(route([]));
    const response = await postJson(g.url, '/v1/workloads', genericChat);
    expectProblem(response, 503, 'NO_CAPACITY');
  });
});

describe('gateway graceful shutdown', () => {
  it('finishes an in-flight request, refuses new connections, and resolves', async () => {
    let release: () => void = () => undefined;
    const slow = await new FakeRuntime((_call, res) => {
      release = () => replyJson(res, 200, openAiChatCompletion('finished during shutdown'));
    }).start();
    const gw = await startGateway({
      routes: new StaticRouteTable([
        {
          id: 'chat-default',
          createdAt: '2025-11-20T09:00:00.000Z',
          route: route([{ baseUrl: slow.baseUrl, servedModel: 'a' }]),
        },
      ]),
    });
    try {
      const inFlight = postJson(gw.url, '/v1/chat/completions', chatBody);
      while (slow.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      const closed = gw.gateway.close(5000);
      let closedEarly = false;
      void closed.then(() => {
        closedEarly = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(closedEarly, 'close() must wait for the in-flight request').to.equal(false);
      const refused = await postJson(gw.url, '/v1/chat/completions', chatBody).then(
        () => 'accepted',
        (error: NodeJS.ErrnoException) => error.code,
      );
      expect(refused).to.equal('ECONNREFUSED');
      release();
      const response = await inFlight;
      expect(response.status).to.equal(200);
      expect(OpenAiChatResponseSchema.parse(response.json()).choices[0]?.message.content).to.equal(
        'finished during shutdown',
      );
      await closed;
    } finally {
      await slow.stop();
    }
  });
});
