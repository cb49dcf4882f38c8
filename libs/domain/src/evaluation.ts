import type {
  BenchmarkMetrics,
  BenchmarkSlo,
  CaseOutcome,
  EvaluationCase,
  EvaluationMessage,
  EvaluationScores,
  Grader,
  Percentiles,
  RegressionThresholds,
} from '@lunanexa/contracts';

/**
 * The pure half of evaluation: graders, the metric arithmetic of a benchmark,
 * the pass decision and the comparison of two versions on one profile. No
 * I/O and no JSON Schema engine here (workflows import this library): the
 * json-schema grader takes its validator as a function, which the activities
 * build with ajv.
 */

export interface GradeResult {
  readonly passed: boolean;
  /** Null when passed; otherwise a short reason an operator can act on. */
  readonly reason: string | null;
}

/** Validates a parsed JSON value against the case's schema; returns the first problem or null. */
export type JsonSchemaCheck = (value: unknown) => string | null;

const pass: GradeResult = { passed: true, reason: null };
const fail = (reason: string): GradeResult => ({ passed: false, reason: reason.slice(0, 1024) });

/** Quoted and shortened for a reason string. */
function quote(text: string, max = 80): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/**
 * Regex patterns run in unicode mode always (what the contract validated),
 * plus the suite's flags. Built per call: patterns are bounded and outputs are
 * bounded by max_tokens, and a RegExp must never carry state between cases.
 */
export function graderRegExp(pattern: string, flags = ''): RegExp {
  return new RegExp(pattern, flags.includes('u') ? flags : `${flags}u`);
}

/**
 * Models often wrap JSON in a Markdown fence; the grader judges the JSON, not
 * the fence. Anything else around it is a failure (an answer is JSON or not).
 */
export function extractJson(output: string): string {
  const trimmed = output.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/u.exec(trimmed);
  return fenced?.[1]?.trim() ?? trimmed;
}

export function grade(grader: Grader, output: string, jsonSchemaCheck?: JsonSchemaCheck): GradeResult {
  switch (grader.kind) {
    case 'exact': {
      const trim = grader.trim ?? true;
      let actual = trim ? output.trim() : output;
      let expected = trim ? grader.expected.trim() : grader.expected;
      if (grader.ignoreCase === true) {
        actual = actual.toLowerCase();
        expected = expected.toLowerCase();
      }
      return actual === expected ? pass : fail(`expected ${quote(expected)}, got ${quote(actual)}`);
    }
    case 'contains': {
      const haystack = grader.ignoreCase === true ? output.toLowerCase() : output;
      const needle = grader.ignoreCase === true ? grader.substring.toLowerCase() : grader.substring;
      return haystack.includes(needle) ? pass : fail(`does not contain ${quote(grader.substring)}`);
    }
    case 'regex':
      return graderRegExp(grader.pattern, grader.flags).test(output)
        ? pass
        : fail(`does not match /${grader.pattern}/${grader.flags ?? ''}`);
    case 'json-schema': {
      let value: unknown;
      try {
        value = JSON.parse(extractJson(output));
      } catch {
        return fail(`not JSON: ${quote(output, 40)}`);
      }
      if (!jsonSchemaCheck) throw new Error('json-schema grader needs a schema check');
      const problem = jsonSchemaCheck(value);
      return problem === null ? pass : fail(`does not match the schema: ${problem}`);
    }
  }
}

/** The chat messages a case sends: its messages, or its prompt as one user message. */
export function caseMessages(testCase: EvaluationCase): EvaluationMessage[] {
  if (testCase.messages) return [...testCase.messages];
  return [{ role: 'user', content: testCase.prompt ?? '' }];
}

/**
 * Percentile by linear interpolation between the two closest ranks — the
 * method of PostgreSQL's `percentile_cont` (and NumPy's default), so a
 * benchmark's p95 and the traffic view's p95 of the same samples agree.
 * rank = p·(n−1) over the sorted samples; null for no samples.
 */
export function percentile(samples: readonly number[], p: number): number | null {
  if (p < 0 || p > 1 || Number.isNaN(p)) throw new RangeError(`percentile must be in [0, 1], got ${p}`);
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = p * (sorted.length - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  const low = sorted[lower] ?? 0;
  const high = sorted[upper] ?? low;
  return low + (high - low) * (rank - lower);
}

export function percentiles(samples: readonly number[]): Percentiles | null {
  if (samples.length === 0) return null;
  return {
    p50: percentile(samples, 0.5) ?? 0,
    p95: percentile(samples, 0.95) ?? 0,
    p99: percentile(samples, 0.99) ?? 0,
  };
}

/** One benchmark request as the load generator saw it. Times in milliseconds from the request's start. */
export interface RequestSample {
  readonly ok: boolean;
  /** First content token; null when none arrived. */
  readonly ttftMs: number | null;
  readonly latencyMs: number;
  readonly completionTokens: number;
}

/** Decode speed of one request: tokens after the first over the time after the first; null when undefined. */
export function requestTokensPerSecond(sample: RequestSample): number | null {
  if (!sample.ok || sample.ttftMs === null || sample.completionTokens < 2) return null;
  const decodeMs = sample.latencyMs - sample.ttftMs;
  return decodeMs > 0 ? ((sample.completionTokens - 1) * 1000) / decodeMs : null;
}

/**
 * The metrics of a benchmark. Errors count against the error rate and are
 * left out of latency and token figures (a fast error is not a fast answer).
 * Throughput is tokens of successful requests per second of wall clock.
 */
export function benchmarkMetrics(
  samples: readonly RequestSample[],
  wallClockMs: number,
  concurrency: number,
): BenchmarkMetrics {
  const ok = samples.filter((s) => s.ok);
  const errors = samples.length - ok.length;
  const completionTokens = ok.reduce((sum, s) => sum + s.completionTokens, 0);
  const decode = ok.map(requestTokensPerSecond).filter((v): v is number => v !== null);
  return {
    requests: samples.length,
    errors,
    errorRate: errorRate(errors, samples.length),
    ttftMs: percentiles(ok.map((s) => s.ttftMs).filter((v): v is number => v !== null)),
    latencyMs: percentiles(ok.map((s) => s.latencyMs)),
    tokensPerSecond: wallClockMs > 0 ? (completionTokens * 1000) / wallClockMs : 0,
    perRequestTokensPerSecondP50: percentile(decode, 0.5),
    completionTokens,
    durationMs: wallClockMs,
    concurrency,
  };
}

/** errors ÷ requests; 0 for no requests (nothing failed). */
export function errorRate(errors: number, requests: number): number {
  return requests === 0 ? 0 : errors / requests;
}

export function suiteScores(outcomes: readonly CaseOutcome[], passThreshold: number): EvaluationScores {
  const passedCases = outcomes.filter((o) => o.passed).length;
  return {
    passRate: outcomes.length === 0 ? 0 : passedCases / outcomes.length,
    passedCases,
    totalCases: Math.max(outcomes.length, 1),
    passThreshold,
    cases: [...outcomes],
  };
}

export interface EvaluationDecision {
  readonly passed: boolean;
  /** Every unmet criterion, in a fixed order; empty when passed. */
  readonly reasons: readonly string[];
}

/**
 * Passes when the suite's pass rate reaches its threshold and the benchmark
 * (when one ran) meets every SLO its profile sets. A benchmark without a
 * single successful request fails whatever the SLOs say: there is nothing
 * to vouch for.
 */
export function decideEvaluation(
  scores: EvaluationScores,
  metrics: BenchmarkMetrics | null,
  slo: BenchmarkSlo | undefined,
): EvaluationDecision {
  const reasons: string[] = [];
  if (scores.passRate < scores.passThreshold) {
    reasons.push(
      `pass rate ${scores.passRate.toFixed(3)} < threshold ${scores.passThreshold.toFixed(3)} (${scores.passedCases}/${scores.totalCases} cases)`,
    );
  }
  if (metrics !== null) {
    if (metrics.requests > 0 && metrics.errors === metrics.requests) {
      reasons.push(`benchmark: all ${metrics.requests} requests failed`);
    }
    if (slo?.maxErrorRate !== undefined && metrics.errorRate > slo.maxErrorRate) {
      reasons.push(`error rate ${metrics.errorRate.toFixed(4)} > ${slo.maxErrorRate}`);
    }
    if (
      slo?.maxTtftP95Ms !== undefined &&
      (metrics.ttftMs === null || metrics.ttftMs.p95 > slo.maxTtftP95Ms)
    ) {
      reasons.push(`p95 TTFT ${metrics.ttftMs?.p95.toFixed(1) ?? 'n/a'} ms > ${slo.maxTtftP95Ms} ms`);
    }
    if (slo?.minTokensPerSecond !== undefined && metrics.tokensPerSecond < slo.minTokensPerSecond) {
      reasons.push(`throughput ${metrics.tokensPerSecond.toFixed(1)} tokens/s < ${slo.minTokensPerSecond}`);
    }
  }
  return { passed: reasons.length === 0, reasons };
}

/**
 * The numbers of a model version's `evaluation.scores` (EvaluationSummary):
 * what rollouts and the deploy policy read (`passRate`) and the headline
 * benchmark figures. Absent figures are left out (the record holds numbers only).
 */
export function summaryScores(
  scores: EvaluationScores | null,
  metrics: BenchmarkMetrics | null,
): Record<string, number> {
  const out: Record<string, number> = {};
  if (scores) out['passRate'] = scores.passRate;
  if (metrics) {
    if (metrics.ttftMs) {
      out['ttftP50Ms'] = round(metrics.ttftMs.p50);
      out['ttftP95Ms'] = round(metrics.ttftMs.p95);
      out['ttftP99Ms'] = round(metrics.ttftMs.p99);
    }
    out['tokensPerSecond'] = round(metrics.tokensPerSecond);
    out['errorRate'] = metrics.errorRate;
    out['benchmarkRequests'] = metrics.requests;
  }
  return out;
}

const round = (value: number): number => Math.round(value * 1000) / 1000;

/** One version's figures on a profile, as a comparison lines them up. */
export interface ComparableRun {
  readonly passRate: number | null;
  readonly ttftP95Ms: number | null;
  readonly tokensPerSecond: number | null;
  readonly errorRate: number | null;
}

export type RegressionMetric = 'ttftP95' | 'tokensPerSecond' | 'errorRate' | 'passRate';

export interface Regression {
  readonly metric: RegressionMetric;
  readonly baseline: number;
  readonly candidate: number;
  readonly reason: string;
}

/**
 * Regressions of `candidate` against `baseline`. A figure missing on either
 * side is not compared (no evidence is not a regression, and not an
 * improvement either; the comparison shows it as missing).
 */
export function findRegressions(
  baseline: ComparableRun,
  candidate: ComparableRun,
  limits: RegressionThresholds,
): Regression[] {
  const out: Regression[] = [];
  const both = (a: number | null, b: number | null): [number, number] | null =>
    a === null || b === null ? null : [a, b];
  const ttft = both(baseline.ttftP95Ms, candidate.ttftP95Ms);
  if (ttft) {
    const [base, cand] = ttft;
    const limit = Math.max(base * (1 + limits.maxTtftP95Increase), base + limits.ttftSlackMs);
    if (cand > limit) {
      out.push({
        metric: 'ttftP95',
        baseline: base,
        candidate: cand,
        reason: `p95 TTFT ${cand.toFixed(1)} ms > ${limit.toFixed(1)} ms (baseline ${base.toFixed(1)} ms +${(limits.maxTtftP95Increase * 100).toFixed(0)} %)`,
      });
    }
  }
  const tps = both(baseline.tokensPerSecond, candidate.tokensPerSecond);
  if (tps) {
    const [base, cand] = tps;
    const floor = base * (1 - limits.maxTokensPerSecondDrop);
    if (cand < floor) {
      out.push({
        metric: 'tokensPerSecond',
        baseline: base,
        candidate: cand,
        reason: `throughput ${cand.toFixed(1)} tokens/s < ${floor.toFixed(1)} (baseline ${base.toFixed(1)} −${(limits.maxTokensPerSecondDrop * 100).toFixed(0)} %)`,
      });
    }
  }
  const errors = both(baseline.errorRate, candidate.errorRate);
  if (errors) {
    const [base, cand] = errors;
    if (cand > base + limits.maxErrorRateIncrease) {
      out.push({
        metric: 'errorRate',
        baseline: base,
        candidate: cand,
        reason: `error rate ${cand.toFixed(4)} > baseline ${base.toFixed(4)} + ${limits.maxErrorRateIncrease}`,
      });
    }
  }
  const passRates = both(baseline.passRate, candidate.passRate);
  if (passRates) {
    const [base, cand] = passRates;
    // A tolerance of rounding only: pass rates are ratios of whole case counts.
    if (cand < base - limits.maxPassRateDrop - 1e-9) {
      out.push({
        metric: 'passRate',
        baseline: base,
        candidate: cand,
        reason: `pass rate ${cand.toFixed(3)} < baseline ${base.toFixed(3)} − ${limits.maxPassRateDrop}`,
      });
    }
  }
  return out;
}

/**
 * A deterministic prompt of `words` words for benchmark request `index`:
 * the same profile sends the same prompts to every version it measures, and
 * consecutive requests differ so no prefix cache makes later ones free.
 */
export function benchmarkPrompt(words: number, index: number): string {
  const out: string[] = [`Request ${index}:`];
  for (let i = 1; i < words; i++)
    out.push(BENCHMARK_WORDS[(i * 7 + index * 13) % BENCHMARK_WORDS.length] ?? 'load');
  return out.join(' ');
}

const BENCHMARK_WORDS = [
  'describe',
  'the',
  'fleet',
  'of',
  'nodes',
  'serving',
  'models',
  'under',
  'steady',
  'load',
  'and',
  'explain',
  'how',
  'requests',
  'reach',
  'replicas',
  'through',
  'a',
  'gateway',
  'with',
  'care',
  'for',
  'latency',
  'budgets',
] as const;
