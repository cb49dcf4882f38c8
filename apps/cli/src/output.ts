/** Output helpers. Human output is for reading; `--json` output is the stable interface for scripts. */

export type Write = (text: string) => void;

/**
 * Left-aligned columns separated by two spaces, header first. Trailing spaces
 * are trimmed so the output diffs and greps cleanly.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].map((text) => `${text}\n`).join('');
}

/** `key  value` pairs with the keys aligned. */
export function formatFields(fields: readonly (readonly [string, string])[]): string {
  const width = Math.max(...fields.map(([key]) => key.length));
  return fields.map(([key, value]) => `${key.padEnd(width)}  ${value}`.trimEnd() + '\n').join('');
}

export function writeJson(write: Write, value: unknown): void {
  write(`${JSON.stringify(value, null, 2)}\n`);
}
