import { expect } from 'chai';
import {
  ACCOUNT_SIGN_IN_THROTTLE,
  ADDRESS_SIGN_IN_THROTTLE,
  NO_SIGN_IN_FAILURES,
  afterSignInFailure,
  signInRetryAfterSeconds,
  type SignInThrottleState,
} from '../src/sign-in-throttle';

const T0 = new Date('2026-12-06T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function fail(times: number, start: SignInThrottleState = NO_SIGN_IN_FAILURES, when = T0) {
  let state: SignInThrottleState & { blockStarted?: boolean } = start;
  for (let i = 0; i < times; i++) state = afterSignInFailure(state, when, ACCOUNT_SIGN_IN_THROTTLE);
  return state;
}

describe('sign-in throttle', () => {
  it('lets an account fail five times in a row without a block, then blocks for 30 s', () => {
    const five = fail(5);
    expect(five).to.deep.include({ failures: 5, blockedUntil: null, blockStarted: false });
    expect(signInRetryAfterSeconds(five, T0)).to.equal(0);
    const six = afterSignInFailure(five, T0, ACCOUNT_SIGN_IN_THROTTLE);
    expect(six.blockStarted).to.equal(true);
    expect(six.blockedUntil?.toISOString()).to.equal(at(30).toISOString());
    expect(signInRetryAfterSeconds(six, at(10))).to.equal(20);
    expect(signInRetryAfterSeconds(six, at(29.2))).to.equal(1);
    expect(signInRetryAfterSeconds(six, at(30))).to.equal(0);
  });

  it('doubles each further block and never exceeds the maximum: nothing is locked forever', () => {
    const blocks = [6, 7, 8, 9, 10, 20, 200].map((n) => {
      const state = fail(n);
      return ((state.blockedUntil?.getTime() ?? 0) - T0.getTime()) / 1000;
    });
    expect(blocks).to.deep.equal([30, 60, 120, 240, 480, 900, 900]);
  });

  it('forgets failures older than an hour', () => {
    const old = fail(5);
    const later = afterSignInFailure(old, at(3_600), ACCOUNT_SIGN_IN_THROTTLE);
    expect(later).to.deep.include({ failures: 1, blockedUntil: null });
    const sooner = afterSignInFailure(old, at(3_599), ACCOUNT_SIGN_IN_THROTTLE);
    expect(sooner.failures).to.equal(6);
  });

  it('gives an address more room than an account', () => {
    expect(ADDRESS_SIGN_IN_THROTTLE.freeFailures).to.be.greaterThan(ACCOUNT_SIGN_IN_THROTTLE.freeFailures);
  });
});
