import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import {
  MIGRATIONS,
  appliedMigrations,
  createScratchDatabase,
  revertMigrationsTo,
  runMigrations,
  type ScratchDatabase,
} from '../src';

/** Every column, constraint and index of the public schema, as text that compares equal when the schemas are. */
async function schemaShape(url: string): Promise<string[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const columns = await client.query<{ line: string }>(
      `SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || COALESCE(column_default, '') AS line
         FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    const constraints = await client.query<{ line: string }>(
      `SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS line
         FROM pg_constraint WHERE connamespace = 'public'::regnamespace`,
    );
    const indexes = await client.query<{ line: string }>(
      `SELECT indexdef AS line FROM pg_indexes WHERE schemaname = 'public'`,
    );
    const functions = await client.query<{ line: string }>(
      `SELECT p.proname || ' ' || md5(p.prosrc) AS line FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace`,
    );
    const triggers = await client.query<{ line: string }>(
      `SELECT tgrelid::regclass::text || ' ' || tgname AS line FROM pg_trigger WHERE NOT tgisinternal`,
    );
    return [...columns.rows, ...constraints.rows, ...indexes.rows, ...functions.rows, ...triggers.rows]
      .map((row) => row.line)
      .sort();
  } finally {
    await client.end();
  }
}

const MIGRATE_MAIN = join(__dirname, '..', 'src', 'migrate-main.js');

function migrateMain(url: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MIGRATE_MAIN, ...args], {
    env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: url },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('down migrations on PostgreSQL', function () {
  this.timeout(120_000);
  let db: ScratchDatabase;
  const names = MIGRATIONS.map((migration) => migration.name);
  const first = names[0];
  const secondNewest = names[names.length - 2];

  before(async () => {
    db = await createScratchDatabase('down_migrations');
    await runMigrations(db.url);
  });

  after(async () => {
    await db?.drop();
  });

  it('every down runs: reverting to the first migration and applying again gives the same schema', async () => {
    const applied = await schemaShape(db.url);
    const reverted = await revertMigrationsTo(db.url, first);
    expect(reverted).to.deep.equal(names.slice(1).reverse());
    expect(await appliedMigrations(db.url)).to.deep.equal([first]);
    const atFirst = await schemaShape(db.url);
    expect(atFirst.length).to.be.lessThan(applied.length);
    expect(await runMigrations(db.url)).to.deep.equal(names.slice(1));
    expect(await schemaShape(db.url)).to.deep.equal(applied);
  });

  it('migrate-main --revert-to rolls back to a release, --status says where it is, and a plain run re-applies', () => {
    const revert = migrateMain(db.url, ['--revert-to', secondNewest]);
    expect(revert.status, revert.stderr).to.equal(0);
    expect(revert.stdout).to.equal(`migrations reverted: ${names[names.length - 1]}\n`);
    const status = migrateMain(db.url, ['--status']);
    expect(status.stdout).to.equal(`applied: ${names.slice(0, -1).join(', ')}\n`);
    const again = migrateMain(db.url, ['--revert-to', secondNewest]);
    expect(again.stdout).to.equal(`migrations: already at ${secondNewest}\n`);
    const apply = migrateMain(db.url, []);
    expect(apply.status, apply.stderr).to.equal(0);
    expect(apply.stdout).to.equal(`migrations applied: ${names[names.length - 1]}\n`);
  });

  it('refuses a target that is not a migration of this release, changing nothing', async () => {
    const refused = migrateMain(db.url, ['--revert-to', 'NotAMigration1']);
    expect(refused.status).to.equal(1);
    expect(refused.stderr).to.contain('NotAMigration1 is not a migration of this release');
    expect(await appliedMigrations(db.url)).to.deep.equal(names);
  });
});
