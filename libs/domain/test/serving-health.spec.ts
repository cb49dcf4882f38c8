import { expect } from 'chai';
import {
  countsAsServingFailure,
  RECENT_OUTCOME_WINDOW_SECONDS,
  RecentOutcomes,
  servingHealth,
} from '../src/serving-health';

describe('serving health', () => {
  const T0 = 1_800_000_000_000;

  describe('RecentOutcomes', () => {
    it('counts requests and failures per target', () => {
      const outcomes = new RecentOutcomes();
      outcomes.record('chat', false, T0);
      outcomes.record('chat', true, T0 + 1000);
      outcomes.record('other', true, T0);
      expect(outcomes.counts('chat', T0 + 2000)).to.deep.equal({ requests: 2, errors: 1 });
      expect(outcomes.counts('other', T0 + 2000)).to.deep.equal({ requests: 1, errors: 1 });
      expect(outcomes.counts('never', T0)).to.deep.equal({ requests: 0, errors: 0 });
    });

    it('forgets what is older than the window', () => {
      const outcomes = new RecentOutcomes();
      outcomes.record('chat', true, T0);
      const windowMs = RECENT_OUTCOME_WINDOW_SECONDS * 1000;
      expect(outcomes.counts('chat', T0 + windowMs - 5000).requests).to.equal(1);
      expect(outcomes.counts('chat', T0 + windowMs + 5000).requests).to.equal(0);
    });

    it('reuses a bucket slot for a new epoch without carrying old counts', () => {
      const outcomes = new RecentOutcomes();
      outcomes.record('chat', true, T0);
      const later = T0 + RECENT_OUTCOME_WINDOW_SECONDS * 1000;
      outcomes.record('chat', false, later);
      expect(outcomes.counts('chat', later)).to.deep.equal({ requests: 1, errors: 0 });
    });
  });

  describe('countsAsServingFailure', () => {
    it('counts failures and server-side refusals, not the caller’s mistakes', () => {
      expect(countsAsServingFailure('Failed', 502)).to.equal(true);
      expect(countsAsServingFailure('TimedOut', 504)).to.equal(true);
      expect(countsAsServingFailure('Rejected', 503)).to.equal(true);
      expect(countsAsServingFailure('Rejected', 429)).to.equal(false);
      expect(countsAsServingFailure('Rejected', 400)).to.equal(false);
      expect(countsAsServingFailure('Completed', 200)).to.equal(false);
      expect(countsAsServingFailure('Cancelled', undefined)).to.equal(false);
    });
  });

  describe('servingHealth', () => {
    const quiet = { requests: 0, errors: 0 };

    it('is unavailable without a ready replica, whatever the traffic says', () => {
      const health = servingHealth({
        readyReplicas: 0,
        recent: { requests: 10, errors: 0 },
        queued: 0,
        inFlight: 0,
      });
      expect(health.state).to.equal('unavailable');
    });

    it('is ready with replicas and no traffic, with a zero error rate', () => {
      const health = servingHealth({ readyReplicas: 2, recent: quiet, queued: 3, inFlight: 4 });
      expect(health).to.deep.equal({
        state: 'ready',
        readyReplicas: 2,
        recentRequests: 0,
        recentErrorRate: 0,
        windowSeconds: RECENT_OUTCOME_WINDOW_SECONDS,
        queued: 3,
        inFlight: 4,
      });
    });

    it('is degraded above the error-rate threshold once there is enough traffic', () => {
      expect(
        servingHealth({ readyReplicas: 1, recent: { requests: 10, errors: 3 }, queued: 0, inFlight: 0 })
          .state,
      ).to.equal('degraded');
      // Two failures out of four is too little traffic to call the model degraded.
      expect(
        servingHealth({ readyReplicas: 1, recent: { requests: 4, errors: 2 }, queued: 0, inFlight: 0 }).state,
      ).to.equal('ready');
      expect(
        servingHealth({ readyReplicas: 1, recent: { requests: 10, errors: 2 }, queued: 0, inFlight: 0 })
          .state,
      ).to.equal('ready');
    });

    it('rounds the error rate to three decimals', () => {
      expect(
        servingHealth({ readyReplicas: 1, recent: { requests: 3, errors: 1 }, queued: 0, inFlight: 0 })
          .recentErrorRate,
      ).to.equal(0.333);
    });
  });
});
