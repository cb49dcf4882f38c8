import { expect } from 'chai';
import type { SaturationStep } from '@lunanexa/contracts';
import {
  capacityRecommendation,
  coldStartResult,
  continueSaturation,
  interTokenGaps,
  loadFigures,
  longStreamResult,
  queueDepth,
  saturationResult,
  sloBreach,
  type StreamSample,
} from '../src';

const ok = (ttftMs: number, latencyMs: number, completionTokens = 10): StreamSample => ({
  ok: true,
  ttftMs,
  latencyMs,
  completionTokens,
});
const failed: StreamSample = { ok: false, ttftMs: null, latencyMs: 5, completionTokens: 0 };

function step(concurrency: number, requestsPerSecond: number, breach: string | null): SaturationStep {
  return {
    concurrency,
    requests: 10,
    errors: 0,
    errorRate: 0,
    ttftMs: { p50: 10, p95: 20, p99: 30 },
    latencyMs: { p50: 100, p95: 200, p99: 300 },
    requestsPerSecond,
    tokensPerSecond: requestsPerSecond * 10,
    queueDepth: null,
    durationMs: 1000,
    breach,
  };
}

describe('benchmark runs: load figures', () => {
  it('counts requests, errors and rates; errors stay out of latencies and tokens', () => {
    const figures = loadFigures([ok(10, 100), ok(30, 300), failed, ok(20, 200)], 2000, 2, [0, 2, 4]);
    expect(figures.requests).to.equal(4);
    expect(figures.errors).to.equal(1);
    expect(figures.errorRate).to.equal(0.25);
    expect(figures.ttftMs?.p50).to.equal(20);
    expect(figures.latencyMs?.p95).to.be.closeTo(290, 1e-9);
    expect(figures.requestsPerSecond).to.equal(1.5);
    expect(figures.tokensPerSecond).to.equal(15);
    expect(figures.queueDepth).to.deep.equal({ max: 4, mean: 2, samples: 3 });
    expect(figures.concurrency).to.equal(2);
  });

  it('reports no queue depth when no runtime reported one (not zero)', () => {
    expect(queueDepth([])).to.equal(null);
    expect(loadFigures([ok(1, 2)], 10, 1, []).queueDepth).to.equal(null);
  });
});

describe('benchmark runs: where saturation breaks', () => {
  const slo = { maxErrorRate: 0.01, maxTtftP95Ms: 100 };

  it('finds no breach within the SLO, and none at all without limits', () => {
    const figures = loadFigures([ok(50, 100), ok(60, 120)], 1000, 1, []);
    expect(sloBreach(figures, slo)).to.equal(null);
    expect(sloBreach(figures, undefined)).to.equal(null);
  });

  it('breaks on p95 TTFT above the limit', () => {
    const figures = loadFigures([ok(50, 100), ok(500, 900)], 1000, 4, []);
    expect(sloBreach(figures, slo)).to.match(/^p95 TTFT 477\.5 ms > 100 ms$/);
  });

  it('breaks on the error rate, and when every request failed even without limits', () => {
    const some = loadFigures([ok(10, 20), failed], 1000, 2, []);
    expect(sloBreach(some, slo)).to.equal('error rate 0.5000 > 0.01');
    const none = loadFigures([failed, failed], 1000, 2, []);
    expect(sloBreach(none, undefined)).to.equal('all 2 requests failed');
    expect(sloBreach(none, slo)).to.contain('p95 TTFT n/a ms > 100 ms');
  });

  it('continues the sweep while the last step held and steps remain', () => {
    expect(continueSaturation([], 3)).to.equal(true);
    expect(continueSaturation([step(1, 5, null)], 3)).to.equal(true);
    expect(continueSaturation([step(1, 5, null), step(2, 9, 'slow')], 3)).to.equal(false);
    expect(continueSaturation([step(1, 5, null), step(2, 9, null), step(4, 12, null)], 3)).to.equal(false);
  });

  it('takes the last step before the first breach as sustainable, per replica', () => {
    const result = saturationResult([step(1, 5, null), step(2, 9, null), step(4, 10, 'slow')], 2);
    expect(result.brokeAtConcurrency).to.equal(4);
    expect(result.sustainableConcurrency).to.equal(2);
    expect(result.perReplicaRequestsPerSecond).to.equal(4.5);
  });

  it('ignores a step after the first breach, and says nothing is sustainable when the first step broke', () => {
    const result = saturationResult([step(1, 5, null), step(2, 9, 'slow'), step(4, 20, null)], 1);
    expect(result.sustainableConcurrency).to.equal(1);
    const broken = saturationResult([step(1, 5, 'errors')], 1);
    expect(broken.brokeAtConcurrency).to.equal(1);
    expect(broken.sustainableConcurrency).to.equal(null);
    expect(broken.perReplicaRequestsPerSecond).to.equal(null);
    const unbroken = saturationResult([step(1, 5, null), step(2, 8, null)], 1);
    expect(unbroken.brokeAtConcurrency).to.equal(null);
    expect(unbroken.perReplicaRequestsPerSecond).to.equal(8);
    expect(() => saturationResult([], 0)).to.throw(RangeError);
  });
});

describe('benchmark runs: long streams', () => {
  it('measures gaps between consecutive tokens of successful requests only', () => {
    const samples: StreamSample[] = [
      { ...ok(10, 40, 4), tokenTimesMs: [10, 20, 30, 40] },
      { ...ok(10, 110, 3), tokenTimesMs: [10, 60, 110] },
      { ...failed, tokenTimesMs: [1, 1000] },
    ];
    expect(interTokenGaps(samples)).to.deep.equal([10, 10, 10, 50, 50]);
    const result = longStreamResult(samples, 200, 2, [1]);
    expect(result.interTokenGapMs?.p50).to.equal(10);
    expect(result.interTokenGapMs?.p99).to.be.closeTo(50, 1e-9);
    expect(result.completionTokensP50).to.equal(3.5);
    expect(result.errors).to.equal(1);
  });
});

describe('benchmark runs: cold starts', () => {
  const sample = (ms: number | null, ready: number | null = ms === null ? null : ms - 10) => ({
    deploymentId: `dep-${ms ?? 'x'}`,
    ok: ms !== null,
    deployToReadyMs: ready,
    deployToFirstTokenMs: ms,
    error: ms === null ? 'no replica was Ready within 60 s' : null,
  });

  it('takes percentiles over the repeats that streamed a token and counts the others as failures', () => {
    const result = coldStartResult([sample(1_000), sample(3_000), sample(null), sample(2_000)]);
    expect(result.repeats).to.equal(4);
    expect(result.failures).to.equal(1);
    expect(result.deployToFirstTokenMs?.p50).to.equal(2_000);
    expect(result.deployToFirstTokenMs?.p99).to.be.closeTo(2_980, 1e-9);
    expect(result.deployToReadyMs?.p50).to.equal(1_990);
    expect(result.samples).to.have.length(4);
  });

  it('has no percentiles when every repeat failed (a timeout is not a time)', () => {
    const result = coldStartResult([sample(null), sample(null)]);
    expect(result.failures).to.equal(2);
    expect(result.deployToFirstTokenMs).to.equal(null);
    expect(result.deployToReadyMs).to.equal(null);
  });
});

describe('capacity recommendations', () => {
  it('needs ceil(peak / per-replica) replicas and reports headroom and the loss of the busiest node', () => {
    const r = capacityRecommendation({
      targetTtftP95Ms: 200,
      perReplicaRequestsPerSecond: 4,
      peakRequestsPerSecond: 10,
      replicasByNode: { 'node-b': 2, 'node-a': 1 },
    });
    expect(r.currentReplicas).to.equal(3);
    expect(r.replicasNeeded).to.equal(3);
    expect(r.capacityRequestsPerSecond).to.equal(12);
    expect(r.headroom).to.be.closeTo(2 / 12, 1e-12);
    expect(r.largestNode).to.equal('node-b');
    expect(r.capacityAfterNodeLoss).to.equal(4);
    expect(r.nodeLossMargin).to.be.closeTo(-0.6, 1e-12);
    expect(r.survivesNodeLoss).to.equal(false);
    expect(r.missing).to.deep.equal([]);
  });

  it('needs exactly peak / capacity when it divides, at least one, and breaks node ties by id', () => {
    const r = capacityRecommendation({
      targetTtftP95Ms: null,
      perReplicaRequestsPerSecond: 2.5,
      peakRequestsPerSecond: 10,
      replicasByNode: { 'node-b': 3, 'node-a': 3 },
    });
    expect(r.replicasNeeded).to.equal(4);
    expect(r.largestNode).to.equal('node-a');
    expect(r.survivesNodeLoss).to.equal(false);
    const idle = capacityRecommendation({
      targetTtftP95Ms: null,
      perReplicaRequestsPerSecond: 2.5,
      peakRequestsPerSecond: 0.01,
      replicasByNode: { n: 2 },
    });
    expect(idle.replicasNeeded).to.equal(1);
    expect(idle.survivesNodeLoss).to.equal(false);
  });

  it('says what is missing instead of inventing numbers', () => {
    const noBench = capacityRecommendation({
      targetTtftP95Ms: 200,
      perReplicaRequestsPerSecond: null,
      peakRequestsPerSecond: 10,
      replicasByNode: { n: 2 },
    });
    expect(noBench.replicasNeeded).to.equal(null);
    expect(noBench.headroom).to.equal(null);
    expect(noBench.capacityAfterNodeLoss).to.equal(null);
    expect(noBench.currentReplicas).to.equal(2);
    expect(noBench.missing).to.deep.equal(['no saturation benchmark of the serving deployment']);
    const noTraffic = capacityRecommendation({
      targetTtftP95Ms: 200,
      perReplicaRequestsPerSecond: 3,
      peakRequestsPerSecond: null,
      replicasByNode: {},
    });
    expect(noTraffic.replicasNeeded).to.equal(null);
    expect(noTraffic.capacityRequestsPerSecond).to.equal(0);
    expect(noTraffic.headroom).to.equal(null);
    expect(noTraffic.missing).to.deep.equal(['no traffic observed in the window', 'no serving replica']);
    const nothingSustained = capacityRecommendation({
      targetTtftP95Ms: 200,
      perReplicaRequestsPerSecond: 0,
      peakRequestsPerSecond: 1,
      replicasByNode: { n: 1 },
    });
    expect(nothingSustained.replicasNeeded).to.equal(null);
    expect(nothingSustained.missing[0]).to.match(/sustained no load/);
  });
});
