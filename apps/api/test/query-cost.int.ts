import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { getIntrospectionQuery } from 'graphql';
import { ErrorCode } from '@lunanexa/contracts';
import { DEFAULT_QUERY_BUDGET } from '@lunanexa/domain';
import { dataOf, startTestApi, type GraphQLBody, type TestApi } from './api-test-support';

const aliases = (count: number, field: string) =>
  `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
const nested = (depth: number) => `{ ${'a { '.repeat(depth)}b${' }'.repeat(depth)} }`;
/** Each fragment spreads the one before twice: 2^20 fields from 40 spreads. */
const fragmentBomb = (levels: number) =>
  `query { ...f${levels} }\nfragment f0 on Query { health { __typename } }\n` +
  Array.from(
    { length: levels },
    (_, i) => `fragment f${i + 1} on Query { ...f${i} ... on Query { ...f${i} } }`,
  ).join('\n');

interface Timed {
  status: number;
  body: GraphQLBody;
  ms: number;
  headers: Headers;
}

describe('GraphQL cost budget and per-caller rate (real PostgreSQL, real Temporal)', function () {
  this.timeout(300_000);
  let api: TestApi;

  before(async () => {
    api = await startTestApi('querycost', {
      // Small enough that the rate test empties a bucket in a few requests; every other test spends little.
      LUNANEXA_GRAPHQL_COST_BURST: '15000',
      LUNANEXA_GRAPHQL_COST_PER_SECOND: '1000',
    });
  });
  after(async () => {
    await api?.stop();
  });

  async function post(query: string, authorization = api.admin, variables?: object): Promise<Timed> {
    const started = performance.now();
    const response = await fetch(`${api.base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as GraphQLBody;
    return { status: response.status, body, ms: performance.now() - started, headers: response.headers };
  }

  function refusal(answer: Timed) {
    expect(answer.body.data ?? undefined, JSON.stringify(answer.body)).to.equal(undefined);
    const error = answer.body.errors?.[0];
    expect(error?.extensions.code, JSON.stringify(answer.body)).to.equal(ErrorCode.QUERY_TOO_COSTLY);
    expect(answer.status).to.equal(400);
    expect(error?.extensions['requestId']).to.be.a('string');
    return error!.extensions;
  }

  it('refuses 2,000 and 200 aliases of auditChainStatus in milliseconds, stating the limit; nothing runs', async () => {
    const before = dataOf<{ events: { seq: number }[] }>(
      await api.graphql('{ auditEvents(first: 1) { events { seq } } }', undefined, api.admin),
      'auditEvents',
    ).events[0]?.seq;
    // 2,000 aliases are over 5,000 tokens: refused before parsing. 200 parse, and are over the alias limit.
    const expected = {
      2_000: {
        limit: 'tokens',
        measured: DEFAULT_QUERY_BUDGET.maxTokens + 1,
        max: DEFAULT_QUERY_BUDGET.maxTokens,
      },
      200: { limit: 'aliases', measured: 200, max: DEFAULT_QUERY_BUDGET.maxAliases },
    };
    for (const count of [2_000, 200] as const) {
      const answer = await post(aliases(count, 'auditChainStatus { valid checked }'));
      expect(refusal(answer)).to.include(expected[count]);
      console.log(`      ${count} aliases refused in ${answer.ms.toFixed(1)} ms`);
      expect(answer.ms).to.be.below(1_000);
    }
    // Below the alias limit the price still counts: 30 chain verifications cost 30,000.
    const priced = refusal(await post(aliases(30, 'auditChainStatus { valid }')));
    expect(priced).to.include({ limit: 'cost', measured: 30 * 1_000, max: DEFAULT_QUERY_BUDGET.maxCost });
    const after = dataOf<{ events: { seq: number }[] }>(
      await api.graphql('{ auditEvents(first: 1) { events { seq } } }', undefined, api.admin),
      'auditEvents',
    ).events[0]?.seq;
    expect(after, 'a refused operation writes nothing').to.equal(before);
  });

  it('refuses a 5,000-deep document before the parser sees it, and a 30-deep one before validation', async () => {
    const deep = await post(nested(5_000));
    expect(refusal(deep)).to.include({ limit: 'tokens', max: DEFAULT_QUERY_BUDGET.maxTokens });
    console.log(`      5,000-deep document refused in ${deep.ms.toFixed(1)} ms`);
    expect(deep.ms).to.be.below(1_000);
    // Few tokens, but deeper than the brace bound: still refused before parsing.
    expect(refusal(await post(nested(30)))).to.include({
      limit: 'depth',
      max: DEFAULT_QUERY_BUDGET.maxDepth * 2,
    });
  });

  it('prices fragments once per spread without walking 2^20 fields, and refuses the bomb', async () => {
    const answer = await post(fragmentBomb(20));
    expect(refusal(answer)).to.include({ limit: 'cost' });
    expect(answer.ms).to.be.below(1_000);
  });

  it('answers the standard introspection query and refuses introspection that cycles through the schema', async () => {
    const standard = await post(getIntrospectionQuery());
    expect(standard.body.errors, JSON.stringify(standard.body.errors)).to.equal(undefined);
    const cyclic = await post(
      '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }',
    );
    expect(refusal(cyclic)).to.include({ limit: 'introspectionListNesting', measured: 4, max: 3 });
  });

  it('lets an affordable operation run, and takes its cost from the caller until RATE_LIMITED says when to retry', async () => {
    const viewer = await api.operator('querycost-viewer', 'viewer');
    // A full and an incremental verification cost 11,000 of the 15,000 burst: the first runs, the second must wait.
    const dear = '{ a: auditChainStatus(mode: FULL) { valid } b: auditChainStatus { valid } }';
    const first = await post(dear, viewer);
    expect(first.body.errors, JSON.stringify(first.body.errors)).to.equal(undefined);
    const second = await post(dear, viewer);
    const error = second.body.errors?.[0];
    expect(error?.extensions.code).to.equal(ErrorCode.RATE_LIMITED);
    expect(second.status).to.equal(429);
    expect(error?.extensions['retryAfterSeconds']).to.be.a('number').within(1, 12);
    expect(second.headers.get('retry-after')).to.equal(String(error?.extensions['retryAfterSeconds']));
    // Another caller's allowance is its own.
    const other = await post('{ auditChainStatus { valid } }', api.admin);
    expect(other.body.errors, JSON.stringify(other.body.errors)).to.equal(undefined);
  });

  it('keeps /health within 2× its idle latency while abusive documents arrive', async () => {
    const health = async () => {
      const started = performance.now();
      const response = await fetch(`${api.base}/health`);
      await response.arrayBuffer();
      return performance.now() - started;
    };
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
    const sample = async (count: number) => {
      const times: number[] = [];
      for (let i = 0; i < count; i++) {
        times.push(await health());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return times;
    };
    await sample(10); // warm up

    // The abuser is another process, so its own work is not done on this event loop.
    const documents = [aliases(2_000, 'auditChainStatus { valid checked }'), nested(5_000), fragmentBomb(20)];
    const abuser: ChildProcess = spawn(
      process.execPath,
      [
        '-e',
        // Four senders, each a document every 80 ms (50 a second in all): an abusive script, not a saturation test.
        `const bodies = JSON.parse(process.argv[1]).map((query) => JSON.stringify({ query })); let sent = 0; const codes = {};
         const loop = async () => { for (;;) { const body = bodies[sent++ % bodies.length];
           const r = await fetch(process.argv[2], { method: 'POST', headers: { 'content-type': 'application/json', authorization: process.argv[3] }, body });
           const b = await r.json(); const code = b.errors?.[0]?.extensions?.code ?? 'none'; codes[code] = (codes[code] ?? 0) + 1;
           process.stdout.write(JSON.stringify(codes) + '\\n'); await new Promise((ok) => setTimeout(ok, 80)); } };
         for (let i = 0; i < 4; i++) loop().catch((e) => { console.error(e); process.exit(1); });`,
        JSON.stringify(documents),
        `${api.base}/graphql`,
        api.admin,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    abuser.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      // Idle and abused windows alternate (the abuser stopped and continued), so the load others put on this
      // shared machine falls on both alike instead of on whichever came second.
      const answeredSoFar = () => {
        const lines = output.split('\n');
        const codes = JSON.parse(lines[lines.length - 2] ?? '{}') as Record<string, number>;
        return { codes, answered: Object.values(codes).reduce((sum, n) => sum + n, 0) };
      };
      const cpuMs = () => {
        const usage = process.cpuUsage();
        return (usage.user + usage.system) / 1000;
      };
      const idleTimes: number[] = [];
      const loadedTimes: number[] = [];
      const spent = { idleCpu: 0, idleWall: 0, loadedCpu: 0, loadedWall: 0, refused: 0 };
      for (let round = 0; round < 6; round++) {
        abuser.kill('SIGSTOP');
        await new Promise((resolve) => setTimeout(resolve, 200));
        let cpu = cpuMs();
        let wall = performance.now();
        idleTimes.push(...(await sample(10)));
        spent.idleCpu += cpuMs() - cpu;
        spent.idleWall += performance.now() - wall;
        const before = answeredSoFar().answered;
        cpu = cpuMs();
        wall = performance.now();
        abuser.kill('SIGCONT');
        await new Promise((resolve) => setTimeout(resolve, 200));
        loadedTimes.push(...(await sample(10)));
        spent.loadedCpu += cpuMs() - cpu;
        spent.loadedWall += performance.now() - wall;
        spent.refused += answeredSoFar().answered - before;
      }
      const idle = median(idleTimes);
      const loaded = median(loadedTimes);
      const { codes, answered } = answeredSoFar();
      // This process's CPU beyond what the same time idle costs, per document refused: the server's price of one.
      const cpuPerRefusal =
        (spent.loadedCpu - spent.idleCpu * (spent.loadedWall / spent.idleWall)) / Math.max(1, spent.refused);
      const overload = Math.max(1, (loadavg()[0] ?? 0) / cpus().length);
      console.log(
        `      /health median idle ${idle.toFixed(2)} ms, under abuse ${loaded.toFixed(2)} ms; ` +
          `abusive documents answered ${JSON.stringify(codes)}; ` +
          `server CPU per refusal ${cpuPerRefusal.toFixed(2)} ms; load average per CPU ${overload.toFixed(1)}`,
      );
      expect(answered, 'the abuser kept sending').to.be.greaterThan(50);
      expect(codes).to.deep.equal({ [ErrorCode.QUERY_TOO_COSTLY]: answered });
      // Refusing is cheap: 50 a second take a few percent of one CPU.
      expect(cpuPerRefusal).to.be.below(3);
      // 2× idle, with 2 ms of slack for a millisecond idle median, times how overloaded the shared machine is
      // (at 16 runnable processes per CPU, any process that wakes up waits for the scheduler, abuser or not).
      expect(loaded).to.be.at.most(2 * idle + 2 * overload);
    } finally {
      abuser.kill('SIGCONT');
      abuser.kill();
      await once(abuser, 'exit');
    }
  });
});
