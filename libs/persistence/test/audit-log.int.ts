import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { Client } from 'pg';
import {
  appendAuditEvent,
  chainedAuditEvents,
  createDataSource,
  LIVE_EVENTS_CHANNEL,
  notifyNodesChanged,
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

  it('chains at commit: a transaction that appended early and stays open does not hold up the others', async () => {
    const before = (await readAuditEvents(ds.manager)).length;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let appended!: () => void;
    const early = new Promise<void>((resolve) => (appended = resolve));
    const slow = ds.transaction(async (m) => {
      const event = await appendAuditEvent(m, draft('slow'));
      appended();
      await held;
      return event;
    });
    await early;
    // Before this change the slow transaction held the chain lock from its append to its commit.
    const quick = await Promise.race([
      Promise.all(
        Array.from({ length: 5 }, (_, i) => ds.transaction((m) => appendAuditEvent(m, draft(`quick.${i}`)))),
      ),
      new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 5_000)),
    ]);
    release();
    const slowEvent = await slow;
    expect(quick).to.not.equal('blocked');
    const events = await readAuditEvents(ds.manager, { afterSeq: before });
    expect(
      events
        .slice(0, 5)
        .map((e) => e.action)
        .sort(),
    ).to.deep.equal([0, 1, 2, 3, 4].map((i) => `quick.${i}`));
    expect(events.at(-1)?.action, 'the slow one is chained when it commits, last').to.equal('slow');
    expect(events.at(-1)?.id).to.equal(slowEvent.id);
    expect((await chainedAuditEvents(ds, [slowEvent.id])).get(slowEvent.id)).to.deep.equal({
      seq: events.at(-1)?.seq,
      hash: events.at(-1)?.hash,
    });
    expect(await ds.query('SELECT count(*)::int AS n FROM audit_pending')).to.deep.equal([{ n: 0 }]);
    expect(await verifyAuditChain(ds.manager)).to.deep.equal({ valid: true, checked: before + 6 });
  });

  it('announces each event at commit with the seq the chain gave it', async () => {
    const listener = new Client({ connectionString: db.url });
    await listener.connect();
    try {
      const notices: Record<string, unknown>[] = [];
      listener.on('notification', (message) =>
        notices.push(JSON.parse(message.payload ?? '{}') as Record<string, unknown>),
      );
      await listener.query(`LISTEN ${LIVE_EVENTS_CHANNEL}`);
      const event = draft('announced');
      await ds.transaction((m) => appendAuditEvent(m, { ...event, evidence: { nodeId: 'node-a' } }));
      const [row] = await readAuditEvents(ds.manager, { afterSeq: 0, limit: 10_000 }).then((all) =>
        all.filter((e) => e.id === event.id),
      );
      for (let i = 0; i < 50 && notices.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(notices).to.deep.equal([
        {
          kind: 'audit',
          seq: row?.seq,
          action: 'announced',
          actor: 'user:test',
          decision: 'allowed',
          result: 'succeeded',
          correlationId: 'corr-audit-test',
          workflowId: null,
          occurredAt: event.occurredAt,
          subject: 'node-a',
        },
      ]);
    } finally {
      await listener.end();
    }
  });

  it('announces many nodes in as few NOTIFYs as the payload limit allows, each under it', async () => {
    const listener = new Client({ connectionString: db.url });
    await listener.connect();
    try {
      const payloads: string[] = [];
      listener.on('notification', (message) => payloads.push(message.payload ?? ''));
      await listener.query(`LISTEN ${LIVE_EVENTS_CHANNEL}`);
      const nodeIds = Array.from({ length: 1000 }, (_, i) => `node-${String(i).padStart(16, '0')}`);
      await notifyNodesChanged(ds, nodeIds, new Date('2026-12-05T12:00:00Z'));
      for (let i = 0; i < 100 && payloads.length < 4; i++) await new Promise((r) => setTimeout(r, 20));
      expect(payloads.length).to.be.within(4, 6);
      for (const payload of payloads) expect(Buffer.byteLength(payload)).to.be.below(8000);
      const notices = payloads.map(
        (p) => JSON.parse(p) as { kind: string; nodeIds: string[]; occurredAt: string },
      );
      expect(new Set(notices.map((n) => n.kind))).to.deep.equal(new Set(['nodes']));
      expect(notices.flatMap((n) => n.nodeIds)).to.deep.equal(nodeIds);
      expect(notices[0]?.occurredAt).to.equal('2026-12-05T12:00:00.000Z');
    } finally {
      await listener.end();
    }
  });

  it('refuses UPDATE, DELETE and TRUNCATE in the database itself', async () => {
    for (const sql of [
      `UPDATE audit_events SET actor = 'user:mallory' WHERE seq = 1`,
      `DELETE FROM audit_events WHERE seq = 2`,
      // CASCADE: audit_chain_checkpoints refers to audit_events, and a plain TRUNCATE would stop at that instead.
      `TRUNCATE audit_events CASCADE`,
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
    expect(await ds.query('SELECT count(*)::int AS n FROM audit_pending')).to.deep.equal([{ n: 0 }]);
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
