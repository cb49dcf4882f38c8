import { sign, verify, type KeyObject } from 'node:crypto';
import { z } from 'zod';
import { RoleSchema } from '@lunanexa/contracts';

/**
 * Operator session tokens: compact JWS (RFC 7515) JWTs signed with the
 * controller's Ed25519 key (`alg: EdDSA`, RFC 8037), encoded and checked here
 * with node:crypto alone. Verification is strict on purpose: exactly the
 * header `{alg: "EdDSA", typ: "JWT", kid: <controller key fingerprint>}`,
 * exactly the claims below, canonical base64url, and the signature checked
 * before any claim is read. `alg: none`, HMAC algorithms, foreign keys and
 * extra members are all refused.
 */
export const SESSION_TTL_SECONDS = 15 * 60;
export const SESSION_ISSUER = 'lunanexa-api';
/** Tolerated clock difference for `iat` in the future. */
const CLOCK_SKEW_SECONDS = 60;
/** Longer bearer values are refused before any parsing. */
export const MAX_BEARER_LENGTH = 4096;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const HeaderSchema = z
  .object({ alg: z.literal('EdDSA'), typ: z.literal('JWT'), kid: z.string().min(1).max(128) })
  .strict();

const SecondsSchema = z.int().nonnegative();

export const SessionClaimsSchema = z
  .object({
    iss: z.literal(SESSION_ISSUER),
    /** Operator id. */
    sub: z.string().regex(UUID),
    role: RoleSchema,
    /** The operator's session epoch when the token was issued; a bumped epoch revokes the token. */
    epoch: z.int().nonnegative(),
    iat: SecondsSchema,
    exp: SecondsSchema,
  })
  .strict()
  .refine((c) => c.exp > c.iat && c.exp - c.iat <= SESSION_TTL_SECONDS, {
    message: 'lifetime out of range',
  });
export type SessionClaims = z.infer<typeof SessionClaimsSchema>;

export interface SigningKey {
  readonly privateKey: KeyObject;
  readonly fingerprint: string;
}

export interface VerifyingKey {
  readonly publicKey: KeyObject;
  readonly fingerprint: string;
}

function encodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function signSessionToken(key: SigningKey, claims: SessionClaims): string {
  const header = encodeJson({ alg: 'EdDSA', typ: 'JWT', kid: key.fingerprint });
  const payload = encodeJson(claims);
  const signature = sign(null, Buffer.from(`${header}.${payload}`, 'ascii'), key.privateKey);
  return `${header}.${payload}.${signature.toString('base64url')}`;
}

export type SessionTokenFailure =
  /** Not three canonical base64url segments of JSON. */
  | 'malformed'
  /** Header is not exactly EdDSA/JWT/kid. */
  | 'unsupported-header'
  /** Signed by another key (kid names a key this controller does not have). */
  | 'unknown-key'
  | 'bad-signature'
  /** Signature fine, claims not exactly the expected set or out of range. */
  | 'bad-claims'
  | 'expired';

export type SessionTokenCheck =
  | { readonly ok: true; readonly claims: SessionClaims }
  | {
      readonly ok: false;
      readonly reason: SessionTokenFailure;
      /** Present for `expired` only: the signature verified, so the claims are genuine. */
      readonly claims?: SessionClaims;
    };

/** Strict base64url: alphabet only, no padding, and the canonical encoding of what it decodes to. */
function decodeSegment(segment: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(segment)) return undefined;
  const bytes = Buffer.from(segment, 'base64url');
  return bytes.toString('base64url') === segment ? bytes : undefined;
}

function parseJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

export function verifySessionToken(token: string, key: VerifyingKey, nowSeconds: number): SessionTokenCheck {
  if (token.length > MAX_BEARER_LENGTH) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 3) return { ok: false, reason: 'malformed' };
  const [headerPart = '', payloadPart = '', signaturePart = ''] = parts;
  const headerBytes = decodeSegment(headerPart);
  const payloadBytes = decodeSegment(payloadPart);
  const signature = decodeSegment(signaturePart);
  if (!headerBytes || !payloadBytes || !signature) return { ok: false, reason: 'malformed' };
  const header = HeaderSchema.safeParse(parseJson(headerBytes));
  if (!header.success) return { ok: false, reason: 'unsupported-header' };
  if (header.data.kid !== key.fingerprint) return { ok: false, reason: 'unknown-key' };
  if (signature.length !== 64) return { ok: false, reason: 'bad-signature' };
  const signed = Buffer.from(`${headerPart}.${payloadPart}`, 'ascii');
  if (!verify(null, signed, key.publicKey, signature)) return { ok: false, reason: 'bad-signature' };
  const claims = SessionClaimsSchema.safeParse(parseJson(payloadBytes));
  if (!claims.success) return { ok: false, reason: 'bad-claims' };
  if (claims.data.iat > nowSeconds + CLOCK_SKEW_SECONDS) return { ok: false, reason: 'bad-claims' };
  if (nowSeconds >= claims.data.exp) return { ok: false, reason: 'expired', claims: claims.data };
  return { ok: true, claims: claims.data };
}

/**
 * The `kid` a session token names, read without verifying anything: which
 * of several controller keys to verify it with. Undefined when the header
 * is not the exact shape verifySessionToken accepts.
 */
export function sessionTokenKeyId(token: string): string | undefined {
  const headerPart = token.slice(0, token.indexOf('.'));
  const bytes = decodeSegment(headerPart);
  if (!bytes) return undefined;
  const header = HeaderSchema.safeParse(parseJson(bytes));
  return header.success ? header.data.kid : undefined;
}
