import { expect } from 'chai';
import {
  FAIR_ACTIVE_WINDOW_MS,
  FAIR_HEADROOM_PER_TENANT,
  FairQueue,
  clampPriority,
  fairHeadroom,
  fairShedVictim,
  notePeak,
} from '../src/fairness';

describe('fairness between tenants', () => {
  it('lowers a priority above the tenant’s cap to the cap and says so; leaves others alone', () => {
    expect(clampPriority('high', 'normal')).to.deep.equal({ priority: 'normal', clamped: true });
    expect(clampPriority('high', 'low')).to.deep.equal({ priority: 'low', clamped: true });
    expect(clampPriority('normal', 'normal')).to.deep.equal({ priority: 'normal', clamped: false });
    expect(clampPriority('low', 'normal')).to.deep.equal({ priority: 'low', clamped: false });
    expect(clampPriority('high', null)).to.deep.equal({ priority: 'high', clamped: false });
  });

  it('serves tenants round robin within a band, FIFO within a tenant, whatever their backlog', () => {
    const queue = new FairQueue<string>();
    for (let i = 0; i < 5; i += 1) queue.push('noisy', `n${i}`);
    queue.push('quiet', 'q0');
    queue.push('quiet', 'q1');
    queue.push('third', 't0');
    expect(queue.length).to.equal(8);
    const order: string[] = [];
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) order.push(item);
    expect(order).to.deep.equal(['n0', 'q0', 't0', 'n1', 'q1', 'n2', 'n3', 'n4']);
    expect(queue.length).to.equal(0);
  });

  it('skips tenants that may not run now, removes a waiter that left, and sheds the youngest of the largest', () => {
    const queue = new FairQueue<string>();
    queue.push('a', 'a0');
    queue.push('b', 'b0');
    queue.push('a', 'a1');
    queue.push('a', 'a2');
    expect(queue.peek((tenant) => tenant !== 'a')).to.equal('b0');
    expect(queue.shift((tenant) => tenant !== 'a')).to.equal('b0');
    expect(queue.remove('a', 'a1')).to.equal(true);
    expect(queue.remove('a', 'a1')).to.equal(false);
    expect(queue.largest()).to.deep.equal({ tenant: 'a', waiting: 2 });
    expect(queue.popYoungest('a')).to.equal('a2');
    expect(queue.waiting('a')).to.equal(1);
    expect(queue.popYoungest('b')).to.equal(undefined);
  });

  it('makes room for a tenant below its share in a full queue, never at the expense of itself or an equal', () => {
    expect(fairShedVictim({ tenant: 'noisy', waiting: 32 }, 'quiet', 0)).to.equal('noisy');
    expect(fairShedVictim({ tenant: 'noisy', waiting: 32 }, 'noisy', 32)).to.equal(null);
    expect(fairShedVictim({ tenant: 'a', waiting: 16 }, 'b', 16)).to.equal(null);
    expect(fairShedVictim(undefined, 'quiet', 0)).to.equal(null);
  });

  it('holds headroom for a recently active lighter tenant, up to its recent peak + 1, at most half the capacity', () => {
    const now = 1_000_000;
    const quiet = { inFlight: 0, lastSeenMs: now - 1000, recentPeak: 3 };
    expect(fairHeadroom(10, [quiet], now, 32)).to.equal(4);
    expect(fairHeadroom(10, [{ ...quiet, inFlight: 3 }], now, 32)).to.equal(1);
    expect(fairHeadroom(10, [{ ...quiet, recentPeak: 0 }], now, 32)).to.equal(FAIR_HEADROOM_PER_TENANT);
    // Not for a tenant quiet for longer than the window, nor one holding as much as the asker.
    expect(fairHeadroom(10, [{ ...quiet, lastSeenMs: now - FAIR_ACTIVE_WINDOW_MS - 1 }], now, 32)).to.equal(
      0,
    );
    expect(fairHeadroom(2, [{ ...quiet, inFlight: 2 }], now, 32)).to.equal(0);
    expect(fairHeadroom(10, [{ ...quiet, recentPeak: 40 }], now, 8)).to.equal(4);
    expect(fairHeadroom(10, [], now, 8)).to.equal(0);
  });

  it('remembers a peak for one more window, then forgets it', () => {
    const window = { peak: 0, previousPeak: 0, windowStartMs: 0 };
    expect(notePeak(window, 5, 100)).to.equal(5);
    expect(notePeak(window, 1, 200)).to.equal(5);
    expect(notePeak(window, 1, FAIR_ACTIVE_WINDOW_MS + 300)).to.equal(5);
    expect(notePeak(window, 1, 2 * FAIR_ACTIVE_WINDOW_MS + 400)).to.equal(1);
  });
});
