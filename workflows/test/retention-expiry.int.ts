import { expect } from 'chai';
import { createHash, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { RetentionExpiryWorkflowInput } from '@lunanexa/contracts';
import { startControlPlaneFixture, type ControlPlaneFixture } from '@lunanexa/e2e';
import {
  insertBootstrapToken,
  insertPendingNode,
  listGpuSamples,
  recordGpuSample,
  verifyAuditChain,
} from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import { retentionExpiryWorkflow } from '../src';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

interface DeleteReceipt {
  actor: string;
  result: string;
  evidence: {
    mode: string;
    count: number;
    tenantIds: string[];
    purposes: string[];
    captureIdSha256: string[];
    tenantId?: string;
  };
}

describe('retentionExpiryWorkflow on real Temporal and PostgreSQL', function () {
  this.timeout(120_000);
  let fixture: ControlPlaneFixture;
  let env: TestWorkflowEnvironment;
  let ds: DataSource;
  let taskQueue: string;

  before(async () => {
    fixture = await startControlPlaneFixture('retention_wf', require.resolve('../src'));
    ({ env, ds, taskQueue } = fixture);
  });

  after(async () => {
    await fixture?.stop();
  });

  beforeEach(() => ds.query('DELETE FROM payload_captures'));

  /** A capture `ageDays` old that expires `expiresInDays` from now (negative: already expired). */
  async function capture(tenantId: string, expiresInDays: number, text: string): Promise<string> {
    const id = randomUUID();
    await ds.query(
      `INSERT INTO payload_captures (id, tenant_id, request_id, correlation_id, deployment_id, model_ref, purpose,
              request_body, response_text, captured_at, expires_at)
       VALUES ($1, $2, $3, $3, 'dep-1', 'demo@v1', 'retention', $4::jsonb, $5,
               now() - interval '10 days', now() + make_interval(days => $6))`,
      [
        id,
        tenantId,
        `req-${id.slice(0, 8)}`,
        JSON.stringify({ prompt: text }),
        `answer ${text}`,
        expiresInDays,
      ],
    );
    return id;
  }

  async function receipts(workflowId: string): Promise<DeleteReceipt[]> {
    return ds.query<DeleteReceipt[]>(
      `SELECT actor, result, evidence FROM audit_events WHERE workflow_id = $1 AND action = 'payload.delete' ORDER BY seq`,
      [workflowId],
    );
  }

  function input(overrides: Partial<RetentionExpiryWorkflowInput>): RetentionExpiryWorkflowInput {
    return {
      mode: 'expired',
      intervalSeconds: 1,
      batchSize: 2,
      maxPasses: 1,
      actor: 'system:retention-expiry',
      correlationId: `corr-${randomUUID()}`,
      requestId: `req-${randomUUID()}`,
      ...overrides,
    };
  }

  it('deletes expired captures in bounded batches, each with a payload.delete receipt naming ids by sha256 only; unexpired ones stay', async () => {
    const secret = `secret-${randomUUID()}`;
    const expired = [
      await capture('tenant-a', -1, secret),
      await capture('tenant-a', -2, secret),
      await capture('tenant-b', -3, secret),
    ];
    const kept = [await capture('tenant-a', 5, secret), await capture('tenant-b', 1, secret)];
    const workflowId = `retentionExpiry/test-${randomUUID()}`;
    const result = await env.client.workflow.execute(retentionExpiryWorkflow, {
      taskQueue,
      workflowId,
      args: [input({})],
    });
    expect(result.deleted).to.equal(3);
    expect(result.passes).to.equal(1);
    const left = await ds.query<{ id: string }[]>(`SELECT id FROM payload_captures ORDER BY id`);
    expect(left.map((row) => row.id)).to.have.members(kept);

    const written = await receipts(workflowId);
    // Batch size 2: a full batch, then the short batch that ends the pass.
    expect(written.map((r) => r.evidence.count)).to.deep.equal([2, 1]);
    expect(result.receiptHashes).to.have.length(2);
    expect(written.every((r) => r.actor === 'system:retention-expiry' && r.result === 'succeeded')).to.equal(
      true,
    );
    expect(written.flatMap((r) => r.evidence.captureIdSha256)).to.have.members(expired.map(sha256));
    expect([...new Set(written.flatMap((r) => r.evidence.tenantIds))]).to.have.members([
      'tenant-a',
      'tenant-b',
    ]);
    expect(written[0]?.evidence.purposes).to.deep.equal(['retention']);
    // A receipt proves the deletion without holding what was deleted, or even the ids.
    const evidenceText = JSON.stringify(written);
    expect(evidenceText).not.to.include(secret);
    for (const id of expired) expect(evidenceText).not.to.include(id);
    expect(await verifyAuditChain(ds.manager)).to.include({ valid: true });
    if (process.env['LUNANEXA_RECORD_HISTORIES'] === '1') {
      // Refreshes the committed history that replay.spec.ts checks every run.
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      const file = join(__dirname, '..', '..', 'test', 'histories', 'retention-expiry.completed.binpb');
      writeFileSync(file, temporal.api.history.v1.History.encode(history).finish());
    }
  });

  it('an expiry pass also deletes GPU samples older than 24 h, in batches, and keeps newer ones', async () => {
    const tokenId = randomUUID();
    const nodeId = `node-${randomUUID().slice(0, 8)}`;
    await insertBootstrapToken(ds, {
      id: tokenId,
      tokenHash: sha256(tokenId),
      prefix: `lnxb_${tokenId.slice(0, 8)}`,
      nodeName: null,
      labels: {},
      autoApprove: false,
      createdBy: 'test',
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + 60_000),
    });
    await insertPendingNode(ds, {
      id: nodeId,
      name: nodeId,
      labels: {},
      address: '127.0.0.1',
      sshPort: 22,
      hostKeyFingerprint: 'SHA256:test',
      keyId: `ed25519:${nodeId}`,
      publicKey: 'ssh-ed25519 AAAA test',
      inventory: {},
      enrollWorkflowId: `enrollNode/${nodeId}`,
      bootstrapTokenId: tokenId,
      enrolledAt: new Date(),
    });
    const gpu = [
      {
        uuid: 'GPU-00000000-0000-0000-0000-000000000000',
        utilizationPercent: 50,
        powerWatts: 10,
        temperatureCelsius: 40,
        processes: [],
      },
    ];
    const now = Date.now();
    const hoursAgo = [30, 27, 25, 23, 1];
    for (const hours of hoursAgo) {
      expect(await recordGpuSample(ds, nodeId, new Date(now - hours * 3_600_000), gpu)).to.equal(true);
    }
    // Batch size 2: a full batch of GPU samples, then the short one that ends the pass.
    await env.client.workflow.execute(retentionExpiryWorkflow, {
      taskQueue,
      workflowId: `retentionExpiry/test-${randomUUID()}`,
      args: [input({})],
    });
    const left = await listGpuSamples(ds, nodeId, new Date(0));
    expect(left.map((sample) => Math.round((now - sample.sampledAt.getTime()) / 3_600_000))).to.deep.equal([
      23, 1,
    ]);
  });

  it('a pass with nothing expired deletes nothing and writes no receipt', async () => {
    const kept = await capture('tenant-a', 3, 'still wanted');
    const workflowId = `retentionExpiry/test-${randomUUID()}`;
    const result = await env.client.workflow.execute(retentionExpiryWorkflow, {
      taskQueue,
      workflowId,
      args: [input({})],
    });
    expect(result).to.deep.include({ deleted: 0, passes: 1 });
    expect(await receipts(workflowId)).to.deep.equal([]);
    expect(
      (await ds.query<{ id: string }[]>(`SELECT id FROM payload_captures`)).map((r) => r.id),
    ).to.deep.equal([kept]);
  });

  it('loops on its timer: a capture that expires while it runs is deleted by a later pass', async () => {
    const workflowId = `retentionExpiry/test-${randomUUID()}`;
    const handle = await env.client.workflow.start(retentionExpiryWorkflow, {
      taskQueue,
      workflowId,
      args: [input({ maxPasses: 4, intervalSeconds: 1 })],
    });
    // The first pass finds nothing; then a capture appears, already past its expiry.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const late = await capture('tenant-late', -1, 'late');
    const result = await handle.result();
    expect(result).to.deep.include({ passes: 4, deleted: 1 });
    const written = await receipts(workflowId);
    expect(written.map((r) => r.evidence.captureIdSha256)).to.deep.equal([[sha256(late)]]);
  });

  it("purge deletes every capture of one tenant, expired or not, and leaves other tenants' alone", async () => {
    const mine = [await capture('tenant-p', 30, 'p1'), await capture('tenant-p', -1, 'p2')];
    const other = await capture('tenant-q', 30, 'q1');
    const workflowId = `retentionExpiry/purge-${randomUUID()}`;
    const result = await env.client.workflow.execute(retentionExpiryWorkflow, {
      taskQueue,
      workflowId,
      args: [input({ mode: 'purge', tenantId: 'tenant-p', actor: 'operator:root', maxPasses: undefined })],
    });
    expect(result.deleted).to.equal(2);
    expect(
      (await ds.query<{ id: string }[]>(`SELECT id FROM payload_captures`)).map((r) => r.id),
    ).to.deep.equal([other]);
    const written = await receipts(workflowId);
    expect(written).to.have.length(1);
    expect(written[0]).to.deep.include({ actor: 'operator:root' });
    expect(written[0]?.evidence).to.deep.include({ mode: 'purge', tenantId: 'tenant-p', count: 2 });
    expect(written[0]?.evidence.captureIdSha256).to.have.members(mine.map(sha256));
  });
});
