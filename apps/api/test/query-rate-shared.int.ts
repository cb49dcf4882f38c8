import { expect } from 'chai';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { ErrorCode } from '@lunanexa/contracts';
import { createLogger } from '@lunanexa/observability';
import { countGraphQLRateBuckets, pruneFullGraphQLRateBuckets } from '@lunanexa/persistence';
import { SharedQueryRateLimiter } from '../src/common/shared-query-rate';
import { startTestApi, type AnotherApi, type GraphQLBody, type TestApi } from './api-test-support';

const logger = createLogger({ service: 'query-rate-shared-test', level: 'silent' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Answer {
  readonly status: number;
  readonly body: GraphQLBody;
  readonly retryAfter: string | null;
}

/** `{ me { __typename } }` costs one root field: 10. */
const ME = '{ me { __typename } }';
const COST = 10;
/** Ten operations at once, then one every ten seconds: a second api process must not make that twenty. */
const BURST = 100;
const PER_SECOND = 1;

describe('GraphQL rate budget shared by two api processes (real PostgreSQL, real Temporal)', function () {
  this.timeout(300_000);
  let api: TestApi;
  let second: AnotherApi;

  before(async () => {
    api = await startTestApi('queryrate', {
      LUNANEXA_GRAPHQL_COST_BURST: String(BURST),
      LUNANEXA_GRAPHQL_COST_PER_SECOND: String(PER_SECOND),
      // The test counts rows; it prunes when it means to.
      LUNANEXA_GRAPHQL_RATE_PRUNE_SECONDS: '0',
    });
    second = await api.another();
  });
  after(async () => {
    await api?.stop();
  });

  async function post(base: string, authorization: string, query = ME): Promise<Answer> {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify({ query }),
    });
    return {
      status: response.status,
      body: (await response.json()) as GraphQLBody,
      retryAfter: response.headers.get('retry-after'),
    };
  }
  const granted = (answer: Answer) => answer.status === 200 && answer.body.errors === undefined;
  /** A limiter of its own on the fixture's database, answering within 250 ms, pruning only when asked. */
  const limiterOnFixture = (
    policy: { readonly capacity: number; readonly refillPerSecond: number },
    poolSize: number,
  ) =>
    new SharedQueryRateLimiter({
      policy,
      databaseUrl: api.fixture.db.url,
      poolSize,
      timeoutMs: 250,
      pruneEveryMs: 0,
      logger,
    });
  function limited(answer: Answer): number {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(429);
    const error = answer.body.errors?.[0];
    expect(error?.extensions.code).to.equal(ErrorCode.RATE_LIMITED);
    expect(answer.retryAfter).to.equal(String(error?.extensions['retryAfterSeconds']));
    return Number(answer.retryAfter);
  }

  it('a caller alternating between the two processes gets one budget, Retry-After holds on both, another caller is unaffected', async () => {
    const caller = await api.operator('queryrate-caller', 'viewer');
    const bystander = await api.operator('queryrate-bystander', 'viewer');
    const bases = [api.base, second.base];

    // Twice the burst, alternating processes. Per-process buckets would grant all 20; one shared budget grants 10
    // (refill in a run this short is under one operation's cost: 1 a second against 10).
    const started = performance.now();
    const answers: Answer[] = [];
    for (let i = 0; i < (2 * BURST) / COST; i++) answers.push(await post(bases[i % 2], caller));
    const elapsedMs = performance.now() - started;
    const grants = answers.map(granted);
    const perProcess = [0, 1].map((p) => grants.filter((g, i) => g && i % 2 === p).length);
    console.log(
      `      ${grants.filter(Boolean).length} of ${answers.length} granted in ${elapsedMs.toFixed(0)} ms ` +
        `(process A ${perProcess[0]}, process B ${perProcess[1]})`,
    );
    expect(elapsedMs, 'the run is shorter than one refill').to.be.below((COST / PER_SECOND) * 1000);
    expect(grants.filter(Boolean).length).to.equal(BURST / COST);
    expect(grants.slice(0, BURST / COST).every(Boolean), 'the first ten, on both processes').to.equal(true);
    expect(perProcess).to.deep.equal([5, 5]);
    for (const answer of answers.slice(BURST / COST)) limited(answer);

    // The bucket was emptied about `elapsed` after it started full: the next 10 units come 10 s after the first take.
    const onA = limited(await post(api.base, caller));
    const onB = limited(await post(second.base, caller));
    const expected = Math.ceil((COST / PER_SECOND) * 1000 - (performance.now() - started)) / 1000;
    console.log(`      Retry-After on A ${onA} s, on B ${onB} s (about ${expected.toFixed(1)} s to wait)`);
    expect(onA).to.be.within(COST / PER_SECOND - 1, COST / PER_SECOND);
    expect(onB).to.be.within(onA - 1, onA);

    // Another caller spends its own budget, on either process.
    expect(granted(await post(api.base, bystander))).to.equal(true);
    expect(granted(await post(second.base, bystander))).to.equal(true);

    // Retry-After is right: a second before it runs out the caller is still refused, on either process; at it, granted.
    const askedAt = performance.now();
    await sleep((onB - 1) * 1000 - 300);
    limited(await post(api.base, caller));
    await sleep(onB * 1000 - (performance.now() - askedAt) + 100);
    const retried = await post(second.base, caller);
    expect(granted(retried), JSON.stringify(retried.body)).to.equal(true);
    // And it took the whole refill: the very next one waits again.
    expect(limited(await post(api.base, caller))).to.be.within(COST / PER_SECOND - 1, COST / PER_SECOND);
  });

  it('takes a request’s cost in one round trip: the added latency per request, measured', async () => {
    const limiter = limiterOnFixture({ capacity: 1_000_000, refillPerSecond: 1_000_000 }, 4);
    try {
      for (let i = 0; i < 50; i++) await limiter.take(`warm-${i % 5}`, COST);
      const times: number[] = [];
      for (let i = 0; i < 1_000; i++) {
        const started = performance.now();
        const decision = await limiter.take(`measured-${i % 20}`, COST);
        times.push(performance.now() - started);
        expect(decision.allowed).to.equal(true);
      }
      times.sort((a, b) => a - b);
      const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
      console.log(
        `      shared bucket take, 1,000 sequential: p50 ${at(0.5).toFixed(3)} ms, p90 ${at(0.9).toFixed(3)} ms, ` +
          `p99 ${at(0.99).toFixed(3)} ms, max ${at(1).toFixed(3)} ms`,
      );
      expect(limiter.limitingLocally, 'every take answered in time').to.equal(false);
      expect(at(0.5)).to.be.below(10);
    } finally {
      await limiter.onApplicationShutdown();
    }
  });

  it('prunes the buckets of callers who went idle, and keeps the ones still refilling', async () => {
    const fast = limiterOnFixture({ capacity: 1_000, refillPerSecond: 1_000 }, 1);
    const slow = limiterOnFixture({ capacity: 1_000, refillPerSecond: 1 }, 1);
    try {
      await pruneFullGraphQLRateBuckets(api.fixture.ds);
      const before = await countGraphQLRateBuckets(api.fixture.ds);
      // 200 idle callers (each full again 10 ms after its take) and one that needs ~17 minutes to refill.
      for (let i = 0; i < 200; i++) await fast.take(`idle-${i}`, COST);
      await slow.take('busy', 1_000);
      expect(await countGraphQLRateBuckets(api.fixture.ds)).to.equal(before + 201);
      await sleep(50);
      const pruned = await fast.prune();
      expect(pruned).to.be.at.least(200);
      expect(await countGraphQLRateBuckets(api.fixture.ds)).to.equal(before + 201 - pruned);
      // The busy caller's debt survived the prune.
      expect(await slow.take('busy', 1)).to.include({ allowed: false });
    } finally {
      await fast.onApplicationShutdown();
      await slow.onApplicationShutdown();
    }
  });

  it('when PostgreSQL does not answer in time, limits callers with this process’s own buckets, then asks it again', async () => {
    // A server that accepts connections and never answers: a database that hangs, not one that refuses.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    let now = 1_000_000;
    const limiter = new SharedQueryRateLimiter(
      {
        policy: { capacity: BURST, refillPerSecond: PER_SECOND },
        databaseUrl: `postgres://postgres@127.0.0.1:${port}/nothing`,
        poolSize: 1,
        timeoutMs: 100,
        pruneEveryMs: 0,
        logger,
      },
      () => now,
    );
    try {
      const started = performance.now();
      const first = await limiter.take('caller', COST);
      const waited = performance.now() - started;
      console.log(`      first take decided locally after ${waited.toFixed(0)} ms`);
      expect(first).to.deep.equal({ allowed: true });
      expect(waited).to.be.within(90, 1_000);
      expect(limiter.limitingLocally).to.equal(true);
      // The limit did not lapse: the same budget, in this process's memory, without waiting on the database.
      for (let i = 1; i < BURST / COST; i++)
        expect((await limiter.take('caller', COST)).allowed).to.equal(true);
      const quick = performance.now();
      expect(await limiter.take('caller', COST)).to.deep.equal({ allowed: false, retryAfterSeconds: 10 });
      expect(performance.now() - quick).to.be.below(50);
      // After the retry interval the database is asked again (and, still silent, the local buckets decide again).
      now += 5_000;
      expect(limiter.limitingLocally).to.equal(false);
      const again = performance.now();
      expect(await limiter.take('caller', COST)).to.deep.equal({ allowed: false, retryAfterSeconds: 5 });
      expect(performance.now() - again).to.be.at.least(90);
      expect(limiter.limitingLocally).to.equal(true);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
      await limiter.onApplicationShutdown().catch(() => undefined);
    }
  });
});
