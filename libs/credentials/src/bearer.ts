import { createHash, randomBytes } from 'node:crypto';
import { API_TOKEN_PREFIX, GATEWAY_KEY_PATTERN, GATEWAY_KEY_PREFIX } from '@lunanexa/contracts';
import { MAX_BEARER_LENGTH } from './session-token';

/**
 * Bearer credentials LunaNexa issues, recognisable by their prefix (so a
 * secret scanner can find leaked ones): operator API tokens `lnx_…` and
 * tenant gateway keys `lnxk_…`, both 32 random bytes in base64url after the
 * prefix; anything else of three dot-separated segments is an operator
 * session JWT (session-token.ts).
 *
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
  return hashBearerSecret(token);
}

export function apiTokenDisplayPrefix(token: string): string {
  return token.slice(0, API_TOKEN_PREFIX.length + DISPLAY_CHARS);
}

export function generateApiToken(): NewApiToken {
  const token = `${API_TOKEN_PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`;
  return { token, tokenHash: hashApiToken(token), prefix: apiTokenDisplayPrefix(token) };
}

/**
 * Tenant gateway keys: `lnxk_` + 43 base64url characters, stored like API
 * tokens (sha256 and a display prefix). They authenticate a tenant's calls
 * to the gateway's `/v1/*` and nothing else: the API refuses them.
 */
export interface NewGatewayKey {
  /** The key itself: returned to its creator once, never stored. */
  readonly key: string;
  readonly keyHash: string;
  readonly prefix: string;
}

/** sha256 hex of a bearer secret (API token or gateway key): what the database keeps. */
export function hashBearerSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function gatewayKeyDisplayPrefix(key: string): string {
  return key.slice(0, GATEWAY_KEY_PREFIX.length + DISPLAY_CHARS);
}

export function generateGatewayKey(): NewGatewayKey {
  const key = `${GATEWAY_KEY_PREFIX}${randomBytes(SECRET_BYTES).toString('base64url')}`;
  return { key, keyHash: hashBearerSecret(key), prefix: gatewayKeyDisplayPrefix(key) };
}

/** What an `Authorization` header carries, before anything is looked up or verified. */
export type BearerCredential =
  | { readonly kind: 'none' }
  /** Present but not `Bearer <one token>`, or a token of no known shape. */
  | { readonly kind: 'malformed' }
  | { readonly kind: 'api-token'; readonly token: string; readonly prefix: string }
  | { readonly kind: 'gateway-key'; readonly key: string; readonly prefix: string }
  | { readonly kind: 'session'; readonly token: string };

/**
 * Reads `Authorization: Bearer <credential>`. The `lnx_` prefix selects the
 * API-token path, `lnxk_` the gateway-key path; three dot-separated segments select the session-token path;
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
  if (value.startsWith(GATEWAY_KEY_PREFIX)) {
    return GATEWAY_KEY_PATTERN.test(value)
      ? { kind: 'gateway-key', key: value, prefix: gatewayKeyDisplayPrefix(value) }
      : { kind: 'malformed' };
  }
  if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(value))
    return { kind: 'session', token: value };
  return { kind: 'malformed' };
}
