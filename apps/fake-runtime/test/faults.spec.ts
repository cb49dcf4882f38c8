import { expect } from 'chai';
import { failureSchedule, isInjectedFailure, ratePpm } from '../src/faults';

function failures(count: number, rate: number, seed: number): number[] {
  const fails = failureSchedule(ratePpm(rate), seed);
  const failed: number[] = [];
  for (let n = 1; n <= count; n += 1) if (fails(n)) failed.push(n);
  return failed;
}

describe('fake runtime error injection', () => {
  it('fails exactly rate × N of the first N requests whenever that is whole', () => {
    for (const seed of [0, 1, 7, -3, 123456789]) {
      for (const [rate, n] of [
        [0, 50],
        [0.1, 50],
        [0.25, 40],
        [0.29, 100],
        [0.5, 30],
        [0.7, 10],
        [0.123456, 1_000_000],
        [1, 25],
      ] as const) {
        expect(failures(n, rate, seed), `rate ${rate}, seed ${seed}, N ${n}`).to.have.length(
          Math.round(rate * n),
        );
      }
    }
  });

  it('spreads failures evenly: no window of 4 requests at rate 0.25 has two', () => {
    const failed = failures(400, 0.25, 9);
    for (let i = 1; i < failed.length; i += 1) expect(failed[i] - failed[i - 1]).to.equal(4);
  });

  it('is predictable from the request number and seed, and the seed moves which requests fail', () => {
    expect(failures(40, 0.25, 1)).to.deep.equal(failures(40, 0.25, 1));
    const bySeed = new Set([0, 1, 2, 3, 4, 5].map((seed) => failures(40, 0.25, seed).join(',')));
    expect(bySeed.size).to.be.greaterThan(1);
  });

  it('numbers requests from 1', () => {
    expect(() => isInjectedFailure(0, ratePpm(0.5), 0)).to.throw(RangeError);
  });
});
