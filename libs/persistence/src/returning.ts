/**
 * The rows of an UPDATE/DELETE … RETURNING: TypeORM answers those with
 * [rows, affected count], other statements and a plain pg client with the rows.
 */
export function returnedRows<T>(raw: unknown): T[] {
  const rows = raw as unknown[];
  return (Array.isArray(rows[0]) ? rows[0] : rows) as T[];
}
