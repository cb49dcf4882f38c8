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

describe('leases of admissions to workers', () => {
  it('grants a batch far from the limits, counting every admission at once', () => {
    const ledger = new QuotaLedger(() => 0, 2);
    const roomy = { requestsPerMinute: 1000, tokensPerMinute: null, maxConcurrentRequests: 100 };
    // Headroom 100 slots (999 request units after the first): a quarter of the 99 left, beyond the first.
    expect(ledger.lease(1, 'acme', roomy, 32)).to.deep.equal({ admit: true, granted: 25 });
    expect(ledger.inFlight().get('acme')).to.equal(25);
    expect(ledger.lease(2, 'acme', roomy, 8)).to.deep.equal({ admit: true, granted: 8 });
    expect(ledger.inFlight().get('acme')).to.equal(33);
  });

  it('grants one at a time near a limit and never more than the limit in total', () => {
    const ledger = new QuotaLedger(() => 0, 2);
    const tight = { requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: 10 };
    let granted = 0;
    for (let i = 0; i < 40; i += 1) {
      const decision = ledger.lease(1 + (i % 2), 'acme', tight, 32);
      if (decision.admit) granted += decision.granted;
    }
    expect(granted).to.equal(10);
    expect(ledger.lease(1, 'acme', tight, 32)).to.include({ admit: false, limit: 'maxConcurrentRequests' });
  });

  it('takes unused admissions back: slots freed, request units returned up to the limit', () => {
    const ledger = new QuotaLedger(() => 0, 1);
    const limits = { requestsPerMinute: 8, tokensPerMinute: null, maxConcurrentRequests: 100 };
    const lease = ledger.lease(1, 'acme', limits, 8);
    expect(lease).to.deep.equal({ admit: true, granted: 4 });
    // Two used and finished, two given back: six request units left, nothing in flight.
    ledger.finish(1, 'acme', limits, 0, 2);
    ledger.giveBack(1, 'acme', limits, 2);
    expect(ledger.inFlight().has('acme')).to.equal(false);
    let admitted = 0;
    while (ledger.admit(2, 'acme', limits).admit) admitted += 1;
    expect(admitted).to.equal(6);
    // A worker cannot give back (or finish) more than it holds.
    ledger.giveBack(1, 'acme', limits, 5);
    expect(ledger.admit(1, 'acme', limits).admit).to.equal(false);
  });

  it('names the workers holding slots of a tenant', () => {
    const ledger = new QuotaLedger(() => 0, 2);
    const limits = { requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: 2 };
    ledger.admit(1, 'acme', limits);
    ledger.admit(2, 'acme', limits);
    expect(ledger.holdersOf('acme', 2)).to.deep.equal([1]);
    ledger.finish(1, 'acme', limits, 0);
    expect(ledger.holdersOf('acme', 2)).to.deep.equal([]);
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
