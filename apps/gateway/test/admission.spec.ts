import { expect } from 'chai';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'node:http';
import { PROBLEM_CONTENT_TYPE, ProblemDetailsSchema } from '@lunanexa/contracts';
import { generateGatewayKey } from '@lunanexa/credentials';
import { AdmissionController, type AdmissionLimits } from '../src/admission';
import { StaticCredentialTable } from '../src/credential-table';
import { StaticRouteTable } from '../src/route-table';
import {
  FIXED_NOW,
  FakeRuntime,
  TEST_OPERATOR_TOKEN,
  call,
  openAiChatCompletion,
  postJson,
  route,
  startGateway,
  testCredentials,
  type RawResponse,
  type StartedGateway,
  type UpstreamCall,
} from './support';

/** A runtime that holds every request until the test lets it answer. */
class HeldRuntime {
  readonly held: { call: UpstreamCall; res: ServerResponse; req: IncomingMessage }[] = [];
  readonly closedEarly: string[] = [];
  runtime!: FakeRuntime;

  async start(): Promise<this> {
    this.runtime = await new FakeRuntime((call, res, req) => {
      const entry = { call, res, req };
      this.held.push(entry);
      // The gateway cancelling the upstream request shows up here as a closed connection.
      res.once('close', () => {
        if (!res.writableFinished) this.closedEarly.push(contentOf(call));
      });
      if (call.body['stream'] === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(
          `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'served', choices: [{ index: 0, delta: { role: 'assistant', content: 'first' }, finish_reason: null }] })}\n\n`,
        );
      }
    }).start();
    return this;
  }

  /** Contents of the requests that reached the runtime, in arrival order. */
  arrived(): string[] {
    return this.held.map((entry) => contentOf(entry.call));
  }

  /** Answers the oldest unanswered request. */
  answerNext(): void {
    const next = this.held.find((entry) => !entry.res.writableEnded && !entry.res.destroyed);
    if (next === undefined) throw new Error('no request is waiting at the runtime');
    next.res.writeHead(200, { 'content-type': 'application/json' });
    next.res.end(JSON.stringify(openAiChatCompletion('done', 'served')));
  }

  answerAll(): void {
    for (const entry of this.held)
      if (!entry.res.writableEnded && !entry.res.destroyed) {
        if (entry.res.headersSent) {
          entry.res.end('data: [DONE]\n\n');
          continue;
        }
        entry.res.writeHead(200, { 'content-type': 'application/json' });
        entry.res.end(JSON.stringify(openAiChatCompletion('done', 'served')));
      }
  }
}

function contentOf(call: UpstreamCall): string {
  const messages = call.body['messages'] as { content: string }[] | undefined;
  return messages?.[0]?.content ?? '';
}

const chat = (content: string, extra: Record<string, unknown> = {}) => ({
  model: 'chat',
  messages: [{ role: 'user', content }],
  ...extra,
});

function expectProblem(response: RawResponse, status: number, code: string): void {
  expect(response.status, response.text).to.equal(status);
  expect(response.headers['content-type']).to.equal(PROBLEM_CONTENT_TYPE);
  expect(ProblemDetailsSchema.parse(response.json()).code).to.equal(code);
}

async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('gateway admission and backpressure', () => {
  let held: HeldRuntime;
  let gw: StartedGateway | undefined;

  async function start(limits: AdmissionLimits, credentials = testCredentials()): Promise<StartedGateway> {
    held = await new HeldRuntime().start();
    gw = await startGateway({
      admission: limits,
      credentials,
      routes: new StaticRouteTable([
        {
          id: 'chat',
          createdAt: FIXED_NOW.toISOString(),
          route: route([{ baseUrl: held.runtime.baseUrl, servedModel: 'served' }], { alias: 'chat' }),
        },
      ]),
    });
    return gw;
  }

  afterEach(async () => {
    held?.answerAll();
    await gw?.stop();
    await held?.runtime.stop();
    gw = undefined;
  });

  const queued = (): number => gw!.gateway.admission.snapshot().reduce((sum, group) => sum + group.queued, 0);

  it('runs at most replicaConcurrency per replica, queues the next ones, refuses beyond the queue with 503 and Retry-After', async () => {
    const { url } = await start({ replicaConcurrency: 2, queuePerReplica: 2, maxQueueWaitMs: 5000 });
    const pending = ['r1', 'r2', 'r3', 'r4'].map((content) =>
      postJson(url, '/v1/chat/completions', chat(content)),
    );
    await until(() => held.held.length === 2 && queued() === 2, 'two running and two queued');
    const refused = await postJson(url, '/v1/chat/completions', chat('r5'));
    expectProblem(refused, 503, 'NO_CAPACITY');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    expect(held.arrived()).to.deep.equal(['r1', 'r2']);
    held.answerNext();
    await until(() => held.held.length === 3, 'a queued request to take the freed slot');
    expect(held.arrived()).to.deep.equal(['r1', 'r2', 'r3']);
    held.answerAll();
    await until(() => held.held.length === 4, 'the last queued request');
    held.answerAll();
    const statuses = (await Promise.all(pending)).map((response) => response.status);
    expect(statuses).to.deep.equal([200, 200, 200, 200]);
    const metrics = (await call(url, 'GET', '/metrics')).text;
    expect(metrics).to.match(/lunanexa_gateway_capacity_refusals_total\{reason="queue-full"\} 1/);
  });

  it('x-lunanexa-priority orders the queue: high (interactive) before normal before low (batch)', async () => {
    const { url } = await start({ replicaConcurrency: 1, queuePerReplica: 10, maxQueueWaitMs: 5000 });
    const first = postJson(url, '/v1/chat/completions', chat('running'));
    await until(() => held.held.length === 1, 'the first request to run');
    const order: [string, string][] = [
      ['batch-1', 'low'],
      ['batch-2', 'low'],
      ['normal-1', 'normal'],
      ['interactive-1', 'high'],
      ['normal-2', 'normal'],
    ];
    const rest: Promise<RawResponse>[] = [];
    for (const [content, priority] of order) {
      rest.push(postJson(url, '/v1/chat/completions', chat(content), { 'x-lunanexa-priority': priority }));
      await until(() => queued() === rest.length, `${content} to queue`);
    }
    for (let served = 1; served <= order.length; served += 1) {
      held.answerNext();
      await until(() => held.held.length === served + 1, 'the next queued request');
    }
    held.answerAll();
    expect(held.arrived()).to.deep.equal([
      'running',
      'interactive-1',
      'normal-1',
      'normal-2',
      'batch-1',
      'batch-2',
    ]);
    expect((await Promise.all([first, ...rest])).every((response) => response.status === 200)).to.equal(true);
  });

  it('a full queue sheds its least urgent waiter for a more urgent request (503 to the shed one)', async () => {
    const { url } = await start({ replicaConcurrency: 1, queuePerReplica: 2, maxQueueWaitMs: 5000 });
    const running = postJson(url, '/v1/chat/completions', chat('running'));
    await until(() => held.held.length === 1, 'the first request to run');
    const batch1 = postJson(url, '/v1/chat/completions', chat('batch-1'), { 'x-lunanexa-priority': 'low' });
    const batch2 = postJson(url, '/v1/chat/completions', chat('batch-2'), { 'x-lunanexa-priority': 'low' });
    await until(() => queued() === 2, 'the queue to fill');
    const urgent = postJson(url, '/v1/chat/completions', chat('urgent'), { 'x-lunanexa-priority': 'high' });
    const shed = await batch2;
    expectProblem(shed, 503, 'NO_CAPACITY');
    expect(shed.headers['retry-after']).to.match(/^\d+$/);
    // Another low-priority request finds the queue full of requests at least as urgent: refused at once.
    expectProblem(
      await postJson(url, '/v1/chat/completions', chat('batch-3'), { 'x-lunanexa-priority': 'low' }),
      503,
      'NO_CAPACITY',
    );
    held.answerNext();
    await until(() => held.held.length === 2, 'the urgent request to run');
    held.answerNext();
    await until(() => held.held.length === 3, 'the remaining batch request to run');
    held.answerAll();
    expect(held.arrived()).to.deep.equal(['running', 'urgent', 'batch-1']);
    expect((await Promise.all([running, urgent, batch1])).map((r) => r.status)).to.deep.equal([
      200, 200, 200,
    ]);
  });

  it('a request that waits longer than the longest queue wait gets 503; one past its own deadline gets 504', async () => {
    const { url } = await start({ replicaConcurrency: 1, queuePerReplica: 4, maxQueueWaitMs: 200 });
    void postJson(url, '/v1/chat/completions', chat('running'));
    await until(() => held.held.length === 1, 'the first request to run');
    const started = Date.now();
    expectProblem(await postJson(url, '/v1/chat/completions', chat('waits')), 503, 'NO_CAPACITY');
    expect(Date.now() - started).to.be.within(150, 2000);
    expectProblem(
      await postJson(url, '/v1/chat/completions', chat('hurried'), { 'x-lunanexa-deadline-ms': '50' }),
      504,
      'DEADLINE_EXCEEDED',
    );
    expect(queued()).to.equal(0);
    expect(held.arrived()).to.deep.equal(['running']);
  });

  it('a client that leaves while queued leaves the queue and never reaches the runtime', async () => {
    const { url } = await start({ replicaConcurrency: 1, queuePerReplica: 4, maxQueueWaitMs: 5000 });
    void postJson(url, '/v1/chat/completions', chat('running'));
    await until(() => held.held.length === 1, 'the first request to run');
    const abandoned = request(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
    });
    abandoned.on('error', () => undefined);
    abandoned.end(JSON.stringify(chat('abandoned')));
    await until(() => queued() === 1, 'the request to queue');
    abandoned.destroy();
    await until(() => queued() === 0, 'the queue to drop it');
    held.answerAll();
    const after = postJson(url, '/v1/chat/completions', chat('after'));
    await until(() => held.held.length === 2, 'the next request');
    held.answerAll();
    expect((await after).status).to.equal(200);
    expect(held.arrived()).to.deep.equal(['running', 'after']);
  });

  it('a client that closes mid-stream cancels the runtime request and frees the slot for the next one', async () => {
    const { url } = await start({ replicaConcurrency: 1, queuePerReplica: 4, maxQueueWaitMs: 5000 });
    const firstChunk = new Promise<void>((resolve, reject) => {
      const streaming = request(
        `${url}/v1/chat/completions`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_OPERATOR_TOKEN}` },
        },
        (res) => {
          res.once('data', () => {
            // The first token arrived: the client walks away.
            streaming.destroy();
            resolve();
          });
        },
      );
      streaming.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ECONNRESET') reject(error);
      });
      streaming.end(JSON.stringify(chat('streaming', { stream: true })));
    });
    await firstChunk;
    const next = postJson(url, '/v1/chat/completions', chat('next'));
    await until(() => held.closedEarly.includes('streaming'), 'the runtime to see the stream cancelled');
    await until(() => held.held.length === 2, 'the next request to get the freed slot');
    held.answerNext();
    expect((await next).status).to.equal(200);
  });

  describe('tenant quotas', () => {
    const key = generateGatewayKey();

    function quotaCredentials(quota: {
      requestsPerMinute?: number;
      tokensPerMinute?: number;
      maxConcurrentRequests?: number;
    }): StaticCredentialTable {
      return new StaticCredentialTable({
        tenants: [
          {
            tenantId: 'acme',
            requestsPerMinute: quota.requestsPerMinute ?? null,
            tokensPerMinute: quota.tokensPerMinute ?? null,
            maxConcurrentRequests: quota.maxConcurrentRequests ?? null,
          },
        ],
        gatewayKeys: [
          {
            id: '11111111-1111-4111-8111-111111111111',
            tenantId: 'acme',
            keyHash: key.keyHash,
            prefix: key.prefix,
            aliases: ['chat'],
            expiresAt: null,
          },
        ],
      });
    }
    const asAcme = { authorization: `Bearer ${key.key}` };

    it('requests per minute: 429 QUOTA_EXCEEDED with Retry-After once the minute is used up', async () => {
      const { url } = await start(
        { replicaConcurrency: 8, queuePerReplica: 8, maxQueueWaitMs: 5000 },
        quotaCredentials({ requestsPerMinute: 2 }),
      );
      held.answerAll();
      const answer = setInterval(() => held.answerAll(), 5);
      try {
        expect((await postJson(url, '/v1/chat/completions', chat('1'), asAcme)).status).to.equal(200);
        expect((await postJson(url, '/v1/chat/completions', chat('2'), asAcme)).status).to.equal(200);
        const refused = await postJson(url, '/v1/chat/completions', chat('3'), asAcme);
        expectProblem(refused, 429, 'QUOTA_EXCEEDED');
        // The clock is fixed: one request per 30 s refills.
        expect(refused.headers['retry-after']).to.equal('30');
        expect(refused.json<{ error: { type: string } }>().error.type).to.equal('rate_limit_error');
      } finally {
        clearInterval(answer);
      }
      expect(held.arrived()).to.deep.equal(['1', '2']);
    });

    it('tokens per minute: usage is charged when a request ends and refuses the next one while in debt', async () => {
      const { url } = await start(
        { replicaConcurrency: 8, queuePerReplica: 8, maxQueueWaitMs: 5000 },
        quotaCredentials({ tokensPerMinute: 5 }),
      );
      const answer = setInterval(() => held.answerAll(), 5);
      try {
        // The fake completion reports 7 tokens: 5 - 7 = -2, so the tenant is in debt.
        expect((await postJson(url, '/v1/chat/completions', chat('big'), asAcme)).status).to.equal(200);
        const refused = await postJson(url, '/v1/chat/completions', chat('next'), asAcme);
        expectProblem(refused, 429, 'QUOTA_EXCEEDED');
        expect(Number(refused.headers['retry-after'])).to.equal(24);
      } finally {
        clearInterval(answer);
      }
    });

    it('concurrent requests: the one over the limit is refused while the others run, not queued', async () => {
      const { url } = await start(
        { replicaConcurrency: 8, queuePerReplica: 8, maxQueueWaitMs: 5000 },
        quotaCredentials({ maxConcurrentRequests: 2 }),
      );
      const running = [
        postJson(url, '/v1/chat/completions', chat('a'), asAcme),
        postJson(url, '/v1/chat/completions', chat('b'), asAcme),
      ];
      await until(() => held.held.length === 2, 'two requests to run');
      const refused = await postJson(url, '/v1/chat/completions', chat('c'), asAcme);
      expectProblem(refused, 429, 'QUOTA_EXCEEDED');
      expect(refused.headers['retry-after']).to.equal('1');
      held.answerAll();
      expect((await Promise.all(running)).map((r) => r.status)).to.deep.equal([200, 200]);
      // Both finished: the slot is back.
      const again = postJson(url, '/v1/chat/completions', chat('d'), asAcme);
      await until(() => held.held.length === 3, 'the next request');
      held.answerAll();
      expect((await again).status).to.equal(200);
      const metrics = (await call(url, 'GET', '/metrics')).text;
      expect(metrics).to.match(/lunanexa_gateway_quota_refusals_total\{limit="maxConcurrentRequests"\} 1/);
    });

    it('a refused or invalid request costs the tenant nothing', async () => {
      const { url } = await start(
        { replicaConcurrency: 8, queuePerReplica: 8, maxQueueWaitMs: 5000 },
        quotaCredentials({ requestsPerMinute: 1 }),
      );
      expectProblem(
        await postJson(url, '/v1/chat/completions', { model: 'chat' }, asAcme),
        400,
        'VALIDATION_FAILED',
      );
      expectProblem(
        await postJson(url, '/v1/chat/completions', chat('x', { model: 'other' }), asAcme),
        403,
        'FORBIDDEN',
      );
      const answer = setInterval(() => held.answerAll(), 5);
      try {
        expect((await postJson(url, '/v1/chat/completions', chat('counted'), asAcme)).status).to.equal(200);
      } finally {
        clearInterval(answer);
      }
    });
  });
});

describe('admission with the load runtimes report', () => {
  const nowMs = FIXED_NOW.getTime();
  const limits: AdmissionLimits = { replicaConcurrency: 2, queuePerReplica: 1, maxQueueWaitMs: 1000 };
  const fresh = (waiting: number, cachePressure: number | null = 0.1) => ({
    waiting,
    running: 1,
    cachePressure,
    scrapedAtMs: nowMs - 2000,
  });

  function granted(controller: AdmissionController, target: ReturnType<typeof route>): string {
    const admission = controller.admit(target, { rank: 1, tenant: 't' }, new AbortController().signal);
    if (admission.kind !== 'granted') throw new Error('expected a slot now');
    return admission.slot.endpoint.baseUrl;
  }

  it("sends the request past the first replica when its runtime reports a queue from other gateways' traffic", () => {
    const controller = new AdmissionController(limits, () => nowMs);
    const target = route([
      { baseUrl: 'http://a', servedModel: 'm', load: fresh(3) },
      { baseUrl: 'http://b', servedModel: 'm', load: fresh(0) },
    ]);
    expect(granted(controller, target)).to.equal('http://b');
    // b now holds one of ours (1) against a's queue of 3: b again, then full by our own count.
    expect(granted(controller, target)).to.equal('http://b');
    expect(granted(controller, target)).to.equal('http://a');
  });

  it('keeps the rotation order when the reports are stale or absent', () => {
    const stale = { ...fresh(9, 1), scrapedAtMs: nowMs - 60_000 };
    const controller = new AdmissionController(limits, () => nowMs);
    const target = route([
      { baseUrl: 'http://a', servedModel: 'm', load: stale },
      { baseUrl: 'http://b', servedModel: 'm' },
    ]);
    expect(granted(controller, target)).to.equal('http://a');
    expect(granted(controller, target)).to.equal('http://b');
  });
});
