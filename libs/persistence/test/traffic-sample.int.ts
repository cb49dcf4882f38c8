import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import {
  createDataSource,
  createScratchDatabase,
  runMigrations,
  trafficSample,
  type ScratchDatabase,
} from '../src';

/**
 * The rollout analysis's input on PostgreSQL: which request records make up
 * a deployment's fixed sample. The canary is judged on its alias's traffic
 * only, in arrival order, without the requests the caller refused or
 * abandoned.
 */
describe('trafficSample: the rollout analysis sample on PostgreSQL', function () {
  this.timeout(30_000);
  let db: ScratchDatabase;
  let ds: DataSource;
  const start = new Date('2026-12-03T10:00:00Z');
  let sequence = 0;

  async function record(
    requestedModel: string,
    outcome: 'Completed' | 'Failed' | 'TimedOut' | 'Rejected' | 'Cancelled',
    durationMs: number,
    deploymentId = 'dep-canary',
  ): Promise<void> {
    sequence += 1;
    const receivedAt = new Date(start.getTime() + sequence * 1000);
    await ds.query(
      `INSERT INTO request_records (request_id, correlation_id, received_at, finished_at, kind, dialect,
         requested_model, model_ref, deployment_id, stream, outcome, http_status, duration_ms)
       VALUES ($1, $1, $2, $2, 'chat', 'openai', $3, 'chat@2', $4, false, $5, $6, $7)`,
      [
        `req-${sequence}`,
        receivedAt,
        requestedModel,
        deploymentId,
        outcome,
        outcome === 'Completed' ? 200 : 503,
        durationMs,
      ],
    );
  }

  before(async () => {
    db = await createScratchDatabase('traffic_sample');
    await runMigrations(db.url);
    ds = createDataSource({ url: db.url, applicationName: 'traffic-sample-test' });
    await ds.initialize();
    // Through the alias: 4 completed, 1 failed, 1 timed out, and one each the caller refused or left.
    for (const [outcome, ms] of [
      ['Completed', 10],
      ['Failed', 12],
      ['Rejected', 1],
      ['Completed', 20],
      ['Cancelled', 5],
      ['Completed', 30],
      ['TimedOut', 900],
      ['Completed', 40],
    ] as const) {
      await record('chat-default', outcome, ms);
    }
    // An operator calling the canary's version directly from the playground, failing every time.
    for (let i = 0; i < 5; i += 1) await record('chat@2', 'Failed', 50);
    // The stable deployment's traffic is its own.
    await record('chat-default', 'Completed', 8, 'dep-stable');
  });

  after(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('counts only the requests that named the alias, and leaves Rejected and Cancelled out', async () => {
    const sample = await trafficSample(ds, 'dep-canary', { since: start, requestedModel: 'chat-default' });
    expect(sample).to.include({ requests: 6, errors: 2 });
    expect(sample.p95LatencyMs).to.be.closeTo(38.5, 0.001);
  });

  it('without the alias filter, direct calls to the version count too (what the rollout no longer does)', async () => {
    const sample = await trafficSample(ds, 'dep-canary', { since: start });
    expect(sample).to.include({ requests: 11, errors: 7 });
  });

  it('a fixed sample is the first N eligible alias requests in arrival order; `until` cuts the stable side at the same moment', async () => {
    const sample = await trafficSample(ds, 'dep-canary', {
      since: start,
      limit: 3,
      requestedModel: 'chat-default',
    });
    expect(sample).to.include({ requests: 3, errors: 1 });
    expect(sample.lastReceivedAt?.toISOString()).to.equal(new Date(start.getTime() + 4000).toISOString());
    const before = await trafficSample(ds, 'dep-canary', {
      since: start,
      until: sample.lastReceivedAt,
      requestedModel: 'chat-default',
    });
    expect(before.requests).to.equal(2);
    const stable = await trafficSample(ds, 'dep-stable', { since: start, requestedModel: 'chat-default' });
    expect(stable).to.include({ requests: 1, errors: 0 });
  });
});
