import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigError } from '@lunanexa/observability';
import { UsageError, parseFakeRuntimeArgs, type FakeRuntimeConfig } from '../src/config';

function run(argv: readonly string[], env: Record<string, string> = {}): FakeRuntimeConfig {
  const invocation = parseFakeRuntimeArgs(argv, env);
  if (invocation.kind !== 'run') throw new Error('expected a run invocation');
  return invocation.config;
}

function problemsOf(argv: readonly string[], env: Record<string, string> = {}): string[] {
  try {
    parseFakeRuntimeArgs(argv, env);
  } catch (error: unknown) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.variable);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('fake runtime configuration', () => {
  it('uses the documented defaults', () => {
    expect(run([])).to.deep.equal({
      host: '127.0.0.1',
      port: 8000,
      model: 'fake-model',
      weights: null,
      seed: 0,
      ttftMs: 50,
      tokensPerSecond: 50,
      maxTokens: 128,
      errorRate: 0,
      maxNumSeqs: 256,
      kvCacheTokens: 131072,
      prefillTokensPerSecond: 0,
      prefixCacheTokens: 65536,
      crashAfterRequests: null,
      startupDelayMs: 0,
      shutdownGraceMs: 5000,
      logLevel: 'info',
    });
  });

  it('reads every setting from flags, and a flag wins over its variable', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-runtime-'));
    const weights = join(dir, 'model.fake');
    writeFileSync(weights, 'weights');
    try {
      const config = run(
        [
          '--host=0.0.0.0',
          '--port=0',
          '--model=llama-3-1-8b@2024-07-23',
          `--weights=${weights}`,
          '--seed=-9',
          '--ttft-ms=250',
          '--tokens-per-second=2.5',
          '--max-tokens=16',
          '--error-rate=0.125',
          '--max-num-seqs=4',
          '--kv-cache-tokens=2048',
          '--prefill-tokens-per-second=20000',
          '--prefix-cache-tokens=4096',
          '--crash-after-requests=3',
          '--startup-delay-ms=1000',
          '--shutdown-grace-ms=0',
          '--log-level=warn',
        ],
        { LUNANEXA_FAKE_TTFT_MS: '999', LUNANEXA_FAKE_MODEL: 'from-env' },
      );
      expect(config).to.deep.equal({
        host: '0.0.0.0',
        port: 0,
        model: 'llama-3-1-8b@2024-07-23',
        weights,
        seed: -9,
        ttftMs: 250,
        tokensPerSecond: 2.5,
        maxTokens: 16,
        errorRate: 0.125,
        maxNumSeqs: 4,
        kvCacheTokens: 2048,
        prefillTokensPerSecond: 20000,
        prefixCacheTokens: 4096,
        crashAfterRequests: 3,
        startupDelayMs: 1000,
        shutdownGraceMs: 0,
        logLevel: 'warn',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the environment when no flag is given', () => {
    const config = run([], {
      LUNANEXA_FAKE_TTFT_MS: '5',
      LUNANEXA_FAKE_TOKENS_PER_SECOND: '1000',
      LUNANEXA_FAKE_ERROR_RATE: '1',
      LUNANEXA_FAKE_CRASH_AFTER_REQUESTS: '',
    });
    expect([
      config.ttftMs,
      config.tokensPerSecond,
      config.errorRate,
      config.crashAfterRequests,
    ]).to.deep.equal([5, 1000, 1, null]);
  });

  it('names every bad value by flag and variable', () => {
    expect(
      problemsOf(
        ['--port', '70000', '--tokens-per-second', '0', '--error-rate', '1.5', '--model', 'Bad Model'],
        {
          LUNANEXA_FAKE_TTFT_MS: '1e3',
          LUNANEXA_FAKE_CRASH_AFTER_REQUESTS: '0',
          LUNANEXA_FAKE_MAX_TOKENS: '-1',
          LUNANEXA_FAKE_SEED: '1.5',
        },
      ).sort(),
    ).to.deep.equal(
      [
        '--port / LUNANEXA_FAKE_PORT',
        '--tokens-per-second / LUNANEXA_FAKE_TOKENS_PER_SECOND',
        '--error-rate / LUNANEXA_FAKE_ERROR_RATE',
        '--model / LUNANEXA_FAKE_MODEL',
        '--ttft-ms / LUNANEXA_FAKE_TTFT_MS',
        '--crash-after-requests / LUNANEXA_FAKE_CRASH_AFTER_REQUESTS',
        '--max-tokens / LUNANEXA_FAKE_MAX_TOKENS',
        '--seed / LUNANEXA_FAKE_SEED',
      ].sort(),
    );
  });

  it('refuses weights that do not exist', () => {
    expect(problemsOf(['--weights', join(tmpdir(), 'no-such-dir', 'model.fake')])).to.deep.equal([
      '--weights / LUNANEXA_FAKE_WEIGHTS',
    ]);
  });

  it('treats unknown flags and positional arguments as usage errors', () => {
    expect(() => parseFakeRuntimeArgs(['--turbo'], {})).to.throw(UsageError);
    expect(() => parseFakeRuntimeArgs(['serve'], {})).to.throw(UsageError);
    expect(parseFakeRuntimeArgs(['--help'], {})).to.deep.equal({ kind: 'help' });
  });
});
