import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import {
  APP_ROLE_DEFAULT_RIGHTS,
  TEST_APP_ROLE,
  appendAuditEvent,
  connectAsTestAppRole,
  createDataSource,
  createScratchDatabase,
  runMigrations,
  verifyAuditChain,
  type ScratchDatabase,
} from '../src';

/** The SQLSTATE of what `sql` raised, or null when it succeeded. */
async function sqlState(client: Client, sql: string): Promise<string | null> {
  try {
    await client.query(sql);
    return null;
  } catch (error) {
    return (error as { code?: string }).code ?? 'unknown';
  }
}

describe('the application role: rows yes, schema no, audit log append-only by privilege', function () {
  this.timeout(60_000);
  let db: ScratchDatabase;
  let appUrl: string;
  let app: Client;
  let appDs: DataSource;

  before(async () => {
    db = await createScratchDatabase('app_role');
    await runMigrations(db.url);
    appUrl = await connectAsTestAppRole(db);
    app = new Client({ connectionString: appUrl });
    await app.connect();
    appDs = createDataSource({ url: appUrl, applicationName: 'app-role-test' });
    await appDs.initialize();
  });

  after(async () => {
    await app?.end();
    await appDs?.destroy();
    await db?.drop();
  });

  it('migrate-main with LUNANEXA_APP_ROLE grants the role after migrating, and says what it granted', () => {
    const run = spawnSync(process.execPath, [join(__dirname, '..', 'src', 'migrate-main.js')], {
      env: { PATH: process.env['PATH'], DATABASE_URL: db.url, LUNANEXA_APP_ROLE: TEST_APP_ROLE },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(run.status, run.stderr).to.equal(0);
    expect(run.stdout).to.include('migrations: up to date');
    expect(run.stdout).to.match(
      new RegExp(
        `grants: ${TEST_APP_ROLE} may read and change rows of \\d+ tables, only append to audit_events`,
      ),
    );
    const refused = spawnSync(process.execPath, [join(__dirname, '..', 'src', 'migrate-main.js')], {
      env: { PATH: process.env['PATH'], DATABASE_URL: db.url, LUNANEXA_APP_ROLE: 'no_such_role_here' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(refused.status).to.equal(1);
    expect(refused.stderr).to.include('role no_such_role_here does not exist');
  });

  it('every table but the audit log, its pending queue, its checkpoints and the migration ledger: select, insert, update, delete', async () => {
    const { rows } = await app.query<{ tablename: string; rights: string[] }>(
      `SELECT tablename, ARRAY(
         SELECT p FROM unnest(ARRAY['SELECT','INSERT','UPDATE','DELETE','TRUNCATE','REFERENCES','TRIGGER']) p
         WHERE has_table_privilege(current_user, 'public.' || tablename, p)) AS rights
       FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
    );
    expect(rows.length).to.be.greaterThan(20);
    for (const { tablename, rights } of rows) {
      const expected = {
        audit_events: ['SELECT'],
        audit_pending: ['INSERT'],
        audit_chain_checkpoints: ['SELECT', 'INSERT'],
        schema_migrations: ['SELECT'],
      }[tablename] ?? [...APP_ROLE_DEFAULT_RIGHTS];
      expect(rights, tablename).to.deep.equal(expected);
    }
  });

  it('appends to the audit chain (through audit_pending), but writing audit_events itself, UPDATE, DELETE, TRUNCATE and disabling either trigger are refused by privilege (42501)', async () => {
    await appDs.transaction((m) =>
      appendAuditEvent(m, {
        id: randomUUID(),
        occurredAt: new Date().toISOString(),
        actor: 'user:test',
        action: 'app-role.check',
        decision: 'allowed',
        evidence: {},
        result: 'succeeded',
        correlationId: 'corr-app-role',
        workflowId: null,
      }),
    );
    expect(await verifyAuditChain(appDs.manager)).to.include({ valid: true });
    for (const sql of [
      `UPDATE audit_events SET actor = 'user:mallory'`,
      `DELETE FROM audit_events`,
      `TRUNCATE audit_events`,
      `ALTER TABLE audit_events DISABLE TRIGGER audit_events_no_update_delete`,
      // Only the chain's commit trigger (SECURITY DEFINER) writes audit_events; a row
      // written beside it could pick its own seq and hash.
      `INSERT INTO audit_events (seq, id, occurred_at, actor, action, decision, evidence, result, correlation_id, prev_hash, hash)
       VALUES (999999, gen_random_uuid(), now(), 'user:mallory', 'forged', 'allowed', '{}', 'succeeded', 'c', repeat('0', 64), repeat('1', 64))`,
      `DELETE FROM audit_pending`,
      `ALTER TABLE audit_pending DISABLE TRIGGER audit_pending_chain_at_commit`,
    ]) {
      expect(await sqlState(app, sql), sql).to.equal('42501');
    }
  });

  it('changes no schema and no migration record', async () => {
    for (const sql of [
      `CREATE TABLE intruder (id int)`,
      `DROP TABLE nodes`,
      `ALTER TABLE nodes ADD COLUMN intruder int`,
      `DELETE FROM schema_migrations`,
      `INSERT INTO schema_migrations (timestamp, name) VALUES (1, 'x')`,
    ]) {
      expect(await sqlState(app, sql), sql).to.equal('42501');
    }
  });
});
