import { expect } from 'chai';
import { DEFAULT_ROLLOUT_PLAN, RolloutPlanSchema } from '@lunanexa/contracts';
import { analyzeCanary, windowStats } from '../src/rollout-analysis';

describe('canary analysis', () => {
  const thresholds = DEFAULT_ROLLOUT_PLAN.thresholds;
  const base = { canaryEvaluationScore: null, stableEvaluationScore: null, samples: 20, thresholds };

  it('passes a canary that matches stable', () => {
    const result = analyzeCanary({
      ...base,
      canary: windowStats(20, 0, 40),
      stable: windowStats(180, 0, 38),
    });
    expect(result).to.deep.equal({ verdict: 'pass', reasons: [] });
  });

  it('breaches at a 20 % canary error rate against a clean stable, naming the criterion', () => {
    const result = analyzeCanary({
      ...base,
      canary: windowStats(20, 4, 40),
      stable: windowStats(180, 0, 38),
    });
    expect(result.verdict).to.equal('breach');
    expect(result.reasons).to.deep.equal(['error rate 0.200 > stable 0.000 + 0.050']);
  });

  it('tolerates an error rate within the allowed increase', () => {
    const result = analyzeCanary({
      ...base,
      canary: windowStats(20, 1, 40),
      stable: windowStats(100, 1, 38),
    });
    expect(result.verdict).to.equal('pass');
  });

  it('breaches on p95 latency beyond ratio and slack, but not on noise below the slack', () => {
    const slow = analyzeCanary({
      ...base,
      canary: windowStats(20, 0, 400),
      stable: windowStats(100, 0, 100),
    });
    expect(slow.verdict).to.equal('breach');
    expect(slow.reasons[0]).to.match(/^p95 latency 400\.0 ms > 150\.0 ms/);
    const noise = analyzeCanary({ ...base, canary: windowStats(20, 0, 30), stable: windowStats(100, 0, 10) });
    expect(noise.verdict).to.equal('pass');
  });

  it('breaches when the evaluation score drops more than allowed', () => {
    const result = analyzeCanary({
      ...base,
      canary: windowStats(20, 0, 40),
      stable: windowStats(100, 0, 40),
      canaryEvaluationScore: 0.8,
      stableEvaluationScore: 0.9,
    });
    expect(result.verdict).to.equal('breach');
    expect(result.reasons).to.deep.equal(['evaluation score 0.800 < stable 0.900 − 0.050']);
  });

  it('does not judge an incomplete sample, whatever it shows so far', () => {
    const result = analyzeCanary({ ...base, canary: windowStats(5, 5, 40), stable: windowStats(100, 0, 40) });
    expect(result).to.deep.equal({ verdict: 'insufficient', reasons: ['5 of 20 canary requests sampled'] });
  });

  it('compares a first rollout against zero errors and skips latency', () => {
    expect(analyzeCanary({ ...base, canary: windowStats(20, 0, 900), stable: null }).verdict).to.equal(
      'pass',
    );
    expect(analyzeCanary({ ...base, canary: windowStats(20, 2, 40), stable: null }).verdict).to.equal(
      'breach',
    );
  });
});

describe('rollout plan', () => {
  it('accepts the default plan and refuses steps that do not climb to 100', () => {
    expect(RolloutPlanSchema.safeParse(DEFAULT_ROLLOUT_PLAN).success).to.equal(true);
    for (const steps of [[10, 50], [50, 10, 100], [10, 10, 100], [], [0, 100], [10, 101]]) {
      expect(
        RolloutPlanSchema.safeParse({ ...DEFAULT_ROLLOUT_PLAN, steps }).success,
        JSON.stringify(steps),
      ).to.equal(false);
    }
  });
});
