import './support/contract-modules';

import { expect } from 'chai';

import {
  METRIC_COLUMNS,
  capacityRow,
  coldStartChart,
  coldStartSummary,
  gapChart,
  loadRow,
  metricCell,
  saturationChart,
  runProgress,
  saturationSummary,
  startPlan,
  stepRows,
} from '../src/app/pages/benchmarks/benchmark-rules';
import type {
  BenchmarkRun,
  CapacityRecommendation,
  SaturationStep,
} from '../src/app/pages/benchmarks/benchmarks.queries';

type Entry = Parameters<typeof metricCell>[0];

const entry = (overrides: Partial<Entry> = {}): Entry =>
  ({
    modelRef: 'chat@2',
    modelVersionId: 'mv-2',
    baseline: false,
    passRate: 0.9,
    ttftP50Ms: 80.4,
    ttftP95Ms: 140.6,
    ttftP99Ms: null,
    tokensPerSecond: 41.7,
    errorRate: 0.0125,
    sameSuiteAsBaseline: true,
    regressed: true,
    regressions: [
      {
        metric: 'ttftP95',
        reason: 'p95 TTFT 141 ms is 40 % above the baseline',
        baseline: 100,
        candidate: 140.6,
      },
    ],
    ...overrides,
  }) as Entry;

const column = (key: string) => {
  const found = METRIC_COLUMNS.find((candidate) => candidate.key === key);
  if (found === undefined) throw new Error(`no column ${key}`);
  return found;
};

describe('console benchmark rules', () => {
  it('formats each figure for its column, a dash when there is none', () => {
    expect(metricCell(entry(), column('ttftP50Ms')).text).to.equal('80 ms');
    expect(metricCell(entry(), column('ttftP99Ms')).text).to.equal('—');
    expect(metricCell(entry(), column('tokensPerSecond')).text).to.equal('42');
    expect(metricCell(entry(), column('errorRate')).text).to.equal('1.3 %');
    expect(metricCell(entry(), column('passRate')).text).to.equal('90.0 %');
  });

  it('carries the regression reason only on the figure that regressed', () => {
    expect(metricCell(entry(), column('ttftP95Ms')).regression).to.equal(
      'p95 TTFT 141 ms is 40 % above the baseline',
    );
    expect(metricCell(entry(), column('tokensPerSecond')).regression).to.equal(undefined);
    // p50 carries no regression metric: the API never flags it.
    const p50 = entry({
      regressions: [{ metric: 'ttftP95', reason: 'slow', baseline: 100, candidate: 140 }],
    });
    expect(metricCell(p50, column('ttftP50Ms')).regression).to.equal(undefined);
  });
});

const step = (concurrency: number, rps: number, p95: number, breach: string | null): SaturationStep => ({
  concurrency,
  requests: 20,
  errors: 0,
  errorRate: 0,
  ttftMs: { p50: p95 / 2, p95, p99: p95 + 10 },
  latencyMs: { p50: 200, p95: 300, p99: 400 },
  requestsPerSecond: rps,
  tokensPerSecond: rps * 10,
  queueDepth: concurrency > 4 ? { max: 3, mean: 1.25 } : null,
  durationMs: 1000,
  breach,
});

const run = (overrides: Partial<BenchmarkRun> = {}): BenchmarkRun => ({
  id: 'bench-1',
  deploymentId: 'dep-1',
  modelRef: 'chat@1',
  profile: 'short',
  sloTtftP95Ms: 180,
  sloMaxErrorRate: 0.01,
  state: 'Succeeded',
  kinds: ['saturation', 'longStream'],
  errorCode: null,
  error: null,
  createdAt: '2026-12-06T12:00:00.000Z',
  finishedAt: '2026-12-06T12:01:00.000Z',
  saturation: {
    replicas: 2,
    brokeAtConcurrency: 8,
    sustainableConcurrency: 4,
    perReplicaRequestsPerSecond: 9,
    steps: [step(2, 10, 110, null), step(4, 18, 120, null), step(8, 19, 250, 'p95 TTFT 250.0 ms > 180 ms')],
  },
  longStream: {
    ...step(2, 1, 100, null),
    interTokenGapMs: { p50: 1, p95: 2.5, p99: 7 },
    completionTokensP50: 2000,
  },
  mixed: null,
  coldStart: null,
  ...overrides,
});

const capacity = (overrides: Partial<CapacityRecommendation> = {}): CapacityRecommendation => ({
  alias: 'chat',
  deploymentId: 'dep-1',
  benchmarkRunId: 'bench-1',
  targetTtftP95Ms: 180,
  perReplicaRequestsPerSecond: 4,
  peakRequestsPerSecond: 10,
  peakAt: '2026-12-06T10:00:00.000Z',
  windowHours: 24,
  currentReplicas: 3,
  replicasNeeded: 3,
  capacityRequestsPerSecond: 12,
  headroom: 2 / 12,
  largestNode: 'node-b',
  capacityAfterNodeLoss: 4,
  nodeLossMargin: -0.6,
  survivesNodeLoss: false,
  missing: [],
  ...overrides,
});

describe('console benchmark run rules', () => {
  it('draws the saturation curve by concurrency with the SLO as a dotted line', () => {
    const chart = saturationChart(run());
    expect(chart?.x).to.deep.equal([2, 4, 8]);
    expect(chart?.series.map((s) => s.label)).to.deep.equal(['Throughput', 'TTFT p95', 'SLO p95 TTFT']);
    expect(chart?.series[0]?.values).to.deep.equal([10, 18, 19]);
    expect(chart?.series[1]?.values).to.deep.equal([110, 120, 250]);
    expect(chart?.series[2]?.values).to.deep.equal([180, 180, 180]);
    expect(chart?.series[2]?.line).to.equal('dotted');
    expect(saturationChart(run({ sloTtftP95Ms: null }))?.series).to.have.length(2);
    expect(saturationChart(run({ saturation: null }))).to.equal(null);
  });

  it('words where the sweep held and broke, and a sweep still running', () => {
    expect(saturationSummary(run())).to.equal(
      'Held the SLO up to 4 concurrent: 9.00 req/s per replica (2 measured). Broke at 8 concurrent.',
    );
    const unbroken = run();
    expect(
      saturationSummary(
        run({ saturation: { ...unbroken.saturation!, brokeAtConcurrency: null, sustainableConcurrency: 8 } }),
      ),
    ).to.match(/No step broke it\.$/);
    expect(saturationSummary(run({ state: 'Running', saturation: null }))).to.equal('Sweep running…');
    expect(saturationSummary(run({ kinds: ['longStream'], saturation: null }))).to.equal(
      'No sweep in this run.',
    );
  });

  it('lists each step with its percentiles, queue and verdict; a queue not reported is said so', () => {
    const rows = stepRows(run());
    expect(rows.map((r) => r.label)).to.deep.equal(['2 concurrent', '4 concurrent', '8 concurrent']);
    expect(rows[0]?.ttft).to.equal('55 ms / 110 ms / 120 ms');
    expect(rows[0]?.queue).to.equal('not reported');
    expect(rows[2]?.queue).to.equal('3 max (1.3 mean)');
    expect(rows[2]?.verdict).to.equal('p95 TTFT 250.0 ms > 180 ms');
    expect(rows[1]?.verdict).to.equal('within SLO');
    expect(rows[0]?.errors).to.equal('0/20 (0.0 %)');
    expect(loadRow('x', { ...step(1, 1, 1, null), ttftMs: null }).ttft).to.equal('—');
  });

  it('charts the long stream gap percentiles, none without gaps', () => {
    const chart = gapChart(run().longStream!);
    expect(chart?.x).to.deep.equal([50, 95, 99]);
    expect(chart?.series[0]?.values).to.deep.equal([1, 2.5, 7]);
    expect(gapChart({ ...run().longStream!, interTokenGapMs: null })).to.equal(null);
  });

  it('words capacity, warns when short after a node loss, and shows missing data instead of numbers', () => {
    const row = capacityRow(capacity());
    expect(row).to.deep.include({
      alias: 'chat',
      needed: '3',
      current: '3',
      peak: '10.00 req/s',
      headroom: '+17 %',
      nodeLoss: 'short: 4.00 req/s left without node-b (-60 % of peak)',
      warn: true,
      missing: '',
    });
    expect(capacityRow(capacity({ survivesNodeLoss: true, nodeLossMargin: 0.2 })).warn).to.equal(false);
    const none = capacityRow(
      capacity({
        perReplicaRequestsPerSecond: null,
        replicasNeeded: null,
        capacityRequestsPerSecond: null,
        headroom: null,
        capacityAfterNodeLoss: null,
        nodeLossMargin: null,
        survivesNodeLoss: null,
        peakRequestsPerSecond: null,
        missing: ['no saturation benchmark of the serving deployment', 'no traffic observed in the window'],
      }),
    );
    expect(none).to.deep.include({ needed: '—', headroom: '—', nodeLoss: '—', peak: '—', warn: false });
    expect(none.missing).to.equal(
      'no saturation benchmark of the serving deployment; no traffic observed in the window',
    );
  });
});

describe('benchmark rules: cold starts and starting a run', () => {
  const cold = {
    repeats: 3,
    failures: 1,
    deployToFirstTokenMs: { p50: 1500, p95: 1950, p99: 1990 },
    deployToReadyMs: { p50: 1400, p95: 1850, p99: 1890 },
    samples: [
      { deploymentId: 'd1', ok: true, deployToReadyMs: 1000, deployToFirstTokenMs: 1100, error: null },
      { deploymentId: 'd2', ok: false, deployToReadyMs: null, deployToFirstTokenMs: null, error: 'timeout' },
      { deploymentId: 'd3', ok: true, deployToReadyMs: 1900, deployToFirstTokenMs: 2000, error: null },
    ],
  };

  it('charts each repeat, a failed one as a gap, and summarises the percentiles and failures', () => {
    const chart = coldStartChart(cold);
    expect(chart?.x).to.deep.equal([1, 2, 3]);
    expect(chart?.series[0]?.values).to.deep.equal([1100, null, 2000]);
    expect(coldStartSummary(run({ kinds: ['coldStart'], coldStart: cold }))).to.equal(
      'Deploy to first token p50 / p95 / p99: 1500 ms / 1950 ms / 1990 ms over 3 repeats (1 failed); deploy to Ready 1400 ms / 1850 ms / 1890 ms.',
    );
    expect(coldStartSummary(run({ state: 'Running', kinds: ['coldStart'] }))).to.equal(
      'Cold starts running…',
    );
    expect(coldStartChart({ ...cold, samples: [] })).to.equal(null);
  });

  it('plans only the kinds chosen, cold starts with the repeats given, and reports progress by kinds measured', () => {
    expect(startPlan(['coldStart'], 4)).to.deep.equal({
      coldStart: { repeats: 4, readyTimeoutSeconds: 900 },
    });
    expect(Object.keys(startPlan(['saturation', 'mixed'], 4))).to.deep.equal(['saturation', 'mixed']);
    expect(startPlan([], 4)).to.deep.equal({});
    expect(runProgress(run({ state: 'Running', kinds: ['saturation', 'coldStart'] }))).to.equal(
      'Running: 1 of 2 kinds measured',
    );
    expect(runProgress(run({ kinds: ['saturation', 'coldStart'], coldStart: cold }))).to.equal(
      'Succeeded: 2 of 2 kinds measured',
    );
  });
});
