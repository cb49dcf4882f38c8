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
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  artifactStoreConfigFromEnv,
  EMPTY_ARTIFACT_STORE_CONFIG,
  fetchArtifact,
  partialPathFor,
  pushOciArtifact,
  pushOciBlob,
  verifyArtifactDigest,
  type ArtifactCheckResult,
  type ArtifactStoreConfig,
} from '../src/index';
import {
  startHttpsArtifactServer,
  startOciRegistry,
  type RunningHttpsServer,
  type RunningOciRegistry,
} from '../src/testing';

function sha256(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function failed(result: ArtifactCheckResult): Extract<ArtifactCheckResult, { ok: false }> {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result)}`);
  return result;
}

describe('https:// artifacts and registry login against real servers', function () {
  this.timeout(120_000);
  let scratch: string;
  let web: RunningHttpsServer;
  let registry: RunningOciRegistry;
  let tokenRegistry: RunningOciRegistry;

  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'lunanexa-artifact-https-'));
    [web, registry, tokenRegistry] = await Promise.all([
      startHttpsArtifactServer({ dataDir: join(scratch, 'servers') }),
      startOciRegistry({ dataDir: join(scratch, 'servers'), auth: 'htpasswd' }),
      startOciRegistry({ dataDir: join(scratch, 'servers'), auth: 'token' }),
    ]);
  });

  after(async () => {
    await Promise.all([web?.stop(), registry?.stop(), tokenRegistry?.stop()]);
    rmSync(scratch, { recursive: true, force: true });
  });

  describe('https:// (a private CA trusted through LUNANEXA_ARTIFACT_HTTPS_CA_FILE)', () => {
    let bytes: Buffer;
    let artifact: { uri: string; digest: string; sizeBytes: number };
    let config: ArtifactStoreConfig;

    before(() => {
      bytes = randomBytes(2 * 1024 * 1024 + 11);
      mkdirSync(join(web.root, 'models'), { recursive: true });
      writeFileSync(join(web.root, 'models', 'w.safetensors'), bytes);
      artifact = {
        uri: `${web.origin}/models/w.safetensors`,
        digest: sha256(bytes),
        sizeBytes: bytes.length,
      };
      const caFile = join(scratch, 'ca.pem');
      writeFileSync(caFile, web.caPem);
      // Through the environment, as a process reads it.
      config = {
        ...artifactStoreConfigFromEnv({ LUNANEXA_ARTIFACT_HTTPS_CA_FILE: caFile }),
        idleTimeoutMs: 10_000,
      };
    });

    it('downloads and verifies a digest-pinned file, also through a redirect and resumed with a Range', async () => {
      expect(await verifyArtifactDigest(artifact, config)).to.deep.equal({
        ok: true,
        store: 'https',
        digest: artifact.digest,
        sizeBytes: bytes.length,
      });
      const destination = join(scratch, 'download', 'https', 'model');
      expect(await fetchArtifact(artifact, destination, config)).to.include({ ok: true, store: 'https' });
      expect(readFileSync(destination).equals(bytes)).to.equal(true);

      const redirected = { ...artifact, uri: `${web.origin}/redirect/models/w.safetensors` };
      const again = join(scratch, 'download', 'https', 'again');
      writeFileSync(partialPathFor(again), bytes.subarray(0, 1000));
      const before = web.requests.length;
      expect(await fetchArtifact(redirected, again, config)).to.include({ ok: true });
      expect(web.requests.slice(before)).to.deep.equal([
        { path: '/redirect/models/w.safetensors', range: 'bytes=1000-' },
        { path: '/models/w.safetensors', range: 'bytes=1000-' },
      ]);
      expect(readFileSync(again).equals(bytes)).to.equal(true);
    });

    it('reports DIGEST_MISMATCH for other bytes and for more bytes than declared, leaving nothing behind', async () => {
      const other = { ...artifact, digest: sha256(Buffer.from('something else')) };
      const destination = join(scratch, 'download', 'https-bad', 'model');
      const mismatch = failed(await fetchArtifact(other, destination, config));
      expect(mismatch).to.include({ code: 'DIGEST_MISMATCH', digest: artifact.digest, store: 'https' });
      const oversize = failed(await fetchArtifact({ ...artifact, sizeBytes: 1024 }, destination, config));
      expect(oversize.code).to.equal('DIGEST_MISMATCH');
      expect(oversize.message).to.match(/holds 2097163 bytes; the artifact was registered with 1024/);
      expect(readdirSync(join(scratch, 'download', 'https-bad'))).to.deep.equal([]);
    });

    it('refuses an artifact above the configured size limit before any request', async () => {
      const before = web.requests.length;
      const limited = { ...config, https: { ...config.https, maxBytes: 1024 * 1024 } };
      const result = failed(await verifyArtifactDigest(artifact, limited));
      expect(result).to.include({ code: 'VALIDATION_FAILED', store: 'https' });
      expect(result.message).to.match(/limited to 1048576/);
      expect(web.requests.length).to.equal(before);
      expect(() => artifactStoreConfigFromEnv({ LUNANEXA_ARTIFACT_HTTPS_MAX_BYTES: '-5' })).to.throw(
        /LUNANEXA_ARTIFACT_HTTPS_MAX_BYTES/,
      );
    });

    it('refuses http:// and an untrusted certificate, and reports a missing file as NOT_FOUND', async () => {
      const plain = failed(
        await verifyArtifactDigest({ ...artifact, uri: artifact.uri.replace('https:', 'http:') }, config),
      );
      expect(plain).to.include({ code: 'VALIDATION_FAILED', store: 'unsupported' });
      expect(plain.message).to.match(/plain http/);
      const untrusted = failed(
        await verifyArtifactDigest(artifact, { ...EMPTY_ARTIFACT_STORE_CONFIG, idleTimeoutMs: 10_000 }),
      );
      expect(untrusted.code).to.equal('DEPENDENCY_UNAVAILABLE');
      expect(untrusted.message).to.match(/certificate|CERT/i);
      const missing = failed(
        await verifyArtifactDigest({ ...artifact, uri: `${web.origin}/models/nothing.bin` }, config),
      );
      expect(missing.code).to.equal('NOT_FOUND');
    });
  });

  describe('OCI registry with authentication (htpasswd, HTTP basic)', () => {
    const target = (): { registry: string; repository: string } => ({
      registry: registry.registry,
      repository: 'models/private',
    });
    let secretFile: string;

    before(() => {
      secretFile = join(scratch, 'secrets', 'registry-password');
      mkdirSync(join(scratch, 'secrets'), { recursive: true });
      writeFileSync(secretFile, `${registry.credentials?.password ?? ''}\n`, { mode: 0o600 });
    });

    function configWith(env: Record<string, string>): ArtifactStoreConfig {
      return {
        ...artifactStoreConfigFromEnv({
          LUNANEXA_OCI_AUTH_REGISTRY: registry.registry,
          LUNANEXA_OCI_USERNAME: registry.credentials?.username ?? '',
          ...env,
        }),
        idleTimeoutMs: 10_000,
      };
    }

    it('pushes and pulls with the password from a file: secret reference, and from an env: one', async () => {
      const config = configWith({ LUNANEXA_OCI_PASSWORD_REF: `file:${secretFile}` });
      expect(config.oci.credentials).to.deep.equal([
        {
          registry: registry.registry,
          username: 'puller',
          passwordRef: { kind: 'file', path: secretFile },
        },
      ]);
      const bytes = randomBytes(1024 * 1024 + 1);
      const blob = await pushOciBlob(config.oci, target(), bytes);
      const destination = join(scratch, 'download', 'oci-auth', 'model');
      expect(await fetchArtifact(blob, destination, config)).to.include({ ok: true, store: 'oci' });
      expect(readFileSync(destination).equals(bytes)).to.equal(true);

      const tagged = await pushOciArtifact(config.oci, target(), 'v1', Buffer.from('tagged weights'));
      process.env['LUNANEXA_TEST_REGISTRY_PASSWORD'] = registry.credentials?.password ?? '';
      try {
        const fromEnv = configWith({
          LUNANEXA_OCI_PASSWORD_REF: 'env:LUNANEXA_TEST_REGISTRY_PASSWORD',
          LUNANEXA_TEST_REGISTRY_PASSWORD: process.env['LUNANEXA_TEST_REGISTRY_PASSWORD'] ?? '',
        });
        expect(await verifyArtifactDigest(tagged, fromEnv)).to.include({ ok: true, digest: tagged.digest });
      } finally {
        delete process.env['LUNANEXA_TEST_REGISTRY_PASSWORD'];
      }
    });

    it('fails without or with wrong credentials as ARTIFACT_UNAUTHORIZED, leaving no partial file', async () => {
      const config = configWith({ LUNANEXA_OCI_PASSWORD_REF: `file:${secretFile}` });
      const bytes = randomBytes(64 * 1024);
      const blob = await pushOciBlob(config.oci, target(), bytes);
      const tagged = await pushOciArtifact(config.oci, target(), 'v2', bytes);
      const wrongFile = join(scratch, 'secrets', 'wrong');
      writeFileSync(wrongFile, 'not-the-password');
      const configs: [string, ArtifactStoreConfig][] = [
        ['none', { ...EMPTY_ARTIFACT_STORE_CONFIG, idleTimeoutMs: 10_000 }],
        ['wrong', configWith({ LUNANEXA_OCI_PASSWORD_REF: `file:${wrongFile}` })],
        ['wrong literal', configWith({ LUNANEXA_OCI_PASSWORD: 'also-wrong' })],
      ];
      for (const [name, wrong] of configs) {
        for (const artifact of [blob, tagged]) {
          const destination = join(scratch, 'download', `unauthorized-${name}`, 'model');
          const result = failed(await fetchArtifact(artifact, destination, wrong));
          expect(result.code, `${name} ${artifact.uri}`).to.equal('ARTIFACT_UNAUTHORIZED');
          expect(readdirSync(join(scratch, 'download', `unauthorized-${name}`))).to.deep.equal([]);
          expect(existsSync(partialPathFor(destination))).to.equal(false);
        }
      }
      // A reference that stopped resolving (the secret file was removed) is refused the same way.
      const gone = join(scratch, 'secrets', 'gone');
      writeFileSync(gone, 'x');
      const vanishing = configWith({ LUNANEXA_OCI_PASSWORD_REF: `file:${gone}` });
      rmSync(gone);
      const result = failed(await verifyArtifactDigest(blob, vanishing));
      expect(result.code).to.equal('ARTIFACT_UNAUTHORIZED');
      expect(result.message).to.contain(`secret file:${gone} cannot be read`);
    });
  });

  describe('OCI registry with the Docker token flow (Bearer challenge, token service)', () => {
    it('logs in at the token service with the referenced password and pulls; wrong or no credentials are ARTIFACT_UNAUTHORIZED', async () => {
      const target = { registry: tokenRegistry.registry, repository: 'models/tokened' };
      const secret = join(scratch, 'secrets', 'token-registry-password');
      mkdirSync(join(scratch, 'secrets'), { recursive: true });
      writeFileSync(secret, tokenRegistry.credentials?.password ?? '');
      const config: ArtifactStoreConfig = {
        ...artifactStoreConfigFromEnv({
          LUNANEXA_OCI_AUTH_REGISTRY: tokenRegistry.registry,
          LUNANEXA_OCI_USERNAME: tokenRegistry.credentials?.username ?? '',
          LUNANEXA_OCI_PASSWORD_REF: `file:${secret}`,
        }),
        idleTimeoutMs: 10_000,
      };
      const bytes = randomBytes(512 * 1024);
      const tagged = await pushOciArtifact(config.oci, target, 'v1', bytes);
      const destination = join(scratch, 'download', 'oci-token', 'model');
      expect(await fetchArtifact(tagged, destination, config)).to.include({
        ok: true,
        digest: sha256(bytes),
      });
      expect(readFileSync(destination).equals(bytes)).to.equal(true);

      // The registry itself checks the tokens: a made-up one is refused.
      const forged = await fetch(`${tokenRegistry.url}/v2/`, {
        headers: { authorization: 'Bearer not.a.token' },
      });
      expect(forged.status).to.equal(401);
      expect(forged.headers.get('www-authenticate')).to.match(
        /^Bearer realm="http:\/\/127\.0\.0\.1:[0-9]+\/token"/,
      );

      writeFileSync(secret, 'not-the-password');
      const refused = join(scratch, 'download', 'oci-token-refused', 'model');
      for (const wrong of [config, { ...EMPTY_ARTIFACT_STORE_CONFIG, idleTimeoutMs: 10_000 }]) {
        const result = failed(await fetchArtifact(tagged, refused, wrong));
        expect(result.code).to.equal('ARTIFACT_UNAUTHORIZED');
        expect(readdirSync(join(scratch, 'download', 'oci-token-refused'))).to.deep.equal([]);
      }
      // The reference is read at every login: the rotated (restored) secret works without a new configuration.
      writeFileSync(secret, tokenRegistry.credentials?.password ?? '');
      expect(await verifyArtifactDigest(tagged, config)).to.include({ ok: true });
    });
  });
});
