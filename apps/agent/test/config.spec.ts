import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@lunanexa/observability';
import { expect } from 'chai';
import { BOOTSTRAP_TOKEN_ENV, UsageError, parseAgentArgs } from '../src/args';
import { AGENT_CONFIG_ENV, advertisedAddress, loadAgentConfigFile, parseAgentConfig } from '../src/config';

const valid = {
  nodeName: 'spark-01',
  listen: { host: '127.0.0.1', port: 9464 },
  dataDir: '/var/lib/lunanexa-agent',
  controllerUrl: 'https://controller.lunanexa.internal:4000',
  inventory: { source: 'simulated', profile: 'dgx-spark' },
  labels: { rack: 'r1', 'lunanexa.io/zone': 'lab-a' },
};

/** The variables a ConfigError names, in order. */
function problemsOf(document: unknown, file = '/etc/lunanexa/agent.yaml'): string[] {
  try {
    parseAgentConfig(document, file);
  } catch (error: unknown) {
    if (error instanceof ConfigError) {
      expect(error.message).to.contain(file);
      return error.problems.map((problem) => problem.variable);
    }
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('agent configuration', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lunanexa-agent-config-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('accepts a complete document', () => {
    const config = parseAgentConfig(valid, '/etc/lunanexa/agent.yaml');
    expect(config).to.deep.include({
      nodeName: 'spark-01',
      dataDir: '/var/lib/lunanexa-agent',
      logLevel: 'info',
    });
    expect(config.inventory).to.deep.equal({
      source: 'simulated',
      profile: 'dgx-spark',
      refreshIntervalSeconds: 30,
    });
  });

  it('takes the enrollment settings: controllerKeyFingerprint, advertiseAddress, heartbeatIntervalSeconds', () => {
    const config = parseAgentConfig(
      {
        ...valid,
        controllerKeyFingerprint: `SHA256:${'A'.repeat(43)}`,
        advertiseAddress: '10.0.0.11',
        heartbeatIntervalSeconds: 2,
      },
      '/etc/lunanexa/agent.yaml',
    );
    expect(config).to.deep.include({
      controllerKeyFingerprint: `SHA256:${'A'.repeat(43)}`,
      advertiseAddress: '10.0.0.11',
      heartbeatIntervalSeconds: 2,
    });
    expect(advertisedAddress(config)).to.equal('10.0.0.11');
  });

  it('advertises listen.host when advertiseAddress is not set; the heartbeat interval comes from enrollment', () => {
    const config = parseAgentConfig(valid, '/etc/lunanexa/agent.yaml');
    expect(config.advertiseAddress).to.equal(undefined);
    expect(advertisedAddress(config)).to.equal('127.0.0.1');
    expect(config.heartbeatIntervalSeconds).to.equal(undefined);
    expect(config.controllerKeyFingerprint).to.equal(undefined);
  });

  it('defaults the simulated profile to dgx-spark and labels to none; controllerUrl is optional', () => {
    const { controllerUrl: _omitted, labels: _none, ...rest } = valid;
    const config = parseAgentConfig({ ...rest, inventory: { source: 'simulated' } }, '/etc/a.yaml');
    expect(config.inventory).to.deep.include({ source: 'simulated', profile: 'dgx-spark' });
    expect(config.labels).to.deep.equal({});
    expect(config.controllerUrl).to.equal(undefined);
  });

  it('loads YAML and resolves a relative dataDir against the config file, not the working directory', () => {
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      'nodeName: spark-02\nlisten:\n  host: 0.0.0.0\n  port: 9464\ndataDir: ./state\ninventory:\n  source: nvidia-smi\n',
    );
    const config = loadAgentConfigFile(file);
    expect(config.dataDir).to.equal(join(dir, 'state'));
    expect(config.inventory).to.deep.equal({ source: 'nvidia-smi', refreshIntervalSeconds: 30 });
  });

  it('loads JSON', () => {
    const file = join(dir, 'agent.json');
    writeFileSync(file, JSON.stringify(valid));
    expect(loadAgentConfigFile(file).nodeName).to.equal('spark-01');
  });

  const cases: readonly [string, Record<string, unknown>, string][] = [
    ['nodeName that is not a DNS label', { nodeName: 'Spark_01' }, 'nodeName'],
    ['missing nodeName', { nodeName: undefined }, 'nodeName'],
    ['port out of range', { listen: { host: '127.0.0.1', port: 70000 } }, 'listen.port'],
    ['port that is a string', { listen: { host: '127.0.0.1', port: '9464' } }, 'listen.port'],
    ['empty listen host', { listen: { host: '', port: 9464 } }, 'listen.host'],
    ['empty dataDir', { dataDir: '' }, 'dataDir'],
    ['controllerUrl that is not a URL', { controllerUrl: 'controller:4000' }, 'controllerUrl'],
    [
      'controllerUrl with another scheme',
      { controllerUrl: 'ftp://controller.lunanexa.internal' },
      'controllerUrl',
    ],
    ['unknown inventory source', { inventory: { source: 'nvml' } }, 'inventory.source'],
    [
      'unknown simulated profile',
      { inventory: { source: 'simulated', profile: 'a100-4x' } },
      'inventory.profile',
    ],
    [
      'a profile for real hardware',
      { inventory: { source: 'nvidia-smi', profile: 'dgx-spark' } },
      'inventory.profile',
    ],
    [
      'refresh interval too short',
      { inventory: { source: 'nvidia-smi', refreshIntervalSeconds: 1 } },
      'inventory.refreshIntervalSeconds',
    ],
    ['bad label key', { labels: { 'bad key!': 'x' } }, 'labels.bad key!'],
    ['bad label value', { labels: { rack: 'not ok!' } }, 'labels.rack'],
    ['a misspelt field', { nodename: 'spark-01' }, 'nodename'],
    ['unknown log level', { logLevel: 'verbose' }, 'logLevel'],
    [
      'a controller fingerprint that is not SHA256:…',
      { controllerKeyFingerprint: 'MD5:aa:bb' },
      'controllerKeyFingerprint',
    ],
    ['an advertise address with a path', { advertiseAddress: 'node/1' }, 'advertiseAddress'],
    ['a heartbeat interval of 0', { heartbeatIntervalSeconds: 0 }, 'heartbeatIntervalSeconds'],
    ['a heartbeat interval over 300 s', { heartbeatIntervalSeconds: 301 }, 'heartbeatIntervalSeconds'],
  ];
  for (const [title, change, field] of cases) {
    it(`names ${field} for ${title}`, () => {
      expect(problemsOf({ ...valid, ...change })).to.deep.equal([field]);
    });
  }

  it('names every bad field at once', () => {
    expect(problemsOf({ ...valid, nodeName: 'UPPER', listen: { host: 'h', port: 0 } })).to.deep.equal([
      'nodeName',
      'listen.port',
    ]);
  });

  it('names the file when it is missing or not YAML', () => {
    const missing = join(dir, 'absent.yaml');
    expect(() => loadAgentConfigFile(missing)).to.throw(ConfigError, missing);
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'nodeName: [unclosed\n');
    expect(() => loadAgentConfigFile(broken)).to.throw(ConfigError, /broken\.yaml[\s\S]*not valid YAML/);
  });
});

describe('agent command line', () => {
  const TOKEN = `lnxb_${'Q'.repeat(43)}`;
  const OTHER_TOKEN = `lnxb_${'R'.repeat(43)}`;

  /** The variables a ConfigError from the command line names; the token itself must never be in the message. */
  function argProblems(
    argv: string[],
    env: Record<string, string>,
    secret: string,
    files: Record<string, string> = {},
  ): string[] {
    try {
      parseAgentArgs(argv, env, (path) => {
        const text = files[path];
        if (text === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
        return text;
      });
    } catch (error: unknown) {
      if (!(error instanceof ConfigError)) throw error;
      expect(error.message).not.to.contain(secret);
      return error.problems.map((problem) => problem.variable);
    }
    throw new Error('expected a ConfigError');
  }

  it('takes --config, else the environment variable; no bootstrap token by default', () => {
    expect(parseAgentArgs(['--config', '/a.yaml'], { [AGENT_CONFIG_ENV]: '/b.yaml' })).to.deep.equal({
      kind: 'run',
      configFile: '/a.yaml',
      bootstrapToken: null,
      stopRuntimesOnExit: false,
    });
    expect(parseAgentArgs([], { [AGENT_CONFIG_ENV]: '/b.yaml' })).to.deep.equal({
      kind: 'run',
      configFile: '/b.yaml',
      bootstrapToken: null,
      stopRuntimesOnExit: false,
    });
  });

  it('leaves runtimes running on exit unless --stop-runtimes-on-exit', () => {
    expect(parseAgentArgs(['--config', '/a.yaml', '--stop-runtimes-on-exit'], {})).to.deep.include({
      stopRuntimesOnExit: true,
    });
    expect(() => parseAgentArgs(['--config', '/a.yaml', '--stop-runtimes-on-exit=yes'], {})).to.throw(
      UsageError,
    );
  });

  it('takes the bootstrap token from --bootstrap-token, --bootstrap-token-file or the environment, flags first', () => {
    const env = { [BOOTSTRAP_TOKEN_ENV]: OTHER_TOKEN };
    expect(parseAgentArgs(['--config', '/a.yaml', '--bootstrap-token', TOKEN], env)).to.deep.include({
      bootstrapToken: TOKEN,
    });
    const files: Record<string, string> = { '/run/token': `${TOKEN}\n` };
    expect(
      parseAgentArgs(
        ['--config', '/a.yaml', '--bootstrap-token-file', '/run/token'],
        env,
        (path) => files[path] ?? '',
      ),
    ).to.deep.include({ bootstrapToken: TOKEN });
    expect(parseAgentArgs(['--config', '/a.yaml'], env)).to.deep.include({ bootstrapToken: OTHER_TOKEN });
  });

  it('refuses both token flags at once as a usage error', () => {
    expect(() =>
      parseAgentArgs(['--config', '/a.yaml', '--bootstrap-token', TOKEN, '--bootstrap-token-file', '/t'], {}),
    ).to.throw(UsageError);
  });

  it('names where a malformed or unreadable token came from, without echoing it', () => {
    expect(
      argProblems(['--config', '/a.yaml', '--bootstrap-token', 'lnxb_short'], {}, 'lnxb_short'),
    ).to.deep.equal(['--bootstrap-token']);
    const bang = `lnxb_${'!'.repeat(43)}`;
    expect(argProblems(['--config', '/a.yaml'], { [BOOTSTRAP_TOKEN_ENV]: bang }, bang)).to.deep.equal([
      BOOTSTRAP_TOKEN_ENV,
    ]);
    expect(argProblems(['--config', '/a.yaml', '--bootstrap-token-file', '/nope'], {}, TOKEN)).to.deep.equal([
      '--bootstrap-token-file',
    ]);
    expect(
      argProblems(['--config', '/a.yaml', '--bootstrap-token-file', '/t'], {}, `${TOKEN}x`, {
        '/t': `${TOKEN}x\n`,
      }),
    ).to.deep.equal(['--bootstrap-token-file']);
  });

  it('names both sources when neither gives a file', () => {
    try {
      parseAgentArgs([], { [AGENT_CONFIG_ENV]: '' });
      expect.fail('expected a ConfigError');
    } catch (error: unknown) {
      expect(error).to.be.instanceOf(ConfigError);
      expect((error as ConfigError).problems.map((p) => p.variable)).to.deep.equal([
        `--config / ${AGENT_CONFIG_ENV}`,
      ]);
    }
  });

  it('treats unknown options and stray arguments as usage errors', () => {
    expect(() => parseAgentArgs(['--conifg', '/a.yaml'], {})).to.throw(UsageError);
    expect(() => parseAgentArgs(['run'], {})).to.throw(UsageError);
  });
});
