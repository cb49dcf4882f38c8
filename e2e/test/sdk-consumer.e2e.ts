import { expect } from 'chai';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FleetHarness, waitUntil } from '../src';

/**
 * The example consumer (examples/chat-consumer, @lunanexa/sdk only) against
 * the real stack, run as an application outside this repository would: the
 * SDK packed with `npm pack`, installed from the tarball into a project in a
 * temporary directory, and the example run from there: api, worker, gateway and an agent running the fake runtime,
 * on Temporal and PostgreSQL. Its JSON lines show discovery, a plain and a
 * streamed completion with usage, a typed refusal, and a cancelled stream; the
 * runtime's own counters show the cancellation reached it.
 */

const ALIAS = 'sdk-assistant';
const CONTEXT_LENGTH = 8192;
const REPO = path.resolve(__dirname, '..', '..', '..');
const EXAMPLE = path.join(REPO, 'examples', 'chat-consumer', 'dist', 'src', 'main.js');
const SDK_DIR = path.join(REPO, 'libs', 'sdk');

/** A project outside the workspace with the packed SDK installed from its tarball; returns the example's path there. */
function installPackedSdk(project: string): string {
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--pack-destination', project, '--json'], {
      cwd: SDK_DIR,
      encoding: 'utf8',
    }),
  ) as { filename: string; version: string }[];
  writeFileSync(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'sdk-application', version: '1.0.0', private: true }),
  );
  // The SDK has no dependencies, so the tarball installs without a registry.
  execFileSync(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', `./${packed.filename}`],
    { cwd: project, stdio: 'pipe' },
  );
  const example = path.join(project, 'main.js');
  copyFileSync(EXAMPLE, example);
  return example;
}

type Step = Record<string, unknown> & { step: string };

function sumMetric(text: string, name: string, labelFilter: string): number {
  let total = 0;
  for (const match of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} ([0-9.e+-]+)$`, 'gm'))) {
    if (match[1].includes(labelFilter)) total += Number(match[2]);
  }
  return total;
}

describe('@lunanexa/sdk: the example consumer on the real stack', function () {
  this.timeout(600_000);
  let h: FleetHarness;
  let tenantKey = '';
  let runtimeMetricsUrl = '';
  let project = '';
  let example = '';

  before(async () => {
    project = mkdtempSync(path.join(tmpdir(), 'lunanexa-sdk-application-'));
    example = installPackedSdk(project);
    h = await FleetHarness.start('sdk-consumer', { leaseSeconds: 60 });
    await h.startReadyAgent('node-a');
    // 50 tokens/s: the 500-token stream the consumer cancels would run 10 s.
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: ALIAS, version: '1', ttftMs: 20, tokensPerSecond: 50 } },
    );
    // Evaluation and approval are the registry's business (deploy-refusals.e2e.ts); here the version only
    // needs to be servable behind an alias.
    await h.sql(
      `UPDATE model_versions SET state = 'Approved', context_length = ${CONTEXT_LENGTH},
              evaluation = jsonb_build_object('runId', 'seeded', 'suite', 'smoke', 'passed', true,
                'scores', jsonb_build_object('passRate', 1), 'evaluatedAt', to_char(now(), 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
        WHERE ref = $1`,
      [`${ALIAS}@1`],
    );
    await h.graphql(`mutation { createAlias(input: { name: "${ALIAS}", dataClass: "internal" }) { id } }`);
    const started = await h.graphql<{ startRollout: { rollout: { id: string } } }>(
      `mutation($input: StartRolloutInput!) { startRollout(input: $input) { rollout { id } } }`,
      { input: { alias: ALIAS, modelVersion: `${ALIAS}@1` } },
    );
    await waitUntil(
      'the rollout to promote',
      async () => {
        const data = await h.graphql<{ rollout: { state: string } }>(
          `query($id: ID!) { rollout(id: $id) { state } }`,
          { id: started.startRollout.rollout.id },
        );
        if (['RolledBack', 'Aborted', 'Refused', 'Failed'].includes(data.rollout.state))
          throw new Error(`rollout ended ${data.rollout.state}`);
        return data.rollout.state === 'Promoted';
      },
      180_000,
      500,
    );
    const [replica] = await h.sql<{ endpoint_port: number }>(
      `SELECT a.endpoint_port FROM assignments a JOIN aliases al ON true
         JOIN alias_revisions r ON r.alias_id = al.id AND r.revision = al.current_revision
        WHERE al.name = $1 AND a.deployment_id = r.deployment_id AND a.intent = 'Run'`,
      [ALIAS],
    );
    runtimeMetricsUrl = `http://127.0.0.1:${replica.endpoint_port}/metrics`;
    await h.graphql(`mutation { createTenant(input: { id: "sdk-tenant" }) { id } }`);
    const key = await h.graphql<{ createGatewayKey: { secret: string } }>(
      `mutation($input: CreateGatewayKeyInput!) { createGatewayKey(input: $input) { secret } }`,
      { input: { tenantId: 'sdk-tenant', name: 'sdk-example', aliases: [ALIAS] } },
    );
    tenantKey = key.createGatewayKey.secret;
    await waitUntil('the gateway to route the alias for the key', async () => {
      const response = await fetch(`${h.gatewayUrl}/v1/models`, {
        headers: { authorization: `Bearer ${tenantKey}` },
      });
      if (response.status !== 200) return false;
      return ((await response.json()) as { data: { id: string }[] }).data.some((m) => m.id === ALIAS);
    });
  });

  after(async () => {
    await h?.stop();
    if (project !== '') rmSync(project, { recursive: true, force: true });
  });

  it('installs from the packed tarball, outside the workspace', () => {
    expect(project.startsWith(REPO + path.sep)).to.equal(false);
    const resolved = execFileSync(process.execPath, ['-p', "require.resolve('@lunanexa/sdk')"], {
      cwd: project,
      encoding: 'utf8',
    }).trim();
    expect(resolved).to.equal(
      path.join(project, 'node_modules', '@lunanexa', 'sdk', 'dist', 'src', 'index.js'),
    );
  });

  it('discovers, completes plainly and streamed with usage, gets a typed refusal, and cancels at the runtime', async () => {
    const runtimeBefore = await (await fetch(runtimeMetricsUrl)).text();
    const steps = new Map<string, Step>();
    let runningWhileCancelling = -1;
    const child = spawn(process.execPath, [example], {
      cwd: project,
      env: {
        PATH: process.env.PATH,
        LUNANEXA_GATEWAY_URL: h.gatewayUrl,
        LUNANEXA_API_KEY: tenantKey,
        LUNANEXA_API_URL: h.apiUrl,
        LUNANEXA_OPERATOR_TOKEN: h.operatorToken,
        LUNANEXA_CANCEL_AFTER_MS: '1500',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    let pending = '';
    const sawRunning: Promise<void>[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      let newline: number;
      while ((newline = pending.indexOf('\n')) >= 0) {
        const step = JSON.parse(pending.slice(0, newline)) as Step;
        pending = pending.slice(newline + 1);
        steps.set(step.step, step);
        // While the consumer holds the stream open before aborting, the runtime is generating it.
        if (step.step === 'cancelling') {
          sawRunning.push(
            fetch(runtimeMetricsUrl)
              .then((r) => r.text())
              .then((text) => {
                runningWhileCancelling = Number(
                  /^vllm:num_requests_running(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1],
                );
              }),
          );
        }
      }
    });
    const exitCode = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    await Promise.all(sawRunning);
    expect(exitCode, stderr).to.equal(0);
    expect([...steps.keys()]).to.deep.equal([
      'models',
      'discovery',
      'plain',
      'streamed',
      'health',
      'refused',
      'cancelling',
      'cancelled',
      'done',
    ]);

    const models = steps.get('models')! as Step & {
      ids: string[];
      models: Record<string, unknown>[];
      sdk: object;
    };
    expect(models.ids).to.deep.equal([ALIAS]);
    expect(models.sdk).to.deep.equal({ version: '0.2.0', contract: 'v1' });
    expect(models.models[0]).to.deep.include({
      id: ALIAS,
      contextLength: CONTEXT_LENGTH,
      streaming: true,
      capabilities: ['chat.completions', 'completions'],
    });
    expect(models.models[0].dataClasses).to.include('internal');
    expect(models.models[0].health).to.include({ state: 'ready', readyReplicas: 1, windowSeconds: 60 });
    // After a plain and a streamed call, both count in the live health, neither as an error.
    const health = (steps.get('health')! as Step & { health: Record<string, number> }).health;
    expect(health.recentRequests).to.be.at.least(2);
    expect(health).to.include({ recentErrorRate: 0, readyReplicas: 1 });
    const discovery = steps.get('discovery')! as Step & {
      aliases: { name: string; modelRef: string }[];
      deployments: { state: string; readyReplicas: number }[];
    };
    expect(discovery.aliases).to.deep.include({ name: ALIAS, modelRef: `${ALIAS}@1` });
    expect(discovery.deployments.some((d) => d.readyReplicas >= 1)).to.equal(true);

    const plain = steps.get('plain')!;
    expect(plain.model).to.equal(`${ALIAS}@1`);
    expect(plain.content).to.be.a('string').and.not.equal('');
    expect(plain.usage).to.include({ completion_tokens: 8 });
    expect(plain.requestId).to.be.a('string').and.not.equal('');
    expect(plain.correlationId).to.be.a('string').and.not.equal('');
    const streamed = steps.get('streamed')!;
    expect(streamed.content).to.equal(plain.content, 'the fake runtime is deterministic');
    expect(streamed.usage).to.include({ completion_tokens: 8 });

    const refused = steps.get('refused')!;
    expect(refused).to.include({ code: 'UNAUTHENTICATED', status: 401 });
    expect(refused.requestId).to.be.a('string').and.not.equal('');

    const cancelled = steps.get('cancelled')!;
    expect(cancelled).to.include({ code: 'ABORTED', received: 1 });
    expect(runningWhileCancelling).to.equal(1, 'the runtime was generating the stream before the abort');
    // The runtime itself counted the request as cancelled, and the gateway recorded it so.
    await waitUntil(
      'the runtime to count the cancelled request',
      async () => {
        const text = await (await fetch(runtimeMetricsUrl)).text();
        const running = Number(/^vllm:num_requests_running(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1]);
        const cancelledNow = sumMetric(text, 'lunanexa_fake_runtime_requests_total', 'outcome="cancelled"');
        const cancelledBefore = sumMetric(
          runtimeBefore,
          'lunanexa_fake_runtime_requests_total',
          'outcome="cancelled"',
        );
        return running === 0 && cancelledNow === cancelledBefore + 1;
      },
      // The runtime notices the closed connection on its next write; on a loaded 2-core machine that took over 5 s.
      30_000,
      50,
    );
    await waitUntil('the cancelled request to be recorded', async () => {
      const [record] = await h.sql<{ outcome: string }>(
        `SELECT outcome FROM request_records WHERE request_id = $1`,
        [cancelled.requestId],
      );
      return record?.outcome === 'Cancelled';
    });
  });
});
