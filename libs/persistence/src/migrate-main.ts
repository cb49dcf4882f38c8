import { Client } from 'pg';
import { grantAppRole, queryableClient } from './app-role';
import { runMigrations } from './data-source';

/**
 * `node libs/persistence/dist/src/migrate-main.js` — applies pending
 * migrations to DATABASE_URL. The start command runs it before any service.
 * With LUNANEXA_APP_ROLE (e.g. `lunanexa_app`), it then grants that role
 * exactly the application's rights on every table (libs/persistence app-role).
 */
async function main(): Promise<void> {
  const url = process.env['DATABASE_URL'];
  if (!url || !/^postgres(ql)?:\/\//.test(url)) {
    process.stderr.write(
      'lunanexa-migrate: invalid configuration\n  DATABASE_URL: must be a postgres:// URL\n',
    );
    process.exit(78);
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
