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

/** Subscribes a dedicated connection to a notification channel (channel names are fixed identifiers). */
export async function listenTo(client: RowsQueryable, channel: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a channel name: ${channel}`);
  await client.query(`LISTEN ${channel}`);
}
