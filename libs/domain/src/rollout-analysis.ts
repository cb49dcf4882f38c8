import type { AnalysisVerdict, RolloutThresholds, TrafficWindowStats } from '@lunanexa/contracts';

/**
 * The judgement of one canary analysis window: canary against stable on
 * error rate, p95 latency and evaluation score. Pure and deterministic —
 * the same statistics always give the same verdict and the same reasons, so
 * two runs of the same scenario write the same receipts.
 *
 * - `insufficient`: the canary sample (the first `samplesPerStep` canary
 *   requests of the step) is not complete yet; the step is observed for
 *   another window rather than judged on less evidence.
 * - `breach`: any criterion exceeded; the rollout rolls back.
 * - `pass`: all criteria held.
 *
 * Without a stable deployment (an alias's first rollout) the error-rate
 * criterion compares against zero and the latency criterion is skipped.
 */

export interface CanaryAnalysisInput {
  readonly canary: TrafficWindowStats;
  readonly stable: TrafficWindowStats | null;
  readonly canaryEvaluationScore: number | null;
  readonly stableEvaluationScore: number | null;
  /** The sample size a step is judged on. */
  readonly samples: number;
  readonly thresholds: RolloutThresholds;
}

export interface CanaryAnalysisResult {
  readonly verdict: AnalysisVerdict;
  readonly reasons: readonly string[];
}

const fixed = (value: number, digits = 3): string => value.toFixed(digits);

export function analyzeCanary(input: CanaryAnalysisInput): CanaryAnalysisResult {
  const { canary, stable, thresholds } = input;
  const reasons: string[] = [];

  const stableErrorRate = stable?.errorRate ?? 0;
  if (canary.errorRate > stableErrorRate + thresholds.maxErrorRateIncrease) {
    reasons.push(
      `error rate ${fixed(canary.errorRate)} > stable ${fixed(stableErrorRate)} + ${fixed(thresholds.maxErrorRateIncrease)}`,
    );
  }

  if (stable !== null && canary.p95LatencyMs !== null && stable.p95LatencyMs !== null) {
    const limit = Math.max(
      stable.p95LatencyMs * thresholds.maxP95LatencyRatio,
      stable.p95LatencyMs + thresholds.p95SlackMs,
    );
    if (canary.p95LatencyMs > limit) {
      reasons.push(
        `p95 latency ${fixed(canary.p95LatencyMs, 1)} ms > ${fixed(limit, 1)} ms (stable ${fixed(stable.p95LatencyMs, 1)} ms × ${thresholds.maxP95LatencyRatio}, slack ${thresholds.p95SlackMs} ms)`,
      );
    }
  }

  if (input.canaryEvaluationScore !== null && input.stableEvaluationScore !== null) {
    const floor = input.stableEvaluationScore - thresholds.maxEvaluationScoreDrop;
    if (input.canaryEvaluationScore < floor) {
      reasons.push(
        `evaluation score ${fixed(input.canaryEvaluationScore)} < stable ${fixed(input.stableEvaluationScore)} − ${fixed(thresholds.maxEvaluationScoreDrop)}`,
      );
    }
  }

  // A fixed sample, judged once complete: stopping early on the first bad or
  // good streak ("peeking") inflates false verdicts in both directions.
  if (canary.requests < input.samples) {
    return {
      verdict: 'insufficient',
      reasons: [`${canary.requests} of ${input.samples} canary requests sampled`],
    };
  }
  return reasons.length > 0 ? { verdict: 'breach', reasons } : { verdict: 'pass', reasons: [] };
}

/** Error rate with the conventions the analysis uses (0 without requests). */
export function windowStats(
  requests: number,
  errors: number,
  p95LatencyMs: number | null,
): TrafficWindowStats {
  return { requests, errors, errorRate: requests === 0 ? 0 : errors / requests, p95LatencyMs };
}
