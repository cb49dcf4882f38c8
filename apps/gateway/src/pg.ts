import type { Queryable } from '@lunanexa/persistence';
import type { Pool } from 'pg';

/** A pg pool as the persistence library's Queryable (rows, not the driver's result object). */
export function queryableOf(pool: Pool): Queryable {
  return {
    async query<T>(sql: string, parameters?: unknown[]): Promise<T> {
      return (await pool.query(sql, parameters)).rows as T;
    },
  };
}
