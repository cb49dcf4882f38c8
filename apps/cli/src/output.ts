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

/** `-` for a value the API does not know (null), so an empty cell never reads as "zero". */
export const UNKNOWN = '-';

/** A duration for humans: `45s`, `3m05s`, `2h04m`, `3d02h`. Fractions are dropped. */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  if (whole < 60) return `${whole}s`;
  const pad = (n: number): string => String(n).padStart(2, '0');
  if (whole < 3600) return `${Math.floor(whole / 60)}m${pad(whole % 60)}s`;
  if (whole < 86_400) return `${Math.floor(whole / 3600)}h${pad(Math.floor((whole % 3600) / 60))}m`;
  return `${Math.floor(whole / 86_400)}d${pad(Math.floor((whole % 86_400) / 3600))}h`;
}

/** Binary units, one decimal: `119.7 GiB`. */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return UNKNOWN;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** An instant with how far it is from `now`: `2025-01-01T12:15:00.000Z (in 15m00s)`. */
export function formatInstant(iso: string | null, now: Date): string {
  if (iso === null) return UNKNOWN;
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = (at - now.getTime()) / 1000;
  return seconds >= 0 ? `${iso} (in ${formatDuration(seconds)})` : `${iso} (${formatDuration(-seconds)} ago)`;
}

export function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}
