import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (node:crypto). Stored form:
 *
 *     scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>
 *
 * with N = 2^15, r = 8, p = 1, a 16-byte random salt per password and a
 * 32-byte derived key. The parameters travel with each hash, so raising them
 * later keeps old hashes verifiable.
 */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const;
export const SALT_BYTES = 16;
export const KEY_BYTES = 32;

/** Bounds accepted when reading a stored hash, so a corrupted row cannot make one login cost minutes or gigabytes. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

export interface ScryptHash {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

const FORMAT = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9_-]{22})\$([A-Za-z0-9_-]{43})$/;

function isPowerOfTwo(n: number): boolean {
  return n > 1 && (n & (n - 1)) === 0;
}

/** Parses a stored hash; throws on anything that is not exactly the format above. */
export function parsePasswordHash(stored: string): ScryptHash {
  const match = FORMAT.exec(stored);
  if (!match) throw new Error('not a scrypt password hash');
  const [, n = '', r = '', p = '', salt = '', hash = ''] = match;
  const parsed = {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    salt: Buffer.from(salt, 'base64url'),
    hash: Buffer.from(hash, 'base64url'),
  };
  if (!isPowerOfTwo(parsed.N) || parsed.N > MAX_N) throw new Error('scrypt N out of range');
  if (parsed.r < 1 || parsed.r > MAX_R || parsed.p < 1 || parsed.p > MAX_P) {
    throw new Error('scrypt r or p out of range');
  }
  // base64url of 22/43 characters may carry stray low bits; the canonical re-encoding must match.
  if (parsed.salt.toString('base64url') !== salt || parsed.hash.toString('base64url') !== hash) {
    throw new Error('non-canonical base64url in password hash');
  }
  return parsed;
}

export function formatPasswordHash(h: ScryptHash): string {
  return `scrypt$${h.N}$${h.r}$${h.p}$${h.salt.toString('base64url')}$${h.hash.toString('base64url')}`;
}

function derive(
  password: string,
  salt: Buffer,
  params: { N: number; r: number; p: number },
): Promise<Buffer> {
  const options: ScryptOptions = {
    N: params.N,
    r: params.r,
    p: params.p,
    // scrypt needs 128 * N * r bytes (32 MiB at the defaults); Node's default cap is exactly that, so widen it.
    maxmem: 256 * params.N * params.r,
  };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, SCRYPT_PARAMS);
  return formatPasswordHash({ ...SCRYPT_PARAMS, salt, hash });
}

/** Constant-time comparison of the derived key with the stored one. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parsePasswordHash(stored);
  const candidate = await derive(password, parsed.salt, parsed);
  return candidate.length === parsed.hash.length && timingSafeEqual(candidate, parsed.hash);
}

/**
 * A well-formed hash of a random password nobody knows. Logins for unknown
 * usernames are checked against it, so they cost the same scrypt work as a
 * wrong password and cannot be told apart by timing.
 */
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(32).toString('base64url'));
  return decoy;
}
