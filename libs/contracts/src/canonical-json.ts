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
  try {
    return `${serialize(value, '', new Set())}\n`;
  } catch (error: unknown) {
    if (error instanceof Misfit) throw new CanonicalJsonError(error.path(), error.problem);
    throw error;
  }
}

/**
 * A value that cannot be canonical, with the way down to it collected while
 * the stack unwinds: the common case, which succeeds, builds no paths at all
 * (signing and verifying every heartbeat canonicalizes it).
 */
class Misfit extends Error {
  private readonly steps: (string | number)[] = [];
  constructor(readonly problem: string) {
    super(problem);
  }
  at(step: string | number): Misfit {
    this.steps.push(step);
    return this;
  }
  path(): string {
    let path = '';
    for (let i = this.steps.length - 1; i >= 0; i -= 1) {
      const step = this.steps[i];
      path += typeof step === 'number' ? `[${step}]` : path === '' ? step : `.${step}`;
    }
    return path;
  }
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function serialize(value: unknown, indent: string, ancestors: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new Misfit(`non-finite number ${String(value)}`);
      return JSON.stringify(value);
    case 'undefined':
    case 'function':
    case 'symbol':
    case 'bigint':
      throw new Misfit(`${typeof value} is not JSON`);
    case 'object':
      break;
  }
  if (value === null) return 'null';
  if (ancestors.has(value)) throw new Misfit('circular reference');
  const inner = `${indent}  `;
  ancestors.add(value);
  try {
    if (Array.isArray(value)) {
      if (value.length === 0) return '[]';
      let out = '[\n';
      for (let i = 0; i < value.length; i += 1) {
        // Holes in sparse arrays would serialize as null; refuse them like undefined.
        if (!(i in value)) throw new Misfit('array hole is not JSON').at(i);
        let item: string;
        try {
          item = serialize(value[i], inner, ancestors);
        } catch (error: unknown) {
          throw error instanceof Misfit ? error.at(i) : error;
        }
        out += i === 0 ? `${inner}${item}` : `,\n${inner}${item}`;
      }
      return `${out}\n${indent}]`;
    }
    if (!isPlainObject(value)) {
      throw new Misfit(`${value.constructor?.name ?? 'exotic object'} is not a plain object`);
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort();
    if (keys.length === 0) return '{}';
    let out = '{\n';
    for (let i = 0; i < keys.length; i += 1) {
      const key = keys[i];
      let member: string;
      try {
        member = serialize(record[key], inner, ancestors);
      } catch (error: unknown) {
        throw error instanceof Misfit ? error.at(key) : error;
      }
      out += `${i === 0 ? '' : ',\n'}${inner}${JSON.stringify(key)}: ${member}`;
    }
    return `${out}\n${indent}}`;
  } finally {
    ancestors.delete(value);
  }
}
