import './support/contract-modules';

import { expect } from 'chai';

import {
  licenseDecisionEffect,
  licenseDecisions,
  licenseInput,
  licenseViolations,
  parseSpec,
  profileInput,
  profileViolations,
  registryControls,
  runtimeInput,
  runtimeViolations,
  suiteInput,
  suiteViolations,
} from '../src/app/pages/registry/registry-rules';
import { canAs } from './support/roles';

const DIGEST = `sha256:${'0f'.repeat(32)}`;
const paths = (violations: readonly { path: string }[]): string[] => violations.map((v) => v.path);

/** The runtime of apps/api/test/registry-validation.spec.ts, as a pasted GraphQL input. */
const runtime = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
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

const licenseForm = {
  name: 'apache-2-0',
  kind: 'spdx',
  spdxId: 'Apache-2.0',
  customName: '',
  termsUri: '',
  termsDigest: '',
  commercialUse: true,
  allowedDataClasses: ['public', 'internal'],
  attribution: '',
};

describe('console registry rules', () => {
  it('reads a pasted spec as one JSON object, naming what is wrong with anything else', () => {
    expect(parseSpec('{"name":"x"}')).to.deep.equal({ input: { name: 'x' }, violations: [] });
    expect(parseSpec('[1]').violations[0]?.message).to.equal('must hold one JSON object');
    expect(parseSpec('{"name":').violations[0]?.message).to.match(/^is not JSON/);
    expect(parseSpec('  ').violations[0]?.message).to.match(/^is empty/);
  });

  it('checks a license as the API does: SPDX id or pinned custom terms, and at least one data class', () => {
    expect(licenseViolations(licenseInput(licenseForm))).to.deep.equal([]);
    expect(
      paths(licenseViolations(licenseInput({ ...licenseForm, name: 'Apache 2', spdxId: 'not an id' }))),
    ).to.have.members(['name', 'spdxId']);
    expect(paths(licenseViolations(licenseInput({ ...licenseForm, allowedDataClasses: [] })))).to.deep.equal([
      'allowedDataClasses',
    ]);
    const custom = licenseInput({
      ...licenseForm,
      kind: 'custom',
      customName: 'Llama 3.1 Community',
      termsUri: 'https://example.com/terms',
      termsDigest: 'sha256:short',
    });
    expect(paths(licenseViolations(custom))).to.deep.equal(['termsDigest']);
    expect(licenseViolations({ ...custom, termsDigest: DIGEST })).to.deep.equal([]);
  });

  it('checks a runtime as the API does: no shells, known placeholders, a port where one is needed', () => {
    expect(runtimeViolations(runtime())).to.deep.equal([]);
    expect(
      paths(runtimeViolations(runtime({ launch: { executable: 'bash', args: ['-c', 'x {{port}}'] } }))),
    ).to.include('launch.executable');
    const placeholder = runtimeViolations(
      runtime({ launch: { executable: '/opt/x', args: ['{{secret}}', '{{port}}'], envAllowlist: [] } }),
    );
    expect(placeholder.map((v) => v.message).join()).to.contain('unknown placeholder {{secret}}');
    expect(
      paths(runtimeViolations(runtime({ packaging: { type: 'binary', digest: 'sha256:nope' } }))),
    ).to.deep.equal(['packaging.digest']);
    expect(paths(runtimeViolations(runtime({ metricsFormat: 'prometheus' })))).to.deep.equal([
      'metricsFormat',
    ]);
  });

  it('builds a container runtime from the form that passes the same checks', () => {
    const form = {
      name: 'vllm',
      version: '0.9.1',
      kind: 'openai-compatible',
      packagingType: 'container',
      image: 'nvcr.io/nvidia/vllm',
      digest: DIGEST,
      executable: 'vllm',
      args: 'serve\n{{modelPath}}\n--port\n8000\n',
      containerPort: '8000',
      healthPath: '/health',
      architectures: ['arm64'],
      memoryModels: ['unified'],
      gpusPerReplica: '1',
      minComputeCapability: '8.0',
      minCudaVersion: '',
    };
    const input = runtimeInput(form);
    expect(input['launch']).to.deep.include({
      args: ['serve', '{{modelPath}}', '--port', '8000'],
      containerPort: 8000,
    });
    expect(runtimeViolations(input)).to.deep.equal([]);
    expect(paths(runtimeViolations(runtimeInput({ ...form, containerPort: '' })))).to.deep.equal([
      'launch.containerPort',
    ]);
  });

  it('checks a suite as the API does, reporting a bad grader once, where it is', () => {
    const form = {
      name: 'smoke',
      description: '',
      passThreshold: '1',
      caseId: 'hello',
      prompt: 'Say hello',
      maxTokens: '16',
      graderKind: 'CONTAINS',
      graderValue: 'hello',
    };
    expect(suiteViolations(suiteInput(form))).to.deep.equal([]);
    expect(paths(suiteViolations(suiteInput({ ...form, passThreshold: '1.5' })))).to.deep.equal([
      'passThreshold',
    ]);
    const badSchema = suiteViolations({
      name: 'json',
      passThreshold: 1,
      cases: [{ id: 'a', prompt: 'p', maxTokens: 8, grader: { kind: 'JSON_SCHEMA', schemaJson: '{' } }],
    });
    expect(badSchema).to.deep.equal([{ path: 'cases.0.grader.schemaJson', message: 'is not JSON' }]);
    const misplaced = suiteViolations({
      name: 'x',
      passThreshold: 1,
      cases: [{ id: 'a', prompt: 'p', maxTokens: 8, grader: { kind: 'EXACT', expected: 'y', pattern: 'z' } }],
    });
    expect(misplaced.map((v) => `${v.path} ${v.message}`)).to.deep.equal([
      'cases.0.grader.pattern does not apply to a exact grader',
    ]);
    expect(paths(suiteViolations({ name: 'x', passThreshold: 1, cases: [] }))).to.deep.equal(['cases']);
    const unknownKind = suiteViolations({
      name: 'x',
      passThreshold: 1,
      cases: [{ id: 'a', prompt: 'p', maxTokens: 8, grader: { kind: 'exact', expected: 'y' } }],
    });
    expect(unknownKind).to.deep.equal([
      { path: 'cases.0.grader.kind', message: 'must be one of CONTAINS, EXACT, REGEX, JSON_SCHEMA' },
    ]);
    expect(suiteInput({ ...form, graderKind: 'REGEX', graderValue: '^hi' }).cases).to.deep.equal([
      { id: 'hello', prompt: 'Say hello', maxTokens: 16, grader: { kind: 'REGEX', pattern: '^hi' } },
    ]);
  });

  it('checks a benchmark profile as the API does: a duration, a request count or both', () => {
    const form = {
      name: 'steady',
      description: '',
      concurrency: '4',
      inputTokens: '128',
      outputTokens: '64',
      durationSeconds: '',
      requestCount: '100',
      maxErrorRate: '0.01',
      maxTtftP95Ms: '',
      minTokensPerSecond: '',
    };
    expect(profileInput(form)).to.deep.equal({
      name: 'steady',
      concurrency: 4,
      inputTokens: 128,
      outputTokens: 64,
      requestCount: 100,
      maxErrorRate: 0.01,
    });
    expect(profileViolations(profileInput(form))).to.deep.equal([]);
    expect(paths(profileViolations(profileInput({ ...form, requestCount: '' })))).to.deep.equal([
      'durationSeconds',
    ]);
    expect(
      paths(profileViolations(profileInput({ ...form, maxErrorRate: '2', concurrency: 'four' }))),
    ).to.have.members(['concurrency', 'slo.maxErrorRate']);
  });

  it('offers review decisions to administrators, never for the built-in license or the state it has', () => {
    const pending = { name: 'apache-2-0', approvalState: 'PendingReview' };
    expect(licenseDecisions(pending, canAs('admin'))).to.deep.equal(['approve', 'reject']);
    expect(licenseDecisions({ ...pending, approvalState: 'Approved' }, canAs('admin'))).to.deep.equal([
      'reject',
    ]);
    expect(licenseDecisions(pending, canAs('operator'))).to.deep.equal([]);
    expect(
      licenseDecisions({ name: 'lunanexa-synthetic', approvalState: 'Approved' }, canAs('admin')),
    ).to.deep.equal([]);
    expect(registryControls(canAs('operator'))).to.deep.equal({
      createLicense: true,
      registerRuntime: true,
      setRuntimeAllowed: false,
      createSuite: true,
      createProfile: true,
    });
    expect(Object.values(registryControls(canAs('viewer'))).some(Boolean)).to.equal(false);
  });

  it('names the versions a license decision reaches', () => {
    const license = { name: 'llama', approvalState: 'Approved' };
    expect(licenseDecisionEffect('reject', license, [{ ref: 'chat@1', state: 'Approved' }])).to.equal(
      'Rejects llama (now Approved): versions under it fail verification and no rollout may target them ' +
        '(LICENSE_NOT_APPROVED). 1 model version uses it: chat@1 (Approved).',
    );
    expect(licenseDecisionEffect('approve', { ...license, approvalState: 'PendingReview' }, [])).to.match(
      /No model version is registered under it yet\.$/,
    );
  });
});
