import { expect } from 'chai';
import { createServer, type Server } from 'node:net';
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
}

interface Ports {
  readonly stackSettings: (env: Record<string, string>) => Settings;
  readonly stackPorts: (settings: Settings) => { port: number; what: string; variable: string }[];
  readonly checkStackPorts: (settings: Settings) => Promise<string | null>;
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
