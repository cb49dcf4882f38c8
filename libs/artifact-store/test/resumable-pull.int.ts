import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  fetchArtifact,
  partialPathFor,
  pushOciBlob,
  putS3Object,
  type ArtifactCheckResult,
  type ArtifactStoreConfig,
} from '../src/index';
import {
  startOciRegistry,
  startS3Server,
  type RunningOciRegistry,
  type RunningS3Server,
} from '../src/testing';

function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function failed(result: ArtifactCheckResult): Extract<ArtifactCheckResult, { ok: false }> {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

describe('resumable pulls against real servers', function () {
  this.timeout(180_000);
  let scratch: string;
  let servers: string;
  let s3: RunningS3Server;
  let oci: RunningOciRegistry;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'lunanexa-artifact-resume-'));
    servers = join(scratch, 'servers');
    [s3, oci] = await Promise.all([
      startS3Server({ dataDir: servers }),
      startOciRegistry({ dataDir: servers }),
    ]);
  });

  after(async () => {
    await Promise.all([s3?.stop(), oci?.stop()]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('resumes an S3 pull the store broke off (SIGKILL mid-stream) from its partial file, after a restart, and verifies the whole', async () => {
    const bytes = randomBytes(48 * 1024 * 1024 + 123);
    const published = await putS3Object(s3.config, { bucket: 'models', key: 'resume/big.bin' }, bytes, {
      createBucket: true,
    });
    const config: ArtifactStoreConfig = s3.storeConfig();
    const destination = join(scratch, 'download', 's3', 'model');
    const partial = partialPathFor(destination);

    // The store dies once the first 8 MiB have arrived.
    const starts: number[] = [];
    let killed = false;
    const first = failed(
      await fetchArtifact(published, destination, config, {
        onTransferStart: ({ fromByte }) => starts.push(fromByte),
        onProgress: ({ receivedBytes }) => {
          if (!killed && receivedBytes >= 8 * 1024 * 1024) {
            killed = true;
            process.kill(s3.pid, 'SIGKILL');
          }
        },
      }),
    );
    expect(killed).to.equal(true);
    expect(first.code).to.equal('DEPENDENCY_UNAVAILABLE');
    expect(starts).to.deep.equal([0]);
    expect(existsSync(destination)).to.equal(false);
    const kept = statSync(partial).size;
    expect(kept).to.be.greaterThan(0).and.lessThan(bytes.length);
    expect(readFileSync(partial).equals(bytes.subarray(0, kept))).to.equal(true);

    // Still down: the partial file is kept again, untouched.
    expect(failed(await fetchArtifact(published, destination, config)).code).to.equal(
      'DEPENDENCY_UNAVAILABLE',
    );
    expect(statSync(partial).size).to.equal(kept);

    // The same store comes back on the same data, port and credentials.
    const port = Number(new URL(s3.endpoint).port);
    s3 = await startS3Server({ dataDir: servers, port, credentials: s3.credentials });
    let received = 0;
    const resumed = await fetchArtifact(published, destination, config, {
      onTransferStart: ({ fromByte }) => starts.push(fromByte),
      onProgress: ({ receivedBytes }) => {
        received = receivedBytes;
      },
    });
    expect(resumed).to.deep.equal({ ok: true, store: 's3', digest: sha256(bytes), sizeBytes: bytes.length });
    // The second transfer asked for the bytes after the partial file's (a Range from `kept`), not for all of them.
    expect(starts).to.deep.equal([0, kept]);
    expect(received).to.equal(bytes.length);
    expect(readFileSync(destination).equals(bytes)).to.equal(true);
    expect(readdirSync(join(scratch, 'download', 's3'))).to.deep.equal(['model']);
  });

  it('fails a resumed pull whose partial file holds wrong bytes with DIGEST_MISMATCH and deletes the partial file', async () => {
    const bytes = randomBytes(3 * 1024 * 1024);
    const published = await putS3Object(s3.config, { bucket: 'models', key: 'resume/corrupt.bin' }, bytes, {
      createBucket: true,
    });
    const destination = join(scratch, 'download', 'corrupt', 'model');
    mkdirSync(join(scratch, 'download', 'corrupt'), { recursive: true });
    const wrongPrefix = Buffer.from(bytes.subarray(0, 1024 * 1024));
    wrongPrefix[10] = (wrongPrefix[10] ?? 0) ^ 0xff;
    writeFileSync(partialPathFor(destination), wrongPrefix);
    const starts: number[] = [];
    const result = failed(
      await fetchArtifact(published, destination, s3.storeConfig(), {
        onTransferStart: ({ fromByte }) => starts.push(fromByte),
      }),
    );
    expect(starts).to.deep.equal([1024 * 1024]);
    expect(result.code).to.equal('DIGEST_MISMATCH');
    expect(result.message).to.contain(published.digest);
    expect(readdirSync(join(scratch, 'download', 'corrupt'))).to.deep.equal([]);

    // The next attempt starts from nothing and verifies.
    expect(await fetchArtifact(published, destination, s3.storeConfig())).to.include({ ok: true });
    expect(readFileSync(destination).equals(bytes)).to.equal(true);
  });

  it('discards a partial file longer than the artifact and verifies a complete one without asking the store', async () => {
    const bytes = randomBytes(256 * 1024);
    const published = await putS3Object(s3.config, { bucket: 'models', key: 'resume/small.bin' }, bytes, {
      createBucket: true,
    });
    const destination = join(scratch, 'download', 'long', 'model');
    mkdirSync(join(scratch, 'download', 'long'), { recursive: true });
    writeFileSync(partialPathFor(destination), Buffer.concat([bytes, Buffer.from('trailing')]));
    const starts: number[] = [];
    expect(
      await fetchArtifact(published, destination, s3.storeConfig(), {
        onTransferStart: ({ fromByte }) => starts.push(fromByte),
      }),
    ).to.include({ ok: true });
    expect(starts).to.deep.equal([0]);

    // A complete partial file (the previous pull died before the rename) is only hashed.
    const other = join(scratch, 'download', 'long', 'other');
    writeFileSync(partialPathFor(other), bytes);
    const unreachable = s3.storeConfig({ s3: { ...s3.config, endpoint: 'http://127.0.0.1:9' } });
    const done: number[] = [];
    expect(
      await fetchArtifact(published, other, unreachable, {
        onTransferStart: ({ fromByte }) => done.push(fromByte),
      }),
    ).to.include({ ok: true, digest: sha256(bytes) });
    expect(done).to.deep.equal([]);
    expect(readdirSync(join(scratch, 'download', 'long')).sort()).to.deep.equal(['model', 'other']);
  });

  it('resumes an OCI blob pull with a Range request', async () => {
    const bytes = randomBytes(4 * 1024 * 1024 + 9);
    const blob = await pushOciBlob(
      oci.storeConfig().oci,
      { registry: oci.registry, repository: 'models/resume' },
      bytes,
    );
    const destination = join(scratch, 'download', 'oci', 'model');
    mkdirSync(join(scratch, 'download', 'oci'), { recursive: true });
    const held = 1_500_000;
    writeFileSync(partialPathFor(destination), bytes.subarray(0, held));
    const starts: number[] = [];
    expect(
      await fetchArtifact(blob, destination, oci.storeConfig(), {
        onTransferStart: ({ fromByte }) => starts.push(fromByte),
      }),
    ).to.include({ ok: true, digest: sha256(bytes) });
    expect(starts).to.deep.equal([held]);
    expect(readFileSync(destination).equals(bytes)).to.equal(true);
  });

  it('keeps the partial file when the caller cancels, and resumes it next time', async () => {
    const bytes = randomBytes(24 * 1024 * 1024);
    const published = await putS3Object(s3.config, { bucket: 'models', key: 'resume/cancel.bin' }, bytes, {
      createBucket: true,
    });
    const destination = join(scratch, 'download', 'cancel', 'model');
    const abort = new AbortController();
    const cancelled = failed(
      await fetchArtifact(published, destination, s3.storeConfig(), {
        signal: abort.signal,
        onProgress: ({ receivedBytes }) => {
          if (receivedBytes >= 4 * 1024 * 1024) abort.abort(new Error('agent stopping'));
        },
      }),
    );
    expect(cancelled.code).to.equal('CANCELLED');
    const kept = statSync(partialPathFor(destination)).size;
    expect(kept).to.be.greaterThan(0).and.lessThan(bytes.length);
    const starts: number[] = [];
    expect(
      await fetchArtifact(published, destination, s3.storeConfig(), {
        onTransferStart: ({ fromByte }) => starts.push(fromByte),
      }),
    ).to.include({ ok: true });
    expect(starts).to.deep.equal([kept]);
    expect(readFileSync(destination).equals(bytes)).to.equal(true);
  });
});
