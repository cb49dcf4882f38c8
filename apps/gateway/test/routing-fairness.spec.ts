import { expect } from 'chai';
import type { RoutingPolicy } from '@lunanexa/contracts';
import { type Route, StaticRouteTable } from '../src/route-table';
import type { RequestLog, RequestRecord } from '../src/request-log';
import {
  FakeRuntime,
  TEST_OPERATOR_TOKEN,
  openAiChatCompletion,
  postJson,
  route,
  startGateway,
  testCredentials,
  type RawResponse,
  type StartedGateway,
} from './support';

/**
 * Routing policies and fairness between tenants, through the real gateway
 * server: runtimes are local HTTP servers that answer after a service time,
 * callers are two tenants (an operator token naming its tenant), and every
 * figure checked is what the gateway itself wrote on the request records.
 */

class Records implements RequestLog {
  readonly rows: RequestRecord[] = [];
  record(entry: RequestRecord): void {
    this.rows.push(entry);
  }
  async close(): Promise<void> {}
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A runtime that answers every chat completion after `serviceMs`. */
function runtime(serviceMs: number): Promise<FakeRuntime> {
  return new FakeRuntime((_call, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(openAiChatCompletion('done', 'served')));
    }, serviceMs);
  }).start();
}

describe('gateway routing policies and tenant fairness', () => {
  let runtimes: FakeRuntime[] = [];
  let gateway: StartedGateway | undefined;
  let records: Records;

  async function start(
    policy: RoutingPolicy | undefined,
    replicas: number,
    serviceMs: number,
    limits = { replicaConcurrency: 64, queuePerReplica: 64, maxQueueWaitMs: 10_000 },
    tenants: { tenantId: string; maxPriority: string | null }[] = [],
  ): Promise<StartedGateway> {
    runtimes = await Promise.all(Array.from({ length: replicas }, () => runtime(serviceMs)));
    records = new Records();
    const endpoints = runtimes.map((r) => ({ baseUrl: r.baseUrl, servedModel: 'served' }));
    const base = route(endpoints, policy === undefined ? {} : { routingPolicy: policy });
    const table = new StaticRouteTable([
      { id: 'chat-default', createdAt: '2025-11-01T00:00:00.000Z', route: base },
    ]);
    // Rotated per lookup as the PostgreSQL route table hands routes out (round robin relies on it).
    const rotations: Route[] = endpoints.map((_, i) => ({
      ...base,
      endpoints: [...endpoints.slice(i), ...endpoints.slice(0, i)],
    }));
    let next = 0;
    table.lookup = (name: string) =>
      name === 'chat-default' ? rotations[next++ % rotations.length] : undefined;
    gateway = await startGateway({
      routes: table,
      requestLog: records,
      admission: limits,
      credentials: testCredentials({
        tenants: tenants.map((tenant) => ({
          tenantId: tenant.tenantId,
          requestsPerMinute: null,
          tokensPerMinute: null,
          maxConcurrentRequests: null,
          maxPriority: tenant.maxPriority,
        })),
      }),
    });
    return gateway;
  }

  const send = (tenant: string, system: string, question: string, priority?: string) =>
    chatTo(gateway as StartedGateway, tenant, system, question, priority);

  afterEach(async () => {
    await gateway?.stop();
    gateway = undefined;
    await Promise.all(runtimes.map((r) => r.stop()));
    runtimes = [];
  });

  it('prefix-affinity sends each system prompt to one replica and records the policy, replica and reason', async () => {
    await start('prefix-affinity', 4, 0);
    for (let i = 0; i < 24; i += 1) {
      const response = await send(`tenant-${i % 6}`, `system prompt of tenant ${i % 6}`, `question ${i}`);
      expect(response.status).to.equal(200);
    }
    await sleep(20);
    const replicasByPrompt = new Map<string, Set<string>>();
    for (const row of records.rows) {
      expect(row.routingPolicy).to.equal('prefix-affinity');
      expect(row.routingReason).to.equal('affinity');
      const set = replicasByPrompt.get(row.tenantId ?? '') ?? new Set<string>();
      set.add(row.routedTo ?? '');
      replicasByPrompt.set(row.tenantId ?? '', set);
    }
    expect(replicasByPrompt.size).to.equal(6);
    for (const set of replicasByPrompt.values()) expect(set.size).to.equal(1);
    // And the runtimes saw exactly that split: each one got only the prompts that hash to it.
    const seen = runtimes.map(
      (r) => new Set(r.calls.map((c) => (c.body['messages'] as { content: string }[])[0]?.content)),
    );
    expect(seen.reduce((sum, prompts) => sum + prompts.size, 0)).to.equal(6);
  });

  it('round-robin spreads one prompt over every replica; least-loaded is the default', async () => {
    await start('round-robin', 4, 0);
    for (let i = 0; i < 8; i += 1)
      expect((await send('t', 'same system prompt', `q${i}`)).status).to.equal(200);
    await sleep(20);
    expect(new Set(records.rows.map((row) => row.routedTo)).size).to.equal(4);
    expect(records.rows.every((row) => row.routingReason === 'rotation')).to.equal(true);
    for (const r of runtimes) expect(r.calls).to.have.length(2);
    await gateway?.stop();
    await Promise.all(runtimes.map((r) => r.stop()));
    await start(undefined, 2, 0);
    expect((await send('t', 'same system prompt', 'q')).status).to.equal(200);
    await sleep(20);
    expect(records.rows.map((row) => [row.routingPolicy, row.routingReason])).to.deep.equal([
      ['least-loaded', 'least-loaded'],
    ]);
  });

  it('bounded load: one hot prefix spills past its replica once that holds more than 1.25× the mean in flight', async () => {
    await start('prefix-affinity', 4, 300);
    const pending: Promise<RawResponse>[] = [];
    for (let i = 0; i < 12; i += 1) {
      pending.push(send('hot', 'the one popular system prompt', `q${i}`));
      await sleep(5);
    }
    const answers = await Promise.all(pending);
    expect(answers.every((answer) => answer.status === 200)).to.equal(true);
    await sleep(20);
    const perReplica = runtimes.map((r) => r.calls.length);
    // 1.25 × the mean of 3: never more than 3 on one replica while all 12 ran together.
    expect(Math.max(...perReplica)).to.be.at.most(3);
    const reasons = new Set(records.rows.map((row) => row.routingReason));
    expect(reasons).to.include('affinity');
    expect(reasons).to.include('affinity-overflow');
  });

  it('a noisy tenant at 10× capacity asking for high priority is capped, queued round robin and shed; the quiet one is not', async () => {
    // 2 replicas × 2 slots, 100 ms each: about 40 requests a second; the noisy tenant sends 400.
    await start(
      'least-loaded',
      2,
      100,
      { replicaConcurrency: 2, queuePerReplica: 4, maxQueueWaitMs: 10_000 },
      [{ tenantId: 'noisy', maxPriority: 'normal' }],
    );
    const noisy: Promise<RawResponse>[] = [];
    const quiet: Promise<RawResponse>[] = [];
    const quietEarly = send('quiet', 'quiet system', 'warm up');
    await quietEarly;
    const started = Date.now();
    let n = 0;
    while (Date.now() - started < 1500) {
      for (let burst = 0; burst < 4; burst += 1) noisy.push(send('noisy', 'noisy system', `n${n++}`, 'high'));
      if (n % 20 === 0) quiet.push(send('quiet', 'quiet system', `q${n}`));
      await sleep(10);
    }
    const [noisyAnswers, quietAnswers] = await Promise.all([Promise.all(noisy), Promise.all(quiet)]);
    await sleep(50);
    expect(quietAnswers.length).to.be.at.least(5);
    expect(quietAnswers.map((answer) => answer.status)).to.deep.equal(quietAnswers.map(() => 200));
    const refused = noisyAnswers.filter((answer) => answer.status === 503).length;
    expect(refused).to.be.greaterThan(noisyAnswers.length / 2);
    const quietRows = records.rows.filter((row) => row.tenantId === 'quiet');
    const noisyRows = records.rows.filter((row) => row.tenantId === 'noisy');
    // The quiet tenant waits at most about one service time: headroom, then its turn in the rotation.
    const quietWaits = quietRows.map((row) => row.queueWaitMs ?? Number.POSITIVE_INFINITY);
    expect(Math.max(...quietWaits)).to.be.below(150);
    expect(noisyRows.every((row) => row.priority === 'normal' && row.requestedPriority === 'high')).to.equal(
      true,
    );
    expect(
      quietRows.every((row) => row.priority === 'normal' && row.requestedPriority === 'normal'),
    ).to.equal(true);
  });
});

function chatTo(
  gateway: StartedGateway,
  tenant: string,
  system: string,
  question: string,
  priority?: string,
): Promise<RawResponse> {
  return postJson(
    gateway.url,
    '/v1/chat/completions',
    {
      model: 'chat-default',
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: question },
      ],
    },
    {
      authorization: `Bearer ${TEST_OPERATOR_TOKEN}`,
      'x-lunanexa-tenant-id': tenant,
      ...(priority === undefined ? {} : { 'x-lunanexa-priority': priority }),
    },
  );
}
