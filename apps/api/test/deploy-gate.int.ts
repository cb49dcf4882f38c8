import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { findRepoRoot } from '@lunanexa/observability';
import { transitionModelVersion } from '@lunanexa/persistence';
import { dataOf, startTestApi, type GraphQLBody, type TestApi } from './api-test-support';

/**
 * One deploy gate (issue 11, point 4) on real PostgreSQL and Temporal: every
 * version that must not serve is refused by `createDeployment` (purpose
 * Serving, the default) and by `startRollout` with the same code; neither
 * path writes a deployment or an assignment, and each refusal is audited
 * once (`deployment.create` denied by the API, `rollout.refuse` by the
 * rollout workflow). Candidates pass the same gate minus evaluation and
 * approval.
 *
 * Versions are registered through GraphQL and approved through GraphQL where
 * the lifecycle allows it; verification and evaluation outcomes are written
 * the way their workflows leave them (the transition, the recorded
 * verification or evaluation), since this file runs no artifact store and no
 * runtime — deploy-refusals.e2e.ts runs those for real. The one node is
 * Active with a GB10's inventory and an expired lease: the gate sees a fleet
 * that fits, the scheduler places nothing, so no agent is needed.
 */

const GiB = 1024 ** 3;
const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const ALIAS = 'gate-chat';
const RESTRICTED_ALIAS = 'gate-restricted';
const MODEL = 'gate';

const INVENTORY = JSON.parse(
  readFileSync(join(findRepoRoot(), 'libs/contracts/fixtures/v1/node-inventory.gb10-unified.json'), 'utf8'),
) as unknown;

const CREATE_DEPLOYMENT = `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) {
  deploymentId deployment { id purpose modelRef } } }`;
const START_ROLLOUT = `mutation($input: StartRolloutInput!) { startRollout(input: $input) { rollout { id state } } }`;

const runtimeInput = (name: string) => ({
  name,
  version: '1.0.0',
  kind: 'openai-compatible',
  packaging: { type: 'binary', digest: digestOf(`${name}-binary`) },
  launch: {
    executable: 'vllm',
    args: ['serve', '{{modelPath}}', '--served-model-name', '{{servedModelName}}', '--port', '{{port}}'],
    envAllowlist: [],
    containerPort: null,
  },
  health: { path: '/health', startupTimeoutMs: 60_000, intervalMs: 1_000 },
  supportedHardware: {
    architectures: ['arm64', 'amd64'],
    memoryModels: ['unified', 'discrete'],
    minComputeCapability: '8.0',
    gpusPerReplica: 1,
  },
});

interface VersionSpec {
  readonly license?: string;
  readonly runtime?: string;
  readonly memoryBytes?: number;
}

describe('one deploy gate: createDeployment and startRollout refuse the same versions with the same codes', function () {
  this.timeout(300_000);
  let api: TestApi;
  let operator = '';

  const sql = <T>(text: string, params: unknown[] = []): Promise<T> => api.fixture.ds.query<T>(text, params);
  const codeOf = (answer: GraphQLBody) => answer.errors?.[0]?.extensions.code;
  const count = async (query: string, params: unknown[] = []): Promise<number> =>
    Number((await sql<{ n: string }[]>(query, params))[0]?.n);

  /** Registers `gate@<label>` and records a passed digest verification, as the Verify workflow leaves it. */
  async function registerVerified(label: string, spec: VersionSpec = {}): Promise<string> {
    const ref = `${MODEL}@${label}`;
    dataOf(
      await api.graphql(
        `mutation($input: CreateModelVersionInput!) { createModelVersion(input: $input) { ref } }`,
        {
          input: {
            model: MODEL,
            version: label,
            artifact: {
              uri: `s3://models/${MODEL}/${label}/model.safetensors`,
              digest: digestOf(`weights of ${ref}`),
              sizeBytes: 4096,
              format: 'safetensors',
              source: `hf://example/${ref}`,
            },
            license: spec.license ?? 'apache-2-0',
            runtime: spec.runtime ?? 'runtime-vllm-1.0.0',
            requirements: {
              architectures: ['arm64', 'amd64'],
              memoryModels: ['unified', 'discrete'],
              minComputeCapability: '8.0',
              gpusPerReplica: 1,
              minMemoryBytesPerReplica: spec.memoryBytes ?? 8 * GiB,
            },
          },
        },
        operator,
      ),
      'createModelVersion',
    );
    await recordVerification(ref, { ok: true, digest: digestOf(`weights of ${ref}`) });
    await transitionModelVersion(api.fixture.ds, ref, 'verificationPassed', { at: new Date() });
    return ref;
  }

  async function recordVerification(
    ref: string,
    outcome: { ok: boolean; digest: string; code?: string; message?: string },
  ): Promise<void> {
    await sql(`UPDATE model_versions SET verification = $2::jsonb WHERE ref = $1`, [
      ref,
      JSON.stringify({ ...outcome, sizeBytes: 4096, store: 's3', verifiedAt: new Date().toISOString() }),
    ]);
  }

  /** The Evaluate workflow's outcome: the version's transitions and its recorded evaluation summary. */
  async function evaluate(ref: string, suite: string, passed: boolean): Promise<void> {
    const at = new Date();
    await transitionModelVersion(api.fixture.ds, ref, 'startEvaluation', { at });
    await transitionModelVersion(api.fixture.ds, ref, passed ? 'evaluationPassed' : 'evaluationFailed', {
      at,
    });
    await sql(`UPDATE model_versions SET evaluation = $2::jsonb WHERE ref = $1`, [
      ref,
      JSON.stringify({
        runId: randomUUID(),
        suite,
        passed,
        scores: { passRate: passed ? 1 : 0 },
        evaluatedAt: at.toISOString(),
      }),
    ]);
  }

  async function approve(ref: string): Promise<void> {
    const approved = dataOf<{ state: string }>(
      await api.graphql(
        `mutation($ref: String!) { approveModelVersion(ref: $ref, note: "smoke suite green") { state } }`,
        { ref },
        operator,
      ),
      'approveModelVersion',
    );
    expect(approved.state).to.equal('Approved');
  }

  /** Registered, verified, evaluated on `smoke` and approved: ready to serve. */
  async function registerApproved(label: string, spec: VersionSpec = {}): Promise<string> {
    const ref = await registerVerified(label, spec);
    await evaluate(ref, 'smoke', true);
    await approve(ref);
    return ref;
  }

  interface Written {
    readonly deployments: number;
    readonly assignments: number;
    readonly deploymentRefusals: number;
    readonly rolloutRefusals: number;
  }

  async function written(): Promise<Written> {
    return {
      deployments: await count(`SELECT count(*) AS n FROM deployments`),
      assignments: await count(`SELECT count(*) AS n FROM assignments`),
      deploymentRefusals: await count(
        `SELECT count(*) AS n FROM audit_events WHERE action = 'deployment.create' AND decision = 'denied'`,
      ),
      rolloutRefusals: await count(`SELECT count(*) AS n FROM audit_events WHERE action = 'rollout.refuse'`),
    };
  }

  /** createDeployment of `ref` for `purpose` is refused with `code`, audited once, and writes nothing. */
  async function expectDeploymentRefused(ref: string, purpose: string | null, code: string): Promise<string> {
    const before = await written();
    const name = `${ref.replace(/[@.]/g, '-')}-${(purpose ?? 'default').toLowerCase()}`;
    const input = { name, model: ref, replicas: 1, ...(purpose === null ? {} : { purpose }) };
    const answer = await api.graphql(CREATE_DEPLOYMENT, { input }, operator);
    expect(
      codeOf(answer),
      `createDeployment ${ref} as ${purpose ?? 'default'}: ${JSON.stringify(answer)}`,
    ).to.equal(code);
    const message = answer.errors?.[0]?.message ?? '';
    expect(message).to.include(ref);
    // A moment for a workflow that should not have started to write anything.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await written()).to.deep.equal({ ...before, deploymentRefusals: before.deploymentRefusals + 1 });
    const [event] = await sql<{ evidence: Record<string, unknown>; result: string; actor: string }[]>(
      `SELECT evidence, result, actor FROM audit_events WHERE action = 'deployment.create' ORDER BY seq DESC LIMIT 1`,
    );
    expect(event).to.deep.include({ result: 'refused', actor: 'operator:gate-operator' });
    expect(event?.evidence).to.deep.include({
      name,
      model: ref,
      purpose: purpose ?? 'Serving',
      errorCode: code,
      reason: message,
    });
    return message;
  }

  /** startRollout of `ref` to `alias` is refused with `code`, audited once (rollout.refuse), and deploys nothing. */
  async function expectRolloutRefused(ref: string, code: string, alias = ALIAS): Promise<string> {
    const before = await written();
    const answer = await api.graphql(
      START_ROLLOUT,
      { input: { alias, modelVersion: ref, steps: [50, 100] } },
      operator,
    );
    expect(codeOf(answer), `startRollout ${ref}: ${JSON.stringify(answer)}`).to.equal(code);
    expect(await written()).to.deep.equal({ ...before, rolloutRefusals: before.rolloutRefusals + 1 });
    const [rollout] = await sql<
      { state: string; refusal_code: string; canary_deployment_id: string | null }[]
    >(
      `SELECT r.state, r.refusal_code, r.canary_deployment_id FROM rollouts r
         WHERE r.model_ref = $1 ORDER BY r.created_at DESC LIMIT 1`,
      [ref],
    );
    expect(rollout).to.deep.equal({ state: 'Refused', refusal_code: code, canary_deployment_id: null });
    const [receipt] = await sql<{ evidence: Record<string, unknown>; decision: string }[]>(
      `SELECT evidence, decision FROM audit_events WHERE action = 'rollout.refuse' ORDER BY seq DESC LIMIT 1`,
    );
    expect(receipt?.decision).to.equal('denied');
    expect(receipt?.evidence).to.include({ errorCode: code, modelRef: ref, alias });
    return answer.errors?.[0]?.message ?? '';
  }

  /** Both paths, one code. */
  async function expectRefusedBothWays(ref: string, code: string): Promise<void> {
    const deployment = await expectDeploymentRefused(ref, null, code);
    const rollout = await expectRolloutRefused(ref, code);
    // One decision: the rollout's reason is the deployment's, which may add how to get the version evaluated.
    expect(deployment.startsWith(rollout), `${deployment} | ${rollout}`).to.equal(true);
  }

  before(async () => {
    api = await startTestApi('deploy_gate');
    operator = await api.operator('gate-operator', 'operator');
    const admin = api.admin;

    for (const [name, spdxId] of [
      ['apache-2-0', 'Apache-2.0'],
      ['vendor-terms', 'CC-BY-4.0'],
    ] as const) {
      dataOf(
        await api.graphql(
          `mutation($input: CreateLicenseInput!) { createLicense(input: $input) { id } }`,
          {
            input: {
              name,
              kind: 'spdx',
              spdxId,
              commercialUse: true,
              allowedDataClasses: ['public', 'internal'],
            },
          },
          operator,
        ),
        'createLicense',
      );
      dataOf(
        await api.graphql(
          `mutation($n: String!) { approveLicense(name: $n, note: "reviewed") { id } }`,
          { n: name },
          admin,
        ),
        'approveLicense',
      );
    }
    for (const name of ['vllm', 'vllm-nightly']) {
      const { id } = dataOf<{ id: string }>(
        await api.graphql(
          `mutation($input: RegisterRuntimeInput!) { registerRuntime(input: $input) { id } }`,
          { input: runtimeInput(name) },
          operator,
        ),
        'registerRuntime',
      );
      dataOf(
        await api.graphql(
          `mutation($id: ID!) { setRuntimeAllowed(id: $id, allowed: true) { id } }`,
          { id },
          admin,
        ),
        'setRuntimeAllowed',
      );
    }
    dataOf(
      await api.graphql(
        `mutation { createModel(input: { name: "${MODEL}", displayName: "Gate" }) { id } }`,
        {},
        operator,
      ),
      'createModel',
    );
    for (const [name, dataClass] of [
      [ALIAS, 'internal'],
      [RESTRICTED_ALIAS, 'restricted'],
    ] as const) {
      dataOf(
        await api.graphql(
          `mutation($input: CreateAliasInput!) { createAlias(input: $input) { id } }`,
          { input: { name, dataClass } },
          operator,
        ),
        'createAlias',
      );
    }

    // A GB10 the gate counts (Active) and the scheduler passes over (its lease ran out): nothing is ever pushed.
    const tokenId = randomUUID();
    await sql(
      `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
       VALUES ($1, $2, 'lnxb_gateGATE', 'test', now(), now() + interval '1 day')`,
      [tokenId, 'ab'.repeat(32)],
    );
    await sql(
      `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                          inventory, lease_renewed_at, lease_expires_at, enroll_workflow_id, bootstrap_token_id,
                          enrolled_at, updated_at)
       VALUES ('node-gate', 'spark-gate', 'Active', '127.0.0.1', 22, 'SHA256:test', 'key-gate', 'test-public-key',
               $1::jsonb, now() - interval '2 hours', now() - interval '1 hour', 'enroll-node/node-gate', $2, now(), now())`,
      [JSON.stringify(INVENTORY), tokenId],
    );
  });

  after(async () => {
    await api?.stop();
  });

  it('unlicensed: a license rejected after the version was approved → LICENSE_NOT_APPROVED on both paths', async () => {
    const ref = await registerApproved('withdrawn-license', { license: 'vendor-terms' });
    dataOf(
      await api.graphql(
        `mutation { rejectLicense(name: "vendor-terms", note: "the vendor changed the terms") { id } }`,
        {},
        api.admin,
      ),
      'rejectLicense',
    );
    await expectRefusedBothWays(ref, 'LICENSE_NOT_APPROVED');
    await expectDeploymentRefused(ref, 'Candidate', 'LICENSE_NOT_APPROVED');
  });

  it('runtime not allowed: an admin took the runtime off the allowlist → RUNTIME_NOT_ALLOWED on both paths', async () => {
    const ref = await registerApproved('nightly', { runtime: 'runtime-vllm-nightly-1.0.0' });
    dataOf(
      await api.graphql(
        `mutation { setRuntimeAllowed(id: "runtime-vllm-nightly-1.0.0", allowed: false) { id } }`,
        {},
        api.admin,
      ),
      'setRuntimeAllowed',
    );
    await expectRefusedBothWays(ref, 'RUNTIME_NOT_ALLOWED');
    await expectDeploymentRefused(ref, 'Candidate', 'RUNTIME_NOT_ALLOWED');
  });

  it('hardware-incompatible: more memory per replica than any Active node has → HARDWARE_INCOMPATIBLE on both paths', async () => {
    const ref = await registerApproved('huge', { memoryBytes: 512 * GiB });
    await expectRefusedBothWays(ref, 'HARDWARE_INCOMPATIBLE');
    const message = await expectDeploymentRefused(ref, 'Candidate', 'HARDWARE_INCOMPATIBLE');
    expect(message).to.match(/no node in the fleet can run one replica: spark-gate: /);
  });

  it('failed evaluation → EVALUATION_NOT_PASSED on both paths; as a candidate it may be evaluated again', async () => {
    const ref = await registerVerified('failed-eval');
    await evaluate(ref, 'strict', false);
    await expectRefusedBothWays(ref, 'EVALUATION_NOT_PASSED');
    const candidate = dataOf<{ deployment: { purpose: string } | null }>(
      await api.graphql(
        CREATE_DEPLOYMENT,
        { input: { name: 'gate-failed-eval-again', model: ref, replicas: 1, purpose: 'Candidate' } },
        operator,
      ),
      'createDeployment',
    );
    expect(candidate.deployment?.purpose).to.equal('Candidate');
  });

  it('not approved: an Evaluated version → MODEL_VERSION_NOT_APPROVED on both paths', async () => {
    const ref = await registerVerified('evaluated');
    await evaluate(ref, 'smoke', true);
    await expectRefusedBothWays(ref, 'MODEL_VERSION_NOT_APPROVED');
  });

  it('retired → MODEL_VERSION_NOT_APPROVED on both paths, and even as a candidate', async () => {
    const ref = await registerApproved('retired');
    dataOf(
      await api.graphql(
        `mutation($ref: String!) { retireModelVersion(ref: $ref, reason: "weights leaked", withdraw: true) { state } }`,
        { ref },
        operator,
      ),
      'retireModelVersion',
    );
    await expectRefusedBothWays(ref, 'MODEL_VERSION_NOT_APPROVED');
    const message = await expectDeploymentRefused(ref, 'Candidate', 'MODEL_VERSION_NOT_APPROVED');
    expect(message).to.include('is Retired');
  });

  it('digest mismatch recorded: an approved version whose last verification found other bytes → DIGEST_MISMATCH on both paths', async () => {
    const ref = await registerApproved('tampered');
    await recordVerification(ref, {
      ok: false,
      digest: digestOf('other bytes'),
      code: 'DIGEST_MISMATCH',
      message: `s3://models/${MODEL}/tampered/model.safetensors hashes to ${digestOf('other bytes')}`,
    });
    await expectRefusedBothWays(ref, 'DIGEST_MISMATCH');
    await expectDeploymentRefused(ref, 'Candidate', 'DIGEST_MISMATCH');
  });

  it('verification failed: a version whose digest check failed is refused even as a candidate (DIGEST_MISMATCH), and never serves', async () => {
    const ref = `${MODEL}@bad-digest`;
    dataOf(
      await api.graphql(
        `mutation($input: CreateModelVersionInput!) { createModelVersion(input: $input) { ref } }`,
        {
          input: {
            model: MODEL,
            version: 'bad-digest',
            // Synthetic weights hash to a digest derived from the ref; this one claims another.
            artifact: {
              uri: `file:///var/lib/lunanexa/models/${MODEL}/bad-digest`,
              digest: digestOf('not what the ref derives'),
              sizeBytes: 0,
              format: 'fake',
              source: 'lunanexa://fake',
            },
            license: 'lunanexa-synthetic',
            runtime: 'runtime-fake',
            requirements: {
              architectures: ['arm64', 'amd64'],
              memoryModels: ['unified', 'discrete'],
              minComputeCapability: '0.0',
              gpusPerReplica: 0,
            },
          },
        },
        operator,
      ),
      'createModelVersion',
    );
    // The real Verify workflow: it derives the synthetic digest, finds another one registered.
    const verified = dataOf<{ state: string; verification: { code: string } }>(
      await api.graphql(
        `mutation($ref: String!) { verifyModelVersion(ref: $ref) { state verification { code } } }`,
        { ref },
        operator,
      ),
      'verifyModelVersion',
    );
    expect(verified).to.deep.equal({
      state: 'VerificationFailed',
      verification: { code: 'DIGEST_MISMATCH' },
    });
    await expectDeploymentRefused(ref, 'Candidate', 'DIGEST_MISMATCH');
    await expectRefusedBothWays(ref, 'EVALUATION_NOT_PASSED');
  });

  it('data class: only a rollout knows the traffic it will serve; an alias for restricted data refuses a license that does not allow it', async () => {
    const ref = await registerApproved('internal-only');
    await expectRolloutRefused(ref, 'DATA_CLASS_NOT_ALLOWED', RESTRICTED_ALIAS);
  });

  it('an unevaluated, verified version is refused as Serving on both paths but allowed as a Candidate, which records its purpose', async () => {
    const ref = await registerVerified('fresh');
    const message = await expectDeploymentRefused(ref, 'Serving', 'EVALUATION_NOT_PASSED');
    expect(message).to.include('to evaluate it, deploy it with purpose Candidate');
    await expectRolloutRefused(ref, 'EVALUATION_NOT_PASSED');

    const before = await written();
    const created = dataOf<{
      deploymentId: string;
      deployment: { purpose: string; modelRef: string } | null;
    }>(
      await api.graphql(
        CREATE_DEPLOYMENT,
        { input: { name: 'gate-fresh-candidate', model: ref, replicas: 1, purpose: 'Candidate' } },
        operator,
      ),
      'createDeployment',
    );
    expect(created.deployment).to.deep.equal({
      id: created.deploymentId,
      purpose: 'Candidate',
      modelRef: ref,
    });
    const rows = await sql<{ purpose: string }[]>(`SELECT purpose FROM deployments WHERE id = $1`, [
      created.deploymentId,
    ]);
    expect(rows).to.deep.equal([{ purpose: 'Candidate' }]);
    expect((await written()).deploymentRefusals).to.equal(before.deploymentRefusals);
  });

  it('an Approved version deploys as Serving by default, recorded as Serving; an unknown purpose is VALIDATION_FAILED', async () => {
    const ref = await registerApproved('good');
    const created = dataOf<{ deploymentId: string; deployment: { purpose: string } | null }>(
      await api.graphql(
        CREATE_DEPLOYMENT,
        { input: { name: 'gate-good', model: ref, replicas: 1 } },
        operator,
      ),
      'createDeployment',
    );
    expect(created.deployment?.purpose).to.equal('Serving');
    const invalid = await api.graphql(
      CREATE_DEPLOYMENT,
      { input: { name: 'gate-good-canary', model: ref, replicas: 1, purpose: 'Canary' } },
      operator,
    );
    expect(codeOf(invalid)).to.equal('VALIDATION_FAILED');
    expect(JSON.stringify(invalid.errors?.[0]?.extensions)).to.contain('purpose');
  });

  it('placementPlan: a dry run explains every node — Spread and Binpack rank by memory claimed — and changes nothing', async () => {
    const ref = await registerVerified('plan', { memoryBytes: 40 * GiB });
    // The deployments earlier tests created keep looking for a node; with none wanted they leave these alone.
    await sql(`UPDATE deployments SET desired_replicas = 0`);
    const tokenId = randomUUID();
    await sql(
      `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
       VALUES ($1, $2, 'lnxb_planPLAN', 'test', now(), now() + interval '1 day')`,
      [tokenId, 'cd'.repeat(32)],
    );
    for (const name of ['spark-plan-a', 'spark-plan-b']) {
      await sql(
        `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                            inventory, lease_renewed_at, lease_expires_at, enroll_workflow_id, bootstrap_token_id,
                            enrolled_at, updated_at)
         VALUES ($1, $1, 'Active', '127.0.0.1', 22, 'SHA256:test', $1, 'test-public-key',
                 $2::jsonb, now(), now() + interval '1 hour', 'enroll-node/' || $1, $3, now(), now())`,
        [name, JSON.stringify(INVENTORY), tokenId],
      );
    }
    // spark-plan-b already holds a 40 GiB replica of another deployment.
    const [version] = await sql<{ id: string }[]>(`SELECT id FROM model_versions WHERE ref = $1`, [ref]);
    await sql(
      `INSERT INTO deployments (id, name, model_version_id, model_ref, state, generation, desired_replicas,
                                workflow_id, created_by, created_at, updated_at)
       VALUES ('dep-plan-other', 'plan-other', $1, $2, 'Ready', 1, 1, 'deployment/dep-plan-other', 'test', now(), now())`,
      [version?.id, ref],
    );
    await sql(
      `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec, created_at,
                                updated_at)
       VALUES ('asg-plan-other', 'dep-plan-other', 'spark-plan-b', 1, 'Run', now() + interval '1 hour', '{}'::jsonb,
               now(), now())`,
    );
    const before = { ...(await written()), audit: await count(`SELECT count(*) AS n FROM audit_events`) };
    const plan = async (input: Record<string, unknown>) =>
      dataOf<{
        strategy: string;
        chosen: { node: string; reason: string }[];
        rejected: { node: string; reasons: string[] }[];
        unplaced: number;
      }>(
        await api.graphql(
          `query($input: PlacementPlanInput!) { placementPlan(input: $input) { strategy replicas chosen { node reason } rejected { node reasons } unplaced } }`,
          { input },
          operator,
        ),
        'placementPlan',
      );
    const spread = await plan({ model: ref, replicas: 1 });
    expect(spread.strategy).to.equal('Spread');
    expect(spread.chosen.map((c) => c.node)).to.deep.equal(['spark-plan-a']);
    expect(spread.chosen[0]?.reason).to.match(/Spread rank 1 of 2 eligible: /);
    const binpack = await plan({ model: ref, replicas: 1, placementStrategy: 'Binpack' });
    expect(binpack.chosen.map((c) => c.node)).to.deep.equal(['spark-plan-b']);
    expect(binpack.chosen[0]?.reason).to.match(/1 replica\(s\) there before/);
    // Every node is explained: the stale one by its lease, the one not taken by the ranking.
    const explained = new Map(binpack.rejected.map((r) => [r.node, r.reasons.join('; ')]));
    expect(explained.get('spark-gate')).to.contain('no live lease');
    expect(explained.get('spark-plan-a')).to.contain('eligible, but enough replicas were placed');
    // Three replicas: two nodes fit (one replica each), one is unplaced.
    expect((await plan({ model: ref, replicas: 3 })).unplaced).to.equal(1);
    // Bad input is typed; nothing at all was written or audited by any of it.
    const badStrategy = await api.graphql(
      `query($input: PlacementPlanInput!) { placementPlan(input: $input) { unplaced } }`,
      { input: { model: ref, placementStrategy: 'Random' } },
      operator,
    );
    expect(codeOf(badStrategy)).to.equal('VALIDATION_FAILED');
    const unknown = await api.graphql(
      `query($input: PlacementPlanInput!) { placementPlan(input: $input) { unplaced } }`,
      { input: { model: 'nothing@1' } },
      operator,
    );
    expect(codeOf(unknown)).to.equal('MODEL_NOT_FOUND');
    expect({
      ...(await written()),
      audit: await count(`SELECT count(*) AS n FROM audit_events`),
    }).to.deep.equal(before);
    await sql(`DELETE FROM assignments WHERE id = 'asg-plan-other'`);
    await sql(`DELETE FROM deployments WHERE id = 'dep-plan-other'`);
    await sql(`UPDATE nodes SET lifecycle = 'Revoked' WHERE name LIKE 'spark-plan-%'`);
  });
});
