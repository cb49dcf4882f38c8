import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, EXIT_CONFIG, findRepoRoot } from '@lunanexa/observability';
import { controllerKeyFile, loadApiConfig } from '../src/config';

const MAIN = join(__dirname, '..', 'src', 'main.js');

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadApiConfig(env);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as ConfigError).problems.map((p) => p.variable);
  }
  return [];
}

describe('api configuration', function () {
  this.timeout(30_000);
  const valid = { DATABASE_URL: 'postgres://u@127.0.0.1:5432/db' };

  it('accepts a minimal environment and fills defaults', () => {
    const config = loadApiConfig(valid);
    expect(config).to.include({
      LUNANEXA_API_PORT: 4000,
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      TEMPORAL_NAMESPACE: 'lunanexa',
    });
  });

  it('sizes the agent replay window for a fleet of about 2,000 nodes beating every second, within bounds', () => {
    expect(loadApiConfig(valid).LUNANEXA_AGENT_REPLAY_CAPACITY).to.equal(262_144);
    expect(
      loadApiConfig({ ...valid, LUNANEXA_AGENT_REPLAY_CAPACITY: '1048576' }).LUNANEXA_AGENT_REPLAY_CAPACITY,
    ).to.equal(1_048_576);
    expect(() => loadApiConfig({ ...valid, LUNANEXA_AGENT_REPLAY_CAPACITY: '10' })).to.throw(
      /LUNANEXA_AGENT_REPLAY_CAPACITY/,
    );
  });

  it('keeps the controller key under the data directory unless a key file is named', () => {
    const defaults = loadApiConfig(valid);
    expect(defaults.LUNANEXA_DATA_DIR).to.equal(join(findRepoRoot(), '.data'));
    expect(controllerKeyFile(defaults)).to.equal(
      join(findRepoRoot(), '.data', 'controller', 'controller-ed25519.pem'),
    );
    const dataDir = loadApiConfig({ ...valid, LUNANEXA_DATA_DIR: '/srv/lunanexa' });
    expect(controllerKeyFile(dataDir)).to.equal('/srv/lunanexa/controller/controller-ed25519.pem');
    const named = loadApiConfig({ ...valid, LUNANEXA_CONTROLLER_KEY_FILE: '/etc/lunanexa/key.pem' });
    expect(controllerKeyFile(named)).to.equal('/etc/lunanexa/key.pem');
  });

  it('names every bad variable at once', () => {
    expect(
      problemsOf({
        LUNANEXA_API_PORT: 'abc',
        TEMPORAL_ADDRESS: 'no-port',
        LUNANEXA_TEMPORAL_UI_URL: 'not a url',
        LUNANEXA_LOG_LEVEL: 'loud',
      }),
    ).to.have.members([
      'DATABASE_URL',
      'LUNANEXA_API_PORT',
      'TEMPORAL_ADDRESS',
      'LUNANEXA_TEMPORAL_UI_URL',
      'LUNANEXA_LOG_LEVEL',
    ]);
    expect(problemsOf({ ...valid, LUNANEXA_API_PORT: '70000' })).to.deep.equal(['LUNANEXA_API_PORT']);
    expect(problemsOf({ DATABASE_URL: 'mysql://x' })).to.deep.equal(['DATABASE_URL']);
  });

  it('the process exits 78 and names the variable, before touching any dependency', () => {
    const result = spawnSync(process.execPath, [MAIN], {
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: valid.DATABASE_URL, LUNANEXA_API_PORT: 'eighty' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).to.equal(EXIT_CONFIG);
    expect(result.stderr).to.include('lunanexa-api: invalid configuration');
    expect(result.stderr).to.include('LUNANEXA_API_PORT');
  });
});
