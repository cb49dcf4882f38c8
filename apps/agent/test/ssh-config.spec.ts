import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSshPublicKey } from '@lunanexa/agent-protocol';
import { ConfigError } from '@lunanexa/observability';
import { expect } from 'chai';
import { parseAgentConfig } from '../src/config';
import { utils } from 'ssh2';
import { KeyFileError, generateHostKeyText, loadOrCreateHostKey, loadOrCreateNodeKey } from '../src/ssh/keys';
import { makeControllerKey, tempDataDir } from './ssh-support';

const base = {
  nodeName: 'spark-01',
  listen: { host: '127.0.0.1', port: 9464 },
  dataDir: './state',
  inventory: { source: 'simulated' },
};

function problemsOf(document: unknown): string[] {
  try {
    parseAgentConfig(document, '/etc/lunanexa/agent.yaml');
  } catch (error: unknown) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.variable);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

/** The published TEST-ONLY controller key of libs/agent-protocol (its private half is in the repository). */
const PUBLISHED_TEST_KEY = readFileSync(
  join(
    __dirname,
    '..',
    '..',
    '..',
    '..',
    'libs',
    'agent-protocol',
    'test',
    'keys',
    'TEST-ONLY-controller.ed25519.pub',
  ),
  'utf8',
);

describe('agent ssh configuration', () => {
  const controller = makeControllerKey('controller-1');
  const pem = controller.publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const ssh = {
    host: '0.0.0.0',
    port: 2222,
    authorizedControllerKeys: [{ keyId: 'controller-1', publicKey: controller.publicLine }],
  };

  it('is optional: without it there is no SSH section at all', () => {
    expect(parseAgentConfig(base, '/etc/lunanexa/agent.yaml').ssh).to.equal(undefined);
  });

  it('may list no controller key (enrollment provides one) and then lists none', () => {
    const { authorizedControllerKeys: _none, ...withoutKeys } = ssh;
    const config = parseAgentConfig({ ...base, ssh: withoutKeys }, '/etc/lunanexa/agent.yaml');
    expect(config.ssh?.authorizedControllerKeys).to.deep.equal([]);
    expect(
      parseAgentConfig({ ...base, ssh: { ...ssh, authorizedControllerKeys: [] } }, '/etc/lunanexa/agent.yaml')
        .ssh?.authorizedControllerKeys,
    ).to.deep.equal([]);
  });

  it('accepts OpenSSH and PEM keys and defaults the host key into dataDir', () => {
    const config = parseAgentConfig(
      {
        ...base,
        ssh: {
          ...ssh,
          authorizedControllerKeys: [
            ...ssh.authorizedControllerKeys,
            { keyId: 'controller-2', publicKey: pem },
          ],
        },
      },
      '/etc/lunanexa/agent.yaml',
    );
    expect(config.ssh?.hostKeyFile).to.equal('/etc/lunanexa/state/ssh_host_ed25519_key');
    expect(config.ssh?.authorizedControllerKeys.map((key) => key.keyId)).to.deep.equal([
      'controller-1',
      'controller-2',
    ]);
  });

  it('resolves a relative hostKeyFile against the config file', () => {
    const config = parseAgentConfig(
      { ...base, ssh: { ...ssh, hostKeyFile: 'keys/host' } },
      '/etc/lunanexa/agent.yaml',
    );
    expect(config.ssh?.hostKeyFile).to.equal('/etc/lunanexa/keys/host');
  });

  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
    format: 'pem',
    type: 'spki',
  });
  const cases: readonly [string, unknown, string][] = [
    [
      'more than 16 controller keys',
      {
        ...ssh,
        authorizedControllerKeys: Array.from({ length: 17 }, (_, i) => ({
          keyId: `c-${i}`,
          publicKey: makeControllerKey(`c-${i}`).publicLine,
        })),
      },
      'ssh.authorizedControllerKeys',
    ],
    [
      'a key that is not a key',
      { ...ssh, authorizedControllerKeys: [{ keyId: 'c', publicKey: 'hello' }] },
      'ssh.authorizedControllerKeys.0.publicKey',
    ],
    [
      'an RSA key',
      { ...ssh, authorizedControllerKeys: [{ keyId: 'c', publicKey: rsa.toString() }] },
      'ssh.authorizedControllerKeys.0.publicKey',
    ],
    [
      'a private key where the public key belongs',
      {
        ...ssh,
        authorizedControllerKeys: [
          {
            keyId: 'c',
            publicKey: controller.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
          },
        ],
      },
      'ssh.authorizedControllerKeys.0.publicKey',
    ],
    [
      'the published TEST-ONLY key',
      { ...ssh, authorizedControllerKeys: [{ keyId: 'c', publicKey: PUBLISHED_TEST_KEY }] },
      'ssh.authorizedControllerKeys.0.publicKey',
    ],
    [
      'a repeated keyId',
      {
        ...ssh,
        authorizedControllerKeys: [
          { keyId: 'c', publicKey: controller.publicLine },
          { keyId: 'c', publicKey: pem },
        ],
      },
      'ssh.authorizedControllerKeys.1.keyId',
    ],
    [
      'a keyId that is not an opaque id',
      { ...ssh, authorizedControllerKeys: [{ keyId: 'has space', publicKey: pem }] },
      'ssh.authorizedControllerKeys.0.keyId',
    ],
    ['a bad port', { ...ssh, port: 0 }, 'ssh.port'],
    ['an unknown field (e.g. a password)', { ...ssh, password: 'x' }, 'ssh.password'],
  ];
  for (const [title, value, field] of cases) {
    it(`names ${field} for ${title}`, () => {
      expect(problemsOf({ ...base, ssh: value })).to.deep.equal([field]);
    });
  }
});

describe('agent key files', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDataDir();
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('generates host keys ssh2 can always parse (ssh2 generateKeyPairSync fails ~3 in 1,000)', function () {
    this.timeout(60_000);
    const unusable: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const parsed = utils.parseKey(generateHostKeyText(`lunanexa-agent dgx-${i} host key`));
      if (parsed instanceof Error) unusable.push(parsed.message);
    }
    expect(unusable).to.deep.equal([]);
  });

  it('creates a host key once and loads the same one afterwards', async () => {
    const file = join(dir, 'host');
    const first = await loadOrCreateHostKey(file, 'test host');
    const second = await loadOrCreateHostKey(file, 'test host');
    expect(first.created).to.equal(true);
    expect(second.created).to.equal(false);
    expect(second.fingerprint).to.equal(first.fingerprint);
    expect(readFileSync(file, 'utf8')).to.match(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
  });

  it('creates a node key once and loads the same one afterwards', async () => {
    const first = await loadOrCreateNodeKey(dir);
    const second = await loadOrCreateNodeKey(dir);
    expect([first.created, second.created]).to.deep.equal([true, false]);
    expect(second.keyId).to.equal(first.keyId);
    expect(first.keyId).to.match(/^ed25519:[A-Za-z0-9_-]{43}$/);
  });

  it('refuses key files that group or others can read, and files that are not keys', async () => {
    const file = join(dir, 'host');
    await loadOrCreateHostKey(file, 'test host');
    chmodSync(file, 0o644);
    let failure: unknown = null;
    await loadOrCreateHostKey(file, 'test host').catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(KeyFileError);

    writeFileSync(join(dir, 'node-ed25519.pem'), 'not a key', { mode: 0o600 });
    failure = null;
    await loadOrCreateNodeKey(dir).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(KeyFileError);

    writeFileSync(file, openSshPublicKey(makeControllerKey('x').publicKey), { mode: 0o600 });
    chmodSync(file, 0o600);
    failure = null;
    await loadOrCreateHostKey(file, 'test host').catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(KeyFileError);
  });
});
