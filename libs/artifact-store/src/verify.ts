import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ArtifactStoreConfig } from './config';
import { StoreError } from './http';
import { getHttpsObject } from './https-store';
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
  /** The store wants credentials that are not configured, or refused the configured ones (401/403). */
  | 'ARTIFACT_UNAUTHORIZED'
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
  /**
   * Once, when the store starts sending: `fromByte` is 0 for a fresh
   * transfer and the resumed offset when fetchArtifact continues a partial
   * file (nothing is called when the partial file already held every byte).
   */
  readonly onTransferStart?: (start: { readonly fromByte: number; readonly totalBytes: number }) => void;
  /** After every chunk: the bytes held so far (including a resumed prefix) of the total. */
  readonly onProgress?: (progress: { readonly receivedBytes: number; readonly totalBytes: number }) => void;
}

interface OpenedArtifact {
  readonly body: Readable;
  /** The whole artifact's size as the store announced it (Content-Range total or Content-Length); null when unknown. */
  readonly totalLength: number | null;
  /** Where the body starts: the offset asked for, or 0 when the store answered with the whole body. */
  readonly offset: number;
  readonly description: string;
}

class SizeExceeded extends Error {
  constructor(readonly limit: number) {
    super(`more than the declared ${limit} bytes`);
  }
}

/** Ends a body that stays silent for `ms` (the S3 SDK's stream has no idle timeout of its own). */
function idleWatchdog(ms: number, description: string): Transform {
  let timer: NodeJS.Timeout | undefined;
  const watchdog: Transform = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      arm();
      callback(null, chunk);
    },
    flush(callback) {
      clearTimeout(timer);
      callback();
    },
    destroy(error, callback) {
      clearTimeout(timer);
      callback(error);
    },
  });
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(
      () =>
        watchdog.destroy(
          new StoreError('DEPENDENCY_UNAVAILABLE', `${description}: the body stalled for ${ms} ms`),
        ),
      ms,
    );
  };
  arm();
  return watchdog;
}

async function openArtifact(
  location: ArtifactLocation,
  config: ArtifactStoreConfig,
  signal: AbortSignal,
  offset: number,
): Promise<OpenedArtifact> {
  const common = { signal, idleTimeoutMs: config.idleTimeoutMs, offset };
  switch (location.store) {
    case 's3': {
      if (config.s3 === null) {
        throw new StoreError(
          'DEPENDENCY_UNAVAILABLE',
          'no S3-compatible store is configured here (set LUNANEXA_S3_ENDPOINT and its credentials)',
        );
      }
      const description = `s3://${location.bucket}/${location.key}`;
      const opened = await getS3Object(config.s3, location, common);
      const watchdog = idleWatchdog(config.idleTimeoutMs, `GET ${description}`);
      opened.body.on('error', (error) => watchdog.destroy(error));
      // A transfer that ends early (mismatch, abort, stall) must not leave the SDK's socket half-read.
      watchdog.on('close', () => opened.body.destroy());
      return {
        body: opened.body.pipe(watchdog),
        totalLength: opened.totalLength,
        offset: opened.offset,
        description,
      };
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
      return {
        body: opened.body,
        totalLength: opened.totalLength,
        offset: opened.offset,
        description: `${location.registry}/${location.repository}@${blobDigest}`,
      };
    }
    case 'https': {
      const opened = await getHttpsObject(config.https, location.url, common);
      const url = new URL(location.url);
      return {
        body: opened.body,
        totalLength: opened.totalLength,
        offset: opened.offset,
        description: `${url.origin}${url.pathname}`,
      };
    }
    case 'file':
      return openLocalFile(location.path, config.fileRoots, offset);
  }
}

async function openLocalFile(
  path: string,
  roots: readonly string[],
  offset: number,
): Promise<OpenedArtifact> {
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
  return openFileStream(real, offset);
}

async function openFileStream(path: string, offset = 0): Promise<OpenedArtifact> {
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
  const start = offset <= stat.size ? offset : 0;
  return {
    // The stream owns the handle and closes it at the end, on error or on destroy.
    body: handle.createReadStream({ highWaterMark: 1024 * 1024, start }),
    totalLength: stat.size,
    offset: start,
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

/**
 * A transform that hashes and counts what passes and refuses more than
 * `limit` bytes in all; a resumed transfer hands in the hash of the prefix it
 * already holds and that prefix's length.
 */
function hashingCounter(
  limit: number,
  hash: Hash = createHash('sha256'),
  prefixBytes = 0,
  onProgress?: ArtifactIoOptions['onProgress'],
): Transform & { result(): { digest: string; sizeBytes: number } } {
  let count = prefixBytes;
  const transform = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      count += chunk.length;
      if (count > limit) {
        callback(new SizeExceeded(limit));
        return;
      }
      hash.update(chunk);
      onProgress?.({ receivedBytes: count, totalBytes: limit });
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

/** Where a transfer's bytes go, and what of them is already held (a resumed partial file). */
interface TransferTarget {
  /** Bytes already held, whose sha256 is running in `hash`. */
  readonly heldBytes: number;
  readonly hash: Hash;
  /** The sink for the bytes from `fromByte` on (0 after a restart: the holder starts over). */
  sink(fromByte: number): Writable;
}

function freshTarget(sink: () => Writable): TransferTarget {
  return { heldBytes: 0, hash: createHash('sha256'), sink };
}

/**
 * Reads the artifact's bytes from its store, through sha256, into the
 * target's sink, and judges them: only the hash of the bytes read decides (a
 * store's ETag or Docker-Content-Digest header is never trusted). More bytes
 * than declared end the transfer early. When the target already holds a
 * prefix, only the rest is asked for (a Range request); a store that answers
 * with the whole body instead is read from byte 0.
 */
async function transfer(
  artifact: ArtifactRef,
  config: ArtifactStoreConfig,
  options: ArtifactIoOptions,
  target: TransferTarget,
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
  const invalid = invalidRef(artifact);
  if (invalid !== null) return failure('VALIDATION_FAILED', location.store, invalid);
  if (location.store === 'https' && artifact.sizeBytes > config.https.maxBytes) {
    return failure(
      'VALIDATION_FAILED',
      location.store,
      `the artifact declares ${artifact.sizeBytes} bytes; https:// artifacts are limited to ${config.https.maxBytes} (LUNANEXA_ARTIFACT_HTTPS_MAX_BYTES)`,
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

  let held = target.heldBytes;
  let hash = target.hash;
  let description = artifact.uri;
  // An empty artifact is still asked for: its absence is NOT_FOUND, not a verified nothing.
  if (held < artifact.sizeBytes || held === 0) {
    let opened: OpenedArtifact;
    try {
      try {
        opened = await openArtifact(location, config, signal, held);
      } catch (error: unknown) {
        // The object is shorter than what we hold: it changed underneath; start over (and hash what it is now).
        if (!(error instanceof StoreError && error.status === 416 && held > 0)) throw error;
        held = 0;
        hash = createHash('sha256');
        opened = await openArtifact(location, config, signal, 0);
      }
    } catch (error: unknown) {
      return classify(error, artifact.uri);
    }
    description = opened.description;
    if (opened.offset !== held) {
      held = 0;
      hash = createHash('sha256');
    }
    if (opened.totalLength !== null && opened.totalLength !== artifact.sizeBytes) {
      opened.body.destroy();
      return failure(
        'DIGEST_MISMATCH',
        location.store,
        `${opened.description} holds ${opened.totalLength} bytes; the artifact was registered with ${artifact.sizeBytes}`,
        { digest: null, sizeBytes: opened.totalLength },
      );
    }
    options.onTransferStart?.({ fromByte: held, totalBytes: artifact.sizeBytes });
    const counter = hashingCounter(artifact.sizeBytes, hash, held, options.onProgress);
    try {
      await pipeline(opened.body, counter, target.sink(held), { signal });
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
    return judge(artifact, location.store, description, counter.result());
  }
  // Every byte was already held (a previous pull finished but was not moved into place).
  return judge(artifact, location.store, description, {
    digest: `sha256:${hash.digest('hex')}`,
    sizeBytes: held,
  });
}

function invalidRef(artifact: ArtifactRef): string | null {
  if (!/^sha256:[0-9a-f]{64}$/.test(artifact.digest)) {
    return `digest ${JSON.stringify(artifact.digest)} is not sha256:<hex>`;
  }
  if (!Number.isSafeInteger(artifact.sizeBytes) || artifact.sizeBytes < 0) {
    return `sizeBytes ${artifact.sizeBytes} is not a byte count`;
  }
  return null;
}

function judge(
  artifact: ArtifactRef,
  store: ArtifactSource,
  description: string,
  measured: { digest: string; sizeBytes: number },
): ArtifactCheckResult {
  if (measured.sizeBytes !== artifact.sizeBytes) {
    return failure(
      'DIGEST_MISMATCH',
      store,
      `${description} holds ${measured.sizeBytes} bytes; the artifact was registered with ${artifact.sizeBytes}`,
      measured,
    );
  }
  if (measured.digest !== artifact.digest) {
    return failure(
      'DIGEST_MISMATCH',
      store,
      `${description} hashes to ${measured.digest}, not the registered ${artifact.digest}`,
      measured,
    );
  }
  return { ok: true, store, ...measured };
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
  return transfer(artifact, config, options, freshTarget(nullSink));
}

/** Codes after which a partial file is worth keeping: the bytes so far were fine, the store went away. */
const RESUMABLE: ReadonlySet<ArtifactCheckCode> = new Set(['DEPENDENCY_UNAVAILABLE', 'CANCELLED']);

/** One fetch per destination at a time in this process: a second waits for the first. */
const fetching = new Map<string, Promise<unknown>>();

/** The partial file a download of `destinationPath` writes (and a later one resumes). */
export function partialPathFor(destinationPath: string): string {
  return join(dirname(destinationPath), `.${basename(destinationPath)}.partial`);
}

/**
 * Downloads the artifact to `destinationPath`: into a partial file beside it
 * (`.<name>.partial`), hashing as the bytes arrive, renamed into place only
 * when the digest and size match. A download that broke off
 * (DEPENDENCY_UNAVAILABLE: the store went away or stalled; CANCELLED: the
 * caller stopped) keeps its partial file, and the next fetchArtifact of the
 * same destination resumes it: the bytes held are hashed again, only the rest
 * is asked for (HTTP Range), and the whole is judged at the end. Any other
 * failure (DIGEST_MISMATCH, NOT_FOUND, ARTIFACT_UNAUTHORIZED, …) removes the
 * partial file, and nothing appears at the destination (an existing file
 * there is left as it was). One process at a time per destination.
 */
export async function fetchArtifact(
  artifact: ArtifactRef,
  destinationPath: string,
  config: ArtifactStoreConfig,
  options: ArtifactIoOptions = {},
): Promise<ArtifactCheckResult> {
  const previous = fetching.get(destinationPath) ?? Promise.resolve();
  const current = previous
    .catch(() => undefined)
    .then(() => fetchOnce(artifact, destinationPath, config, options));
  fetching.set(destinationPath, current);
  try {
    return await current;
  } finally {
    if (fetching.get(destinationPath) === current) fetching.delete(destinationPath);
  }
}

async function fetchOnce(
  artifact: ArtifactRef,
  destinationPath: string,
  config: ArtifactStoreConfig,
  options: ArtifactIoOptions,
): Promise<ArtifactCheckResult> {
  const partial = partialPathFor(destinationPath);
  const localFailure = (error: unknown, store: ArtifactSource): ArtifactCheckResult =>
    failure(
      'INTERNAL',
      store,
      `cannot write ${destinationPath}: ${error instanceof Error ? error.message : String(error)}`,
    );
  try {
    await mkdir(dirname(destinationPath), { recursive: true });
  } catch (error: unknown) {
    return localFailure(error, 'file');
  }
  let keepPartial = false;
  try {
    const held = await heldPrefix(partial, artifact);
    const result = await transfer(artifact, config, options, {
      ...held,
      sink: (fromByte) =>
        fromByte === 0
          ? createWriteStream(partial, { flags: 'w', mode: 0o644 })
          : createWriteStream(partial, { flags: 'r+', start: fromByte }),
    });
    if (!result.ok) {
      keepPartial = RESUMABLE.has(result.code);
      return result;
    }
    try {
      // Durable before it becomes visible: a crash must not leave a short file under the verified name.
      const handle = await open(partial, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(partial, destinationPath);
    } catch (error: unknown) {
      return localFailure(error, result.store);
    }
    return result;
  } catch (error: unknown) {
    return localFailure(error, 'file');
  } finally {
    if (!keepPartial) await rm(partial, { force: true }).catch(() => undefined);
    else {
      const size = await stat(partial).then(
        (found) => found.size,
        () => 0,
      );
      if (size === 0) await rm(partial, { force: true }).catch(() => undefined);
    }
  }
}

/**
 * The prefix a previous, broken-off download left: hashed again from the
 * disk (its bytes are only trusted through the final digest). A partial file
 * longer than the artifact cannot be a prefix of it and is discarded.
 */
async function heldPrefix(
  partial: string,
  artifact: ArtifactRef,
): Promise<{ heldBytes: number; hash: Hash }> {
  const hash = createHash('sha256');
  const found = await stat(partial).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (found === null) return { heldBytes: 0, hash };
  if (!found.isFile() || !Number.isSafeInteger(artifact.sizeBytes) || found.size > artifact.sizeBytes) {
    await rm(partial, { force: true, recursive: true });
    return { heldBytes: 0, hash };
  }
  let heldBytes = 0;
  await pipeline(
    createReadStream(partial, { highWaterMark: 1024 * 1024 }),
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        heldBytes += chunk.length;
        callback();
      },
    }),
  );
  return { heldBytes, hash };
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
  if (opened.totalLength !== expected.sizeBytes) {
    opened.body.destroy();
    return failure(
      'DIGEST_MISMATCH',
      'file',
      `${path} holds ${opened.totalLength} bytes; the artifact was registered with ${expected.sizeBytes}`,
      { digest: null, sizeBytes: opened.totalLength },
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
