// The demo a fresh `npm start` leaves ready to call: a model on the fake
// runtime taken through the same path an operator's model takes (registered,
// evaluated on a smoke suite and a benchmark profile against a candidate
// deployment, approved, rolled out behind an alias), and a `demo` tenant whose
// key the launcher writes to <dataDir>/controller/demo.key. Every step is an
// API call, so each leaves its normal receipt; each is skipped when already
// done, so a restart (or a start interrupted half-way) picks up where it was.
// LUNANEXA_DEMO=0 turns it off.

import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { delay } from './supervisor.mjs';

export const DEMO_ALIAS = 'demo-chat';
export const DEMO_TENANT = 'demo';
const MODEL = 'demo-model';
const VERSION = '1';
const REF = `${MODEL}@${VERSION}`;
const CANDIDATE = 'demo-model-1-candidate';
const SUITE = {
  name: 'demo-smoke',
  description: 'Built-in smoke suite of the launcher demo: any non-empty answer passes.',
  passThreshold: 1,
  cases: [{ id: 'greeting', prompt: 'Say hello.', maxTokens: 8, grader: { kind: 'REGEX', pattern: '\\S' } }],
};
const PROFILE = {
  name: 'demo-short-chat',
  description: 'Built-in benchmark profile of the launcher demo: a few short chats.',
  concurrency: 1,
  inputTokens: 16,
  outputTokens: 16,
  requestCount: 4,
};

export function demoEnabled(env = process.env) {
  return env.LUNANEXA_DEMO !== '0';
}

export function demoKeyFile(dataDir) {
  return path.join(dataDir, 'controller', 'demo.key');
}

async function waitUntil(description, probe, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (answer) return answer;
    if (Date.now() > deadline) throw new Error(`demo: timed out waiting for ${description}`);
    await delay(500);
  }
}

/**
 * Makes the demo ready and answers what to print. `graphql(query, variables)`
 * runs as the launcher's admin (key issuance is credential administration).
 */
export async function ensureDemo({ graphql, gatewayUrl, dataDir, log }) {
  const keyFile = demoKeyFile(dataDir);
  const alias = async () =>
    (
      await graphql(
        'query($a: String!) { alias(alias: $a) { currentRevision activeRollout { id state } } }',
        { a: DEMO_ALIAS },
      )
    ).alias;
  const current = await alias();
  if (current?.currentRevision > 0 && existsSync(keyFile)) {
    // Ready from an earlier start: the alias's replicas come back with their nodes.
    await waitUntilRouted(gatewayUrl, keyFile);
    return { alias: DEMO_ALIAS, keyFile, gatewayUrl };
  }

  log(
    `preparing the demo: ${REF} on the fake runtime, evaluated, approved and rolled out behind ${DEMO_ALIAS}…`,
  );
  const started = Date.now();
  const versionState = async () =>
    (await graphql('query($r: String!) { modelVersion(ref: $r) { state } }', { r: REF })).modelVersion?.state;
  if (!(await versionState())) {
    await graphql(
      'mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }',
      {
        input: { model: MODEL, version: VERSION, ttftMs: 20, tokensPerSecond: 200 },
      },
    );
  }
  // Suites and profiles are immutable: the same definition again answers the stored one.
  await graphql(
    'mutation($input: CreateEvaluationSuiteInput!) { createEvaluationSuite(input: $input) { id } }',
    {
      input: SUITE,
    },
  );
  await graphql(
    'mutation($input: CreateBenchmarkProfileInput!) { createBenchmarkProfile(input: $input) { id } }',
    {
      input: PROFILE,
    },
  );
  if ((await versionState()) === 'Verified') await evaluate(graphql);
  if ((await versionState()) === 'Evaluated') {
    await graphql(
      'mutation($r: String!) { approveModelVersion(ref: $r, note: "launcher demo: passed the built-in smoke suite") { state } }',
      {
        r: REF,
      },
    );
  }
  await stopCandidate(graphql);

  if (!current) {
    await graphql('mutation($input: CreateAliasInput!) { createAlias(input: $input) { id } }', {
      input: {
        name: DEMO_ALIAS,
        dataClass: 'internal',
        description: 'The launcher demo: a fake model to try the gateway with.',
      },
    });
  }
  if (!((await alias()).currentRevision > 0)) {
    const rollout = await graphql(
      'mutation($input: StartRolloutInput!) { startRollout(input: $input) { rollout { id } } }',
      {
        // A first rollout has no stable version to compare with: one step, no bake.
        input: {
          alias: DEMO_ALIAS,
          modelVersion: REF,
          steps: [100],
          replicas: 1,
          idempotencyKey: 'launcher-demo-rollout',
        },
      },
    );
    await waitUntil(
      `the rollout of ${REF} behind ${DEMO_ALIAS} to promote`,
      async () => {
        const { state } = (
          await graphql('query($id: ID!) { rollout(id: $id) { state } }', {
            id: rollout.startRollout.rollout.id,
          })
        ).rollout;
        if (['RolledBack', 'Aborted', 'Refused', 'Failed'].includes(state)) {
          throw new Error(`demo: the rollout of ${REF} ended ${state}; see it in the console under Aliases`);
        }
        return state === 'Promoted';
      },
      300_000,
    );
  }

  const tenant = (await graphql('query($id: String!) { tenant(id: $id) { id } }', { id: DEMO_TENANT }))
    .tenant;
  if (!tenant) {
    await graphql('mutation($input: CreateTenantInput!) { createTenant(input: $input) { id } }', {
      input: { id: DEMO_TENANT, displayName: 'Demo (created by npm start)' },
    });
  }
  if (!existsSync(keyFile)) {
    const { createGatewayKey } = await graphql(
      'mutation($input: CreateGatewayKeyInput!) { createGatewayKey(input: $input) { secret } }',
      {
        input: {
          tenantId: DEMO_TENANT,
          name: `demo key written by npm start ${new Date().toISOString()}`,
          aliases: [DEMO_ALIAS],
        },
      },
    );
    mkdirSync(path.dirname(keyFile), { recursive: true });
    writeFileSync(keyFile, `${createGatewayKey.secret}\n`, { mode: 0o600 });
    chmodSync(keyFile, 0o600);
  }
  await waitUntilRouted(gatewayUrl, keyFile);
  log(`demo ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { alias: DEMO_ALIAS, keyFile, gatewayUrl };
}

/** The gateway learns keys and alias revisions from PostgreSQL notifications and replicas from their nodes. */
async function waitUntilRouted(gatewayUrl, keyFile) {
  const key = readFileSync(keyFile, 'utf8').trim();
  await waitUntil(
    `the gateway to route ${DEMO_ALIAS} for the demo key`,
    async () => {
      const response = await fetch(`${gatewayUrl}/v1/models`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (response.status !== 200) return false;
      return (await response.json()).data.some((m) => m.id === DEMO_ALIAS);
    },
    90_000,
  );
}

async function deploymentState(graphql) {
  return (await graphql('query($d: String!) { deployment(deployment: $d) { state } }', { d: CANDIDATE }))
    .deployment?.state;
}

/** A candidate deployment, the Evaluate workflow against it with the smoke suite and the profile. */
async function evaluate(graphql) {
  if (!(await deploymentState(graphql))) {
    await graphql(
      'mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }',
      {
        input: { name: CANDIDATE, model: REF, replicas: 1, purpose: 'Candidate' },
      },
    );
  }
  await waitUntil(
    `${CANDIDATE} Ready`,
    async () => {
      const state = await deploymentState(graphql);
      if (state === 'Failed')
        throw new Error(`demo: the candidate deployment ${CANDIDATE} failed; see .data/logs/agent-*.log`);
      return state === 'Ready';
    },
    180_000,
  );
  const { startEvaluation } = await graphql(
    'mutation($input: StartEvaluationInput!) { startEvaluation(input: $input) { runId } }',
    {
      input: {
        modelVersion: REF,
        deployment: CANDIDATE,
        suite: SUITE.name,
        profile: PROFILE.name,
        idempotencyKey: 'launcher-demo-evaluation',
      },
    },
  );
  const state = await waitUntil(
    `the evaluation of ${REF}`,
    async () => {
      const run = (
        await graphql('query($id: ID!) { evaluationRun(id: $id) { state } }', { id: startEvaluation.runId })
      ).evaluationRun;
      return run && run.state !== 'Running' ? run.state : null;
    },
    180_000,
  );
  if (state !== 'Passed')
    throw new Error(`demo: the evaluation of ${REF} ended ${state}; see it in the console under Models`);
}

/** The candidate served its purpose: its capacity goes back to the node. */
async function stopCandidate(graphql) {
  const state = await deploymentState(graphql);
  if (state && state !== 'Stopped' && state !== 'Stopping') {
    await graphql('mutation($d: String!) { stopDeployment(deployment: $d) { workflowId } }', {
      d: CANDIDATE,
    });
  }
}

/** The two ways to call the demo, as printed on the launcher's terminal. */
export function demoSnippets({ alias, keyFile, gatewayUrl }) {
  return `Try it (tenant ${DEMO_TENANT}, key in ${keyFile}):
  curl -N ${gatewayUrl}/v1/chat/completions \\
    -H "authorization: Bearer $(cat ${keyFile})" -H 'content-type: application/json' \\
    -d '{"model":"${alias}","stream":true,"messages":[{"role":"user","content":"Hello!"}]}'

  // npm install openai; node --input-type=module
  import OpenAI from 'openai';
  import { readFileSync } from 'node:fs';
  const client = new OpenAI({ baseURL: '${gatewayUrl}/v1', apiKey: readFileSync('${keyFile}', 'utf8').trim() });
  const stream = await client.chat.completions.create({ model: '${alias}', stream: true, messages: [{ role: 'user', content: 'Hello!' }] });
  for await (const chunk of stream) process.stdout.write(chunk.choices[0]?.delta?.content ?? '');`;
}
