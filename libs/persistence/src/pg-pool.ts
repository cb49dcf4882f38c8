import type { DataSource } from 'typeorm';
import type { Queryable } from './fleet';

/** What a node-postgres Pool or Client offers: results as the driver's object with `rows`. */
export interface RowsQueryable {
  query(sql: string, parameters?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A pg pool (or client) as a Queryable (rows, not the driver's result object), for processes without TypeORM. */
export function queryableOf(pool: RowsQueryable): Queryable {
  return {
    async query<T>(sql: string, parameters?: unknown[]): Promise<T> {
      return (await pool.query(sql, parameters)).rows as T;
    },
  };
}

/** What node-postgres takes to run a named statement: parsed and planned once per connection, then reused. */
interface NamedStatementPool {
  query(statement: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * A DataSource as a Queryable that also runs named statements
 * (`queryPrepared`) on the DataSource's own pg pool. For the heartbeat pool:
 * planning the lease renewal statement cost PostgreSQL about as much as
 * running it, a thousand times a second at fleet scale. Named statements
 * live on their connection, so a pooler in front of PostgreSQL must keep
 * sessions (PgBouncer session mode, or 1.21+ with max_prepared_statements).
 */
export function withPreparedStatements(dataSource: DataSource): Queryable {
  const pool = (dataSource.driver as unknown as { master?: NamedStatementPool }).master;
  if (pool === undefined || typeof pool.query !== 'function') {
    throw new Error('withPreparedStatements needs an initialized PostgreSQL DataSource');
  }
  return {
    query: <T>(sql: string, parameters?: unknown[]): Promise<T> => dataSource.query<T>(sql, parameters),
    async queryPrepared<T>(name: string, sql: string, parameters: unknown[]): Promise<T> {
      return (await pool.query({ name, text: sql, values: parameters })).rows as T;
    },
  };
}

/** Subscribes a dedicated connection to a notification channel (channel names are fixed identifiers). */
export async function listenTo(client: RowsQueryable, channel: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  await client.query(`LISTEN ${channel}`);
}
