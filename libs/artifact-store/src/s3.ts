import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { S3StoreConfig } from './config';
import { describe, discard, readBody, send, statusError, StoreError } from './http';
import { EMPTY_PAYLOAD_SHA256, encodeS3Path, formatQuery, signS3Request } from './sigv4';
import { formatArtifactUri } from './uri';

export interface S3ObjectRef {
  readonly bucket: string;
  readonly key: string;
}

interface S3Call {
  readonly method: 'GET' | 'PUT' | 'HEAD';
  readonly object: { readonly bucket: string; readonly key?: string };
  readonly body?: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  readonly idleTimeoutMs: number;
  readonly now?: Date;
}

/** Builds, signs (when credentials are configured) and sends one S3 request. */
async function s3Request(config: S3StoreConfig, call: S3Call): Promise<IncomingMessage> {
  const endpoint = new URL(config.endpoint);
  const segments = call.object.key === undefined ? [] : [call.object.key];
  let host: string;
  let path: string;
  if (config.pathStyle) {
    host = endpoint.host;
    path = encodeS3Path(call.object.bucket, ...segments);
  } else {
    host = `${call.object.bucket}.${endpoint.host}`;
    path = encodeS3Path(...segments);
  }
  const url = new URL(`${endpoint.protocol}//${host}${path}${formatQuery([])}`);
  const payloadSha256 =
    call.body === undefined ? EMPTY_PAYLOAD_SHA256 : createHash('sha256').update(call.body).digest('hex');
  const baseHeaders: Record<string, string> = { ...call.headers };
  if (call.body !== undefined) baseHeaders['content-length'] = String(call.body.length);
  const headers =
    config.credentials === null
      ? baseHeaders
      : signS3Request(
          { method: call.method, host, path, headers: baseHeaders, payloadSha256 },
          { credentials: config.credentials, region: config.region, now: call.now ?? new Date() },
        ).headers;
  return send({
    method: call.method,
    url,
    headers,
    ...(call.body === undefined ? {} : { body: call.body }),
    ...(call.signal === undefined ? {} : { signal: call.signal }),
    idleTimeoutMs: call.idleTimeoutMs,
  });
}

/** `: NoSuchKey — The specified key does not exist.` from an S3 XML error document, or ''. */
async function errorDetail(response: IncomingMessage): Promise<string> {
  try {
    const text = (await readBody(response, 64 * 1024)).toString('utf8');
    const code = /<Code>([^<]{1,128})<\/Code>/.exec(text)?.[1];
    const message = /<Message>([^<]{1,512})<\/Message>/.exec(text)?.[1];
    if (code === undefined) return '';
    return `: ${code}${message === undefined ? '' : ` — ${message}`}`;
  } catch {
    return '';
  }
}

export interface S3ObjectStream {
  readonly body: IncomingMessage;
  /** Content-Length as the store announced it; the bytes are counted regardless. */
  readonly announcedLength: number | null;
}

/** Opens an object for reading. A 404 is NOT_FOUND (NoSuchKey or NoSuchBucket). */
export async function getS3Object(
  config: S3StoreConfig,
  object: S3ObjectRef,
  options: { readonly signal?: AbortSignal; readonly idleTimeoutMs: number },
): Promise<S3ObjectStream> {
  const response = await s3Request(config, { method: 'GET', object, ...options });
  const what = `s3://${object.bucket}/${object.key}`;
  if (response.statusCode !== 200) {
    throw statusError(response.statusCode ?? 0, what, await errorDetail(response));
  }
  const length = Number(response.headers['content-length']);
  return { body: response, announcedLength: Number.isSafeInteger(length) ? length : null };
}

export interface PutS3ObjectOptions {
  readonly signal?: AbortSignal;
  readonly idleTimeoutMs?: number;
  readonly contentType?: string;
  /** Create the bucket first when it does not exist (tests, demos, `lunanexa` CLI publishing). */
  readonly createBucket?: boolean;
}

export interface PublishedArtifact {
  /** `sha256:<hex>` of the bytes sent. */
  readonly digest: string;
  readonly sizeBytes: number;
  readonly uri: string;
}

/**
 * Writes an object in one signed PUT and returns the digest and size of the
 * bytes sent — what a model version registers. For tests, demos and the CLI;
 * objects larger than a few hundred MiB want multipart upload, which this
 * does not do.
 */
export async function putS3Object(
  config: S3StoreConfig,
  object: S3ObjectRef,
  bytes: Buffer,
  options: PutS3ObjectOptions = {},
): Promise<PublishedArtifact> {
  const idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  const common = {
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    idleTimeoutMs,
  };
  if (options.createBucket === true) await ensureBucket(config, object.bucket, common);
  const response = await s3Request(config, {
    method: 'PUT',
    object,
    body: bytes,
    headers: { 'content-type': options.contentType ?? 'application/octet-stream' },
    ...common,
  });
  if (response.statusCode !== 200) {
    throw statusError(
      response.statusCode ?? 0,
      `s3://${object.bucket}/${object.key}`,
      await errorDetail(response),
    );
  }
  discard(response);
  return {
    digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
    sizeBytes: bytes.length,
    uri: formatArtifactUri({ store: 's3', bucket: object.bucket, key: object.key }),
  };
}

async function ensureBucket(
  config: S3StoreConfig,
  bucket: string,
  options: { readonly signal?: AbortSignal; readonly idleTimeoutMs: number },
): Promise<void> {
  const head = await s3Request(config, { method: 'HEAD', object: { bucket }, ...options });
  discard(head);
  if (head.statusCode === 200) return;
  if (head.statusCode !== 404) throw statusError(head.statusCode ?? 0, `bucket ${bucket}`, '');
  const created = await s3Request(config, { method: 'PUT', object: { bucket }, ...options });
  const detail = created.statusCode === 200 ? '' : await errorDetail(created);
  discard(created);
  // Someone else may have created it meanwhile.
  if (created.statusCode === 200 || /BucketAlreadyOwnedByYou|BucketAlreadyExists/.test(detail)) return;
  throw new StoreError(
    'DEPENDENCY_UNAVAILABLE',
    `${describe({ method: 'PUT', url: new URL(config.endpoint) })} could not create bucket ${bucket} (HTTP ${created.statusCode ?? 0}${detail})`,
  );
}
