import { expect } from 'chai';
import { ConfigError } from '@lunanexa/observability';
import { loadAgentArtifactStoreConfig } from '../src/config';

describe('agent artifact store configuration (environment)', () => {
  it('reads the stores the agent pulls from', () => {
    const config = loadAgentArtifactStoreConfig({
      LUNANEXA_S3_ENDPOINT: 'http://127.0.0.1:9000',
      LUNANEXA_S3_ACCESS_KEY_ID: 'AKID',
      LUNANEXA_S3_SECRET_ACCESS_KEY: 'secret',
      LUNANEXA_OCI_INSECURE_REGISTRIES: 'registry.lab:5000',
    });
    expect(config.s3).to.deep.include({ endpoint: 'http://127.0.0.1:9000', pathStyle: true });
    expect(config.oci.insecureRegistries).to.deep.equal(['registry.lab:5000']);
  });

  it('refuses an invalid setting as a ConfigError naming the variable (exit 78 at start)', () => {
    expect(() => loadAgentArtifactStoreConfig({ LUNANEXA_OCI_USERNAME: 'puller' }))
      .to.throw(ConfigError)
      .with.property('message')
      .that.matches(/LUNANEXA_OCI_AUTH_REGISTRY: must name the registry/);
  });
});
