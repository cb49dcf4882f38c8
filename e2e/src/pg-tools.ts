import { queryableClient, serverMajorVersion } from '@lunanexa/persistence';
import { spawnSync } from 'node:child_process';
import { Client } from 'pg';
import { TEST_PG_ADMIN_URL_VARIABLE } from '@lunanexa/persistence';

/** Where the PostgreSQL tools' server is named explicitly (admin URL). */
export const TEST_PG_TOOLS_URL_VARIABLE = 'LUNANEXA_TEST_PG_TOOLS_ADMIN_URL';
/** The host's own PostgreSQL, as distributions install it next to their client tools. */
const HOST_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';

export interface PgToolsServer {
  /** Admin URL of a server the PATH's pg_dump can dump. */
  readonly adminUrl: string;
  readonly serverMajor: number;
  readonly pgDumpMajor: number;
}

function pgDumpMajor(): number | null {
  const result = spawnSync('pg_dump', ['--version'], { encoding: 'utf8' });
  if (result.status !== 0) return null;
  const match = /(\d+)(?:\.\d+)?/.exec(result.stdout);
  return match ? Number(match[1]) : null;
}

async function serverMajor(url: string): Promise<number | null> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return await serverMajorVersion(queryableClient(client));
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A PostgreSQL server the backup scripts' tools (pg_dump, pg_restore, psql
 * on PATH) can work with: pg_dump refuses a server of a newer major version
 * than its own. Tried in order: LUNANEXA_TEST_PG_TOOLS_ADMIN_URL, the test
 * server (`npm test`'s embedded one has no client tools of its version), the
 * host's own at 127.0.0.1:5432. Throws, naming what it found, when none fits:
 * the backup test fails rather than skips.
 */
export async function pgToolsServer(): Promise<PgToolsServer> {
  const tools = pgDumpMajor();
  if (tools === null)
    throw new Error(
      'pg_dump is not on PATH: install the PostgreSQL client tools (Debian: postgresql-client)',
    );
  const candidates = [
    process.env[TEST_PG_TOOLS_URL_VARIABLE],
    process.env[TEST_PG_ADMIN_URL_VARIABLE],
    HOST_POSTGRES,
  ].filter((url): url is string => typeof url === 'string' && url.length > 0);
  const seen: string[] = [];
  for (const url of candidates) {
    const major = await serverMajor(url);
    seen.push(`${new URL(url).host}: ${major === null ? 'unreachable' : `PostgreSQL ${major}`}`);
    if (major !== null && major <= tools) return { adminUrl: url, serverMajor: major, pgDumpMajor: tools };
  }
  throw new Error(
    `no PostgreSQL server that pg_dump ${tools} can dump (${seen.join('; ')}); set ${TEST_PG_TOOLS_URL_VARIABLE}`,
  );
}

/** The libpq variables (PGHOST, PGPORT, PGUSER, PGPASSWORD) the backup scripts connect with, from an admin URL. */
export function libpqEnvironment(adminUrl: string): Record<string, string> {
  const url = new URL(adminUrl);
  return {
    PGHOST: url.hostname,
    PGPORT: url.port || '5432',
    PGUSER: decodeURIComponent(url.username || 'postgres'),
    ...(url.password ? { PGPASSWORD: decodeURIComponent(url.password) } : {}),
  };
}
