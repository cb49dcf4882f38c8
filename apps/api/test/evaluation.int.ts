import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { systemClock } from '@lunanexa/activities';
// The activities package exports only the combined factory; the evaluation steps are taken from their module.
import { createEvaluationActivities } from '@lunanexa/activities/dist/src/evaluation';
import { ErrorCode, type EvaluateWorkflowInput, type EvaluationScores } from '@lunanexa/contracts';
import { temporal } from '@temporalio/proto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { dataOf, startTestApi, type GraphQLBody, type TestApi } from './api-test-support';

/**
 * Evaluation end to end on the real pieces: the API and a worker on the test
 * Temporal server and a scratch PostgreSQL, and real fake-runtime processes
 * as the candidate deployments' replicas (their rows are inserted as the
 * deployment workflow and heartbeats would leave them: Ready at the desired
 * generation on an Active node). The fake runtime is deterministic from
 * (model, messages, seed), so which graders pass is known before the run.
 */

const FAKE_RUNTIME_MAIN = require.resolve('@lunanexa/fake-runtime/dist/src/main.js');
const SYNTHETIC_LICENSE_ID = '00000000-0000-4000-8000-000000000001';

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

interface RunView {
  id: string;
  state: string;
  passed: boolean | null;
  reasons: string[];
  errorCode: string | null;
  modelRef: string;
  suite: string;
  profile: string | null;
  workflowId: string;
  scores: {
    passRate: number;
    passedCases: number;
    totalCases: number;
    cases: {
      caseId: string;
      passed: boolean;
      reason: string | null;
      errorCode: string | null;
      grader: string;
    }[];
  } | null;
  metrics: {
    requests: number;
    errors: number;
    errorRate: number;
    ttftMs: { p50: number; p95: number; p99: number } | null;
    latencyMs: { p50: number; p95: number; p99: number } | null;
    tokensPerSecond: number;
    completionTokens: number;
    concurrency: number;
  } | null;
}

const RUN_FIELDS = `id state passed reasons errorCode modelRef suite profile workflowId
  scores { passRate passedCases totalCases cases { caseId passed reason errorCode grader } }
  metrics { requests errors errorRate ttftMs { p50 p95 p99 } latencyMs { p50 p95 p99 } tokensPerSecond completionTokens concurrency }`;
const CREATE_SUITE = `mutation($input: CreateEvaluationSuiteInput!) { createEvaluationSuite(input: $input) { id name digest caseCount } }`;
const CREATE_PROFILE = `mutation($input: CreateBenchmarkProfileInput!) { createBenchmarkProfile(input: $input) { id name digest concurrency } }`;
const START = `mutation($input: StartEvaluationInput!) { startEvaluation(input: $input) { runId workflowId temporalUiUrl correlationId run { id state } } }`;
const RUN = `query($id: ID!) { evaluationRun(id: $id) { ${RUN_FIELDS} } }`;
const RUNS = `query($v: String, $p: String) { evaluationRuns(modelVersion: $v, profile: $p) { id state modelRef } }`;
const COMPARE = `query($p: String!, $v: [String!]!, $b: String) { benchmarkComparison(profile: $p, modelVersions: $v, baseline: $b) {
  profile baseline regressed entries { modelRef baseline passRate ttftP95Ms tokensPerSecond errorRate sameSuiteAsBaseline regressed
  regressions { metric baseline candidate reason } run { id } } } }`;

const codeOf = (answer: GraphQLBody): string | undefined => answer.errors?.[0]?.extensions.code;

describe('evaluation suites, benchmark profiles and the Evaluate workflow on real PostgreSQL, Temporal and fake runtimes', function () {
  this.timeout(300_000);
  let api: TestApi;
  let operator = '';
  const runtimes: FakeRuntime[] = [];
  const FAST = 'evalm@v1';
  const SLOW = 'evalm@v2';
  const REGISTERED = 'evalm@v3';
  const NOT_READY = 'evalm@v4';
  const FAST_TTFT_MS = 20;
  const SLOW_TTFT_MS = 150;
  const EXACT_PROMPT = 'Say something about the fleet.';
  let fastAnswer = '';

  const sql = <T>(text: string, params: unknown[] = []): Promise<T> => api.fixture.ds.query<T>(text, params);

  async function addCandidate(ref: string, state: string, port: number | null): Promise<void> {
    const [model, version] = ref.split('@') as [string, string];
    const name = ref.replace('@', '-');
    await sql(
      `INSERT INTO models (id, name, display_name, created_by, created_at, updated_at)
       VALUES ($1, $2, $2, 'test', now(), now()) ON CONFLICT (name) DO NOTHING`,
      [randomUUID(), model],
    );
    await sql(
      `INSERT INTO model_versions (id, model, version, ref, artifact, runtime, created_by, created_at, model_id,
                                   state, license_id, runtime_id, requirements, updated_at)
       SELECT $1, $2, $3, $4, '{}'::jsonb, '{}'::jsonb, 'test', now(), m.id, $5, $6, 'runtime-eval', '{}'::jsonb, now()
         FROM models m WHERE m.name = $2`,
      [randomUUID(), model, version, ref, state, SYNTHETIC_LICENSE_ID],
    );
    await sql(
      `INSERT INTO deployments (id, name, model_version_id, model_ref, state, generation, observed_generation,
                                desired_replicas, workflow_id, created_by, created_at, updated_at, purpose)
       SELECT $1, $2, mv.id, mv.ref, $3, 1, 1, 1, $4, 'test', now(), now(), 'Candidate'
         FROM model_versions mv WHERE mv.ref = $5`,
      [`dep-${name}`, name, port === null ? 'Starting' : 'Ready', `deployment/dep-${name}`, ref],
    );
    await sql(
      `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec,
                                observed_state, observed_generation, endpoint_port, in_flight, observed_at,
                                created_at, updated_at)
       VALUES ($1, $2, 'node-eval', 1, 'Run', now() + interval '1 hour', '{}'::jsonb, $3, 1, $4, 0, now(), now(), now())`,
      [`asg-${name}-eval`, `dep-${name}`, port === null ? 'Starting' : 'Ready', port],
    );
  }

  async function versionRow(
    ref: string,
  ): Promise<{ state: string; evaluation: Record<string, unknown> | null }> {
    const rows = await sql<{ state: string; evaluation: Record<string, unknown> | null }[]>(
      `SELECT state, evaluation FROM model_versions WHERE ref = $1`,
      [ref],
    );
    return rows[0];
  }

  const count = async (table: string): Promise<number> =>
    Number((await sql<{ n: string }[]>(`SELECT count(*) AS n FROM ${table}`))[0].n);

  async function finished(runId: string): Promise<RunView> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const run = dataOf<RunView | null>(await api.graphql(RUN, { id: runId }, operator), 'evaluationRun');
      if (run && run.state !== 'Running') return run;
      if (Date.now() > deadline) throw new Error(`run ${runId} still ${run?.state ?? 'unrecorded'}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  const suiteInput = (name: string, exactExpected: string) => ({
    name,
    description: 'deterministic answers of the fake runtime',
    passThreshold: 0.6,
    concurrency: 2,
    caseTimeoutSeconds: 20,
    cases: [
      {
        id: 'exact-known',
        prompt: EXACT_PROMPT,
        maxTokens: 12,
        grader: { kind: 'EXACT', expected: exactExpected },
      },
      {
        id: 'sentence-ends',
        prompt: 'Tell me about replicas.',
        maxTokens: 200,
        grader: { kind: 'CONTAINS', substring: '.' },
      },
      {
        id: 'capitalised',
        messages: [
          { role: 'system', content: 'Answer briefly.' },
          { role: 'user', content: 'Describe the gateway.' },
        ],
        maxTokens: 16,
        seed: 7,
        grader: { kind: 'REGEX', pattern: '^[A-Z]' },
      },
      { id: 'exact-wrong', prompt: 'Say hello.', maxTokens: 8, grader: { kind: 'EXACT', expected: 'hello' } },
      {
        id: 'json-object',
        prompt: 'Answer with a JSON object.',
        maxTokens: 16,
        grader: { kind: 'JSON_SCHEMA', schemaJson: JSON.stringify({ type: 'object', required: ['answer'] }) },
      },
    ],
  });

  before(async () => {
    api = await startTestApi('evaluation');
    operator = await api.operator('eva', 'operator');
    const fast = await startFakeRuntime([
      '--model',
      FAST,
      '--ttft-ms',
      String(FAST_TTFT_MS),
      '--tokens-per-second',
      '400',
    ]);
    const slow = await startFakeRuntime([
      '--model',
      SLOW,
      '--ttft-ms',
      String(SLOW_TTFT_MS),
      '--tokens-per-second',
      '400',
    ]);
    runtimes.push(fast, slow);
    const tokenId = randomUUID();
    await sql(
      `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
       VALUES ($1, $2, 'lnxb_evalEVAL', 'test', now(), now() + interval '1 day')`,
      [tokenId, 'ef'.repeat(32)],
    );
    await sql(
      `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                          inventory, lease_renewed_at, lease_expires_at, enroll_workflow_id, bootstrap_token_id,
                          enrolled_at, updated_at)
       VALUES ('node-eval', 'gpu-eval', 'Active', '127.0.0.1', 22, 'SHA256:test', 'key-eval', 'test-public-key',
               '{}'::jsonb, now(), now() + interval '1 hour', 'enroll-node/node-eval', $1, now(), now())`,
      [tokenId],
    );
    await sql(
      `INSERT INTO runtimes (id, name, version, kind, document, created_by, created_at, updated_at)
       VALUES ('runtime-eval', 'fake', '1', 'fake', '{}'::jsonb, 'test', now(), now()) ON CONFLICT (id) DO NOTHING`,
    );
    await addCandidate(FAST, 'Verified', fast.port);
    await addCandidate(SLOW, 'Verified', slow.port);
    await addCandidate(REGISTERED, 'Registered', fast.port);
    await addCandidate(NOT_READY, 'Verified', null);

    // What the fast version says to the exact case: asked once, exactly as the evaluation will ask.
    const response = await fetch(`http://127.0.0.1:${fast.port}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: FAST,
        messages: [{ role: 'user', content: EXACT_PROMPT }],
        max_tokens: 12,
        temperature: 0,
        seed: 0,
      }),
    });
    fastAnswer = ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]
      .message.content;
    expect(fastAnswer.length).to.be.greaterThan(0);
  });

  after(async () => {
    await Promise.all(runtimes.map((runtime) => runtime.stop()));
    await api?.stop();
  });

  it('refuses bad suites and profiles with VALIDATION_FAILED, stores nothing and audits the refusal', async () => {
    const refusalsBefore = Number(
      (
        await sql<{ n: string }[]>(
          `SELECT count(*) AS n FROM audit_events WHERE action IN ('evaluation-suite.create', 'benchmark-profile.create') AND decision = 'denied'`,
        )
      )[0].n,
    );
    const good = suiteInput('bad-suite', 'x');
    const badInputs = [
      { ...good, cases: [{ ...good.cases[0], grader: { kind: 'REGEX', pattern: '(unclosed' } }] },
      {
        ...good,
        cases: [{ ...good.cases[0], grader: { kind: 'JSON_SCHEMA', schemaJson: '{"type":"no-such-type"}' } }],
      },
      { ...good, cases: [{ ...good.cases[0], grader: { kind: 'JSON_SCHEMA', schemaJson: 'not json' } }] },
      { ...good, cases: [{ ...good.cases[0], messages: [{ role: 'user', content: 'both' }] }] },
      { ...good, cases: [{ ...good.cases[0], grader: { kind: 'EXACT', expected: 'x', pattern: 'y' } }] },
      { ...good, passThreshold: 1.5 },
      { ...good, cases: [good.cases[0], good.cases[0]] },
      { ...good, name: 'Not A DNS Label' },
    ];
    for (const input of badInputs) {
      const answer = await api.graphql(CREATE_SUITE, { input }, operator);
      expect(codeOf(answer), JSON.stringify(input)).to.equal(ErrorCode.VALIDATION_FAILED);
      expect(answer.errors?.[0]?.extensions['violations']).to.be.an('array').with.length.greaterThan(0);
    }
    const badProfiles = [
      { name: 'bad-profile', concurrency: 0, inputTokens: 8, outputTokens: 8, durationSeconds: 1 },
      { name: 'bad-profile', concurrency: 257, inputTokens: 8, outputTokens: 8, durationSeconds: 1 },
      { name: 'bad-profile', concurrency: 1, inputTokens: 8, outputTokens: 8 },
      {
        name: 'bad-profile',
        concurrency: 1,
        inputTokens: 8,
        outputTokens: 8,
        requestCount: 5,
        maxErrorRate: 2,
      },
    ];
    for (const input of badProfiles) {
      const answer = await api.graphql(CREATE_PROFILE, { input }, operator);
      expect(codeOf(answer), JSON.stringify(input)).to.equal(ErrorCode.VALIDATION_FAILED);
    }
    expect(await count('evaluation_suites')).to.equal(0);
    expect(await count('benchmark_profiles')).to.equal(0);
    const refusalsAfter = Number(
      (
        await sql<{ n: string }[]>(
          `SELECT count(*) AS n FROM audit_events WHERE action IN ('evaluation-suite.create', 'benchmark-profile.create') AND decision = 'denied'`,
        )
      )[0].n,
    );
    expect(refusalsAfter - refusalsBefore).to.equal(badInputs.length + badProfiles.length);
  });

  it('stores a suite and a profile once; the same definition again returns them, another one under the name is a CONFLICT', async () => {
    const suite = dataOf<{ id: string; digest: string; caseCount: number }>(
      await api.graphql(CREATE_SUITE, { input: suiteInput('smoke', fastAnswer) }, operator),
      'createEvaluationSuite',
    );
    expect(suite.caseCount).to.equal(5);
    expect(suite.digest).to.match(/^sha256:[0-9a-f]{64}$/);
    const again = dataOf<{ id: string }>(
      await api.graphql(CREATE_SUITE, { input: suiteInput('smoke', fastAnswer) }, operator),
      'createEvaluationSuite',
    );
    expect(again.id).to.equal(suite.id);
    const changed = await api.graphql(
      CREATE_SUITE,
      { input: suiteInput('smoke', 'something else') },
      operator,
    );
    expect(codeOf(changed)).to.equal(ErrorCode.CONFLICT);

    const profile = dataOf<{ id: string; concurrency: number }>(
      await api.graphql(
        CREATE_PROFILE,
        {
          input: {
            name: 'short-chat',
            concurrency: 4,
            inputTokens: 32,
            outputTokens: 16,
            durationSeconds: 30,
            requestCount: 40,
            requestTimeoutSeconds: 20,
          },
        },
        operator,
      ),
      'createBenchmarkProfile',
    );
    expect(profile.concurrency).to.equal(4);
    // The database keeps definitions immutable whatever a caller tries.
    let refused = false;
    try {
      await sql(`UPDATE evaluation_suites SET definition = definition WHERE name = 'smoke'`);
    } catch {
      refused = true;
    }
    expect(refused, 'UPDATE of a suite must be refused').to.equal(true);
  });

  it('refuses a start that cannot run — typed, audited, nothing changed', async () => {
    const runsBefore = await count('evaluation_runs');
    const statesBefore = await sql<{ ref: string; state: string }[]>(
      `SELECT ref, state FROM model_versions ORDER BY ref`,
    );
    const deniedBefore = Number(
      (
        await sql<{ n: string }[]>(
          `SELECT count(*) AS n FROM audit_events WHERE action = 'evaluation.start' AND decision = 'denied'`,
        )
      )[0].n,
    );
    const attempts: [Record<string, unknown>, string][] = [
      [{ modelVersion: FAST, deployment: 'evalm-v2', suite: 'smoke' }, ErrorCode.CONFLICT],
      [{ modelVersion: REGISTERED, deployment: 'evalm-v3', suite: 'smoke' }, ErrorCode.INVALID_TRANSITION],
      [{ modelVersion: NOT_READY, deployment: 'evalm-v4', suite: 'smoke' }, ErrorCode.NO_CAPACITY],
      [{ modelVersion: 'evalm@nope', deployment: 'evalm-v1', suite: 'smoke' }, ErrorCode.MODEL_NOT_FOUND],
      [{ modelVersion: FAST, deployment: 'evalm-v1', suite: 'no-such-suite' }, ErrorCode.NOT_FOUND],
      [{ modelVersion: FAST, deployment: 'evalm-v1', suite: 'smoke', profile: 'nope' }, ErrorCode.NOT_FOUND],
    ];
    for (const [input, code] of attempts) {
      const answer = await api.graphql(START, { input }, operator);
      expect(codeOf(answer), JSON.stringify(input)).to.equal(code);
    }
    expect(await count('evaluation_runs')).to.equal(runsBefore);
    expect(await sql(`SELECT ref, state FROM model_versions ORDER BY ref`)).to.deep.equal(statesBefore);
    const denied = await sql<{ evidence: { errorCode: string } }[]>(
      `SELECT evidence FROM audit_events WHERE action = 'evaluation.start' AND decision = 'denied' ORDER BY seq`,
    );
    expect(denied.length - deniedBefore).to.equal(attempts.length);
    expect(denied.slice(deniedBefore).map((e) => e.evidence.errorCode)).to.deep.equal(
      attempts.map(([, code]) => code),
    );
  });

  let fastRunId = '';
  let slowRunId = '';

  it('a passing run: exact pass rate, metrics measured, version Evaluated with its summary, receipt written', async () => {
    const operation = dataOf<{ runId: string; workflowId: string; temporalUiUrl: string }>(
      await api.graphql(
        START,
        {
          input: {
            modelVersion: FAST,
            deployment: 'evalm-v1',
            suite: 'smoke',
            profile: 'short-chat',
            idempotencyKey: 'fast-1',
          },
        },
        operator,
      ),
      'startEvaluation',
    );
    fastRunId = operation.runId;
    expect(operation.workflowId).to.equal(`evaluate/${operation.runId}`);
    expect(operation.temporalUiUrl).to.contain(encodeURIComponent(operation.workflowId).slice(0, 8));
    const run = await finished(operation.runId);
    expect(run.state, run.reasons.join('; ')).to.equal('Passed');
    expect(run.passed).to.equal(true);
    const outcome = Object.fromEntries(run.scores!.cases.map((c) => [c.caseId, c.passed]));
    expect(outcome).to.deep.equal({
      'exact-known': true,
      'sentence-ends': true,
      capitalised: true,
      'exact-wrong': false,
      'json-object': false,
    });
    expect(run.scores!.passRate).to.equal(0.6);
    expect(run.scores!.cases.every((c) => c.errorCode === null)).to.equal(true);
    const metrics = run.metrics!;
    expect(metrics.requests).to.equal(40);
    expect(metrics.errors).to.equal(0);
    expect(metrics.errorRate).to.equal(0);
    expect(metrics.concurrency).to.equal(4);
    expect(metrics.ttftMs!.p50).to.be.at.least(FAST_TTFT_MS);
    expect(metrics.ttftMs!.p95).to.be.at.least(metrics.ttftMs!.p50);
    expect(metrics.ttftMs!.p99).to.be.at.least(metrics.ttftMs!.p95);
    expect(metrics.latencyMs!.p50).to.be.at.least(metrics.ttftMs!.p50);
    expect(metrics.completionTokens).to.be.greaterThan(40);
    expect(metrics.tokensPerSecond).to.be.greaterThan(0);
    // Four clients cannot beat four streams at the runtime's configured 400 tokens/s each.
    expect(metrics.tokensPerSecond).to.be.at.most(4 * 400 * 1.1);

    const version = await versionRow(FAST);
    expect(version.state).to.equal('Evaluated');
    const evaluation = version.evaluation as {
      runId: string;
      suite: string;
      passed: boolean;
      scores: Record<string, number>;
    };
    expect(evaluation.runId).to.equal(run.id);
    expect(evaluation.suite).to.equal('smoke');
    expect(evaluation.passed).to.equal(true);
    expect(evaluation.scores['passRate']).to.equal(0.6);
    expect(evaluation.scores['ttftP50Ms']).to.be.at.least(FAST_TTFT_MS);
    expect(evaluation.scores).to.have.all.keys(
      'passRate',
      'ttftP50Ms',
      'ttftP95Ms',
      'ttftP99Ms',
      'tokensPerSecond',
      'errorRate',
      'benchmarkRequests',
    );
    const receipts = await sql<{ action: string; evidence: { state: string; passRate: number } }[]>(
      `SELECT action, evidence FROM audit_events WHERE workflow_id = $1 ORDER BY seq`,
      [operation.workflowId],
    );
    expect(receipts.map((r) => r.action)).to.deep.equal(['evaluation.start', 'evaluation.complete']);
    expect(receipts[1].evidence.state).to.equal('Passed');
    expect(receipts[1].evidence.passRate).to.equal(0.6);
    if (process.env['LUNANEXA_RECORD_HISTORIES'] === '1') {
      // Refreshes the committed history that workflows/test/replay.spec.ts replays on every run.
      const history = await api.fixture.env.client.workflow.getHandle(operation.workflowId).fetchHistory();
      const file = join(
        __dirname,
        '..',
        '..',
        '..',
        '..',
        'workflows',
        'test',
        'histories',
        'evaluate.passed.binpb',
      );
      writeFileSync(file, temporal.api.history.v1.History.encode(history).finish());
    }

    // The same key again joins the same run; nothing new is recorded.
    const repeat = dataOf<{ runId: string; run: { state: string } }>(
      await api.graphql(
        START,
        {
          input: {
            modelVersion: FAST,
            deployment: 'evalm-v1',
            suite: 'smoke',
            profile: 'short-chat',
            idempotencyKey: 'fast-1',
          },
        },
        operator,
      ),
      'startEvaluation',
    );
    expect(repeat.runId).to.equal(operation.runId);
    expect(repeat.run.state).to.equal('Passed');
    expect(await count('evaluation_runs')).to.equal(1);
    const reused = await api.graphql(
      START,
      { input: { modelVersion: FAST, deployment: 'evalm-v1', suite: 'smoke', idempotencyKey: 'fast-1' } },
      operator,
    );
    expect(codeOf(reused)).to.equal(ErrorCode.IDEMPOTENCY_KEY_REUSED);
    // A finished run is history: the database refuses to change it.
    let refused = false;
    try {
      await sql(`UPDATE evaluation_runs SET reasons = '["rewritten"]'::jsonb WHERE id = $1`, [run.id]);
    } catch {
      refused = true;
    }
    expect(refused).to.equal(true);
  });

  it('a step retried after its completion was lost (a worker killed mid-run) records nothing twice', async () => {
    const [row] = await sql<
      {
        workflow_id: string;
        model_version_id: string;
        deployment_id: string;
        suite_id: string;
        profile_id: string;
      }[]
    >(
      `SELECT workflow_id, model_version_id, deployment_id, suite_id, profile_id FROM evaluation_runs WHERE id = $1`,
      [fastRunId],
    );
    const workflowId = row.workflow_id;
    const [complete] = await sql<{ hash: string }[]>(
      `SELECT hash FROM audit_events WHERE workflow_id = $1 AND action = 'evaluation.complete'`,
      [workflowId],
    );
    const eventsBefore = await count('audit_events');
    const versionBefore = await versionRow(FAST);
    const runBefore = await sql(`SELECT * FROM evaluation_runs WHERE id = $1`, [fastRunId]);
    const activities = createEvaluationActivities({ db: api.fixture.ds, clock: systemClock });
    // The same workflow's activities, run again in an activity context as Temporal would on a retry.
    const env = new MockActivityEnvironment({ workflowExecution: { workflowId, runId: 'retry' } });
    const step = { runId: fastRunId, actor: 'operator:eva', correlationId: 'corr-retry' };
    const begun: Awaited<ReturnType<typeof activities.beginEvaluation>> = await env.run(
      (input: EvaluateWorkflowInput) => activities.beginEvaluation(input),
      {
        ...step,
        requestId: 'req-retry',
        modelVersionId: row.model_version_id,
        deploymentId: row.deployment_id,
        suiteId: row.suite_id,
        profileId: row.profile_id,
      },
    );
    expect(begun.refused).to.equal(false);
    // Different figures on the retry must not rewrite what the first attempt recorded.
    const worse: EvaluationScores = {
      passRate: 0,
      passedCases: 0,
      totalCases: 5,
      passThreshold: 0.6,
      cases: [],
    };
    const again: Awaited<ReturnType<typeof activities.completeEvaluation>> = await env.run(
      (input: Parameters<typeof activities.completeEvaluation>[0]) => activities.completeEvaluation(input),
      { ...step, scores: worse, metrics: null },
    );
    expect(again.state).to.equal('Passed');
    expect(again.hash).to.equal(complete.hash);
    expect(await count('audit_events')).to.equal(eventsBefore);
    expect(await versionRow(FAST)).to.deep.equal(versionBefore);
    expect(await sql(`SELECT * FROM evaluation_runs WHERE id = $1`, [fastRunId])).to.deep.equal(runBefore);
  });

  it('a failing run: pass rate below threshold moves the version to EvaluationFailed', async () => {
    const operation = dataOf<{ runId: string }>(
      await api.graphql(
        START,
        {
          input: {
            modelVersion: SLOW,
            deployment: 'evalm-v2',
            suite: 'smoke',
            profile: 'short-chat',
            idempotencyKey: 'slow-1',
          },
        },
        operator,
      ),
      'startEvaluation',
    );
    slowRunId = operation.runId;
    const run = await finished(operation.runId);
    expect(run.state).to.equal('Failed');
    expect(run.passed).to.equal(false);
    // Another model name, another deterministic answer: the exact case learned from v1 fails here.
    expect(run.scores!.cases.find((c) => c.caseId === 'exact-known')!.passed).to.equal(false);
    expect(run.scores!.passRate).to.equal(0.4);
    expect(run.reasons.join(' ')).to.contain('pass rate 0.400 < threshold 0.600');
    expect(run.metrics!.ttftMs!.p50).to.be.at.least(SLOW_TTFT_MS);
    const version = await versionRow(SLOW);
    expect(version.state).to.equal('EvaluationFailed');
    expect((version.evaluation as { passed: boolean }).passed).to.equal(false);

    const runs = dataOf<{ id: string }[]>(
      await api.graphql(RUNS, { v: SLOW, p: 'short-chat' }, operator),
      'evaluationRuns',
    );
    expect(runs.map((r) => r.id)).to.deep.equal([slowRunId]);
    const all = dataOf<{ id: string }[]>(
      await api.graphql(RUNS, { p: 'short-chat' }, operator),
      'evaluationRuns',
    );
    expect(all.map((r) => r.id).sort()).to.deep.equal([fastRunId, slowRunId].sort());
  });

  it('compares the versions on the profile and flags the slower one against the baseline', async () => {
    const comparison = dataOf<{
      baseline: string;
      regressed: boolean;
      entries: {
        modelRef: string;
        baseline: boolean;
        regressed: boolean;
        ttftP95Ms: number;
        regressions: { metric: string }[];
        run: { id: string };
      }[];
    }>(await api.graphql(COMPARE, { p: 'short-chat', v: [FAST, SLOW] }, operator), 'benchmarkComparison');
    expect(comparison.baseline).to.equal(FAST);
    expect(comparison.regressed).to.equal(true);
    const [fast, slow] = comparison.entries;
    expect(fast.baseline).to.equal(true);
    expect(fast.regressed).to.equal(false);
    expect(fast.run.id).to.equal(fastRunId);
    expect(slow.run.id).to.equal(slowRunId);
    // Closed loop: a 150 ms first token on 16-token answers also cuts aggregate throughput far below −20 %.
    expect(slow.regressions.map((r) => r.metric).sort()).to.deep.equal([
      'passRate',
      'tokensPerSecond',
      'ttftP95',
    ]);
    expect(slow.ttftP95Ms).to.be.greaterThan(fast.ttftP95Ms);

    // With the slow version as the baseline, the fast one is better on both: no regression.
    const reversed = dataOf<{ regressed: boolean }>(
      await api.graphql(COMPARE, { p: 'short-chat', v: [FAST, SLOW], b: SLOW }, operator),
      'benchmarkComparison',
    );
    expect(reversed.regressed).to.equal(false);

    const unknown = await api.graphql(COMPARE, { p: 'short-chat', v: [FAST, 'evalm@nope'] }, operator);
    expect(codeOf(unknown)).to.equal(ErrorCode.MODEL_NOT_FOUND);
  });

  it('a viewer reads runs but cannot start one', async () => {
    const viewer = await api.operator('vic', 'viewer');
    const answer = await api.graphql(
      START,
      { input: { modelVersion: FAST, deployment: 'evalm-v1', suite: 'smoke' } },
      viewer,
    );
    expect(codeOf(answer)).to.equal(ErrorCode.FORBIDDEN);
    const runs = dataOf<unknown[]>(await api.graphql(RUNS, {}, viewer), 'evaluationRuns');
    expect(runs).to.have.length(2);
  });
});
