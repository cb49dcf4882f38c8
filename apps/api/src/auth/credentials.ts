import { createHash, randomBytes } from 'node:crypto';
import { API_TOKEN_PREFIX } from '@lunanexa/contracts';
import { MAX_BEARER_LENGTH } from './session-token';

/**
 * API tokens: `lnx_` followed by 43 base64url characters (32 random bytes).
 * The database keeps only sha256(token) and the display prefix (`lnx_` + the
 * first 8 random characters). The token has 256 bits of entropy, so a fast
 * hash is enough: nobody can guess a preimage, and lookups stay one index
 * probe.
 */
const SECRET_BYTES = 32;
const SECRET_CHARS = 43;
const DISPLAY_CHARS = 8;
export const API_TOKEN_PATTERN = new RegExp(`^${API_TOKEN_PREFIX}[A-Za-z0-9_-]{${SECRET_CHARS}}$`);

export interface NewApiToken {
  /** The token itself: returned to its creator once, never stored. */
  readonly token: string;
  readonly tokenHash: string;
  readonly prefix: string;
}

export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function apiTokenDisplayPrefix(token: string): string {
  return token.slice(0, API_TOKEN_PREFIX.length + DISPLAY_CHARS);
}

export function generateApiToken(): NewApiToken {
  const token = `${API_TOKEN_PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`;
  return { token, tokenHash: hashApiToken(token), prefix: apiTokenDisplayPrefix(token) };
}

/** What an `Authorization` header carries, before anything is looked up or verified. */
export type BearerCredential =
  | { readonly kind: 'none' }
  /** Present but not `Bearer <one token>`, or a token of neither shape. */
  | { readonly kind: 'malformed' }
  | { readonly kind: 'api-token'; readonly token: string; readonly prefix: string }
  | { readonly kind: 'session'; readonly token: string };

/**
 * Reads `Authorization: Bearer <credential>`. The `lnx_` prefix selects the
 * API-token path; three dot-separated segments select the session-token path;
 * anything else is malformed. Only the scheme is case-insensitive (RFC 9110).
 */
export function parseAuthorization(header: string | string[] | undefined): BearerCredential {
  if (header === undefined) return { kind: 'none' };
  if (Array.isArray(header) || header.length > MAX_BEARER_LENGTH + 16) return { kind: 'malformed' };
  const match = /^Bearer +(\S+) *$/i.exec(header);
  const value = match?.[1];
  if (!value) return { kind: 'malformed' };
  if (value.startsWith(API_TOKEN_PREFIX)) {
    return API_TOKEN_PATTERN.test(value)
      ? { kind: 'api-token', token: value, prefix: apiTokenDisplayPrefix(value) }
      : { kind: 'malformed' };
  }
  if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value))
    return { kind: 'session', token: value };
  return { kind: 'malformed' };
}
