import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { findRepoRoot } from './support/repo';

interface Settings {
  databaseUrl?: string;
  pgPort: number;
  temporalPort: number;
  temporalUiPort: number;
  apiPort: number;
  gatewayPort: number;
  workerPort: number;
  agentBasePort: number;
  agentSshBasePort: number;
  agents: number;
  dataDir: string;
  assignedPorts?: Record<string, number>;
}

interface Ports {
  readonly stackSettings: (env: Record<string, string>) => Settings;
  readonly stackPorts: (settings: Settings) => { port: number; what: string; variable: string }[];
  readonly checkStackPorts: (settings: Settings) => Promise<string | null>;
  readonly resolveStackPorts: (
    settings: Settings,
    options?: { log?: (line: string) => void },
  ) => Promise<Settings>;
}

// A specifier held in a variable keeps this a real ESM import() in the compiled CommonJS.
async function load(): Promise<Ports> {
  const lib = path.join(findRepoRoot(), 'scripts', 'lib');
  const ports = (await import(pathToFileURL(path.join(lib, 'ports.mjs')).href)) as Ports;
  const stack = (await import(pathToFileURL(path.join(lib, 'stack.mjs')).href)) as Pick<
    Ports,
    'stackSettings'
  >;
  return { ...ports, stackSettings: stack.stackSettings };
}

function listen(port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port, host }, () => resolve(server));
  });
}

async function freeBase(count: number): Promise<number> {
  // A run of `count` consecutive free ports, probed by binding them.
  for (;;) {
    const base = 30_000 + Math.floor(Math.random() * 20_000);
    const servers: Server[] = [];
    try {
      for (let i = 0; i < count; i++) servers.push(await listen(base + i, '127.0.0.1'));
      return base;
    } catch {
      // taken: try another run
    } finally {
      await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
    }
  }
}

describe('npm start checks its ports before it starts anything', () => {
  it('lists every port it binds with the variable that moves it; defaults put agent 2 SSH on 4222', async () => {
    const { stackSettings, stackPorts } = await load();
    const ports = stackPorts(stackSettings({}));
    expect(ports.map((p) => p.port)).to.deep.equal([
      54329, 7233, 8233, 4000, 4100, 4300, 4201, 4221, 4202, 4222, 4203, 4223, 4204, 4224,
    ]);
    expect(ports.find((p) => p.port === 4222)).to.deep.equal({
      port: 4222,
      what: 'simulated agent dgx-2 SSH',
      variable: 'LUNANEXA_AGENT_SSH_BASE_PORT',
    });
    // With DATABASE_URL the embedded PostgreSQL port is not bound.
    expect(stackPorts(stackSettings({ DATABASE_URL: 'postgres://x/y' })).map((p) => p.port)).not.to.include(
      54329,
    );
  });

  it('several api, gateway and worker processes take consecutive ports; temporal-server has no UI port', async () => {
    const { stackSettings, stackPorts } = await load();
    const ports = stackPorts(
      stackSettings({
        LUNANEXA_API_PROCESSES: '2',
        LUNANEXA_GATEWAY_PROCESSES: '3',
        LUNANEXA_TEMPORAL_MODE: 'server',
        LUNANEXA_AGENTS: '0',
      }),
    );
    expect(ports.map((p) => p.port)).to.deep.equal([54329, 7233, 4000, 4001, 4100, 4101, 4102, 4300]);
    expect(ports.find((p) => p.port === 4102)).to.deep.equal({
      port: 4102,
      what: 'gateway process 3',
      variable: 'LUNANEXA_GATEWAY_PORT',
    });
  });

  it('refuses a process count outside 1-8 and an unknown Temporal mode, naming the variable', async () => {
    const { stackSettings } = await load();
    for (const [name, value] of [
      ['LUNANEXA_API_PROCESSES', '0'],
      ['LUNANEXA_WORKER_PROCESSES', '9'],
      ['LUNANEXA_GATEWAY_PROCESSES', 'two'],
    ]) {
      expect(() => stackSettings({ [name]: value })).to.throw(
        `invalid configuration: ${name}: must be an integer 1-8, got "${value}"`,
      );
    }
    expect(() => stackSettings({ LUNANEXA_TEMPORAL_MODE: 'sqlite' })).to.throw(
      /LUNANEXA_TEMPORAL_MODE: must be "dev".*"server"/,
    );
  });

  it('names the first busy port and its variable in one line, whichever address the other service holds', async () => {
    const { stackSettings, checkStackPorts } = await load();
    const base = await freeBase(30);
    const env = {
      LUNANEXA_PG_PORT: String(base),
      LUNANEXA_TEMPORAL_PORT: String(base + 1),
      LUNANEXA_TEMPORAL_UI_PORT: String(base + 2),
      LUNANEXA_API_PORT: String(base + 3),
      LUNANEXA_GATEWAY_PORT: String(base + 4),
      LUNANEXA_WORKER_PORT: String(base + 5),
      LUNANEXA_AGENT_BASE_PORT: String(base + 5),
      LUNANEXA_AGENT_SSH_BASE_PORT: String(base + 10),
      LUNANEXA_AGENTS: '4',
    };
    const settings = stackSettings(env);
    expect(await checkStackPorts(settings)).to.equal(null);
    // Like NATS on 4222: listening on every address.
    const other = await listen(base + 12, '0.0.0.0');
    try {
      const message = await checkStackPorts(settings);
      expect(message).to.equal(
        `port ${base + 12} (simulated agent dgx-2 SSH) is already in use by another process; set LUNANEXA_AGENT_SSH_BASE_PORT to move it`,
      );
      expect(message).not.to.include('\n');
    } finally {
      await new Promise((r) => other.close(r));
    }
    const api = await listen(base + 3, '127.0.0.1');
    try {
      expect(await checkStackPorts(settings)).to.match(
        new RegExp(`^port ${base + 3} \\(api\\) is already in use .*set LUNANEXA_API_PORT to move it$`),
      );
    } finally {
      await new Promise((r) => api.close(r));
    }
  });

  it('refuses settings that give one port two uses', async () => {
    const { stackSettings, checkStackPorts } = await load();
    const settings = stackSettings({ LUNANEXA_API_PORT: '4100' });
    expect(await checkStackPorts(settings)).to.equal(
      'port 4100 is set for both api (LUNANEXA_API_PORT) and gateway (LUNANEXA_GATEWAY_PORT); set one of them to another port',
    );
    const crowded = stackSettings({ LUNANEXA_AGENTS: '25' });
    expect(await checkStackPorts(crowded)).to.equal(
      'port 4221 is set for both simulated agent dgx-1 SSH (LUNANEXA_AGENT_SSH_BASE_PORT) and simulated agent dgx-21 HTTP (LUNANEXA_AGENT_BASE_PORT); set one of them to another port',
    );
  });
});

const closeServer = (server: Server | null): Promise<void> =>
  server ? new Promise((resolve) => server.close(() => resolve())) : Promise.resolve();

describe('npm start moves busy internal ports by itself and keeps them in <dataDir>/ports.json', () => {
  const dataDirs: string[] = [];
  after(() => dataDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  function isolated(base: number, extra: Record<string, string> = {}): Record<string, string> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'lunanexa-ports-'));
    dataDirs.push(dataDir);
    // Chosen ports (set, hence checked strictly) on a free run; internal ones left to their defaults' logic.
    return {
      LUNANEXA_DATA_DIR: dataDir,
      LUNANEXA_TEMPORAL_UI_PORT: String(base),
      LUNANEXA_API_PORT: String(base + 1),
      LUNANEXA_GATEWAY_PORT: String(base + 2),
      ...extra,
    };
  }

  it('a busy agent port (NATS on 4222 or another stack on 4201) is replaced by a free one, kept across restarts', async () => {
    const { stackSettings, resolveStackPorts } = await load();
    const base = await freeBase(3);
    const env = isolated(base);
    const defaults = stackSettings(env);
    // Whatever already listens on 4201/4222 stays; otherwise this test holds them itself.
    const held = await Promise.all([4201, 4222].map((port) => listen(port, '0.0.0.0').catch(() => null)));
    const lines: string[] = [];
    try {
      const settings = await resolveStackPorts(defaults, { log: (line) => lines.push(line) });
      const assigned = settings.assignedPorts ?? {};
      expect(assigned['dgx-1-http']).to.be.a('number').and.not.equal(4201);
      expect(assigned['dgx-2-ssh']).to.be.a('number').and.not.equal(4222);
      expect(new Set(Object.values(assigned)).size, 'no port given twice').to.equal(
        Object.values(assigned).length,
      );
      expect(lines.join('\n')).to.include('port 4222 (simulated agent dgx-2 SSH) is in use; took');
      const kept = JSON.parse(readFileSync(path.join(defaults.dataDir, 'ports.json'), 'utf8')) as Record<
        string,
        number
      >;
      expect(kept).to.deep.equal(assigned);
      // Freed or not, the next start keeps the addresses the nodes were given.
      await Promise.all(held.map(closeServer));
      held.fill(null);
      const again = await resolveStackPorts(stackSettings(env));
      expect(again.assignedPorts).to.deep.equal(assigned);
    } finally {
      await Promise.all(held.map(closeServer));
    }
  });

  it('a busy port the user chose or types stops the start, naming its variable; so does a busy internal port whose variable is set', async () => {
    const { stackSettings, resolveStackPorts } = await load();
    const base = await freeBase(4);
    const gateway = await listen(base + 2, '127.0.0.1');
    try {
      const failure = await resolveStackPorts(stackSettings(isolated(base))).then(
        () => null,
        (error: Error) => error,
      );
      expect(failure?.name).to.equal('StackPortError');
      expect(failure?.message).to.equal(
        `port ${base + 2} (gateway) is already in use by another process; set LUNANEXA_GATEWAY_PORT to move it`,
      );
    } finally {
      await new Promise((r) => gateway.close(r));
    }
    const pg = await listen(base + 3, '127.0.0.1');
    try {
      const failure = await resolveStackPorts(
        stackSettings(isolated(base, { LUNANEXA_PG_PORT: String(base + 3) })),
      ).then(
        () => null,
        (error: Error) => error.message,
      );
      expect(failure).to.equal(
        `port ${base + 3} (embedded PostgreSQL) is already in use by another process; set LUNANEXA_PG_PORT to move it`,
      );
    } finally {
      await new Promise((r) => pg.close(r));
    }
  });
});
