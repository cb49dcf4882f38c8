import { expect } from 'chai';
import {
  checkBenchmarkProfileInput,
  checkEvaluationSuiteInput,
  checkLicenseInput,
  checkRuntimeInput,
} from '../src/registry-rules';

const NOW = new Date('2026-12-01T10:00:00.000Z');
const DIGEST = `sha256:${'0f'.repeat(32)}`;
const paths = (violations: readonly { path: string }[]): string[] => violations.map((v) => v.path);

const runtime = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'llama-server',
  version: 'b4500',
  kind: 'openai-compatible',
  packaging: { type: 'binary', digest: DIGEST },
  launch: {
    executable: '/opt/llama.cpp/llama-server',
    args: ['--model', '{{modelPath}}', '--port', '{{port}}'],
  },
  health: { path: '/health', startupTimeoutMs: 600_000, intervalMs: 2_000 },
  supportedHardware: {
    architectures: ['arm64'],
    memoryModels: ['unified'],
    minComputeCapability: '12.0',
    gpusPerReplica: 1,
  },
  ...overrides,
});

const suiteCase = (grader: Record<string, unknown>): Record<string, unknown> => ({
  id: 'a',
  prompt: 'p',
  maxTokens: 8,
  grader,
});

describe('registry rules (the create inputs the API refuses and the console checks)', () => {
  it('turns a license input into its PendingReview document, or names every bad field', () => {
    const spdx = checkLicenseInput({
      name: 'apache-2-0',
      kind: 'spdx',
      spdxId: 'Apache-2.0',
      commercialUse: true,
      allowedDataClasses: ['public'],
      attribution: null,
    });
    expect(spdx.violations).to.deep.equal([]);
    expect(spdx.record).to.deep.include({ kind: 'spdx', spdxId: 'Apache-2.0', attribution: null });
    expect(spdx.record?.approval).to.deep.equal({ state: 'PendingReview', decidedBy: null, decidedAt: null });

    const refused = checkLicenseInput({
      name: 'Not A Label',
      kind: 'custom',
      customName: 'in-house',
      termsUri: 'https://example.com/terms',
      commercialUse: false,
      allowedDataClasses: ['public'],
    });
    expect(refused.record).to.equal(null);
    expect(refused.violations[0]).to.deep.equal({
      path: 'name',
      message: 'must be a lower-case DNS label (a-z, 0-9, -; at most 63)',
    });
    expect(paths(refused.violations)).to.include('termsDigest');
  });

  it('turns a runtime input into its Runtime record, deriving the id and the metrics format', () => {
    const checked = checkRuntimeInput(runtime(), NOW);
    expect(checked.violations).to.deep.equal([]);
    expect(checked.record).to.deep.include({
      id: 'runtime-llama-server-b4500',
      metricsFormat: 'llamacpp',
      createdAt: NOW.toISOString(),
    });
    expect(checked.record?.launch).to.deep.include({ envAllowlist: [], containerPort: null });
    expect(checked.record?.supportedHardware).to.deep.include({
      minCudaVersion: null,
      maxComputeCapability: null,
    });
    expect(checkRuntimeInput(runtime({ kind: 'fake' }), NOW).record?.metricsFormat).to.equal('vllm');
  });

  it('refuses a shell, a bad digest and a runtime id past 128 characters, all at once', () => {
    const checked = checkRuntimeInput(
      runtime({
        name: 'n'.repeat(63),
        version: 'v'.repeat(60),
        packaging: { type: 'binary', digest: 'sha256:nope' },
        launch: { executable: 'bash', args: ['-c', 'x {{port}}'] },
      }),
      NOW,
    );
    expect(checked.record).to.equal(null);
    expect(paths(checked.violations)).to.include.members([
      'packaging.digest',
      'launch.executable',
      'version',
    ]);
    expect(checked.violations.find((v) => v.path === 'version')?.message).to.match(
      /too long \(at most 128\)$/,
    );
    expect(checkRuntimeInput('not an object', NOW).record).to.equal(null);
  });

  it('turns a suite input into its definition, a bad grader reported once where it is', () => {
    const checked = checkEvaluationSuiteInput({
      name: 'smoke',
      description: null,
      passThreshold: 1,
      cases: [suiteCase({ kind: 'exact', expected: 'hi', ignoreCase: null, trim: true })],
    });
    expect(checked.violations).to.deep.equal([]);
    expect(checked.record?.cases[0]?.grader).to.deep.equal({ kind: 'exact', expected: 'hi', trim: true });
    expect(checked.record).to.not.have.property('description');

    const misplaced = checkEvaluationSuiteInput({
      name: 'x',
      passThreshold: 1,
      cases: [suiteCase({ kind: 'exact', expected: 'y', pattern: 'z' }), suiteCase({ kind: 'json-schema' })],
    });
    expect(misplaced.record).to.equal(null);
    expect(misplaced.violations.map((v) => `${v.path} ${v.message}`)).to.deep.equal([
      'cases.0.grader.pattern does not apply to a exact grader',
      'cases.1.grader.schemaJson is required for a json-schema grader',
    ]);
  });

  it('reads grader kinds by the names the caller gives them and compiles schemas only when asked', () => {
    const graderKinds = { CONTAINS: 'contains', EXACT: 'exact' } as const;
    const unknown = checkEvaluationSuiteInput(
      { name: 'x', passThreshold: 1, cases: [suiteCase({ kind: 'exact', expected: 'y' })] },
      { graderKinds },
    );
    expect(unknown.violations).to.deep.equal([
      { path: 'cases.0.grader.kind', message: 'must be one of CONTAINS, EXACT' },
    ]);
    expect(
      checkEvaluationSuiteInput(
        { name: 'x', passThreshold: 1, cases: [suiteCase({ kind: 'CONTAINS', substring: 'y' })] },
        { graderKinds },
      ).record?.cases[0]?.grader,
    ).to.deep.equal({ kind: 'contains', substring: 'y' });

    const schemaSuite = {
      name: 'json',
      passThreshold: 1,
      cases: [suiteCase({ kind: 'json-schema', schemaJson: '{"type":"objekt"}' })],
    };
    expect(checkEvaluationSuiteInput(schemaSuite).violations).to.deep.equal([]);
    const compiled: unknown[] = [];
    const refused = checkEvaluationSuiteInput(schemaSuite, {
      schemaProblem: (schema) => {
        compiled.push(schema);
        return 'type must be a known type';
      },
    });
    expect(compiled).to.deep.equal([{ type: 'objekt' }]);
    expect(refused.violations).to.deep.equal([
      { path: 'cases.0.grader.schemaJson', message: 'is not a valid JSON Schema: type must be a known type' },
    ]);
  });

  it('turns a benchmark profile input into its definition, the SLO fields gathered under slo', () => {
    const checked = checkBenchmarkProfileInput({
      name: 'steady',
      concurrency: 4,
      inputTokens: 128,
      outputTokens: 64,
      durationSeconds: 30,
      maxErrorRate: 0.01,
      minTokensPerSecond: null,
    });
    expect(checked.violations).to.deep.equal([]);
    expect(checked.record?.slo).to.deep.equal({ maxErrorRate: 0.01 });
    const refused = checkBenchmarkProfileInput({
      name: 'steady',
      concurrency: 0,
      inputTokens: 128,
      outputTokens: 64,
    });
    expect(refused.record).to.equal(null);
    expect(paths(refused.violations)).to.include('concurrency');
  });
});
