import { expect } from 'chai';
import { workerAdmissionLimits } from '../src/cluster';
import { QuotaLedger } from '../src/quota-ledger';

describe('the cluster primary’s quota ledger', () => {
  const limits = { requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: 2 };

  it('counts concurrent requests of a tenant over every worker', () => {
    const ledger = new QuotaLedger(() => 0);
    expect(ledger.admit(1, 'acme', limits).admit).to.equal(true);
    expect(ledger.admit(2, 'acme', limits).admit).to.equal(true);
    expect(ledger.admit(2, 'acme', limits)).to.deep.equal({
      admit: false,
      limit: 'maxConcurrentRequests',
      retryAfterSeconds: 1,
    });
    ledger.finish(1, 'acme', limits, 0);
    expect(ledger.admit(2, 'acme', { ...limits }).admit).to.equal(true);
    expect(ledger.inFlight().get('acme')).to.equal(2);
  });

  it('frees the slots of a worker that died, and ignores its late finishes', () => {
    const ledger = new QuotaLedger(() => 0);
    ledger.admit(1, 'acme', limits);
    ledger.admit(1, 'acme', limits);
    expect(ledger.releaseWorker(1)).to.equal(2);
    expect(ledger.inFlight().has('acme')).to.equal(false);
    ledger.admit(2, 'acme', limits);
    // A finish from the dead worker must not free the live worker's slot.
    ledger.finish(1, 'acme', limits, 0);
    expect(ledger.inFlight().get('acme')).to.equal(1);
  });

  it('shares one requests-per-minute bucket and charges tokens at the end', () => {
    let now = 0;
    const ledger = new QuotaLedger(() => now);
    const perMinute = { requestsPerMinute: 2, tokensPerMinute: 100, maxConcurrentRequests: null };
    expect(ledger.admit(1, 'acme', perMinute).admit).to.equal(true);
    expect(ledger.admit(2, 'acme', perMinute).admit).to.equal(true);
    expect(ledger.admit(1, 'acme', perMinute)).to.include({ admit: false, limit: 'requestsPerMinute' });
    ledger.finish(1, 'acme', perMinute, 150);
    now = 30_000;
    // Half a minute refilled one request but the token bucket is still in debt (100 - 150 + 50 = 0).
    expect(ledger.admit(2, 'acme', perMinute)).to.include({ admit: false, limit: 'tokensPerMinute' });
  });
});

describe('a worker’s share of the replica limits', () => {
  it('splits concurrency and queue between workers, never below one', () => {
    const limits = { replicaConcurrency: 256, queuePerReplica: 64, maxQueueWaitMs: 30_000 };
    expect(workerAdmissionLimits(limits, 2)).to.deep.equal({
      replicaConcurrency: 128,
      queuePerReplica: 32,
      maxQueueWaitMs: 30_000,
    });
    expect(workerAdmissionLimits({ ...limits, replicaConcurrency: 3, queuePerReplica: 0 }, 4)).to.include({
      replicaConcurrency: 1,
      queuePerReplica: 0,
    });
  });
});
