import {
  LABEL_KEY_PATTERN,
  LABEL_VALUE_PATTERN,
  MODEL_VERSION_REF_PATTERN,
  NAME_PATTERN,
  TAINT_EFFECTS,
  isOpaqueId,
  type TaintEffect,
} from '@lunanexa/contracts';
import { usageError } from './errors';

/**
 * Parsers for command-line values. Everything the API would reject for its
 * shape is rejected here too, so a typo exits 64 (usage) without a round trip
 * and the message names the flag or argument the operator typed.
 */

export interface LabelArgument {
  readonly key: string;
  readonly value: string;
}

export interface TaintArgument {
  readonly key: string;
  readonly value: string;
  readonly effect: TaintEffect;
}

const LABEL_KEY_RULE =
  'a key is [prefix/]name: name 1-63 of letters, digits, _ . - starting and ending with a letter or digit';
const LABEL_VALUE_RULE =
  'a value is empty or 1-63 of letters, digits, _ . - starting and ending with a letter or digit';

function checkLabelParts(raw: string, what: string, key: string, value: string): void {
  if (!LABEL_KEY_PATTERN.test(key)) {
    throw usageError(
      `${what} ${JSON.stringify(raw)} has an invalid key ${JSON.stringify(key)}: ${LABEL_KEY_RULE}`,
    );
  }
  if (!LABEL_VALUE_PATTERN.test(value)) {
    throw usageError(
      `${what} ${JSON.stringify(raw)} has an invalid value ${JSON.stringify(value)}: ${LABEL_VALUE_RULE}`,
    );
  }
}

/** `key=value`; `key=` is a label with an empty value. */
export function parseLabel(raw: string, what = 'label'): LabelArgument {
  const equals = raw.indexOf('=');
  if (equals < 0) throw usageError(`${what} ${JSON.stringify(raw)} must be key=value (e.g. gpu=gb10)`);
  const key = raw.slice(0, equals);
  const value = raw.slice(equals + 1);
  checkLabelParts(raw, what, key, value);
  return { key, value };
}

/** Labels in order, refusing a key given twice (the later one would silently win). */
export function parseLabels(raws: readonly string[], what = 'label'): LabelArgument[] {
  const labels = raws.map((raw) => parseLabel(raw, what));
  const seen = new Set<string>();
  for (const label of labels) {
    if (seen.has(label.key)) throw usageError(`${what} key ${JSON.stringify(label.key)} is given twice`);
    seen.add(label.key);
  }
  return labels;
}

/**
 * `key=value:Effect` or `key:Effect`. The effect follows the last colon:
 * neither keys nor values may contain one, so the split is unambiguous.
 */
export function parseTaint(raw: string): TaintArgument {
  const colon = raw.lastIndexOf(':');
  const shape = `must be key=value:Effect or key:Effect (Effect one of ${TAINT_EFFECTS.join(', ')})`;
  if (colon < 0) throw usageError(`taint ${JSON.stringify(raw)} ${shape}`);
  const effect = raw.slice(colon + 1);
  if (!isTaintEffect(effect)) {
    throw usageError(
      `taint ${JSON.stringify(raw)} has effect ${JSON.stringify(effect)}; it must be one of ${TAINT_EFFECTS.join(', ')}`,
    );
  }
  const pair = raw.slice(0, colon);
  const equals = pair.indexOf('=');
  const key = equals < 0 ? pair : pair.slice(0, equals);
  const value = equals < 0 ? '' : pair.slice(equals + 1);
  checkLabelParts(raw, 'taint', key, value);
  return { key, value, effect };
}

function isTaintEffect(value: string): value is TaintEffect {
  return (TAINT_EFFECTS as readonly string[]).includes(value);
}

/** Taints in order, refusing the same key and effect twice (the API keeps taints as a list). */
export function parseTaints(raws: readonly string[]): TaintArgument[] {
  const taints = raws.map(parseTaint);
  const seen = new Set<string>();
  for (const taint of taints) {
    const identity = `${taint.key}:${taint.effect}`;
    if (seen.has(identity)) throw usageError(`taint ${identity} is given twice`);
    seen.add(identity);
  }
  return taints;
}

/** `<model-name>@<version>`, split into its parts. */
export function parseModelVersionRef(
  raw: string,
  what = 'model version',
): { readonly ref: string; readonly model: string; readonly version: string } {
  if (!MODEL_VERSION_REF_PATTERN.test(raw)) {
    throw usageError(
      `${what} ${JSON.stringify(raw)} must be <model-name>@<version> (e.g. demo@v1): the name a lower-case DNS label, the version 1-64 of letters, digits, . _ -`,
    );
  }
  const at = raw.indexOf('@');
  return { ref: raw, model: raw.slice(0, at), version: raw.slice(at + 1) };
}

/** What `invoke` may target: an alias (floats between versions) or a pinned `name@version`. */
export function parseModelTarget(raw: string): string {
  if (NAME_PATTERN.test(raw) || MODEL_VERSION_REF_PATTERN.test(raw)) return raw;
  throw usageError(
    `model ${JSON.stringify(raw)} must be an alias (a lower-case DNS label) or <model-name>@<version>`,
  );
}

/** A lower-case DNS label: deployment names, node names in bootstrap tokens. */
export function parseName(raw: string, what: string): string {
  if (!NAME_PATTERN.test(raw)) {
    throw usageError(
      `${what} ${JSON.stringify(raw)} must be a lower-case DNS label (a-z, 0-9 and -, at most 63, not starting or ending with -)`,
    );
  }
  return raw;
}

/** A whole number in [min, max]; `max` undefined leaves the upper bound to the API. */
export function parseWholeNumber(raw: string, flag: string, min: number, max?: number): number {
  const range = max === undefined ? `at least ${min}` : `between ${min} and ${max}`;
  if (!/^\d{1,15}$/.test(raw)) {
    throw usageError(`${flag} must be a whole number ${range}, not ${JSON.stringify(raw)}`);
  }
  const value = Number(raw);
  if (value < min || (max !== undefined && value > max)) {
    throw usageError(`${flag} must be a whole number ${range}, not ${raw}`);
  }
  return value;
}

/** A signed whole number that fits a JSON number exactly (seeds). */
export function parseInteger(raw: string, flag: string): number {
  if (!/^-?\d{1,15}$/.test(raw))
    throw usageError(`${flag} must be a whole number, not ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** Same rule as the API's idempotency keys (an opaque id). */
export function parseIdempotencyKey(raw: string, flag = '--key'): string {
  if (!isOpaqueId(raw)) {
    throw usageError(
      `${flag} must be 1-128 characters of letters, digits and . _ : - starting with a letter or digit, not ${JSON.stringify(raw)}`,
    );
  }
  return raw;
}

/** commander collector for repeatable options (`--label a=1 --label b=2`). */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}
