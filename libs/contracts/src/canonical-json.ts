/**
 * Canonical JSON: the one byte representation of a contract value. Golden
 * fixtures are stored in it and audit hashes are computed over it, so two
 * processes that agree on a value agree on its bytes.
 *
 * Rules: object keys sorted by UTF-16 code unit order at every depth;
 * two-space indentation exactly as `JSON.stringify(value, null, 2)` lays it
 * out; one trailing newline. Values JSON cannot represent faithfully —
 * undefined, NaN, ±Infinity, functions, symbols, bigints, and objects other
 * than plain objects and arrays (Date, Map, class instances) — are refused
 * rather than silently dropped or converted.
 *
 * It is written out by hand because `JSON.stringify` of a key-sorted copy is
 * not enough: JavaScript orders integer-like keys ("9", "10") numerically
 * ahead of all others regardless of insertion order.
 */
export class CanonicalJsonError extends Error {
  constructor(path: string, problem: string) {
    super(`canonicalJson: ${problem} at ${path === '' ? '(root)' : path}`);
    this.name = 'CanonicalJsonError';
  }
}

export function canonicalJson(value: unknown): string {
  return `${serialize(value, '', '', new Set())}\n`;
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function serialize(value: unknown, indent: string, path: string, ancestors: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new CanonicalJsonError(path, `non-finite number ${String(value)}`);
      return JSON.stringify(value);
    case 'undefined':
    case 'function':
    case 'symbol':
    case 'bigint':
      throw new CanonicalJsonError(path, `${typeof value} is not JSON`);
    case 'object':
      break;
  }
  if (value === null) return 'null';
  if (ancestors.has(value)) throw new CanonicalJsonError(path, 'circular reference');
  const inner = `${indent}  `;
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      if (value.length === 0) return '[]';
      const items: string[] = [];
      for (let i = 0; i < value.length; i += 1) {
        // Holes in sparse arrays would serialize as null; refuse them like undefined.
        if (!(i in value)) throw new CanonicalJsonError(`${path}[${i}]`, 'array hole is not JSON');
        items.push(`${inner}${serialize(value[i], inner, `${path}[${i}]`, ancestors)}`);
      }
      return `[\n${items.join(',\n')}\n${indent}]`;
    }
    if (!isPlainObject(value)) {
      throw new CanonicalJsonError(
        path,
        `${value.constructor?.name ?? 'exotic object'} is not a plain object`,
      );
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    if (keys.length === 0) return '{}';
    const members = keys.map((key) => {
      const childPath = path === '' ? key : `${path}.${key}`;
      return `${inner}${JSON.stringify(key)}: ${serialize(record[key], inner, childPath, ancestors)}`;
    });
    return `{\n${members.join(',\n')}\n${indent}}`;
  } finally {
    ancestors.delete(value);
  }
}
