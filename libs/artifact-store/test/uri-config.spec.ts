import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  resolveSecretRefSync,
  artifactStoreConfigFromEnv,
  ArtifactStoreConfigError,
  formatArtifactUri,
  parseArtifactUri,
  parseAuthenticateHeader,
  registryBaseUrl,
  syntheticArtifactDigest,
  UnsupportedArtifactUri,
  verifyArtifactDigest,
  verifySyntheticArtifact,
  EMPTY_ARTIFACT_STORE_CONFIG,
} from '../src/index';

const HEX = 'ab'.repeat(32);

describe('artifact URIs', () => {
  it('parses s3:// with a percent-decoded key', () => {
    expect(parseArtifactUri('s3://lunanexa-artifacts/models/llama/a%20b.safetensors')).to.deep.equal({
      store: 's3',
      bucket: 'lunanexa-artifacts',
      key: 'models/llama/a b.safetensors',
    });
  });

  it('parses oci:// blobs by digest and tags, with or without a port', () => {
    expect(parseArtifactUri(`oci://registry.internal:5000/models/llama-3@sha256:${HEX}`)).to.deep.equal({
      store: 'oci',
      registry: 'registry.internal:5000',
      repository: 'models/llama-3',
      reference: { digest: `sha256:${HEX}` },
    });
    expect(parseArtifactUri('oci://registry.internal/models/llama_3:2024-07-23')).to.deep.equal({
      store: 'oci',
      registry: 'registry.internal',
      repository: 'models/llama_3',
      reference: { tag: '2024-07-23' },
    });
  });

  it('parses file:// as an absolute path', () => {
    expect(parseArtifactUri('file:///var/lib/lunanexa/models/a%20b')).to.deep.equal({
      store: 'file',
      path: '/var/lib/lunanexa/models/a b',
    });
  });

  it('parses https:// with a query (a presigned URL) as it is', () => {
    expect(parseArtifactUri('https://models.example.com:8443/llama/w.gguf?X-Sig=abc')).to.deep.equal({
      store: 'https',
      url: 'https://models.example.com:8443/llama/w.gguf?X-Sig=abc',
    });
  });

  it('round-trips through formatArtifactUri', () => {
    for (const uri of [
      's3://bucket-1/models/a%20b%24.bin',
      `oci://127.0.0.1:5000/m/x@sha256:${HEX}`,
      'oci://r.example/m/x:v1',
      'file:///srv/models/w.gguf',
      'https://models.example.com/a/w.bin?v=1',
    ]) {
      expect(formatArtifactUri(parseArtifactUri(uri))).to.equal(uri);
    }
  });

  const refused: [string, RegExp][] = [
    ['http://example.com/w.bin', /plain http/],
    ['https://user:pw@example.com/w.bin', /must not carry credentials/],
    ['https://example.com/w.bin#part', /fragment/],
    ['https://example.com/models/', /not a directory/],
    ['hf://meta-llama/Llama-3.1-8B', /no artifact store reads yet/],
    ['s3://bucket', /s3:\/\/bucket\/key/],
    ['s3://Bad_Bucket/key', /invalid S3 bucket/],
    ['s3://bucket/prefix/', /not a bucket or a prefix/],
    ['s3://bucket/key?versionId=1', /query or fragment/],
    ['s3://bucket/%E0%A4%A', /percent-encoding/],
    ['oci://registry/models/x', /must end in @sha256/],
    ['oci://registry/models/x@sha256:abc', /@sha256:<64/],
    ['oci://registry/Models/x:v1', /invalid repository/],
    ['oci://registry/models/x:-bad', /invalid tag/],
    ['oci://bad_host!/x:v1', /invalid registry host/],
    ['file://server/share/x', /not a local file URL/],
    ['models/x', /has no scheme/],
  ];
  for (const [uri, message] of refused) {
    it(`refuses ${uri}`, () => {
      expect(() => parseArtifactUri(uri))
        .to.throw(UnsupportedArtifactUri)
        .with.property('message')
        .that.matches(message);
    });
  }

  it('verifyArtifactDigest answers VALIDATION_FAILED for an unsupported URI without touching any store', async () => {
    const result = await verifyArtifactDigest(
      { uri: 'hf://org/model', digest: `sha256:${HEX}`, sizeBytes: 1 },
      EMPTY_ARTIFACT_STORE_CONFIG,
    );
    expect(result).to.include({ ok: false, code: 'VALIDATION_FAILED', store: 'unsupported' });
  });

  it('refuses file:// outside the configured roots as VALIDATION_FAILED', async () => {
    const result = await verifyArtifactDigest(
      { uri: 'file:///etc/hostname', digest: `sha256:${HEX}`, sizeBytes: 1 },
      { ...EMPTY_ARTIFACT_STORE_CONFIG, fileRoots: ['/var/empty-lunanexa-root'] },
    );
    expect(result).to.include({ ok: false, code: 'VALIDATION_FAILED', store: 'file' });
    if (!result.ok) expect(result.message).to.match(/outside the configured file roots/);
  });
});

describe('synthetic (fake-runtime) artifacts', () => {
  it('derives the digest the API registers fake versions with', () => {
    // sha256("lunanexa-fake-weights:demo@1")
    expect(syntheticArtifactDigest('demo@1')).to.equal(
      'sha256:c4827351a8989460cdf12f2eafa19b0a8248b9fd275876138c591637d28216ca',
    );
    expect(verifySyntheticArtifact({ digest: syntheticArtifactDigest('demo@1') }, 'demo@1')).to.deep.equal({
      ok: true,
      digest: syntheticArtifactDigest('demo@1'),
      sizeBytes: 0,
      store: 'synthetic',
    });
    expect(verifySyntheticArtifact({ digest: syntheticArtifactDigest('demo@2') }, 'demo@1')).to.include({
      ok: false,
      code: 'DIGEST_MISMATCH',
      store: 'synthetic',
    });
  });
});

describe('artifactStoreConfigFromEnv', () => {
  it('reads a full configuration', () => {
    const config = artifactStoreConfigFromEnv({
      LUNANEXA_S3_ENDPOINT: 'https://s3.example.internal:9000/',
      LUNANEXA_S3_REGION: 'eu-central-1',
      LUNANEXA_S3_ACCESS_KEY_ID: 'AKID',
      LUNANEXA_S3_SECRET_ACCESS_KEY: 'secret',
      LUNANEXA_S3_PATH_STYLE: 'false',
      LUNANEXA_OCI_INSECURE_REGISTRIES: 'registry.lab:5000, 10.0.0.5:5000',
      LUNANEXA_OCI_AUTH_REGISTRY: 'registry.example.com',
      LUNANEXA_OCI_USERNAME: 'puller',
      LUNANEXA_OCI_PASSWORD: 'pw',
      LUNANEXA_ARTIFACT_FILE_ROOTS: '/srv/models:/mnt/weights',
      LUNANEXA_ARTIFACT_IDLE_TIMEOUT_MS: '5000',
    });
    expect(config).to.deep.equal({
      s3: {
        endpoint: 'https://s3.example.internal:9000',
        region: 'eu-central-1',
        pathStyle: false,
        credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
      },
      oci: {
        insecureRegistries: ['registry.lab:5000', '10.0.0.5:5000'],
        credentials: [{ registry: 'registry.example.com', username: 'puller', password: 'pw' }],
      },
      https: { extraCaPem: null, maxBytes: 64 * 1024 ** 3 },
      fileRoots: ['/srv/models', '/mnt/weights'],
      idleTimeoutMs: 5000,
    });
  });

  it('reads OCI secrets by reference (env: or file:) and checks that they resolve', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'lunanexa-secret-ref-'));
    try {
      const file = join(scratch, 'password');
      writeFileSync(file, 'from-a-file\n');
      expect(
        artifactStoreConfigFromEnv({
          LUNANEXA_OCI_AUTH_REGISTRY: 'registry.example.com',
          LUNANEXA_OCI_USERNAME: 'puller',
          LUNANEXA_OCI_PASSWORD_REF: `file:${file}`,
        }).oci.credentials,
      ).to.deep.equal([
        { registry: 'registry.example.com', username: 'puller', passwordRef: { kind: 'file', path: file } },
      ]);
      expect(
        artifactStoreConfigFromEnv({
          LUNANEXA_OCI_AUTH_REGISTRY: 'registry.example.com',
          LUNANEXA_OCI_TOKEN_REF: 'env:REGISTRY_TOKEN',
          REGISTRY_TOKEN: 'tok',
        }).oci.credentials,
      ).to.deep.equal([
        { registry: 'registry.example.com', tokenRef: { kind: 'env', name: 'REGISTRY_TOKEN' } },
      ]);
      expect(resolveSecretRefSync({ kind: 'file', path: file })).to.equal('from-a-file');
      const problems = (env: Record<string, string>): string[] => {
        try {
          artifactStoreConfigFromEnv({ LUNANEXA_OCI_AUTH_REGISTRY: 'r.example', ...env });
        } catch (error: unknown) {
          return (error as ArtifactStoreConfigError).problems.map((p) => `${p.variable}: ${p.message}`);
        }
        return [];
      };
      expect(
        problems({ LUNANEXA_OCI_USERNAME: 'u', LUNANEXA_OCI_PASSWORD_REF: 'plain-secret' }),
      ).to.deep.equal(['LUNANEXA_OCI_PASSWORD_REF: must be env:NAME or file:/absolute/path']);
      expect(
        problems({ LUNANEXA_OCI_USERNAME: 'u', LUNANEXA_OCI_PASSWORD_REF: 'env:UNSET_VARIABLE' }),
      ).to.deep.equal(['LUNANEXA_OCI_PASSWORD_REF: secret env:UNSET_VARIABLE is not set']);
      expect(
        problems({
          LUNANEXA_OCI_USERNAME: 'u',
          LUNANEXA_OCI_PASSWORD_REF: `file:${join(scratch, 'missing')}`,
        })[0],
      ).to.match(/cannot be read \(ENOENT\)/);
      expect(
        problems({
          LUNANEXA_OCI_USERNAME: 'u',
          LUNANEXA_OCI_PASSWORD: 'p',
          LUNANEXA_OCI_PASSWORD_REF: `file:${file}`,
        }),
      ).to.have.length(1);
      // A CA file must hold a PEM certificate.
      expect(() => artifactStoreConfigFromEnv({ LUNANEXA_ARTIFACT_HTTPS_CA_FILE: file }))
        .to.throw(ArtifactStoreConfigError)
        .with.property('message')
        .that.matches(/LUNANEXA_ARTIFACT_HTTPS_CA_FILE: holds no PEM certificate/);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });

  it('is empty (no S3, TLS-only OCI, no file roots) when nothing is set', () => {
    expect(artifactStoreConfigFromEnv({})).to.deep.equal(EMPTY_ARTIFACT_STORE_CONFIG);
  });

  it('honours another prefix', () => {
    const config = artifactStoreConfigFromEnv({ AGENT_S3_ENDPOINT: 'http://127.0.0.1:9000' }, 'AGENT_');
    expect(config.s3).to.include({ endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', pathStyle: true });
    expect(config.s3?.credentials).to.equal(null);
  });

  it('collects every problem, naming the variables and never the secrets', () => {
    let error: unknown;
    try {
      artifactStoreConfigFromEnv({
        LUNANEXA_S3_ENDPOINT: 'http://s3.example.internal:9000',
        LUNANEXA_S3_SECRET_ACCESS_KEY: 'super-secret-value',
        LUNANEXA_S3_REGION: 'Not A Region',
        LUNANEXA_S3_PATH_STYLE: 'maybe',
        LUNANEXA_OCI_INSECURE_REGISTRIES: 'ok:5000,bad host',
        LUNANEXA_OCI_TOKEN: 'tok',
        LUNANEXA_ARTIFACT_FILE_ROOTS: 'relative/dir',
        LUNANEXA_ARTIFACT_IDLE_TIMEOUT_MS: '5',
      });
    } catch (caught: unknown) {
      error = caught;
    }
    expect(error).to.be.instanceOf(ArtifactStoreConfigError);
    const problems = (error as ArtifactStoreConfigError).problems.map((p) => p.variable);
    expect(problems).to.have.members([
      'LUNANEXA_S3_PATH_STYLE',
      'LUNANEXA_S3_REGION',
      'LUNANEXA_S3_ACCESS_KEY_ID',
      'LUNANEXA_S3_ENDPOINT',
      'LUNANEXA_OCI_INSECURE_REGISTRIES',
      'LUNANEXA_OCI_AUTH_REGISTRY',
      'LUNANEXA_ARTIFACT_FILE_ROOTS',
      'LUNANEXA_ARTIFACT_IDLE_TIMEOUT_MS',
    ]);
    expect((error as Error).message).not.to.contain('super-secret-value');
    expect((error as ArtifactStoreConfigError).code).to.equal('INVALID_CONFIG');
  });

  it('allows plain http to a non-loopback S3 endpoint only when told to', () => {
    expect(() => artifactStoreConfigFromEnv({ LUNANEXA_S3_ENDPOINT: 'http://s3.lab:9000' })).to.throw(
      ArtifactStoreConfigError,
    );
    expect(
      artifactStoreConfigFromEnv({
        LUNANEXA_S3_ENDPOINT: 'http://s3.lab:9000',
        LUNANEXA_S3_ALLOW_HTTP: 'true',
      }).s3?.endpoint,
    ).to.equal('http://s3.lab:9000');
  });
});

describe('registry authentication challenges', () => {
  it('parses a bearer challenge with quoted parameters', () => {
    expect(
      parseAuthenticateHeader(
        'Bearer realm="https://auth.example.com/token",service="registry.example.com",scope="repository:models/x:pull"',
      ),
    ).to.deep.equal({
      scheme: 'bearer',
      params: {
        realm: 'https://auth.example.com/token',
        service: 'registry.example.com',
        scope: 'repository:models/x:pull',
      },
    });
    expect(parseAuthenticateHeader('Basic realm="Registry Realm"')).to.deep.equal({
      scheme: 'basic',
      params: { realm: 'Registry Realm' },
    });
  });

  it('speaks https to registries unless they are loopback or listed as insecure', () => {
    const oci = { insecureRegistries: ['registry.lab:5000'], credentials: [] };
    expect(registryBaseUrl(oci, 'registry.example.com').protocol).to.equal('https:');
    expect(registryBaseUrl(oci, 'registry.lab:5001').protocol).to.equal('https:');
    expect(registryBaseUrl(oci, 'REGISTRY.lab:5000').protocol).to.equal('http:');
    expect(registryBaseUrl(oci, '127.0.0.1:5000').protocol).to.equal('http:');
    expect(registryBaseUrl(oci, 'localhost:5000').protocol).to.equal('http:');
    expect(registryBaseUrl(oci, '[::1]:5000').protocol).to.equal('http:');
  });
});
