import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, realpath, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ArtifactStoreConfig } from './config';
import { StoreError } from './http';
import { getOciBlob, OciRegistryClient, resolveOciTag } from './oci';
import { getS3Object } from './s3';
import {
  parseArtifactUri,
  UnsupportedArtifactUri,
  type ArtifactLocation,
  type ArtifactStoreKind,
} from './uri';

/** What is checked: the artifact's location and the digest and size it was registered with. */
export interface ArtifactRef {
  readonly uri: string;
  readonly digest: string;
  readonly sizeBytes: number;
}

/** Where the verdict came from; `synthetic` for fake-runtime weights, `unsupported` for a URI nothing reads. */
export type ArtifactSource = ArtifactStoreKind | 'synthetic' | 'unsupported';

/** The ErrorCodes (libs/contracts) a failed check carries. */
export type ArtifactCheckCode =
  | 'DIGEST_MISMATCH'
  | 'NOT_FOUND'
  | 'DEPENDENCY_UNAVAILABLE'
  | 'VALIDATION_FAILED'
  | 'CANCELLED'
  /** Only fetchArtifact: the destination could not be written (disk full, permissions). */
  | 'INTERNAL';

export type ArtifactCheckResult =
  | {
      readonly ok: true;
      /** `sha256:<hex>` of the bytes read: always equal to the artifact's digest here. */
      readonly digest: string;
      readonly sizeBytes: number;
      readonly store: ArtifactSource;
    }
  | {
      readonly ok: false;
      readonly code: ArtifactCheckCode;
      /** What the bytes hashed to, when all of them were read; null otherwise. */
      readonly digest: string | null;
      readonly sizeBytes: number | null;
      readonly store: ArtifactSource;
      readonly message: string;
    };

export interface ArtifactIoOptions {
  /** Aborting ends the transfer at once: the result is CANCELLED. */
  readonly signal?: AbortSignal;
  /** Whole-transfer deadline; past it the result is DEPENDENCY_UNAVAILABLE. Idle gaps are bounded by the config. */
  readonly timeoutMs?: number;
}

interface OpenedArtifact {
  readonly body: Readable;
  readonly announcedLength: number | null;
  readonly description: string;
}

class SizeExceeded extends Error {
  constructor(readonly limit: number) {
    super(`more than the declared ${limit} bytes`);
  }
}

async function openArtifact(
  location: ArtifactLocation,
  config: ArtifactStoreConfig,
  signal: AbortSignal,
): Promise<OpenedArtifact> {
  const common = { signal, idleTimeoutMs: config.idleTimeoutMs };
  switch (location.store) {
    case 's3': {
      if (config.s3 === null) {
        throw new StoreError(
          'DEPENDENCY_UNAVAILABLE',
          'no S3-compatible store is configured here (set LUNANEXA_S3_ENDPOINT and its credentials)',
        );
      }
      const opened = await getS3Object(config.s3, location, common);
      return { ...opened, description: `s3://${location.bucket}/${location.key}` };
    }
    case 'oci': {
      const client = new OciRegistryClient(config.oci, location.registry);
      const target = { registry: location.registry, repository: location.repository };
      let blobDigest: string;
      if ('digest' in location.reference) {
        blobDigest = location.reference.digest;
      } else {
        const layer = await resolveOciTag(client, target, location.reference.tag, common);
        blobDigest = layer.digest;
      }
      const opened = await getOciBlob(client, target, blobDigest, common);
      return { ...opened, description: `${location.registry}/${location.repository}@${blobDigest}` };
    }
    case 'file':
      return openLocalFile(location.path, config.fileRoots);
  }
}

async function openLocalFile(path: string, roots: readonly string[]): Promise<OpenedArtifact> {
  let real: string;
  try {
    real = await realpath(path);
  } catch (error: unknown) {
    throw localFileError(path, error);
  }
  const inside = await Promise.all(
    roots.map(async (root) => {
      const realRoot = await realpath(root).catch(() => null);
      return (
        realRoot !== null &&
        (real === realRoot || real.startsWith(realRoot.endsWith(sep) ? realRoot : `${realRoot}${sep}`))
      );
    }),
  );
  if (!inside.some(Boolean)) {
    throw new UnsupportedArtifactUri(
      `file://${path}`,
      roots.length === 0
        ? 'is a local file, and no file roots are configured (LUNANEXA_ARTIFACT_FILE_ROOTS)'
        : `is outside the configured file roots (${roots.join(', ')})`,
    );
  }
  return openFileStream(real);
}

async function openFileStream(path: string): Promise<OpenedArtifact> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error: unknown) {
    throw localFileError(path, error);
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw new StoreError('NOT_FOUND', `${path} is not a regular file`);
  }
  return {
    // The stream owns the handle and closes it at the end, on error or on destroy.
    body: handle.createReadStream({ highWaterMark: 1024 * 1024 }),
    announcedLength: stat.size,
    description: path,
  };
}

function localFileError(path: string, error: unknown): StoreError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new StoreError('NOT_FOUND', `${path} does not exist`);
  return new StoreError(
    'DEPENDENCY_UNAVAILABLE',
    `${path} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
  );
}

/** A transform that hashes and counts what passes and refuses more than `limit` bytes. */
function hashingCounter(limit: number): Transform & { result(): { digest: string; sizeBytes: number } } {
  const hash = createHash('sha256');
  let count = 0;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      count += chunk.length;
      if (count > limit) {
        callback(new SizeExceeded(limit));
        return;
      }
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  return Object.assign(transform, {
    result: () => ({ digest: `sha256:${hash.digest('hex')}`, sizeBytes: count }),
  });
}

function failure(
  code: ArtifactCheckCode,
  store: ArtifactSource,
  message: string,
  measured: { digest: string | null; sizeBytes: number | null } = { digest: null, sizeBytes: null },
): ArtifactCheckResult {
  return { ok: false, code, store, message: message.slice(0, 2000), ...measured };
}

/**
 * Reads the artifact's bytes from its store, through sha256, into `sink`,
 * and judges them: only the hash of the bytes read decides (a store's ETag or
 * Docker-Content-Digest header is never trusted). More bytes than declared
 * end the transfer early.
 */
async function transfer(
  artifact: ArtifactRef,
  config: ArtifactStoreConfig,
  options: ArtifactIoOptions,
  sink: () => Writable,
): Promise<ArtifactCheckResult> {
  let location: ArtifactLocation;
  try {
    location = parseArtifactUri(artifact.uri);
  } catch (error: unknown) {
    return failure(
      'VALIDATION_FAILED',
      'unsupported',
      error instanceof Error ? error.message : String(error),
    );
  }
  if (!/^sha256:[0-9a-f]{64}$/.test(artifact.digest)) {
    return failure(
      'VALIDATION_FAILED',
      location.store,
      `digest ${JSON.stringify(artifact.digest)} is not sha256:<hex>`,
    );
  }
  if (!Number.isSafeInteger(artifact.sizeBytes) || artifact.sizeBytes < 0) {
    return failure(
      'VALIDATION_FAILED',
      location.store,
      `sizeBytes ${artifact.sizeBytes} is not a byte count`,
    );
  }
  const deadline = options.timeoutMs === undefined ? null : AbortSignal.timeout(options.timeoutMs);
  const signals = [options.signal, deadline].filter((s): s is AbortSignal => s !== undefined && s !== null);
  const signal = signals.length === 0 ? new AbortController().signal : AbortSignal.any(signals);
  const classify = (error: unknown, description: string): ArtifactCheckResult => {
    if (deadline?.aborted === true && options.signal?.aborted !== true) {
      return failure(
        'DEPENDENCY_UNAVAILABLE',
        location.store,
        `${description}: not finished within ${options.timeoutMs} ms`,
      );
    }
    if (options.signal?.aborted === true)
      return failure('CANCELLED', location.store, `${description}: cancelled`);
    if (error instanceof UnsupportedArtifactUri)
      return failure('VALIDATION_FAILED', location.store, error.message);
    if (error instanceof StoreError) return failure(error.code, location.store, error.message);
    const reason = error instanceof Error ? error.message : String(error);
    return failure(
      'DEPENDENCY_UNAVAILABLE',
      location.store,
      `${description}: the transfer broke off (${reason})`,
    );
  };

  let opened: OpenedArtifact;
  try {
    opened = await openArtifact(location, config, signal);
  } catch (error: unknown) {
    return classify(error, artifact.uri);
  }
  if (opened.announcedLength !== null && opened.announcedLength !== artifact.sizeBytes) {
    opened.body.destroy();
    return failure(
      'DIGEST_MISMATCH',
      location.store,
      `${opened.description} holds ${opened.announcedLength} bytes; the artifact was registered with ${artifact.sizeBytes}`,
      { digest: null, sizeBytes: opened.announcedLength },
    );
  }
  const counter = hashingCounter(artifact.sizeBytes);
  try {
    await pipeline(opened.body, counter, sink(), { signal });
  } catch (error: unknown) {
    if (error instanceof SizeExceeded) {
      return failure(
        'DIGEST_MISMATCH',
        location.store,
        `${opened.description} sent more than the ${artifact.sizeBytes} bytes the artifact was registered with`,
      );
    }
    return classify(error, opened.description);
  }
  const measured = counter.result();
  if (measured.sizeBytes !== artifact.sizeBytes) {
    return failure(
      'DIGEST_MISMATCH',
      location.store,
      `${opened.description} holds ${measured.sizeBytes} bytes; the artifact was registered with ${artifact.sizeBytes}`,
      measured,
    );
  }
  if (measured.digest !== artifact.digest) {
    return failure(
      'DIGEST_MISMATCH',
      location.store,
      `${opened.description} hashes to ${measured.digest}, not the registered ${artifact.digest}`,
      measured,
    );
  }
  return { ok: true, store: location.store, ...measured };
}

function nullSink(): Writable {
  return new Writable({
    write(_chunk, _encoding, callback) {
      callback();
    },
  });
}

/**
 * Streams the artifact's bytes through sha256 without keeping them and says
 * whether they are the registered ones. Never throws for store trouble: the
 * result carries a typed code (DIGEST_MISMATCH, NOT_FOUND,
 * DEPENDENCY_UNAVAILABLE, VALIDATION_FAILED, CANCELLED).
 */
export function verifyArtifactDigest(
  artifact: ArtifactRef,
  config: ArtifactStoreConfig,
  options: ArtifactIoOptions = {},
): Promise<ArtifactCheckResult> {
  return transfer(artifact, config, options, nullSink);
}

/**
 * Downloads the artifact to `destinationPath`: into a temporary file beside
 * it, hashing as the bytes arrive, renamed into place only when the digest
 * and size match. On any failure the temporary file is removed and nothing
 * appears at the destination (an existing file there is left as it was).
 */
export async function fetchArtifact(
  artifact: ArtifactRef,
  destinationPath: string,
  config: ArtifactStoreConfig,
  options: ArtifactIoOptions = {},
): Promise<ArtifactCheckResult> {
  const directory = dirname(destinationPath);
  const temporary = join(
    directory,
    `.${basename(destinationPath)}.partial-${process.pid}-${randomBytes(6).toString('hex')}`,
  );
  const localFailure = (error: unknown, store: ArtifactSource): ArtifactCheckResult =>
    failure(
      'INTERNAL',
      store,
      `cannot write ${destinationPath}: ${error instanceof Error ? error.message : String(error)}`,
    );
  try {
    await mkdir(directory, { recursive: true });
  } catch (error: unknown) {
    return localFailure(error, 'file');
  }
  try {
    const result = await transfer(artifact, config, options, () =>
      createWriteStream(temporary, { flags: 'wx', mode: 0o644 }),
    );
    if (!result.ok) return result;
    try {
      // Durable before it becomes visible: a crash must not leave a short file under the verified name.
      const handle = await open(temporary, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, destinationPath);
    } catch (error: unknown) {
      return localFailure(error, result.store);
    }
    return result;
  } finally {
    await rm(temporary, { force: true }).catch(() => undefined);
  }
}

/**
 * Hashes a file the caller owns (no file-root check), e.g. an artifact the
 * agent downloaded earlier, against the digest and size it must have.
 */
export async function verifyLocalFile(
  path: string,
  expected: Pick<ArtifactRef, 'digest' | 'sizeBytes'>,
  options: ArtifactIoOptions = {},
): Promise<ArtifactCheckResult> {
  let opened: OpenedArtifact;
  try {
    opened = await openFileStream(path);
  } catch (error: unknown) {
    if (error instanceof StoreError) return failure(error.code, 'file', error.message);
    throw error;
  }
  if (opened.announcedLength !== expected.sizeBytes) {
    opened.body.destroy();
    return failure(
      'DIGEST_MISMATCH',
      'file',
      `${path} holds ${opened.announcedLength} bytes; the artifact was registered with ${expected.sizeBytes}`,
      { digest: null, sizeBytes: opened.announcedLength },
    );
  }
  const counter = hashingCounter(expected.sizeBytes);
  try {
    await pipeline(
      opened.body,
      counter,
      nullSink(),
      options.signal === undefined ? {} : { signal: options.signal },
    );
  } catch (error: unknown) {
    if (options.signal?.aborted === true) return failure('CANCELLED', 'file', `${path}: cancelled`);
    if (error instanceof SizeExceeded) {
      return failure(
        'DIGEST_MISMATCH',
        'file',
        `${path} grew past ${expected.sizeBytes} bytes while being read`,
      );
    }
    return failure(
      'DEPENDENCY_UNAVAILABLE',
      'file',
      `${path}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const measured = counter.result();
  if (measured.sizeBytes !== expected.sizeBytes || measured.digest !== expected.digest) {
    return failure(
      'DIGEST_MISMATCH',
      'file',
      `${path} hashes to ${measured.digest} (${measured.sizeBytes} bytes), not the registered ${expected.digest} (${expected.sizeBytes} bytes)`,
      measured,
    );
  }
  return { ok: true, store: 'file', ...measured };
}
