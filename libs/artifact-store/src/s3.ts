import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadBucketCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createHash } from 'node:crypto';
import { Readable, Transform } from 'node:stream';
import type { S3StoreConfig } from './config';
import { StoreError } from './http';
import { formatArtifactUri } from './uri';

/**
 * The S3-compatible store through @aws-sdk/client-s3 (SigV4, path-style for
 * self-hosted stores, error documents) and @aws-sdk/lib-storage (multipart
 * upload). Reads ask for one attempt: the callers retry with their own
 * backoff, and a broken-off download resumes from its partial file.
 */

export interface S3ObjectRef {
  readonly bucket: string;
  readonly key: string;
}

/** Clients are reused per configuration object: each keeps its own pool of connections. */
const clients = new WeakMap<S3StoreConfig, Map<number, S3Client>>();

function s3Client(config: S3StoreConfig, maxAttempts: number): S3Client {
  let byAttempts = clients.get(config);
  if (byAttempts === undefined) {
    byAttempts = new Map();
    clients.set(config, byAttempts);
  }
  let client = byAttempts.get(maxAttempts);
  if (client === undefined) {
    client = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: config.pathStyle,
      maxAttempts,
      // The sha256 of the whole artifact is what counts; no store-specific checksums required of the server.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(config.credentials === null
        ? {
            // Public buckets: requests go unsigned (never the SDK's default chain of ambient credentials).
            credentials: { accessKeyId: 'anonymous', secretAccessKey: 'anonymous' },
            signer: { sign: (request) => Promise.resolve(request) },
          }
        : { credentials: config.credentials }),
    });
    byAttempts.set(maxAttempts, client);
  }
  return client;
}

/** The store error an SDK failure means: 404 NOT_FOUND, 401/403 ARTIFACT_UNAUTHORIZED, else DEPENDENCY_UNAVAILABLE. */
export function classifyS3Error(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  if (error instanceof S3ServiceException) {
    const status = error.$metadata.httpStatusCode ?? 0;
    const detail = `${error.name}${error.message && error.message !== error.name ? ` — ${error.message}` : ''}`;
    if (status === 404)
      return new StoreError('NOT_FOUND', `${what} does not exist (HTTP 404: ${detail})`, 404);
    if (status === 401 || status === 403) {
      return new StoreError(
        'ARTIFACT_UNAUTHORIZED',
        `the store refused access to ${what} (HTTP ${status}: ${detail}); check its credentials`,
        status,
      );
    }
    return new StoreError(
      'DEPENDENCY_UNAVAILABLE',
      `the store answered HTTP ${status} for ${what}: ${detail}`,
      status,
    );
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new StoreError(
    'DEPENDENCY_UNAVAILABLE',
    `${what} failed: ${code === undefined || message.includes(code) ? message : `${code} ${message}`}`,
  );
}

export interface S3ObjectStream {
  readonly body: Readable;
  /** Bytes this response carries (Content-Length); the bytes are counted regardless. */
  readonly announcedLength: number | null;
  /** The whole object's size: from Content-Range for a ranged answer, else Content-Length. */
  readonly totalLength: number | null;
  /** The offset the body starts at: the requested one when the store honoured the Range, else 0. */
  readonly offset: number;
}

/**
 * Opens an object for reading from `offset` (a Range request when > 0). A
 * 404 is NOT_FOUND (NoSuchKey or NoSuchBucket); an offset at or past the end
 * is a StoreError with status 416.
 */
export async function getS3Object(
  config: S3StoreConfig,
  object: S3ObjectRef,
  options: { readonly signal?: AbortSignal; readonly idleTimeoutMs: number; readonly offset?: number },
): Promise<S3ObjectStream> {
  const what = `s3://${object.bucket}/${object.key}`;
  const offset = options.offset ?? 0;
  // The SDK has no "no answer within" of its own that reads as such: a timer aborts the request.
  const silence = new AbortController();
  const timer = setTimeout(
    () =>
      silence.abort(
        new StoreError('DEPENDENCY_UNAVAILABLE', `GET ${what}: no answer within ${options.idleTimeoutMs} ms`),
      ),
    options.idleTimeoutMs,
  );
  const signal =
    options.signal === undefined ? silence.signal : AbortSignal.any([options.signal, silence.signal]);
  try {
    const output = await s3Client(config, 1).send(
      new GetObjectCommand({
        Bucket: object.bucket,
        Key: object.key,
        ...(offset > 0 ? { Range: `bytes=${offset}-` } : {}),
      }),
      { abortSignal: signal },
    );
    const body = output.Body;
    if (!(body instanceof Readable)) {
      throw new StoreError('DEPENDENCY_UNAVAILABLE', `${what}: the store answered without a body`);
    }
    const ranged = output.$metadata.httpStatusCode === 206;
    const total = ranged ? /\/([0-9]+)$/.exec(output.ContentRange ?? '')?.[1] : undefined;
    const length = output.ContentLength ?? null;
    return {
      body,
      announcedLength: length,
      totalLength: ranged ? (total === undefined ? null : Number(total)) : length,
      offset: ranged ? offset : 0,
    };
  } catch (error: unknown) {
    if (silence.signal.aborted && options.signal?.aborted !== true) throw silence.signal.reason as StoreError;
    if (options.signal?.aborted === true) {
      const reason: unknown = options.signal.reason;
      throw new StoreError('CANCELLED', `cancelled: ${reason instanceof Error ? reason.message : 'aborted'}`);
    }
    if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 416) {
      throw new StoreError('DEPENDENCY_UNAVAILABLE', `${what} has no bytes from offset ${offset}`, 416);
    }
    throw classifyS3Error(error, what);
  } finally {
    clearTimeout(timer);
  }
}

export interface PutS3ObjectOptions {
  readonly signal?: AbortSignal;
  readonly contentType?: string;
  /** Create the bucket first when it does not exist (tests, demos, `lunanexa` CLI publishing). */
  readonly createBucket?: boolean;
  /** Parts of a multipart upload (at least 5 MiB, S3's minimum); bodies up to one part go in one PUT. Default 16 MiB. */
  readonly partSizeBytes?: number;
  /** Parts in flight at once (default 4). */
  readonly queueSize?: number;
  /** Called as parts complete: how many parts the upload has used so far and the bytes sent. */
  readonly onProgress?: (progress: { readonly part: number | null; readonly loadedBytes: number }) => void;
}

export interface PublishedArtifact {
  /** `sha256:<hex>` of the bytes sent. */
  readonly digest: string;
  readonly sizeBytes: number;
  readonly uri: string;
}

export const DEFAULT_S3_PART_SIZE_BYTES = 16 * 1024 * 1024;
const MIN_S3_PART_SIZE_BYTES = 5 * 1024 * 1024;

/**
 * Writes an object (one PUT up to one part, a multipart upload above:
 * @aws-sdk/lib-storage) and returns the digest and size of the bytes sent —
 * what a model version registers. `bytes` may be a stream of unknown length
 * (a file being published): it is hashed as it passes. A failed multipart
 * upload is aborted, leaving no parts behind.
 */
export async function putS3Object(
  config: S3StoreConfig,
  object: S3ObjectRef,
  bytes: Buffer | Readable,
  options: PutS3ObjectOptions = {},
): Promise<PublishedArtifact> {
  const what = `s3://${object.bucket}/${object.key}`;
  const partSize = options.partSizeBytes ?? DEFAULT_S3_PART_SIZE_BYTES;
  if (!Number.isSafeInteger(partSize) || partSize < MIN_S3_PART_SIZE_BYTES) {
    throw new RangeError(`partSizeBytes must be at least ${MIN_S3_PART_SIZE_BYTES} (S3's minimum part size)`);
  }
  if (options.createBucket === true) await ensureBucket(config, object.bucket, options.signal);
  const hash = createHash('sha256');
  let sizeBytes = 0;
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      sizeBytes += chunk.length;
      callback(null, chunk);
    },
  });
  const source = Buffer.isBuffer(bytes) ? Readable.from([bytes]) : bytes;
  source.on('error', (error) => hashing.destroy(error));
  const upload = new Upload({
    client: s3Client(config, 3),
    params: {
      Bucket: object.bucket,
      Key: object.key,
      Body: source.pipe(hashing),
      ContentType: options.contentType ?? 'application/octet-stream',
    },
    partSize,
    queueSize: options.queueSize ?? 4,
    leavePartsOnError: false,
  });
  if (options.onProgress !== undefined) {
    const report = options.onProgress;
    upload.on('httpUploadProgress', (progress) =>
      report({ part: progress.part ?? null, loadedBytes: progress.loaded ?? 0 }),
    );
  }
  const abort = (): void => {
    void upload.abort();
  };
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    await upload.done();
  } catch (error: unknown) {
    if (options.signal?.aborted === true) throw new StoreError('CANCELLED', `upload of ${what} cancelled`);
    throw classifyS3Error(error, what);
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
  return {
    digest: `sha256:${hash.digest('hex')}`,
    sizeBytes,
    uri: formatArtifactUri({ store: 's3', bucket: object.bucket, key: object.key }),
  };
}

async function ensureBucket(
  config: S3StoreConfig,
  bucket: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const client = s3Client(config, 3);
  const options = signal === undefined ? {} : { abortSignal: signal };
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }), options);
    return;
  } catch (error: unknown) {
    if (!(error instanceof S3ServiceException) || error.$metadata.httpStatusCode !== 404) {
      throw classifyS3Error(error, `bucket ${bucket}`);
    }
  }
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }), options);
  } catch (error: unknown) {
    // Someone else may have created it meanwhile.
    if (error instanceof S3ServiceException && /BucketAlreadyOwnedByYou|BucketAlreadyExists/.test(error.name))
      return;
    throw classifyS3Error(error, `creating bucket ${bucket}`);
  }
}
