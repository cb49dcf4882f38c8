import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import {
  fetchArtifact,
  pushOciArtifact,
  pushOciBlob,
  putS3Object,
  verifyArtifactDigest,
  verifyLocalFile,
  type ArtifactCheckResult,
} from '../src/index';
import {
  startOciRegistry,
  startS3Server,
  unusedLoopbackPort,
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

describe('artifact stores against real servers', function () {
  this.timeout(120_000);
  let scratch: string;
  let s3: RunningS3Server;
  let oci: RunningOciRegistry;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'lunanexa-artifact-store-'));
    [s3, oci] = await Promise.all([
      startS3Server({ dataDir: join(scratch, 'servers') }),
      startOciRegistry({ dataDir: join(scratch, 'servers') }),
    ]);
  });

  after(async () => {
    await Promise.all([s3?.stop(), oci?.stop()]);
    rmSync(scratch, { recursive: true, force: true });
  });

  describe('S3-compatible store (SigV4 checked by the server)', () => {
    it('publishes an object, verifies it and downloads it into place', async () => {
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      const published = await putS3Object(
        s3.config,
        { bucket: 'models', key: 'llama/3 1/w.safetensors' },
        bytes,
        {
          createBucket: true,
        },
      );
      expect(published).to.deep.equal({
        digest: sha256(bytes),
        sizeBytes: bytes.length,
        uri: 's3://models/llama/3%201/w.safetensors',
      });
      expect(await verifyArtifactDigest(published, s3.storeConfig())).to.deep.equal({
        ok: true,
        store: 's3',
        digest: sha256(bytes),
        sizeBytes: bytes.length,
      });
      const destination = join(scratch, 'download', 'a', 'model');
      expect(await fetchArtifact(published, destination, s3.storeConfig())).to.include({ ok: true });
      expect(readFileSync(destination).equals(bytes)).to.equal(true);
      expect(readdirSync(join(scratch, 'download', 'a'))).to.deep.equal(['model']);
      expect(await verifyLocalFile(destination, published)).to.include({ ok: true, store: 'file' });
    });

    it('reports DIGEST_MISMATCH with what the bytes hash to when the object is replaced by same-size bytes', async () => {
      const original = Buffer.from('original weights');
      const published = await putS3Object(
        s3.config,
        { bucket: 'models', key: 'tamper/same-size' },
        original,
        {
          createBucket: true,
        },
      );
      const tampered = Buffer.from('tampered weights');
      expect(tampered.length).to.equal(original.length);
      await putS3Object(s3.config, { bucket: 'models', key: 'tamper/same-size' }, tampered);
      const result = failed(await verifyArtifactDigest(published, s3.storeConfig()));
      expect(result).to.include({
        code: 'DIGEST_MISMATCH',
        digest: sha256(tampered),
        sizeBytes: tampered.length,
      });
      expect(result.message).to.contain(published.digest);

      const destination = join(scratch, 'download', 'b', 'model');
      expect(failed(await fetchArtifact(published, destination, s3.storeConfig())).code).to.equal(
        'DIGEST_MISMATCH',
      );
      expect(existsSync(destination)).to.equal(false);
      expect(readdirSync(join(scratch, 'download', 'b'))).to.deep.equal([]);
    });

    it('reports DIGEST_MISMATCH when the size differs, and keeps an existing destination file', async () => {
      const published = await putS3Object(
        s3.config,
        { bucket: 'models', key: 'tamper/size' },
        Buffer.from('1234'),
        {
          createBucket: true,
        },
      );
      await putS3Object(s3.config, { bucket: 'models', key: 'tamper/size' }, Buffer.from('123456789'));
      const destination = join(scratch, 'download', 'c', 'model');
      mkdirSync(join(scratch, 'download', 'c'), { recursive: true });
      writeFileSync(destination, 'previous content');
      const result = failed(await fetchArtifact(published, destination, s3.storeConfig()));
      expect(result).to.include({ code: 'DIGEST_MISMATCH', sizeBytes: 9 });
      expect(readFileSync(destination, 'utf8')).to.equal('previous content');
      expect(readdirSync(join(scratch, 'download', 'c'))).to.deep.equal(['model']);
    });

    it('reports NOT_FOUND for a missing key and a missing bucket', async () => {
      const digest = sha256(Buffer.from('x'));
      for (const uri of ['s3://models/no/such/key', 's3://no-such-bucket/key']) {
        const result = failed(await verifyArtifactDigest({ uri, digest, sizeBytes: 1 }, s3.storeConfig()));
        expect(result.code, uri).to.equal('NOT_FOUND');
      }
    });

    it('reports ARTIFACT_UNAUTHORIZED when the server rejects the signature (wrong secret) or an unsigned request', async () => {
      const published = await putS3Object(s3.config, { bucket: 'models', key: 'signed' }, Buffer.from('s'), {
        createBucket: true,
      });
      const wrong = s3.storeConfig({
        s3: {
          ...s3.config,
          credentials: { accessKeyId: s3.credentials.accessKeyId, secretAccessKey: 'not-it' },
        },
      });
      const result = failed(await verifyArtifactDigest(published, wrong));
      expect(result.code).to.equal('ARTIFACT_UNAUTHORIZED');
      expect(result.message).to.match(/HTTP 403.*SignatureDoesNotMatch/);
      const unsigned = failed(
        await verifyArtifactDigest(published, s3.storeConfig({ s3: { ...s3.config, credentials: null } })),
      );
      expect(unsigned.code).to.equal('ARTIFACT_UNAUTHORIZED');
      expect(unsigned.message).to.match(/HTTP 403.*AccessDenied/);
      const destination = join(scratch, 'download', 'unauthorized', 'model');
      expect(failed(await fetchArtifact(published, destination, wrong)).code).to.equal(
        'ARTIFACT_UNAUTHORIZED',
      );
      expect(readdirSync(join(scratch, 'download', 'unauthorized'))).to.deep.equal([]);
    });

    it('uploads a large object in parts (multipart, 5 MiB parts) and reads it back', async () => {
      const bytes = randomBytes(12 * 1024 * 1024 + 5);
      const parts = new Set<number | null>();
      const published = await putS3Object(s3.config, { bucket: 'models', key: 'multipart/w.bin' }, bytes, {
        createBucket: true,
        partSizeBytes: 5 * 1024 * 1024,
        onProgress: (progress) => parts.add(progress.part),
      });
      expect(published).to.include({ digest: sha256(bytes), sizeBytes: bytes.length });
      expect([...parts].sort()).to.deep.equal([1, 2, 3]);
      // The store's ETag of a multipart object is "<md5 of part md5s>-<part count>".
      const head = await new S3Client({
        endpoint: s3.endpoint,
        region: s3.region,
        forcePathStyle: true,
        credentials: s3.credentials,
      }).send(new HeadObjectCommand({ Bucket: 'models', Key: 'multipart/w.bin' }));
      expect(head.ETag).to.match(/-3"$/);
      expect(await verifyArtifactDigest(published, s3.storeConfig())).to.include({ ok: true });

      // A stream of unknown length is hashed as it goes up.
      const streamed = await putS3Object(
        s3.config,
        { bucket: 'models', key: 'multipart/streamed.bin' },
        Readable.from([bytes.subarray(0, 7 * 1024 * 1024), bytes.subarray(7 * 1024 * 1024)]),
        { partSizeBytes: 5 * 1024 * 1024 },
      );
      expect(streamed).to.include({ digest: sha256(bytes), sizeBytes: bytes.length });
      expect(await verifyArtifactDigest(streamed, s3.storeConfig())).to.include({ ok: true });
    });

    it('refuses parts smaller than S3 allows', async () => {
      let error: unknown;
      try {
        await putS3Object(s3.config, { bucket: 'models', key: 'x' }, Buffer.from('x'), {
          partSizeBytes: 1024,
        });
      } catch (caught: unknown) {
        error = caught;
      }
      expect(error).to.be.instanceOf(RangeError);
    });

    it('reports DEPENDENCY_UNAVAILABLE when no S3 store is configured or it is unreachable', async () => {
      const artifact = { uri: 's3://models/signed', digest: sha256(Buffer.from('s')), sizeBytes: 1 };
      expect(failed(await verifyArtifactDigest(artifact, s3.storeConfig({ s3: null }))).code).to.equal(
        'DEPENDENCY_UNAVAILABLE',
      );
      const port = await unusedLoopbackPort();
      const unreachable = failed(
        await verifyArtifactDigest(
          artifact,
          s3.storeConfig({ s3: { ...s3.config, endpoint: `http://127.0.0.1:${port}` } }),
        ),
      );
      expect(unreachable.code).to.equal('DEPENDENCY_UNAVAILABLE');
      expect(unreachable.message).to.contain('ECONNREFUSED');
    });
  });

  describe('a store that accepts connections and then says nothing', () => {
    let silent: Server;
    const sockets: Socket[] = [];
    before(async () => {
      silent = createServer((socket) => {
        sockets.push(socket);
        // Requests for .../stall get headers and a first chunk, then nothing more.
        socket.once('data', (head: Buffer) => {
          // (The S3 SDK adds `?x-id=GetObject` to the path.)
          if (/\/stall[ ?]/.test(head.toString('latin1'))) {
            socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789');
          }
        });
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    });
    after(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    it('times out as DEPENDENCY_UNAVAILABLE (idle timeout), and a caller abort is CANCELLED', async () => {
      const address = silent.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      const config = s3.storeConfig({
        s3: { ...s3.config, endpoint: `http://127.0.0.1:${port}` },
        idleTimeoutMs: 300,
      });
      const artifact = { uri: 's3://models/x', digest: sha256(Buffer.from('x')), sizeBytes: 1 };
      const idle = failed(await verifyArtifactDigest(artifact, config));
      expect(idle.code).to.equal('DEPENDENCY_UNAVAILABLE');
      expect(idle.message).to.match(/no answer within 300 ms/);

      const stalled = failed(
        await verifyArtifactDigest({ ...artifact, uri: 's3://models/stall', sizeBytes: 100 }, config),
      );
      expect(stalled.code).to.equal('DEPENDENCY_UNAVAILABLE');
      expect(stalled.message).to.match(/the body stalled for 300 ms/);

      const patient = { ...config, idleTimeoutMs: 60_000 };
      expect(failed(await verifyArtifactDigest(artifact, patient, { timeoutMs: 300 })).code).to.equal(
        'DEPENDENCY_UNAVAILABLE',
      );
      const abort = new AbortController();
      setTimeout(() => abort.abort(new Error('agent stopping')), 200);
      expect(failed(await verifyArtifactDigest(artifact, patient, { signal: abort.signal })).code).to.equal(
        'CANCELLED',
      );
    });
  });

  describe('OCI distribution registry', () => {
    const target = (): { registry: string; repository: string } => ({
      registry: oci.registry,
      repository: 'models/tiny-llm',
    });

    it('pushes a blob, verifies it by digest and downloads it', async () => {
      const bytes = randomBytes(2 * 1024 * 1024 + 3);
      const blob = await pushOciBlob(oci.storeConfig().oci, target(), bytes);
      expect(blob.uri).to.equal(`oci://${oci.registry}/models/tiny-llm@${sha256(bytes)}`);
      expect(await verifyArtifactDigest(blob, oci.storeConfig())).to.include({ ok: true, store: 'oci' });
      const destination = join(scratch, 'download', 'oci', 'model');
      expect(await fetchArtifact(blob, destination, oci.storeConfig())).to.include({ ok: true });
      expect(readFileSync(destination).equals(bytes)).to.equal(true);
    });

    it('reports DIGEST_MISMATCH when the blob bytes are tampered with underneath the registry', async () => {
      const bytes = Buffer.from('oci weights that will be tampered with');
      const blob = await pushOciBlob(oci.storeConfig().oci, target(), bytes);
      const file = oci.blobDataFile(blob.digest);
      const tampered = Buffer.from(bytes);
      tampered[0] = (tampered[0] ?? 0) ^ 0xff;
      writeFileSync(file, tampered);
      const result = failed(await verifyArtifactDigest(blob, oci.storeConfig()));
      expect(result).to.include({ code: 'DIGEST_MISMATCH', digest: sha256(tampered) });
      const destination = join(scratch, 'download', 'oci-tampered', 'model');
      expect(failed(await fetchArtifact(blob, destination, oci.storeConfig())).code).to.equal(
        'DIGEST_MISMATCH',
      );
      expect(readdirSync(join(scratch, 'download', 'oci-tampered'))).to.deep.equal([]);
    });

    it('resolves a tag to its one layer, and a moved tag is a DIGEST_MISMATCH', async () => {
      const first = await pushOciArtifact(oci.storeConfig().oci, target(), 'v1', Buffer.from('version one'));
      expect(first.uri).to.equal(`oci://${oci.registry}/models/tiny-llm:v1`);
      expect(await verifyArtifactDigest(first, oci.storeConfig())).to.include({
        ok: true,
        digest: first.digest,
      });
      const moved = await pushOciArtifact(oci.storeConfig().oci, target(), 'v1', Buffer.from('version two'));
      const result = failed(await verifyArtifactDigest(first, oci.storeConfig()));
      expect(result).to.include({ code: 'DIGEST_MISMATCH', digest: moved.digest });
    });

    it('reports NOT_FOUND for an unknown blob, tag or repository', async () => {
      const digest = sha256(Buffer.from('never pushed'));
      for (const uri of [
        `oci://${oci.registry}/models/tiny-llm@${digest}`,
        `oci://${oci.registry}/models/tiny-llm:no-such-tag`,
        `oci://${oci.registry}/models/no-such-repo@${digest}`,
      ]) {
        expect(
          failed(await verifyArtifactDigest({ uri, digest, sizeBytes: 12 }, oci.storeConfig())).code,
          uri,
        ).to.equal('NOT_FOUND');
      }
    });

    it('reports DEPENDENCY_UNAVAILABLE for an unreachable registry', async () => {
      const port = await unusedLoopbackPort();
      const digest = sha256(Buffer.from('x'));
      const result = failed(
        await verifyArtifactDigest(
          { uri: `oci://127.0.0.1:${port}/models/x@${digest}`, digest, sizeBytes: 1 },
          oci.storeConfig(),
        ),
      );
      expect(result.code).to.equal('DEPENDENCY_UNAVAILABLE');
    });
  });
});
