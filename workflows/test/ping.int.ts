import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ErrorCode, type PingWorkflowInput } from '@lunanexa/contracts';
import { startControlPlaneFixture, typedFailureCode, type ControlPlaneFixture } from '@lunanexa/e2e';
import { PingRecordEntity, verifyAuditChain } from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import { pingWorkflow } from '../src';

describe('pingWorkflow on real Temporal and PostgreSQL', function () {
  this.timeout(120_000);
  let fixture: ControlPlaneFixture;
  let env: TestWorkflowEnvironment;
  let ds: DataSource;
  let taskQueue: string;

  before(async () => {
    // This package's own workflow sources, not the installed package entry.
    fixture = await startControlPlaneFixture('ping_wf', require.resolve('../src'));
    ({ env, ds, taskQueue } = fixture);
  });

  after(async () => {
    await fixture?.stop();
  });

  function input(key: string, message = 'hello'): PingWorkflowInput {
    return {
      idempotencyKey: key,
      message,
      actor: 'system:test',
      correlationId: `corr-${key}`,
      requestId: `req-${key}`,
    };
  }

  it('records one row and one receipt, readable back from PostgreSQL', async () => {
    const key = `k-${randomUUID()}`;
    const result = await env.client.workflow.execute(pingWorkflow, {
      taskQueue,
      workflowId: `ping/${key}`,
      args: [input(key)],
    });
    const row = await ds.getRepository(PingRecordEntity).findOneByOrFail({ workflowId: `ping/${key}` });
    expect(row.id).to.equal(result.pingId);
    expect(row.message).to.equal('hello');
    expect(row.correlationId).to.equal(`corr-${key}`);
    const receipts = await ds.query<{ seq: string; hash: string; actor: string }[]>(
      `SELECT seq, hash, actor FROM audit_events WHERE workflow_id = $1`,
      [`ping/${key}`],
    );
    expect(receipts).to.have.length(1);
    expect(receipts[0].hash).to.equal(result.receipt.hash);
    expect(await verifyAuditChain(ds.manager)).to.include({ valid: true });
    if (process.env['LUNANEXA_RECORD_HISTORIES'] === '1') {
      // Refreshes the committed history that replay.spec.ts checks every run.
      const history = await env.client.workflow.getHandle(`ping/${key}`).fetchHistory();
      // Binary protobuf: the SDK's proto-JSON helpers break when npm installs two protobufjs copies.
      const file = join(__dirname, '..', '..', 'test', 'histories', 'ping.completed.binpb');
      writeFileSync(file, temporal.api.history.v1.History.encode(history).finish());
    }
  });

  it('does not duplicate the row or the receipt when the activity is repeated', async () => {
    const key = `k-${randomUUID()}`;
    const first = await env.client.workflow.execute(pingWorkflow, {
      taskQueue,
      workflowId: `ping/${key}`,
      args: [input(key)],
    });
    // A second run under a new workflow id with the same key must not collide,
    // and re-running the activity for the same workflow id returns the first result.
    const again = await env.client.workflow.execute(pingWorkflow, {
      taskQueue,
      workflowId: `ping/${key}`,
      args: [input(key)],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    });
    expect(again).to.deep.equal(first);
    const count = await ds.getRepository(PingRecordEntity).countBy({ workflowId: `ping/${key}` });
    expect(count).to.equal(1);
  });

  it('fails with IDEMPOTENCY_KEY_REUSED when a key is reused with a different message', async () => {
    const key = `k-${randomUUID()}`;
    await env.client.workflow.execute(pingWorkflow, {
      taskQueue,
      workflowId: `ping/${key}`,
      args: [input(key, 'one')],
    });
    let failure: unknown;
    try {
      await env.client.workflow.execute(pingWorkflow, {
        taskQueue,
        workflowId: `ping/${key}`,
        args: [input(key, 'two')],
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      });
    } catch (error) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(WorkflowFailedError);
    expect(typedFailureCode(failure)).to.equal(ErrorCode.IDEMPOTENCY_KEY_REUSED);
  });
});
