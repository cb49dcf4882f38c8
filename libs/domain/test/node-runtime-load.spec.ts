import { expect } from 'chai';
import { RUNTIME_LOAD_STALE_MS, nodeRuntimeLoad } from '../src';

const NOW = Date.parse('2026-12-05T12:00:00.000Z');
const report = (
  waiting: number | null,
  running: number | null,
  cachePressure: number | null,
  ageMs = 1000,
) => ({
  waiting,
  running,
  cachePressure,
  scrapedAtMs: NOW - ageMs,
});

describe('nodeRuntimeLoad', () => {
  it('is the mean of each runtime’s larger pressure: cache share or waiting share', () => {
    // 0.9 cache; 3 of 4 waiting (0.75) beats 0.2 cache; mean 0.825
    expect(nodeRuntimeLoad([report(0, 2, 0.9), report(3, 1, 0.2)], NOW)).to.be.closeTo(0.825, 1e-9);
    expect(nodeRuntimeLoad([report(2, 2, null)], NOW)).to.equal(0.5);
    expect(nodeRuntimeLoad([report(0, 0, null)], NOW)).to.equal(null);
  });

  it('is null without reports and ignores stale or empty ones', () => {
    expect(nodeRuntimeLoad([], NOW)).to.equal(null);
    expect(nodeRuntimeLoad([report(null, null, null)], NOW)).to.equal(null);
    expect(nodeRuntimeLoad([report(9, 1, 1, RUNTIME_LOAD_STALE_MS + 1)], NOW)).to.equal(null);
    expect(
      nodeRuntimeLoad([report(9, 1, 1, RUNTIME_LOAD_STALE_MS + 1), report(0, 4, 0.1)], NOW),
    ).to.be.closeTo(0.1, 1e-9);
  });
});
