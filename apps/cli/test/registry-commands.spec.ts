import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../src/cli';
import {
  renderRuntimeList,
  renderVersionList,
  type RegistryLicense,
  type RegistryModel,
  type RegistryModelVersion,
  type RegistryRuntime,
} from '../src/commands/registry';
import { captureIo, cannedApis, sentOperations } from './support';

const DIGEST = `sha256:${'ab'.repeat(32)}`;
const HARDWARE = {
  architectures: ['arm64'],
  memoryModels: ['unified'],
  minComputeCapability: '8.0',
  maxComputeCapability: null,
  minCudaVersion: '12.8',
  gpusPerReplica: 1,
  minMemoryBytesPerReplica: 25_769_803_776,
};

const VERSION: RegistryModelVersion = {
  id: '0b6c3a52-8f0e-4a51-9d1c-3f4e5a6b7c8d',
  ref: 'llama@2024-07-23',
  model: 'llama',
  version: '2024-07-23',
  state: 'Registered',
  stateReason: null,
  allowedEvents: ['verificationPassed', 'verificationFailed', 'retire'],
  contextLength: 131072,
  parameterCount: 8_030_000_000,
  createdBy: 'operator:otto',
  createdAt: '2026-12-01T10:00:00.000Z',
  updatedAt: '2026-12-01T10:00:00.000Z',
  artifact: {
    uri: 's3://models/llama/model.safetensors',
    digest: DIGEST,
    sizeBytes: 16_060_522_240,
    format: 'safetensors',
    provenance: {
      source: 'hf://meta-llama/Llama-3.1-8B-Instruct',
      uploader: 'operator:otto',
      uploadedAt: '2026-12-01T10:00:00.000Z',
      signature: null,
    },
  },
  requirements: HARDWARE,
  verification: null,
  evaluation: null,
  runtimeEnv: [{ name: 'HF_HUB_OFFLINE', value: '1' }],
  license: { name: 'llama3-1-community', approvalState: 'Approved' },
  runtime: { id: 'runtime-vllm-0.11.0', allowed: false },
};

const VERIFIED: RegistryModelVersion = {
  ...VERSION,
  state: 'Verified',
  verification: {
    ok: true,
    digest: DIGEST,
    sizeBytes: 16_060_522_240,
    store: 's3',
    verifiedAt: '2026-12-01T10:05:00.000Z',
    code: null,
    message: null,
  },
};

const MISMATCH: RegistryModelVersion = {
  ...VERSION,
  state: 'VerificationFailed',
  verification: {
    ok: false,
    digest: `sha256:${'cd'.repeat(32)}`,
    sizeBytes: 16_060_522_240,
    store: 's3',
    verifiedAt: '2026-12-01T10:05:00.000Z',
    code: 'DIGEST_MISMATCH',
    message: 'the stored bytes hash differently',
  },
};

const MODEL: RegistryModel = {
  id: '5e0f7b1c-2a3d-4e5f-8a9b-0c1d2e3f4a5b',
  name: 'llama',
  displayName: 'Llama 3.1 8B',
  description: null,
  createdBy: 'operator:otto',
  createdAt: '2026-12-01T09:00:00.000Z',
  updatedAt: '2026-12-01T09:00:00.000Z',
  versions: [{ ref: 'llama@2024-07-23', state: 'Registered' }],
};

const LICENSE: RegistryLicense = {
  id: '8d7c6b5a-4e3f-4a1b-9c0d-1e2f3a4b5c6d',
  name: 'apache-2-0',
  kind: 'spdx',
  spdxId: 'Apache-2.0',
  customName: null,
  termsUri: null,
  termsDigest: null,
  commercialUse: true,
  allowedDataClasses: ['public', 'internal'],
  attribution: null,
  approvalState: 'Approved',
  decidedBy: 'operator:root',
  decidedAt: '2026-12-01T09:30:00.000Z',
  note: 'standard terms',
  createdBy: 'operator:otto',
  createdAt: '2026-12-01T09:10:00.000Z',
};

const RUNTIME: RegistryRuntime = {
  id: 'runtime-vllm-0.11.0',
  name: 'vllm',
  version: '0.11.0',
  kind: 'openai-compatible',
  allowed: true,
  packaging: { type: 'container', image: 'nvcr.io/nvidia/vllm', digest: DIGEST },
  launch: {
    executable: 'vllm',
    args: ['serve', '{{modelPath}}'],
    envAllowlist: ['HF_HUB_OFFLINE'],
    containerPort: 8000,
  },
  health: { path: '/health', startupTimeoutMs: 900_000, intervalMs: 5_000 },
  supportedHardware: HARDWARE,
  createdBy: 'operator:otto',
  createdAt: '2026-12-01T09:20:00.000Z',
};

function specFile(value: unknown, text?: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'lunanexa-registry-spec-')), 'spec.json');
  writeFileSync(path, text ?? JSON.stringify(value));
  return path;
}

describe('registry commands against a canned API', () => {
  const { serve } = cannedApis();

  it('model create sends the name, display name and description; model list and get print the registry', async () => {
    const { url, requests } = await serve({
      CreateModel: () => ({ data: { createModel: MODEL } }),
      Models: () => ({ data: { models: [MODEL] } }),
      Model: (variables) => ({ data: { model: variables['name'] === 'llama' ? MODEL : null } }),
    });
    const create = captureIo();
    expect(
      await runCli(
        ['--api-url', url, 'model', 'create', 'llama', '--display-name', 'Llama 3.1 8B'],
        create,
        '0.1.0',
      ),
    ).to.equal(0);
    expect(sentOperations(requests)[0]?.variables).to.deep.equal({
      input: { name: 'llama', displayName: 'Llama 3.1 8B' },
    });
    expect(create.out()).to.match(/^model +llama$/m);
    const list = captureIo();
    expect(await runCli(['--api-url', url, 'model', 'list'], list, '0.1.0')).to.equal(0);
    expect(list.out()).to.match(/^llama +Llama 3\.1 8B +1 +operator:otto$/m);
    const get = captureIo();
    expect(await runCli(['--api-url', url, 'model', 'get', 'llama'], get, '0.1.0')).to.equal(0);
    expect(get.out()).to.match(/^llama@2024-07-23 {2}Registered$/m);
    const missing = captureIo();
    expect(await runCli(['--api-url', url, 'model', 'get', 'nope'], missing, '0.1.0')).to.equal(1);
    expect(missing.err()).to.match(/^error\[NOT_FOUND\]: model nope does not exist/);
    const bad = captureIo();
    expect(await runCli(['--api-url', url, 'model', 'create', 'Not_A_Label'], bad, '0.1.0')).to.equal(64);
  });

  it('model-version create sends the spec file as the input, exactly as written', async () => {
    const { url, requests } = await serve({ CreateModelVersion: () => ({ data: { version: VERSION } }) });
    const spec = {
      model: 'llama',
      version: '2024-07-23',
      license: 'llama3-1-community',
      runtime: RUNTIME.id,
    };
    const io = captureIo();
    expect(
      await runCli(['--api-url', url, 'model-version', 'create', '--file', specFile(spec)], io, '0.1.0'),
    ).to.equal(0);
    expect(sentOperations(requests)[0]?.variables).to.deep.equal({ input: spec });
    expect(io.out()).to.match(/^state +Registered$/m);
    expect(io.out()).to.match(
      /^requirements +arm64, unified memory, 1 GPU\(s\), cc 8\.0–∞, CUDA ≥ 12\.8, 24\.0 GiB\/replica$/m,
    );
    const json = captureIo();
    expect(
      await runCli(
        ['--json', '--api-url', url, 'model-version', 'create', '--file', specFile(spec)],
        json,
        '0.1.0',
      ),
    ).to.equal(0);
    expect(JSON.parse(json.out())).to.deep.include({ ref: VERSION.ref, state: 'Registered' });
  });

  it('refuses a missing, unreadable or non-object spec file before calling the API (exit 64)', async () => {
    const { url, requests } = await serve({});
    for (const argv of [
      ['model-version', 'create'],
      ['model-version', 'create', '--file', '/nonexistent/spec.json'],
      ['license', 'create', '--file', specFile(null, '{not json')],
      ['runtime', 'register', '--file', specFile([1, 2])],
    ]) {
      const io = captureIo();
      expect(await runCli(['--api-url', url, ...argv], io, '0.1.0'), argv.join(' ')).to.equal(64);
      expect(io.err()).to.match(/^error\[USAGE\]: /);
    }
    expect(requests).to.have.length(0);
  });

  it('model-version verify exits 0 when the digest matches and 1 when the version failed verification', async () => {
    let answer = VERIFIED;
    const { url, requests } = await serve({ VerifyModelVersion: () => ({ data: { version: answer } }) });
    const ok = captureIo();
    expect(await runCli(['--api-url', url, 'model-version', 'verify', VERSION.ref], ok, '0.1.0')).to.equal(0);
    expect(ok.out()).to.match(/^verification +ok \(s3, 2026-12-01T10:05:00\.000Z\)$/m);
    answer = MISMATCH;
    const failed = captureIo();
    expect(
      await runCli(['--api-url', url, 'model-version', 'verify', VERSION.ref], failed, '0.1.0'),
    ).to.equal(1);
    expect(failed.out()).to.match(/^verification +DIGEST_MISMATCH: the stored bytes hash differently/m);
    expect(sentOperations(requests).map((o) => o.variables)).to.deep.equal([
      { ref: VERSION.ref },
      { ref: VERSION.ref },
    ]);
  });

  it('lifecycle commands send their event arguments; deprecate and retire need a reason', async () => {
    const { url, requests } = await serve({
      ApproveModelVersion: () => ({ data: { version: { ...VERSION, state: 'Approved' } } }),
      DeprecateModelVersion: () => ({ data: { version: { ...VERSION, state: 'Deprecated' } } }),
      RetireModelVersion: () => ({ data: { version: { ...VERSION, state: 'Retired' } } }),
      ReinstateModelVersion: () => ({
        code: 'INVALID_TRANSITION',
        message: 'model version: cannot reinstate from Retired',
      }),
    });
    const approve = captureIo();
    expect(
      await runCli(
        ['--api-url', url, 'model-version', 'approve', VERSION.ref, '--note', 'suite green'],
        approve,
        '0.1.0',
      ),
    ).to.equal(0);
    expect(approve.out()).to.equal('model version llama@2024-07-23 is Approved\n');
    expect(
      await runCli(['--api-url', url, 'model-version', 'deprecate', VERSION.ref], captureIo(), '0.1.0'),
    ).to.equal(64);
    expect(
      await runCli(
        ['--api-url', url, 'model-version', 'deprecate', VERSION.ref, '--reason', 'v2'],
        captureIo(),
        '0.1.0',
      ),
    ).to.equal(0);
    expect(
      await runCli(
        ['--api-url', url, 'model-version', 'retire', VERSION.ref, '--reason', 'leaked', '--withdraw'],
        captureIo(),
        '0.1.0',
      ),
    ).to.equal(0);
    const reinstate = captureIo();
    expect(
      await runCli(['--api-url', url, 'model-version', 'reinstate', VERSION.ref], reinstate, '0.1.0'),
    ).to.equal(1);
    expect(reinstate.err()).to.match(
      /^error\[INVALID_TRANSITION\]: model version: cannot reinstate from Retired/,
    );
    expect(sentOperations(requests)).to.deep.equal([
      { name: 'ApproveModelVersion', variables: { ref: VERSION.ref, note: 'suite green' } },
      { name: 'DeprecateModelVersion', variables: { ref: VERSION.ref, reason: 'v2' } },
      { name: 'RetireModelVersion', variables: { ref: VERSION.ref, reason: 'leaked', withdraw: true } },
      { name: 'ReinstateModelVersion', variables: { ref: VERSION.ref, note: null } },
    ]);
  });

  it('license approve/reject need a note; a non-admin is refused with FORBIDDEN (exit 77)', async () => {
    const { url, requests } = await serve({
      ApproveLicense: () => ({ data: { license: LICENSE } }),
      RejectLicense: () => ({
        code: 'FORBIDDEN',
        message: 'role operator may not call Mutation.rejectLicense',
      }),
      Licenses: () => ({ data: { licenses: [LICENSE] } }),
    });
    expect(
      await runCli(['--api-url', url, 'license', 'approve', 'apache-2-0'], captureIo(), '0.1.0'),
    ).to.equal(64);
    const approve = captureIo();
    expect(
      await runCli(
        ['--api-url', url, 'license', 'approve', 'apache-2-0', '--note', 'standard terms'],
        approve,
        '0.1.0',
      ),
    ).to.equal(0);
    expect(approve.out()).to.equal('license apache-2-0 is Approved (by operator:root)\n');
    const reject = captureIo();
    expect(
      await runCli(['--api-url', url, 'license', 'reject', 'apache-2-0', '--note', 'no'], reject, '0.1.0'),
    ).to.equal(77);
    const list = captureIo();
    expect(await runCli(['--api-url', url, 'license', 'list'], list, '0.1.0')).to.equal(0);
    expect(list.out()).to.match(/^apache-2-0 +Apache-2\.0 +Approved +yes +public,internal +operator:root$/m);
    expect(
      sentOperations(requests)
        .slice(0, 2)
        .map((o) => o.variables),
    ).to.deep.equal([
      { name: 'apache-2-0', note: 'standard terms' },
      { name: 'apache-2-0', note: 'no' },
    ]);
  });

  it('runtime register passes the API validation error through (exit 65); allow and deny set the allowlist flag', async () => {
    const { url, requests } = await serve({
      RegisterRuntime: () => ({
        code: 'VALIDATION_FAILED',
        message: "launch.executable bash is a shell or command launcher; runtimes are exec'd directly",
      }),
      SetRuntimeAllowed: (variables) => ({
        data: { setRuntimeAllowed: { ...RUNTIME, allowed: variables['allowed'] } },
      }),
    });
    const register = captureIo();
    expect(
      await runCli(
        ['--api-url', url, 'runtime', 'register', '--file', specFile({ name: 'sneaky' })],
        register,
        '0.1.0',
      ),
    ).to.equal(65);
    expect(register.err()).to.match(/^error\[VALIDATION_FAILED\]: launch\.executable bash is a shell/);
    const deny = captureIo();
    expect(await runCli(['--api-url', url, 'runtime', 'deny', RUNTIME.id], deny, '0.1.0')).to.equal(0);
    expect(deny.out()).to.equal('runtime runtime-vllm-0.11.0 is off the runtime allowlist\n');
    expect(await runCli(['--api-url', url, 'runtime', 'allow', RUNTIME.id], captureIo(), '0.1.0')).to.equal(
      0,
    );
    expect(
      sentOperations(requests)
        .slice(1)
        .map((o) => o.variables),
    ).to.deep.equal([
      { id: RUNTIME.id, allowed: false },
      { id: RUNTIME.id, allowed: true },
    ]);
  });

  it('renders version and runtime tables with license review, allowlist and verification', () => {
    expect(renderVersionList([VERSION, VERIFIED, MISMATCH])).to.equal(
      [
        'REF               STATE               FORMAT       SIZE      LICENSE                        RUNTIME                            VERIFIED',
        'llama@2024-07-23  Registered          safetensors  15.0 GiB  llama3-1-community (Approved)  runtime-vllm-0.11.0 (not allowed)  never',
        'llama@2024-07-23  Verified            safetensors  15.0 GiB  llama3-1-community (Approved)  runtime-vllm-0.11.0 (not allowed)  ok',
        'llama@2024-07-23  VerificationFailed  safetensors  15.0 GiB  llama3-1-community (Approved)  runtime-vllm-0.11.0 (not allowed)  DIGEST_MISMATCH',
        '',
      ].join('\n'),
    );
    expect(renderRuntimeList([RUNTIME])).to.match(
      /^runtime-vllm-0\.11\.0 {2}openai-compatible {2}nvcr\.io\/nvidia\/vllm@sha256:(ab){32} {2}vllm {8}yes$/m,
    );
  });
});
