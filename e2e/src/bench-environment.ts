import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './stack-process';

/**
 * Temporal and PostgreSQL for the whole-stack benches, as `npm test` uses
 * them: the pinned CLI it built (.tools/bin/temporal) unless
 * LUNANEXA_TEMPORAL_CLI names one, and the server of
 * LUNANEXA_TEST_PG_ADMIN_URL, else LUNANEXA_BENCH_PG_ADMIN_URL, else
 * DATABASE_URL (an admin connection: each run creates and drops scratch
 * databases). Throws one line naming what is missing.
 */
export function prepareBenchEnvironment(): void {
  const cli = join(REPO_ROOT, '.tools', 'bin', 'temporal');
  if (!process.env['LUNANEXA_TEMPORAL_CLI'] && existsSync(cli)) process.env['LUNANEXA_TEMPORAL_CLI'] = cli;
  if (!process.env['LUNANEXA_TEMPORAL_CLI']) {
    throw new Error(
      'no Temporal CLI: run `npm test` once (it builds .tools/bin/temporal) or set LUNANEXA_TEMPORAL_CLI',
    );
  }
  const admin =
    process.env['LUNANEXA_TEST_PG_ADMIN_URL'] ||
    process.env['LUNANEXA_BENCH_PG_ADMIN_URL'] ||
    process.env['DATABASE_URL'];
  if (!admin) {
    throw new Error(
      'no PostgreSQL: set LUNANEXA_BENCH_PG_ADMIN_URL (or DATABASE_URL) to an admin connection, e.g. postgres://postgres@127.0.0.1:5432/postgres',
    );
  }
  process.env['LUNANEXA_TEST_PG_ADMIN_URL'] = admin;
}
