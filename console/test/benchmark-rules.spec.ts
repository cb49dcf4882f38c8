import './support/contract-modules';

import { expect } from 'chai';

import { METRIC_COLUMNS, metricCell } from '../src/app/pages/benchmarks/benchmark-rules';

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
