import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { grantAppRole, queryableClient } from './app-role';

/**
 * Scratch databases for integration tests: one per test file, created on the
 * server the test harness started (embedded PostgreSQL, or DATABASE_URL's
 * server), dropped afterwards. Real PostgreSQL, never an in-memory stand-in.
 */
export const TEST_PG_ADMIN_URL_VARIABLE = 'LUNANEXA_TEST_PG_ADMIN_URL';

export function testAdminUrl(): string {
  const url = process.env[TEST_PG_ADMIN_URL_VARIABLE];
  if (!url) {
    throw new Error(
      `${TEST_PG_ADMIN_URL_VARIABLE} is not set: run integration tests through \`npm test\`, which starts PostgreSQL`,
    );
  }
  return url;
}

export interface ScratchDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function createScratchDatabase(
  prefix: string,
  adminUrl: string = testAdminUrl(),
): Promise<ScratchDatabase> {
  const name = `${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: withDatabase(adminUrl, name),
    async drop() {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** The role tests connect services as, like `lunanexa_app` in production (one per server: roles are cluster-wide). */
export const TEST_APP_ROLE = 'lunanexa_app_test';
const TEST_APP_ROLE_PASSWORD = 'lunanexa-app-test';

/**
 * Creates the test application role on the test server if it is missing
 * (safe when test files race) and grants it the application's rights on
 * `database` (already migrated); returns the URL services connect with.
 */
export async function connectAsTestAppRole(
  database: ScratchDatabase,
  adminUrl: string = testAdminUrl(),
): Promise<string> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DO $$ BEGIN
      CREATE ROLE ${TEST_APP_ROLE} LOGIN PASSWORD '${TEST_APP_ROLE_PASSWORD}';
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$`);
  } finally {
    await admin.end();
  }
  const owner = new Client({ connectionString: database.url });
  await owner.connect();
  try {
    await grantAppRole(queryableClient(owner), TEST_APP_ROLE);
  } finally {
    await owner.end();
  }
  const url = new URL(database.url);
  url.username = TEST_APP_ROLE;
  url.password = TEST_APP_ROLE_PASSWORD;
  return url.toString();
}
