import type { Client } from 'pg';
import type { Queryable } from './fleet';

/**
 * What the role the api, gateway and worker connect as may do (infra/README.md
 * "PostgreSQL"): read and change rows, never the schema. The audit log is
 * append-only by privilege as well as by trigger (the role cannot UPDATE,
 * DELETE or TRUNCATE it, nor drop the trigger: it owns nothing), and the
 * migration ledger is read-only. Applied after every migration run, so a
 * table a migration adds is covered in the same release.
 */
export const APP_ROLE_TABLE_RIGHTS: Readonly<Record<string, readonly string[]>> = {
  // Written only by the chain's commit trigger (SECURITY DEFINER, migration AuditChainAtCommit).
  audit_events: ['SELECT'],
  // Where a transaction puts its events until commit chains them.
  audit_pending: ['INSERT'],
  // Verified positions of the chain: added, never moved.
  audit_chain_checkpoints: ['SELECT', 'INSERT'],
  schema_migrations: ['SELECT'],
};
export const APP_ROLE_DEFAULT_RIGHTS = ['SELECT', 'INSERT', 'UPDATE', 'DELETE'] as const;

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface AppRoleGrants {
  readonly role: string;
  /** Table → the rights granted, for every table of the schema. */
  readonly tables: Readonly<Record<string, readonly string[]>>;
}

/**
 * Grants `role` exactly the rights above on every table of the public schema,
 * after revoking whatever it had (so a right removed here is removed there).
 * Run as the schema owner; the role must exist.
 */
export async function grantAppRole(q: Queryable, role: string): Promise<AppRoleGrants> {
  if (!ROLE_NAME.test(role)) throw new Error(`not a plain role name: ${JSON.stringify(role)}`);
  const exists = await q.query<unknown[]>('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
  if (exists.length === 0) throw new Error(`role ${role} does not exist: create it first (infra/README.md)`);
  const rows = await q.query<{ tablename: string }[]>(
    `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
  );
  const tables: Record<string, readonly string[]> = {};
  await q.query(`REVOKE ALL ON ALL TABLES IN SCHEMA public FROM ${role}`);
  await q.query(`REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM ${role}`);
  await q.query(`REVOKE CREATE ON SCHEMA public FROM ${role}`);
  await q.query(`GRANT USAGE ON SCHEMA public TO ${role}`);
  for (const { tablename } of rows) {
    if (!/^[a-z_][a-z0-9_]*$/.test(tablename)) throw new Error(`unexpected table name ${tablename}`);
    const rights = APP_ROLE_TABLE_RIGHTS[tablename] ?? APP_ROLE_DEFAULT_RIGHTS;
    await q.query(`GRANT ${rights.join(', ')} ON TABLE ${tablename} TO ${role}`);
    tables[tablename] = rights;
  }
  await q.query(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
  return { role, tables };
}

/** A plain pg client as a Queryable (rows, as TypeORM's query returns them). */
export function queryableClient(client: Client): Queryable {
  return {
    query: async <T>(sql: string, parameters?: unknown[]) => (await client.query(sql, parameters)).rows as T,
  };
}
