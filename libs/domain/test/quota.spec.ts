import { expect } from 'chai';
import {
  MAX_RETRY_AFTER_SECONDS,
  admitRequest,
  finishRequest,
  newQuotaUsage,
  secondsUntil,
  type TenantQuotaLimits,
} from '../src/quota';

const UNLIMITED: TenantQuotaLimits = {
  requestsPerMinute: null,
  tokensPerMinute: null,
  maxConcurrentRequests: null,
};

function limits(change: Partial<TenantQuotaLimits>): TenantQuotaLimits {
  return { ...UNLIMITED, ...change };
}

describe('tenant quota arithmetic', () => {
  it('admits everything without limits and still counts requests in flight', () => {
    const usage = newQuotaUsage(UNLIMITED, 0);
    for (let i = 0; i < 1000; i += 1)
      expect(admitRequest(usage, UNLIMITED, 0)).to.deep.equal({ admit: true });
    expect(usage.inFlight).to.equal(1000);
    finishRequest(usage, UNLIMITED, 10_000, 0);
    expect(usage.inFlight).to.equal(999);
  });

  it('requests/minute: a full minute may burst, then the steady rate applies, with the wait in Retry-After', () => {
    const quota = limits({ requestsPerMinute: 60 });
    const usage = newQuotaUsage(quota, 0);
    for (let i = 0; i < 60; i += 1) {
      expect(admitRequest(usage, quota, 0).admit).to.equal(true);
      finishRequest(usage, quota, 0, 0);
    }
    expect(admitRequest(usage, quota, 0)).to.deep.equal({
      admit: false,
      limit: 'requestsPerMinute',
      retryAfterSeconds: 1,
    });
    // One request per second refills: half a second is not enough, one second is.
    expect(admitRequest(usage, quota, 500).admit).to.equal(false);
    expect(admitRequest(usage, quota, 1000).admit).to.equal(true);
    expect(admitRequest(usage, quota, 1000).admit).to.equal(false);
  });

  it('Retry-After for a slow limit says how long until one request is allowed, capped at a minute', () => {
    const quota = limits({ requestsPerMinute: 2 });
    const usage = newQuotaUsage(quota, 0);
    admitRequest(usage, quota, 0);
    admitRequest(usage, quota, 0);
    const refused = admitRequest(usage, quota, 0);
    expect(refused).to.deep.equal({ admit: false, limit: 'requestsPerMinute', retryAfterSeconds: 30 });
    expect(secondsUntil(-1e9, 1, 1)).to.equal(MAX_RETRY_AFTER_SECONDS);
  });

  it('tokens/minute: admits while not in debt, charges real usage at the end, refuses until refilled past zero', () => {
    const quota = limits({ tokensPerMinute: 600 });
    const usage = newQuotaUsage(quota, 0);
    expect(admitRequest(usage, quota, 0).admit).to.equal(true);
    expect(admitRequest(usage, quota, 0).admit).to.equal(true);
    finishRequest(usage, quota, 500, 0);
    finishRequest(usage, quota, 400, 0);
    // 600 - 900 = -300 tokens: 10 tokens/s refill, so 30 s until the bucket is above zero again.
    const refused = admitRequest(usage, quota, 0);
    expect(refused).to.deep.equal({ admit: false, limit: 'tokensPerMinute', retryAfterSeconds: 30 });
    expect(admitRequest(usage, quota, 29_000).admit).to.equal(false);
    expect(admitRequest(usage, quota, 30_001).admit).to.equal(true);
  });

  it('tokens/minute debt is bounded by one minute of allowance', () => {
    const quota = limits({ tokensPerMinute: 100 });
    const usage = newQuotaUsage(quota, 0);
    admitRequest(usage, quota, 0);
    finishRequest(usage, quota, 1_000_000, 0);
    expect(usage.completionTokens).to.equal(-100);
    const refused = admitRequest(usage, quota, 0);
    expect(refused).to.include({ admit: false, limit: 'tokensPerMinute', retryAfterSeconds: 60 });
  });

  it('concurrency: refuses the request over the limit until one finishes', () => {
    const quota = limits({ maxConcurrentRequests: 2 });
    const usage = newQuotaUsage(quota, 0);
    expect(admitRequest(usage, quota, 0).admit).to.equal(true);
    expect(admitRequest(usage, quota, 0).admit).to.equal(true);
    expect(admitRequest(usage, quota, 0)).to.deep.equal({
      admit: false,
      limit: 'maxConcurrentRequests',
      retryAfterSeconds: 1,
    });
    finishRequest(usage, quota, 0, 0);
    expect(admitRequest(usage, quota, 0).admit).to.equal(true);
  });

  it('a refusal takes nothing: neither a request unit nor a concurrency slot', () => {
    const quota = limits({ requestsPerMinute: 1, maxConcurrentRequests: 5 });
    const usage = newQuotaUsage(quota, 0);
    admitRequest(usage, quota, 0);
    for (let i = 0; i < 10; i += 1) expect(admitRequest(usage, quota, 0).admit).to.equal(false);
    expect(usage.inFlight).to.equal(1);
    expect(admitRequest(usage, quota, 60_000).admit).to.equal(true);
  });

  it('a limit newly set on an unlimited tenant starts with a full bucket; a lowered one caps it', () => {
    const usage = newQuotaUsage(UNLIMITED, 0);
    const capped = limits({ requestsPerMinute: 3 });
    for (let i = 0; i < 3; i += 1) expect(admitRequest(usage, capped, 10).admit).to.equal(true);
    expect(admitRequest(usage, capped, 10).admit).to.equal(false);
    const generous = limits({ requestsPerMinute: 600 });
    expect(admitRequest(usage, generous, 60_000).admit).to.equal(true);
    const tighter = limits({ requestsPerMinute: 1 });
    expect(admitRequest(usage, tighter, 600_000).admit).to.equal(true);
    expect(admitRequest(usage, tighter, 600_000).admit).to.equal(false);
  });

  it('a clock going backwards refills nothing', () => {
    const quota = limits({ requestsPerMinute: 1 });
    const usage = newQuotaUsage(quota, 100_000);
    admitRequest(usage, quota, 100_000);
    expect(admitRequest(usage, quota, 0).admit).to.equal(false);
    expect(admitRequest(usage, quota, 100_000).admit).to.equal(false);
  });
});
