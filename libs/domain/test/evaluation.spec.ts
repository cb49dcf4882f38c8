import { expect } from 'chai';
import { DEFAULT_REGRESSION_THRESHOLDS, type CaseOutcome, type Grader } from '@lunanexa/contracts';
import {
  benchmarkMetrics,
  benchmarkPrompt,
  caseMessages,
  decideEvaluation,
  extractJson,
  findRegressions,
  grade,
  percentile,
  percentiles,
  requestTokensPerSecond,
  suiteScores,
  summaryScores,
  type JsonSchemaCheck,
} from '../src/evaluation';

const objectWithAnswer: JsonSchemaCheck = (value) =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && 'answer' in value
    ? null
    : '/ must have property answer';

describe('evaluation graders', () => {
  const cases: [string, Grader, string, boolean][] = [
    ['exact: equal after trimming (default)', { kind: 'exact', expected: 'Paris' }, '  Paris\n', true],
    ['exact: no trimming when asked', { kind: 'exact', expected: 'Paris', trim: false }, ' Paris', false],
    ['exact: case matters by default', { kind: 'exact', expected: 'Paris' }, 'paris', false],
    ['exact: ignoreCase', { kind: 'exact', expected: 'Paris', ignoreCase: true }, 'PARIS', true],
    ['exact: a longer answer is not equal', { kind: 'exact', expected: 'Paris' }, 'Paris.', false],
    ['contains: substring', { kind: 'contains', substring: 'café' }, 'a café nearby', true],
    ['contains: absent', { kind: 'contains', substring: 'tea' }, 'a café nearby', false],
    ['contains: ignoreCase', { kind: 'contains', substring: 'CAFÉ', ignoreCase: true }, 'a café', true],
    ['regex: match anywhere', { kind: 'regex', pattern: '\\d{3}' }, 'code 404 here', true],
    ['regex: anchored, no match', { kind: 'regex', pattern: '^\\d+$' }, 'code 404', false],
    ['regex: flags', { kind: 'regex', pattern: '^yes$', flags: 'im' }, 'well\nYES', true],
    ['regex: unicode mode always', { kind: 'regex', pattern: '^\\p{Lu}' }, 'Élan', true],
    [
      'json-schema: valid object',
      { kind: 'json-schema', schema: { type: 'object' } },
      '{"answer": 42}',
      true,
    ],
    [
      'json-schema: fenced JSON is judged as JSON',
      { kind: 'json-schema', schema: { type: 'object' } },
      '```json\n{"answer": 1}\n```',
      true,
    ],
    [
      'json-schema: not JSON',
      { kind: 'json-schema', schema: { type: 'object' } },
      'The answer is 42.',
      false,
    ],
    [
      'json-schema: JSON that does not match',
      { kind: 'json-schema', schema: { type: 'object' } },
      '{"other": 1}',
      false,
    ],
  ];
  for (const [name, grader, output, passed] of cases) {
    it(name, () => {
      const result = grade(grader, output, objectWithAnswer);
      expect(result.passed).to.equal(passed);
      expect(result.reason === null).to.equal(passed);
    });
  }

  it('a regex never carries state between answers (the same grader twice gives the same verdict)', () => {
    const grader: Grader = { kind: 'regex', pattern: 'a', flags: 'i' };
    expect([grade(grader, 'A'), grade(grader, 'A'), grade(grader, 'A')].map((r) => r.passed)).to.deep.equal([
      true,
      true,
      true,
    ]);
  });

  it('a json-schema grader without a schema check is a programming error', () => {
    expect(() => grade({ kind: 'json-schema', schema: {} }, '{}')).to.throw(/schema check/);
  });

  it('extracts JSON from a Markdown fence, leaves anything else as it is', () => {
    expect(extractJson('```\n[1]\n```')).to.equal('[1]');
    expect(extractJson(' {"a":1} ')).to.equal('{"a":1}');
    expect(extractJson('Sure: {"a":1}')).to.equal('Sure: {"a":1}');
  });

  it('sends a prompt as one user message, messages as they are', () => {
    const grader: Grader = { kind: 'contains', substring: 'x' };
    expect(caseMessages({ id: 'a', prompt: 'hi', maxTokens: 1, grader })).to.deep.equal([
      { role: 'user', content: 'hi' },
    ]);
    const messages = [
      { role: 'system' as const, content: 's' },
      { role: 'user' as const, content: 'u' },
    ];
    expect(caseMessages({ id: 'a', messages, maxTokens: 1, grader })).to.deep.equal(messages);
  });
});

describe('evaluation metrics', () => {
  it('percentiles interpolate linearly between closest ranks, like percentile_cont', () => {
    const samples = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    expect(percentile(samples, 0.5)).to.equal(55);
    expect(percentile(samples, 0.95)).to.be.closeTo(95.5, 1e-9);
    expect(percentile(samples, 0.99)).to.be.closeTo(99.1, 1e-9);
    expect(percentile(samples, 0)).to.equal(10);
    expect(percentile(samples, 1)).to.equal(100);
    expect(percentile([7], 0.99)).to.equal(7);
    expect(percentile([], 0.5)).to.equal(null);
    expect(percentiles([])).to.equal(null);
    // Order of the input does not matter, and the input is not changed.
    const shuffled = [100, 10, 50, 30];
    expect(percentile(shuffled, 0.5)).to.equal(40);
    expect(shuffled).to.deep.equal([100, 10, 50, 30]);
    expect(() => percentile(samples, 95)).to.throw(RangeError);
  });

  it('decode speed of one request: tokens after the first over the time after the first', () => {
    expect(requestTokensPerSecond({ ok: true, ttftMs: 100, latencyMs: 1100, completionTokens: 11 })).to.equal(
      10,
    );
    expect(requestTokensPerSecond({ ok: true, ttftMs: 100, latencyMs: 100, completionTokens: 1 })).to.equal(
      null,
    );
    expect(requestTokensPerSecond({ ok: false, ttftMs: 100, latencyMs: 900, completionTokens: 5 })).to.equal(
      null,
    );
  });

  it('aggregates a benchmark: errors count against the rate only, throughput over wall clock', () => {
    const metrics = benchmarkMetrics(
      [
        { ok: true, ttftMs: 50, latencyMs: 150, completionTokens: 11 },
        { ok: true, ttftMs: 70, latencyMs: 170, completionTokens: 11 },
        { ok: true, ttftMs: 60, latencyMs: 160, completionTokens: 11 },
        { ok: false, ttftMs: null, latencyMs: 5, completionTokens: 0 },
      ],
      1000,
      2,
    );
    expect(metrics.requests).to.equal(4);
    expect(metrics.errors).to.equal(1);
    expect(metrics.errorRate).to.equal(0.25);
    expect(metrics.ttftMs?.p50).to.equal(60);
    expect(metrics.ttftMs?.p95).to.be.closeTo(69, 1e-9);
    expect(metrics.ttftMs?.p99).to.be.closeTo(69.8, 1e-9);
    expect(metrics.latencyMs?.p50).to.equal(160);
    expect(metrics.completionTokens).to.equal(33);
    expect(metrics.tokensPerSecond).to.equal(33);
    expect(metrics.perRequestTokensPerSecondP50).to.equal(100);
    expect(metrics.concurrency).to.equal(2);
  });

  it('an empty benchmark has no latency figures and a zero error rate', () => {
    const metrics = benchmarkMetrics([], 0, 1);
    expect(metrics.ttftMs).to.equal(null);
    expect(metrics.errorRate).to.equal(0);
    expect(metrics.tokensPerSecond).to.equal(0);
  });

  it('a benchmark prompt has the requested number of words and is the same for the same index', () => {
    expect(benchmarkPrompt(32, 3).split(' ')).to.have.length(33);
    expect(benchmarkPrompt(32, 3)).to.equal(benchmarkPrompt(32, 3));
    expect(benchmarkPrompt(32, 3)).to.not.equal(benchmarkPrompt(32, 4));
  });
});

describe('evaluation decisions', () => {
  const outcome = (caseId: string, passed: boolean): CaseOutcome => ({
    caseId,
    grader: 'exact',
    passed,
    reason: passed ? null : 'no',
    errorCode: null,
    latencyMs: 1,
    outputExcerpt: null,
  });
  const scores = suiteScores([outcome('a', true), outcome('b', true), outcome('c', false)], 0.6);
  const metrics = benchmarkMetrics(
    [
      { ok: true, ttftMs: 100, latencyMs: 200, completionTokens: 10 },
      { ok: false, ttftMs: null, latencyMs: 1, completionTokens: 0 },
    ],
    1000,
    1,
  );

  it('scores the suite: pass rate from case outcomes', () => {
    expect(scores.passRate).to.be.closeTo(2 / 3, 1e-12);
    expect(scores.passedCases).to.equal(2);
    expect(scores.totalCases).to.equal(3);
  });

  it('passes at the threshold and fails below it', () => {
    expect(decideEvaluation(scores, null, undefined)).to.deep.equal({ passed: true, reasons: [] });
    const strict = { ...scores, passThreshold: 0.7 };
    const decision = decideEvaluation(strict, null, undefined);
    expect(decision.passed).to.equal(false);
    expect(decision.reasons).to.deep.equal(['pass rate 0.667 < threshold 0.700 (2/3 cases)']);
  });

  it('applies every SLO the profile sets, and fails a benchmark without a single success', () => {
    const decision = decideEvaluation(scores, metrics, {
      maxErrorRate: 0.1,
      maxTtftP95Ms: 50,
      minTokensPerSecond: 20,
    });
    expect(decision.passed).to.equal(false);
    expect(decision.reasons).to.have.length(3);
    expect(
      decideEvaluation(scores, metrics, { maxErrorRate: 0.5, maxTtftP95Ms: 100, minTokensPerSecond: 10 })
        .passed,
    ).to.equal(true);
    const allFailed = benchmarkMetrics(
      [{ ok: false, ttftMs: null, latencyMs: 1, completionTokens: 0 }],
      10,
      1,
    );
    expect(decideEvaluation(scores, allFailed, undefined).reasons).to.deep.equal([
      'benchmark: all 1 requests failed',
    ]);
  });

  it('summarises for the model version: the numbers rollouts and the deploy policy read', () => {
    expect(summaryScores(scores, metrics)).to.deep.equal({
      passRate: scores.passRate,
      ttftP50Ms: 100,
      ttftP95Ms: 100,
      ttftP99Ms: 100,
      tokensPerSecond: 10,
      errorRate: 0.5,
      benchmarkRequests: 2,
    });
    expect(summaryScores(scores, null)).to.deep.equal({ passRate: scores.passRate });
  });
});

describe('benchmark regressions against a baseline', () => {
  const baseline = { passRate: 0.8, ttftP95Ms: 100, tokensPerSecond: 1000, errorRate: 0 };
  const limits = DEFAULT_REGRESSION_THRESHOLDS;

  it('flags nothing for the same figures or better ones', () => {
    expect(findRegressions(baseline, baseline, limits)).to.deep.equal([]);
    expect(
      findRegressions(
        baseline,
        { passRate: 0.9, ttftP95Ms: 50, tokensPerSecond: 2000, errorRate: 0 },
        limits,
      ),
    ).to.deep.equal([]);
  });

  it('flags each documented limit just past it, and not at it', () => {
    const at = { passRate: 0.8, ttftP95Ms: 120, tokensPerSecond: 800, errorRate: 0.01 };
    expect(findRegressions(baseline, at, limits)).to.deep.equal([]);
    const past = { passRate: 0.75, ttftP95Ms: 120.5, tokensPerSecond: 799, errorRate: 0.0101 };
    expect(findRegressions(baseline, past, limits).map((r) => r.metric)).to.deep.equal([
      'ttftP95',
      'tokensPerSecond',
      'errorRate',
      'passRate',
    ]);
  });

  it('uses the slack for small latencies', () => {
    const tiny = { ...baseline, ttftP95Ms: 2 };
    expect(findRegressions(tiny, { ...tiny, ttftP95Ms: 6.9 }, limits)).to.deep.equal([]);
    expect(findRegressions(tiny, { ...tiny, ttftP95Ms: 7.1 }, limits).map((r) => r.metric)).to.deep.equal([
      'ttftP95',
    ]);
  });

  it('does not compare missing figures', () => {
    const empty = { passRate: null, ttftP95Ms: null, tokensPerSecond: null, errorRate: null };
    expect(findRegressions(baseline, empty, limits)).to.deep.equal([]);
    expect(findRegressions(empty, baseline, limits)).to.deep.equal([]);
  });
});
