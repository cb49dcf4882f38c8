import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  appendAuditEvent,
  checkAuditChain,
  createDataSource,
  createScratchDatabase,
  latestAuditChainCheckpoint,
  runMigrations,
  type ScratchDatabase,
} from '../src';

function draft(action: string) {
  return {
    id: randomUUID(),
    occurredAt: new Date().toISOString(),
    actor: 'user:test',
    action,
    decision: 'allowed' as const,
    evidence: { n: action },
    result: 'succeeded' as const,
    correlationId: 'corr-checkpoint-test',
    workflowId: null,
  };
}

describe('audit chain checkpoints on PostgreSQL', function () {
  this.timeout(60_000);
  let db: ScratchDatabase;
  let ds: DataSource;

  const append = async (count: number, prefix: string) => {
    for (let i = 0; i < count; i++) await ds.transaction((m) => appendAuditEvent(m, draft(`${prefix}.${i}`)));
  };
  /** Changes an event behind the append-only trigger, as only the database owner can. */
  const tamper = async (seq: number, column: 'actor' | 'hash' = 'actor') => {
    await ds.query('ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_delete');
    if (column === 'actor')
      await ds.query(`UPDATE audit_events SET actor = 'user:mallory' WHERE seq = $1`, [seq]);
    else await ds.query(`UPDATE audit_events SET hash = repeat('e', 64) WHERE seq = $1`, [seq]);
    await ds.query('ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update_delete');
  };

  before(async () => {
    db = await createScratchDatabase('auditcp');
    await runMigrations(db.url);
    ds = createDataSource({ url: db.url, applicationName: 'audit-checkpoint-test' });
    await ds.initialize();
  });

  after(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('verifies only what was appended since the last checkpoint, and records a new one', async () => {
    expect(await latestAuditChainCheckpoint(ds.manager)).to.equal(null);
    await append(30, 'first');
    expect(await checkAuditChain(ds.manager, 'INCREMENTAL')).to.deep.equal({
      mode: 'INCREMENTAL',
      valid: true,
      checked: 30,
      checkpointSeq: null,
    });
    expect((await latestAuditChainCheckpoint(ds.manager))?.seq).to.equal(30);
    await append(5, 'second');
    expect(await checkAuditChain(ds.manager, 'INCREMENTAL')).to.deep.equal({
      mode: 'INCREMENTAL',
      valid: true,
      checked: 5,
      checkpointSeq: 30,
    });
    // Nothing new: nothing to verify, and the same checkpoint stays the latest.
    expect(await checkAuditChain(ds.manager, 'INCREMENTAL')).to.include({
      valid: true,
      checked: 0,
      checkpointSeq: 35,
    });
    expect(await checkAuditChain(ds.manager, 'FULL')).to.include({
      valid: true,
      checked: 35,
      checkpointSeq: null,
    });
  });

  it('keeps checkpoints append-only in the database itself', async () => {
    for (const sql of [
      `UPDATE audit_chain_checkpoints SET hash = repeat('0', 64)`,
      `DELETE FROM audit_chain_checkpoints`,
      `TRUNCATE audit_chain_checkpoints`,
    ]) {
      let failure: unknown;
      try {
        await ds.query(sql);
      } catch (error) {
        failure = error;
      }
      expect(String(failure), sql).to.match(/append-only/);
    }
  });

  it('finds an event changed before the checkpoint only in FULL mode; a changed checkpointed event in both', async () => {
    await tamper(10);
    // The trade-off: an incremental run trusts what it verified before.
    expect(await checkAuditChain(ds.manager, 'INCREMENTAL')).to.include({ valid: true, checked: 0 });
    expect(await checkAuditChain(ds.manager, 'FULL')).to.deep.include({
      valid: false,
      checked: 9,
      brokenAt: { seq: 10, reason: 'hash-mismatch' },
    });
    await tamper(35);
    expect(await checkAuditChain(ds.manager, 'INCREMENTAL')).to.deep.include({
      valid: false,
      checkpointSeq: 35,
      brokenAt: { seq: 35, reason: 'hash-mismatch' },
    });
    // Rehashing the checkpointed event does not help: it no longer has the hash that was verified.
    await tamper(35, 'hash');
    expect(await checkAuditChain(ds.manager, 'INCREMENTAL')).to.deep.include({
      valid: false,
      brokenAt: { seq: 35, reason: 'checkpoint-mismatch' },
    });
    // A broken chain records no checkpoint past the break.
    expect((await latestAuditChainCheckpoint(ds.manager))?.seq).to.equal(35);
  });
});
