import { Client } from 'pg';
import { grantAppRole, queryableClient } from './app-role';
import { appliedMigrations, revertMigrationsTo, runMigrations } from './data-source';

/**
 * `node libs/persistence/dist/src/migrate-main.js` — applies pending
 * migrations to DATABASE_URL. The start command runs it before any service.
 * With LUNANEXA_APP_ROLE (e.g. `lunanexa_app`), it then grants that role
 * exactly the application's rights on every table (libs/persistence app-role).
 *
 * `--revert-to <MigrationName>` runs the down migrations of everything newer
 * than that migration instead (a rollback to the release whose last migration
 * it is; docs/UPGRADING.md); `--status` prints the applied migrations.
 */
async function main(): Promise<void> {
  const url = process.env['DATABASE_URL'];
  if (!url || !/^postgres(ql)?:\/\//.test(url)) {
    process.stderr.write(
      'lunanexa-migrate: invalid configuration\n  DATABASE_URL: must be a postgres:// URL\n',
    );
    process.exit(78);
  }
  const args = process.argv.slice(2);
  if (args[0] === '--status' && args.length === 1) {
    const names = await appliedMigrations(url);
    process.stdout.write(names.length ? `applied: ${names.join(', ')}\n` : 'applied: none\n');
    return;
  }
  if (args[0] === '--revert-to') {
    const target = args[1];
    if (!target || args.length !== 2) {
      process.stderr.write('lunanexa-migrate: usage: --revert-to <MigrationName>\n');
      process.exit(64);
    }
    const reverted = await revertMigrationsTo(url, target);
    process.stdout.write(
      reverted.length
        ? `migrations reverted: ${reverted.join(', ')}\n`
        : `migrations: already at ${target}\n`,
    );
    return;
  }
  if (args.length > 0) {
    process.stderr.write(
      `lunanexa-migrate: unknown arguments ${args.join(' ')} (--status, --revert-to <MigrationName>)\n`,
    );
    process.exit(64);
  }
  const applied = await runMigrations(url);
  process.stdout.write(
    applied.length ? `migrations applied: ${applied.join(', ')}\n` : 'migrations: up to date\n',
  );
  const role = process.env['LUNANEXA_APP_ROLE'];
  if (role) {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const grants = await grantAppRole(queryableClient(client), role);
      const tables = Object.keys(grants.tables).length;
      process.stdout.write(
        `grants: ${role} may read and change rows of ${tables} tables, only append to audit_events, only read schema_migrations, and change no schema\n`,
      );
    } finally {
      await client.end();
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`lunanexa-migrate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
