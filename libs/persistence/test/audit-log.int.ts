import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  appendAuditEvent,
  createDataSource,
  createScratchDatabase,
  MIGRATIONS,
  readAuditEvents,
  runMigrations,
  verifyAuditChain,
  type ScratchDatabase,
} from '../src';

function draft(action: string) {
  return {
    id: randomUUID(),
    occurredAt: new Date().toISOString(),
    actor: 'user:test',
    action,
    decision: 'allowed' as const,
    evidence: { z: 1, a: { nested: true } },
    result: 'succeeded' as const,
    correlationId: 'corr-audit-test',
    workflowId: null,
  };
}

describe('audit log on PostgreSQL', function () {
  this.timeout(30_000);
  let db: ScratchDatabase;
  let ds: DataSource;

  before(async () => {
    db = await createScratchDatabase('audit');
    const names = MIGRATIONS.map((migration) => new migration().name);
    expect(names[0]).to.equal('Initial1764669600000');
    expect(await runMigrations(db.url)).to.deep.equal(names);
    ds = createDataSource({ url: db.url, applicationName: 'audit-test' });
    await ds.initialize();
  });

  after(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('runs migrations once: a second run applies nothing', async () => {
    expect(await runMigrations(db.url)).to.deep.equal([]);
  });

  it('appends a linear chain under concurrent appenders and verifies it', async () => {
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ds.transaction((m) => appendAuditEvent(m, draft(`concurrent.${i}`))),
      ),
    );
    const events = await readAuditEvents(ds.manager);
    expect(events.map((e) => e.seq)).to.deep.equal(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await verifyAuditChain(ds.manager, 7)).to.deep.equal({ valid: true, checked: 20 });
  });

  it('refuses UPDATE, DELETE and TRUNCATE in the database itself', async () => {
    for (const sql of [
      `UPDATE audit_events SET actor = 'user:mallory' WHERE seq = 1`,
      `DELETE FROM audit_events WHERE seq = 2`,
      `TRUNCATE audit_events`,
    ]) {
      let failure: unknown;
      try {
        await ds.query(sql);
      } catch (error) {
        failure = error;
      }
      expect(String(failure), sql).to.match(/append-only/);
    }
    expect(await verifyAuditChain(ds.manager)).to.include({ valid: true });
  });

  it('detects tampering done behind the trigger', async () => {
    await ds.query('ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_delete');
    await ds.query(`UPDATE audit_events SET actor = 'user:mallory' WHERE seq = 3`);
    await ds.query('ALTER TABLE audit_events ENABLE TRIGGER audit_events_no_update_delete');
    expect(await verifyAuditChain(ds.manager)).to.deep.include({
      valid: false,
      brokenAt: { seq: 3, reason: 'hash-mismatch' },
    });
  });

  it('rolls an audit event back with the transaction that failed', async () => {
    const before = (await readAuditEvents(ds.manager)).length;
    try {
      await ds.transaction(async (m) => {
        await appendAuditEvent(m, draft('doomed'));
        throw new Error('business change failed');
      });
    } catch {
      // expected
    }
    expect((await readAuditEvents(ds.manager)).length).to.equal(before);
  });

  it('refuses to append outside a transaction', async () => {
    let failure: unknown;
    try {
      await appendAuditEvent(ds.manager, draft('loose'));
    } catch (error) {
      failure = error;
    }
    expect(String(failure)).to.match(/inside a transaction/);
  });
});
