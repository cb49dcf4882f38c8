import { readFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';

/**
 * Where a secret lives, instead of the secret itself in a variable:
 * `env:NAME` (another environment variable of the process, e.g. one a
 * secret manager injects) or `file:/absolute/path` (a mounted secret such as
 * /run/secrets/registry-password; one trailing newline is ignored). The file
 * is read again at every use, so a rotated secret takes effect without a
 * restart.
 */
export type SecretRef =
  { readonly kind: 'env'; readonly name: string } | { readonly kind: 'file'; readonly path: string };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** Parses `env:NAME` or `file:/abs/path`; returns a problem sentence for anything else. */
export function parseSecretRef(text: string): SecretRef | string {
  if (text.startsWith('env:')) {
    const name = text.slice('env:'.length);
    return ENV_NAME.test(name) ? { kind: 'env', name } : 'env: must name an environment variable';
  }
  if (text.startsWith('file:')) {
    const path = text.slice('file:'.length);
    return isAbsolute(path) ? { kind: 'file', path } : 'file: must name an absolute path';
  }
  return 'must be env:NAME or file:/absolute/path';
}

export function formatSecretRef(ref: SecretRef): string {
  return ref.kind === 'env' ? `env:${ref.name}` : `file:${ref.path}`;
}

/** Why a secret reference could not be resolved; the message never contains the secret. */
export class SecretRefError extends Error {
  constructor(
    readonly ref: SecretRef,
    reason: string,
  ) {
    super(`secret ${formatSecretRef(ref)} ${reason}`);
    this.name = 'SecretRefError';
  }
}

function check(ref: SecretRef, value: string | undefined): string {
  const secret = value?.replace(/\r?\n$/, '');
  if (secret === undefined) throw new SecretRefError(ref, 'is not set');
  if (secret.length === 0) throw new SecretRefError(ref, 'is empty');
  return secret;
}

/** Resolves the reference now; SecretRefError when it names nothing usable. */
export async function resolveSecretRef(
  ref: SecretRef,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<string> {
  if (ref.kind === 'env') return check(ref, env[ref.name]);
  let text: string;
  try {
    text = await readFile(ref.path, 'utf8');
  } catch (error: unknown) {
    throw new SecretRefError(ref, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return check(ref, text);
}

/** The synchronous form, for configuration checks at process start. */
export function resolveSecretRefSync(
  ref: SecretRef,
  env: Readonly<Record<string, unknown>> = process.env,
): string {
  if (ref.kind === 'env') {
    const value = env[ref.name];
    return check(ref, typeof value === 'string' ? value : undefined);
  }
  let text: string;
  try {
    text = readFileSync(ref.path, 'utf8');
  } catch (error: unknown) {
    throw new SecretRefError(ref, `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return check(ref, text);
}
