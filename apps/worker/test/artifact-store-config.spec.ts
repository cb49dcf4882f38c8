import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, EXIT_CONFIG } from '@lunanexa/observability';
import { loadWorkerConfig, workerArtifactStoreConfig } from '../src/config';

describe('worker artifact store configuration', function () {
  this.timeout(30_000);
  const base = { DATABASE_URL: 'postgres://u@h/db' };

  it('reads the S3 and OCI settings the verification activity uses', () => {
    const config = loadWorkerConfig({
      ...base,
      LUNANEXA_S3_ENDPOINT: 'https://s3.example.internal',
      LUNANEXA_S3_ACCESS_KEY_ID: 'AKID',
      LUNANEXA_S3_SECRET_ACCESS_KEY: 'secret',
      LUNANEXA_OCI_INSECURE_REGISTRIES: 'registry.lab:5000',
    });
    const stores = workerArtifactStoreConfig(config);
    expect(stores.s3).to.deep.include({ endpoint: 'https://s3.example.internal', region: 'us-east-1' });
    expect(stores.oci.insecureRegistries).to.deep.equal(['registry.lab:5000']);
  });

  it('has no S3 store when none is configured', () => {
    expect(workerArtifactStoreConfig(loadWorkerConfig(base)).s3).to.equal(null);
  });

  it('fails at load with a ConfigError naming the variable', () => {
    expect(() => loadWorkerConfig({ ...base, LUNANEXA_S3_ACCESS_KEY_ID: 'AKID' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/LUNANEXA_S3_SECRET_ACCESS_KEY: must be set together/);
  });

  it('the process exits 78 on an invalid artifact store setting, without printing the secret', () => {
    const result = spawnSync(process.execPath, [join(__dirname, '..', 'src', 'main.js')], {
      env: {
        PATH: process.env['PATH'] ?? '',
        DATABASE_URL: 'postgres://u@127.0.0.1:1/db',
        LUNANEXA_S3_ENDPOINT: 'http://s3.example.internal',
        LUNANEXA_S3_ACCESS_KEY_ID: 'AKID',
        LUNANEXA_S3_SECRET_ACCESS_KEY: 'do-not-print-me',
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).to.equal(EXIT_CONFIG);
    expect(result.stderr).to.match(/LUNANEXA_S3_ENDPOINT: must use https/);
    expect(result.stderr).not.to.contain('do-not-print-me');
  });
});
