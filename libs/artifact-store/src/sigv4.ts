import { createHash, createHmac } from 'node:crypto';
import type { S3Credentials } from './config';

/**
 * AWS Signature Version 4 for the Authorization header, as S3 specifies it
 * (single-chunk payloads): S3 encodes each path segment once, where other
 * services encode twice, so this signer is for S3 only.
 */

export const EMPTY_PAYLOAD_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
/** For streamed uploads whose hash is not known before sending. */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

export interface SignableRequest {
  readonly method: string;
  /** `host[:port]` exactly as the Host header carries it. */
  readonly host: string;
  /** The path as sent on the wire, already encoded with encodeS3Path. */
  readonly path: string;
  readonly query?: readonly (readonly [string, string])[];
  /** Other headers to sign and send (names in any case). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Hex sha256 of the body, EMPTY_PAYLOAD_SHA256, or UNSIGNED_PAYLOAD. */
  readonly payloadSha256: string;
}

export interface SigningScope {
  readonly credentials: S3Credentials;
  readonly region: string;
  readonly service?: string;
  readonly now: Date;
}

/** RFC 3986 unreserved characters stay; every other byte becomes %XX (upper-case hex). */
export function uriEncode(value: string, keepSlash = false): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const char = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-._~]/.test(char) || (keepSlash && char === '/')) out += char;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `/bucket/key` (path-style) or `/key` encoded the way S3 signs and routes it. */
export function encodeS3Path(...segments: readonly string[]): string {
  return `/${segments.map((segment) => uriEncode(segment, true)).join('/')}`;
}

function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.[0-9]{3}/, '');
}

function canonicalQuery(query: readonly (readonly [string, string])[]): string {
  return query
    .map(([key, value]) => [uriEncode(key), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
}

export interface SignedHeaders {
  /** Every header to send, the signature's own included (names lower-case). */
  readonly headers: Record<string, string>;
  readonly authorization: string;
  /** Exposed for tests against the documented examples. */
  readonly canonicalRequest: string;
  readonly stringToSign: string;
}

export function signS3Request(request: SignableRequest, scope: SigningScope): SignedHeaders {
  const service = scope.service ?? 's3';
  const timestamp = amzDate(scope.now);
  const day = timestamp.slice(0, 8);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  headers['host'] = request.host;
  headers['x-amz-date'] = timestamp;
  headers['x-amz-content-sha256'] = request.payloadSha256;
  if (scope.credentials.sessionToken !== undefined) {
    headers['x-amz-security-token'] = scope.credentials.sessionToken;
  }
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names
    .map((name) => `${name}:${(headers[name] ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    request.method.toUpperCase(),
    request.path,
    canonicalQuery(request.query ?? []),
    canonicalHeaders,
    signedHeaders,
    request.payloadSha256,
  ].join('\n');
  const credentialScope = `${day}/${scope.region}/${service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    timestamp,
    credentialScope,
    createHash('sha256').update(canonicalRequest, 'utf8').digest('hex'),
  ].join('\n');
  const hmac = (key: Buffer | string, data: string): Buffer =>
    createHmac('sha256', key).update(data, 'utf8').digest();
  const signingKey = hmac(
    hmac(hmac(hmac(`AWS4${scope.credentials.secretAccessKey}`, day), scope.region), service),
    'aws4_request',
  );
  const signature = createHmac('sha256', signingKey).update(stringToSign, 'utf8').digest('hex');
  const authorization =
    `AWS4-HMAC-SHA256 Credential=${scope.credentials.accessKeyId}/${credentialScope},` +
    `SignedHeaders=${signedHeaders},Signature=${signature}`;
  return { headers: { ...headers, authorization }, authorization, canonicalRequest, stringToSign };
}

/** The query string as sent, in the same order and encoding as signed. */
export function formatQuery(query: readonly (readonly [string, string])[]): string {
  return query.length === 0 ? '' : `?${canonicalQuery(query)}`;
}
