import { expect } from 'chai';
import { ReplayGuard } from '../src/replay-guard';
import { ErrorCode, expectErrorCode } from './support';

describe('ReplayGuard', () => {
  const T0 = Date.parse('2026-03-02T10:00:00.000Z');

  it('refuses a nonce while it is live and forgets it afterwards', () => {
    const guard = new ReplayGuard({ windowMs: 1000 });
    guard.remember('n1', T0, T0);
    expectErrorCode(() => guard.remember('n1', T0, T0 + 1000), ErrorCode.REPLAY_DETECTED);
    // Past issuedAt + window the envelope fails the skew check anyway, so the nonce may go.
    expect(guard.has('n1', T0 + 1001)).to.equal(false);
    expect(() => guard.remember('n1', T0 + 1001, T0 + 1001)).to.not.throw();
  });

  it('keeps a nonce of a future-dated envelope until that envelope expires', () => {
    const guard = new ReplayGuard({ windowMs: 1000 });
    guard.remember('future', T0 + 900, T0);
    expect(guard.has('future', T0 + 1899)).to.equal(true);
    expect(guard.has('future', T0 + 1901)).to.equal(false);
  });

  it('stays within its capacity by sweeping expired nonces', () => {
    const guard = new ReplayGuard({ windowMs: 10, capacity: 100 });
    for (let i = 0; i < 10_000; i += 1) guard.remember(`n${i}`, T0 + i * 10, T0 + i * 10);
    expect(guard.size).to.be.at.most(100);
  });

  it('fails closed when full of live nonces: RATE_LIMITED, and nothing is forgotten', () => {
    const guard = new ReplayGuard({ windowMs: 60_000, capacity: 3 });
    for (const nonce of ['a', 'b', 'c']) guard.remember(nonce, T0, T0);
    expectErrorCode(() => guard.remember('d', T0, T0), ErrorCode.RATE_LIMITED);
    for (const nonce of ['a', 'b', 'c']) expect(guard.has(nonce, T0)).to.equal(true);
    // Once they expire there is room again.
    expect(() => guard.remember('d', T0 + 60_001, T0 + 60_001)).to.not.throw();
    expect(guard.size).to.equal(1);
  });

  it('refuses nonsensical settings', () => {
    expect(() => new ReplayGuard({ windowMs: 0 })).to.throw();
    expect(() => new ReplayGuard({ capacity: 0 })).to.throw();
  });
});
