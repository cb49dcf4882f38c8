import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ErrorCode } from '@lunanexa/contracts';
import { insertRequestRecords, type GatewayRequestRecord } from '@lunanexa/persistence';
import { temporal } from '@temporalio/proto';
import { dataOf, startTestApi, type GraphQLBody, type TestApi } from './api-test-support';

/**
 * Benchmark runs and capacity recommendations on the real pieces: the API
 * and a worker on the test Temporal server and a scratch PostgreSQL, and two
 * real fake-runtime processes as one deployment's replicas on two nodes.
 * Each runtime decodes at most two requests at once (--max-num-seqs 2), so
 * queueing, and with it the saturation break, is real: a third request on a
 * replica waits a whole request (~110 ms) before its first token.
 */

const FAKE_RUNTIME_MAIN = require.resolve('@lunanexa/fake-runtime/dist/src/main.js');
const SYNTHETIC_LICENSE_ID = '00000000-0000-4000-8000-000000000001';
const MODEL = 'benchm@v1';
const TTFT_MS = 100;
const SLO_TTFT_P95_MS = 180;

interface FakeRuntime {
  readonly port: number;
  stop(): Promise<void>;
}

async function startFakeRuntime(args: readonly string[]): Promise<FakeRuntime> {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [FAKE_RUNTIME_MAIN, '--port', '0', '--log-level', 'info', ...args],
    { env: { PATH: process.env['PATH'] ?? '' } },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    const onData = (chunk: Buffer): void => {
      stdout += chunk.toString('utf8');
      for (const line of stdout.split('\n')) {
        if (!line.startsWith('{')) continue;
        const parsed = JSON.parse(line) as { msg?: string; port?: number };
        if (parsed.msg === 'fake runtime listening' && typeof parsed.port === 'number') {
          child.stdout.off('data', onData);
          child.stdout.resume();
          resolve(parsed.port);
          return;
        }
      }
    };
    child.stdout.on('data', onData);
    void exited.then(() => reject(new Error(`fake runtime exited before listening: ${stderr}`)));
  });
  return {
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}
interface Figures {
  concurrency: number;
  requests: number;
  errors: number;
  errorRate: number;
  ttftMs: Percentiles | null;
  latencyMs: Percentiles | null;
  requestsPerSecond: number;
  tokensPerSecond: number;
  queueDepth: { max: number; mean: number; samples: number } | null;
}
interface RunView {
  id: string;
  state: string;
  kinds: string[];
  sloTtftP95Ms: number | null;
  errorCode: string | null;
  error: string | null;
  saturation: {
    replicas: number;
    brokeAtConcurrency: number | null;
    sustainableConcurrency: number | null;
    perReplicaRequestsPerSecond: number | null;
    steps: (Figures & { breach: string | null })[];
  } | null;
  longStream: (Figures & { interTokenGapMs: Percentiles | null; completionTokensP50: number | null }) | null;
  mixed: { short: Figures; long: Figures } | null;
}
interface Capacity {
  alias: string;
  deploymentId: string | null;
  benchmarkRunId: string | null;
  targetTtftP95Ms: number | null;
  perReplicaRequestsPerSecond: number | null;
  peakRequestsPerSecond: number | null;
  currentReplicas: number;
  replicasNeeded: number | null;
  capacityRequestsPerSecond: number | null;
  headroom: number | null;
  largestNode: string | null;
  capacityAfterNodeLoss: number | null;
  nodeLossMargin: number | null;
  survivesNodeLoss: boolean | null;
  missing: string[];
}

const P = `{ p50 p95 p99 }`;
const FIGURES = `concurrency requests errors errorRate ttftMs ${P} latencyMs ${P} requestsPerSecond tokensPerSecond
  queueDepth { max mean samples } durationMs`;
const RUN_FIELDS = `id state kinds sloTtftP95Ms errorCode error
  saturation { replicas brokeAtConcurrency sustainableConcurrency perReplicaRequestsPerSecond steps { ${FIGURES} breach } }
  longStream { ${FIGURES} interTokenGapMs ${P} completionTokensP50 }
  mixed { short { ${FIGURES} } long { ${FIGURES} } }`;
const START = `mutation($input: StartBenchmarkRunInput!) { startBenchmarkRun(input: $input) { runId workflowId run { id state } } }`;
const RUN = `query($id: ID!) { benchmarkRun(id: $id) { ${RUN_FIELDS} } }`;
const RUNS = `query($d: String) { benchmarkRuns(deployment: $d) { id state } }`;
const CREATE_PROFILE = `mutation($input: CreateBenchmarkProfileInput!) { createBenchmarkProfile(input: $input) { id name } }`;
const CAPACITY = `query($a: String, $h: Int, $b: Int) { capacityRecommendations(alias: $a, windowHours: $h, bucketSeconds: $b) {
  alias deploymentId benchmarkRunId targetTtftP95Ms perReplicaRequestsPerSecond peakRequestsPerSecond currentReplicas
  replicasNeeded capacityRequestsPerSecond headroom largestNode capacityAfterNodeLoss nodeLossMargin survivesNodeLoss missing } }`;

const codeOf = (answer: GraphQLBody): string | undefined => answer.errors?.[0]?.extensions.code;

describe('benchmark runs (saturation, long stream, mixed) and capacity recommendations on real PostgreSQL, Temporal and fake runtimes', function () {
  this.timeout(300_000);
  let api: TestApi;
  let operator = '';
  let viewer = '';
  const runtimes: FakeRuntime[] = [];
  let runId = '';

  const sql = <T>(text: string, params: unknown[] = []): Promise<T> => api.fixture.ds.query<T>(text, params);
  const count = async (): Promise<number> =>
    Number((await sql<{ n: string }[]>(`SELECT count(*) AS n FROM benchmark_runs`))[0].n);

  async function addNode(id: string, tokenId: string): Promise<void> {
    await sql(
      `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                          inventory, lease_renewed_at, lease_expires_at, enroll_workflow_id, bootstrap_token_id,
                          enrolled_at, updated_at)
       VALUES ($1, $1, 'Active', '127.0.0.1', 22, 'SHA256:test', $2, 'test-public-key',
               '{}'::jsonb, now(), now() + interval '1 hour', $3, $4, now(), now())`,
      [id, `key-${id}`, `enroll-node/${id}`, tokenId],
    );
  }

  async function addDeployment(
    name: string,
    version: string,
    replicas: { node: string; port: number | null }[],
  ) {
    const ref = `benchm@${version}`;
    await sql(
      `INSERT INTO model_versions (id, model, version, ref, artifact, runtime, created_by, created_at, model_id,
                                   state, license_id, runtime_id, requirements, updated_at)
       SELECT $1, 'benchm', $2, $3, '{}'::jsonb, '{}'::jsonb, 'test', now(), m.id, 'Verified', $4, 'runtime-bench',
              '{}'::jsonb, now()
         FROM models m WHERE m.name = 'benchm'`,
      [randomUUID(), version, ref, SYNTHETIC_LICENSE_ID],
    );
    await sql(
      `INSERT INTO deployments (id, name, model_version_id, model_ref, state, generation, observed_generation,
                                desired_replicas, workflow_id, created_by, created_at, updated_at)
       SELECT $1, $2, mv.id, mv.ref, 'Ready', 1, 1, $3, $4, 'test', now(), now()
         FROM model_versions mv WHERE mv.ref = $5`,
      [`dep-${name}`, name, replicas.length, `deployment/dep-${name}`, ref],
    );
    for (const [i, replica] of replicas.entries()) {
      await sql(
        `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec,
                                  observed_state, observed_generation, endpoint_port, in_flight, observed_at,
                                  created_at, updated_at)
         VALUES ($1, $2, $3, 1, 'Run', now() + interval '1 hour', '{}'::jsonb, $4, 1, $5, 0, now(), now(), now())`,
        [
          `asg-${name}-${i}`,
          `dep-${name}`,
          replica.node,
          replica.port === null ? 'Starting' : 'Ready',
          replica.port,
        ],
      );
    }
  }

  async function addAlias(name: string, deploymentName: string): Promise<void> {
    const id = randomUUID();
    await sql(
      `INSERT INTO aliases (id, name, data_class, current_revision, created_by, created_at, updated_at)
       VALUES ($1, $2, 'internal', 1, 'test', now(), now())`,
      [id, name],
    );
    await sql(
      `INSERT INTO alias_revisions (alias_id, revision, model_version_id, model_ref, deployment_id, reason,
                                    created_by, created_at)
       SELECT $1, 1, d.model_version_id, d.model_ref, d.id, 'promote', 'test', now()
         FROM deployments d WHERE d.name = $2`,
      [id, deploymentName],
    );
  }

  async function finished(id: string): Promise<RunView> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const run = dataOf<RunView | null>(await api.graphql(RUN, { id }, viewer), 'benchmarkRun');
      if (run && run.state !== 'Running') return run;
      if (Date.now() > deadline) throw new Error(`benchmark run ${id} still ${run?.state ?? 'unrecorded'}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  before(async () => {
    api = await startTestApi('benchmarks');
    operator = await api.operator('bench-op', 'operator');
    viewer = await api.operator('bench-viewer', 'viewer');
    for (let i = 0; i < 2; i++) {
      runtimes.push(
        await startFakeRuntime([
          '--model',
          MODEL,
          '--ttft-ms',
          String(TTFT_MS),
          '--tokens-per-second',
          '1000',
          '--max-num-seqs',
          '2',
        ]),
      );
    }
    const tokenId = randomUUID();
    await sql(
      `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
       VALUES ($1, $2, 'lnxb_benhBENH', 'test', now(), now() + interval '1 day')`,
      [tokenId, 'bd'.repeat(32)],
    );
    await addNode('node-a', tokenId);
    await addNode('node-b', tokenId);
    await sql(
      `INSERT INTO runtimes (id, name, version, kind, document, created_by, created_at, updated_at)
       VALUES ('runtime-bench', 'fake', '1', 'fake', '{}'::jsonb, 'test', now(), now()) ON CONFLICT (id) DO NOTHING`,
    );
    await sql(
      `INSERT INTO models (id, name, display_name, created_by, created_at, updated_at)
       VALUES ($1, 'benchm', 'benchm', 'test', now(), now())`,
      [randomUUID()],
    );
    await addDeployment('bench-main', 'v1', [
      { node: 'node-a', port: runtimes[0].port },
      { node: 'node-b', port: runtimes[1].port },
    ]);
    await addDeployment('bench-idle', 'v2', [{ node: 'node-a', port: null }]);
    await addAlias('bench-chat', 'bench-main');
    await addAlias('bench-quiet', 'bench-idle');
    dataOf(
      await api.graphql(
        CREATE_PROFILE,
        {
          input: {
            name: 'bench-short',
            concurrency: 1,
            inputTokens: 16,
            outputTokens: 10,
            requestCount: 1,
            requestTimeoutSeconds: 30,
            maxErrorRate: 0.01,
            maxTtftP95Ms: SLO_TTFT_P95_MS,
          },
        },
        operator,
      ),
      'createBenchmarkProfile',
    );
  });

  after(async () => {
    await Promise.all(runtimes.map((runtime) => runtime.stop()));
    await api?.stop();
  });

  it('refuses a bad plan, an unknown deployment or profile and a deployment without Ready replicas, storing nothing', async () => {
    const good = { deployment: 'bench-main', profile: 'bench-short' };
    const cases: [Record<string, unknown>, string][] = [
      [good, ErrorCode.VALIDATION_FAILED],
      [
        { ...good, saturation: { concurrencySteps: [1, 4, 2], requestsPerStep: 4 } },
        ErrorCode.VALIDATION_FAILED,
      ],
      [{ ...good, saturation: { concurrencySteps: [0], requestsPerStep: 4 } }, ErrorCode.VALIDATION_FAILED],
      [{ ...good, coldStart: { repeats: 0, readyTimeoutSeconds: 60 } }, ErrorCode.VALIDATION_FAILED],
      [{ ...good, coldStart: { repeats: 21, readyTimeoutSeconds: 60 } }, ErrorCode.VALIDATION_FAILED],
      [{ ...good, coldStart: { repeats: 2, readyTimeoutSeconds: 5 } }, ErrorCode.VALIDATION_FAILED],
      [
        { ...good, longStream: { outputTokens: 1, requests: 1, concurrency: 1 } },
        ErrorCode.VALIDATION_FAILED,
      ],
      [
        {
          ...good,
          deployment: 'no-such-deployment',
          longStream: { outputTokens: 100, requests: 1, concurrency: 1 },
        },
        ErrorCode.NOT_FOUND,
      ],
      [
        {
          ...good,
          profile: 'no-such-profile',
          longStream: { outputTokens: 100, requests: 1, concurrency: 1 },
        },
        ErrorCode.NOT_FOUND,
      ],
      [
        { ...good, deployment: 'bench-idle', longStream: { outputTokens: 100, requests: 1, concurrency: 1 } },
        ErrorCode.NO_CAPACITY,
      ],
    ];
    for (const [input, code] of cases) {
      const answer = await api.graphql(START, { input }, operator);
      expect(codeOf(answer), JSON.stringify(input)).to.equal(code);
    }
    const denied = await api.graphql(
      START,
      { input: { ...good, longStream: { outputTokens: 100, requests: 1, concurrency: 1 } } },
      viewer,
    );
    expect(codeOf(denied)).to.equal(ErrorCode.FORBIDDEN);
    expect(await count()).to.equal(0);
  });

  it('sweeps concurrency until p95 TTFT breaks the SLO, streams thousands of tokens and mixes short and long requests', async () => {
    const started = dataOf<{ runId: string; workflowId: string; run: { state: string } | null }>(
      await api.graphql(
        START,
        {
          input: {
            deployment: 'bench-main',
            profile: 'bench-short',
            idempotencyKey: 'bench-run-1',
            saturation: { concurrencySteps: [2, 4, 8, 16], requestsPerStep: 24 },
            longStream: { outputTokens: 2000, requests: 2, concurrency: 2 },
            mixed: {
              shortRequests: 8,
              shortConcurrency: 2,
              longRequests: 2,
              longConcurrency: 1,
              longOutputTokens: 1000,
            },
          },
        },
        operator,
      ),
      'startBenchmarkRun',
    );
    runId = started.runId;
    expect(started.workflowId).to.equal(`benchmark/${runId}`);
    expect(started.run?.state).to.equal('Running');
    const run = await finished(runId);
    expect(run.state, `${run.errorCode ?? ''} ${run.error ?? ''}`).to.equal('Succeeded');
    expect(run.kinds).to.deep.equal(['saturation', 'longStream', 'mixed']);
    expect(run.sloTtftP95Ms).to.equal(SLO_TTFT_P95_MS);

    // Two replicas of two slots each: 2 and 4 at once never wait; 8 at once queue two per replica.
    const sweep = run.saturation!;
    expect(sweep.replicas).to.equal(2);
    expect(
      sweep.steps.map((s) => s.concurrency),
      JSON.stringify(sweep.steps),
    ).to.deep.equal([2, 4, 8]);
    expect(sweep.brokeAtConcurrency).to.equal(8);
    expect(sweep.sustainableConcurrency).to.equal(4);
    const [two, four, eight] = sweep.steps;
    for (const step of [two, four]) {
      expect(step.breach).to.equal(null);
      expect(step.requests).to.equal(24);
      expect(step.errors).to.equal(0);
      expect(step.ttftMs!.p50).to.be.within(TTFT_MS, SLO_TTFT_P95_MS);
      expect(step.queueDepth, 'the runtime reports its queue').to.not.equal(null);
    }
    expect(eight.breach).to.match(/^p95 TTFT [0-9.]+ ms > 180 ms$/);
    expect(eight.ttftMs!.p95).to.be.greaterThan(SLO_TTFT_P95_MS);
    expect(eight.queueDepth!.max, 'requests waited in the runtimes').to.be.at.least(1);
    expect(four.requestsPerSecond).to.be.greaterThan(two.requestsPerSecond);
    expect(four.tokensPerSecond).to.be.greaterThan(0);
    expect(sweep.perReplicaRequestsPerSecond).to.be.closeTo(four.requestsPerSecond / 2, 1e-9);

    const long = run.longStream!;
    expect(long.requests).to.equal(2);
    expect(long.errors).to.equal(0);
    expect(long.completionTokensP50).to.equal(2000);
    // 1000 tokens per second: about a millisecond apart, and never a long stall.
    expect(long.interTokenGapMs!.p50).to.be.within(0, 20);
    expect(long.interTokenGapMs!.p99).to.be.at.least(long.interTokenGapMs!.p50);
    expect(long.interTokenGapMs!.p99).to.be.below(200);
    expect(long.tokensPerSecond).to.be.greaterThan(500);

    const mixed = run.mixed!;
    expect(mixed.short.requests).to.equal(8);
    expect(mixed.long.requests).to.equal(2);
    expect(mixed.short.errors + mixed.long.errors).to.equal(0);
    expect(mixed.long.latencyMs!.p50).to.be.greaterThan(mixed.short.latencyMs!.p50);
    expect(mixed.long.tokensPerSecond).to.be.greaterThan(mixed.short.tokensPerSecond);

    if (process.env['LUNANEXA_RECORD_HISTORIES'] === '1') {
      // Refreshes the committed history that workflows/test/replay.spec.ts replays on every run.
      const history = await api.fixture.env.client.workflow.getHandle(started.workflowId).fetchHistory();
      const file = join(
        __dirname,
        '..',
        '..',
        '..',
        '..',
        'workflows',
        'test',
        'histories',
        'benchmark-run.succeeded.binpb',
      );
      writeFileSync(file, temporal.api.history.v1.History.encode(history).finish());
    }

    // The same key returns the same run; another plan under it is refused.
    const again = await api.graphql(
      START,
      {
        input: {
          deployment: 'bench-main',
          profile: 'bench-short',
          idempotencyKey: 'bench-run-1',
          saturation: { concurrencySteps: [2, 4, 8, 16], requestsPerStep: 24 },
          longStream: { outputTokens: 2000, requests: 2, concurrency: 2 },
          mixed: {
            shortRequests: 8,
            shortConcurrency: 2,
            longRequests: 2,
            longConcurrency: 1,
            longOutputTokens: 1000,
          },
        },
      },
      operator,
    );
    expect(dataOf<{ runId: string }>(again, 'startBenchmarkRun').runId).to.equal(runId);
    const reused = await api.graphql(
      START,
      {
        input: {
          deployment: 'bench-main',
          profile: 'bench-short',
          idempotencyKey: 'bench-run-1',
          longStream: { outputTokens: 100, requests: 1, concurrency: 1 },
        },
      },
      operator,
    );
    expect(codeOf(reused)).to.equal(ErrorCode.IDEMPOTENCY_KEY_REUSED);
    const listed = dataOf<{ id: string }[]>(
      await api.graphql(RUNS, { d: 'bench-main' }, viewer),
      'benchmarkRuns',
    );
    expect(listed.map((r) => r.id)).to.deep.equal([runId]);
    expect(codeOf(await api.graphql(RUNS, { d: 'no-such-deployment' }, viewer))).to.equal(
      ErrorCode.NOT_FOUND,
    );
  });

  it('recommends replicas from the sweep and the busiest minute of the alias, and says what is missing', async () => {
    const now = Date.now();
    const record = (i: number, at: number, model: string): GatewayRequestRecord => ({
      requestId: `req-${model}-${i}`,
      correlationId: `corr-${i}`,
      receivedAt: new Date(at),
      finishedAt: new Date(at + 50),
      kind: 'chat',
      dialect: 'openai',
      requestedModel: model,
      modelRef: MODEL,
      deploymentId: 'dep-bench-main',
      stream: true,
      outcome: 'Completed',
      errorCode: null,
      httpStatus: 200,
      ttftMs: 100,
      durationMs: 110,
      promptTokens: 16,
      completionTokens: 10,
      tenantId: null,
      caller: null,
    });
    // Each burst lands in one bucket: 1200 requests (20/s over 60 s) two hours ago, 300 (5/s) half an hour ago;
    // requests naming the model rather than the alias do not count.
    const busyStart = Math.floor((now - 2 * 3_600_000) / 60_000) * 60_000;
    await insertRequestRecords(api.fixture.ds, [
      ...Array.from({ length: 1200 }, (_, i) => record(i, busyStart, 'bench-chat')),
      ...Array.from({ length: 300 }, (_, i) => record(2000 + i, now - 1_800_000, 'bench-chat')),
      ...Array.from({ length: 3000 }, (_, i) => record(9000 + i, busyStart, MODEL)),
    ]);
    const [chat] = dataOf<Capacity[]>(
      await api.graphql(CAPACITY, { a: 'bench-chat', h: 24, b: 60 }, viewer),
      'capacityRecommendations',
    );
    const run = await finished(runId);
    const perReplica = run.saturation!.perReplicaRequestsPerSecond!;
    expect(chat.deploymentId).to.equal('dep-bench-main');
    expect(chat.benchmarkRunId).to.equal(runId);
    expect(chat.targetTtftP95Ms).to.equal(SLO_TTFT_P95_MS);
    expect(chat.perReplicaRequestsPerSecond).to.equal(perReplica);
    expect(chat.peakRequestsPerSecond).to.equal(20);
    expect(chat.currentReplicas).to.equal(2);
    expect(chat.replicasNeeded).to.equal(Math.ceil(20 / perReplica));
    expect(chat.capacityRequestsPerSecond).to.be.closeTo(2 * perReplica, 1e-9);
    expect(chat.headroom).to.be.closeTo((2 * perReplica - 20) / (2 * perReplica), 1e-9);
    expect(chat.largestNode).to.equal('node-a');
    expect(chat.capacityAfterNodeLoss).to.be.closeTo(perReplica, 1e-9);
    expect(chat.nodeLossMargin).to.be.closeTo((perReplica - 20) / 20, 1e-9);
    expect(chat.survivesNodeLoss).to.equal(perReplica >= 20);
    expect(chat.missing).to.deep.equal([]);

    // A one-hour window misses the busy burst: the peak is the quieter one.
    const [recent] = dataOf<Capacity[]>(
      await api.graphql(CAPACITY, { a: 'bench-chat', h: 1, b: 60 }, viewer),
      'capacityRecommendations',
    );
    expect(recent.peakRequestsPerSecond).to.equal(5);

    const all = dataOf<Capacity[]>(await api.graphql(CAPACITY, {}, viewer), 'capacityRecommendations');
    expect(all.map((c) => c.alias)).to.deep.equal(['bench-chat', 'bench-quiet']);
    const quiet = all[1];
    expect(quiet.benchmarkRunId).to.equal(null);
    expect(quiet.peakRequestsPerSecond).to.equal(null);
    expect(quiet.replicasNeeded).to.equal(null);
    expect(quiet.headroom).to.equal(null);
    expect(quiet.currentReplicas).to.equal(0);
    expect(quiet.missing).to.deep.equal([
      'no saturation benchmark of the serving deployment',
      'no traffic observed in the window',
      'no serving replica',
    ]);

    expect(codeOf(await api.graphql(CAPACITY, { a: 'no-such-alias' }, viewer))).to.equal(ErrorCode.NOT_FOUND);
    expect(codeOf(await api.graphql(CAPACITY, { a: 'bench-chat', h: 0 }, viewer))).to.equal(
      ErrorCode.VALIDATION_FAILED,
    );
    expect(codeOf(await api.graphql(CAPACITY, { a: 'bench-chat', b: 5 }, viewer))).to.equal(
      ErrorCode.VALIDATION_FAILED,
    );
  });
});
