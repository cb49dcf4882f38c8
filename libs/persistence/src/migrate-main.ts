import { runMigrations } from './data-source';

/**
 * `node libs/persistence/dist/src/migrate-main.js` — applies pending
 * migrations to DATABASE_URL. The start command runs it before any service.
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
}

main().catch((error: unknown) => {
  process.stderr.write(`lunanexa-migrate: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
