// The ports the local stack binds and what happens when one is busy.
//
// Ports a user chose or types (console/api, gateway, Temporal UI, and any port
// whose variable is set) are checked before any install or build step: a busy
// one fails the start within seconds, in one line naming the port, its use and
// the variable that moves it. Ports internal to the stack (embedded PostgreSQL,
// Temporal gRPC, the worker's health port, the simulated nodes' HTTP and SSH
// ports) nobody types: when the default is busy (NATS listens on 4222, agent
// dgx-2's default SSH port) another free port is taken, and every internal
// port is kept in <dataDir>/ports.json so nodes keep their addresses across
// restarts. Builtins only: this runs before `npm ci`.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/** A port the stack needs is taken or set twice; the message is the one line to show. */
export class StackPortError extends Error {
  constructor(message) {
    super(message);
    this.name = 'StackPortError';
  }
}

/** Variables of ports internal to the stack: unless set, their ports move by themselves when busy. */
const INTERNAL_PORT_VARIABLES = new Set([
  'LUNANEXA_PG_PORT',
  'LUNANEXA_TEMPORAL_PORT',
  'LUNANEXA_WORKER_PORT',
  'LUNANEXA_AGENT_BASE_PORT',
  'LUNANEXA_AGENT_SSH_BASE_PORT',
]);

/** Services the launcher can run as several processes (LUNANEXA_<NAME>_PROCESSES), each on its own port. */
export const REPLICATED_SERVICES = ['api', 'gateway', 'worker'];

/**
 * Process `k`'s port (1-based) of a replicated service: the one assigned, else the service's port + k - 1, so the
 * api processes of the default layout listen on 4000, 4001, ….
 */
export function processPort(settings, service, k) {
  const key = k === 1 ? service : `${service}-${k}`;
  return settings.assignedPorts?.[key] ?? settings[`${service}Port`] + k - 1;
}

/** Every port with a stable key (the name it has in ports.json). */
function portEntries(settings) {
  const ports = [];
  if (!settings.databaseUrl) {
    ports.push({
      key: 'postgres',
      port: settings.pgPort,
      what: 'embedded PostgreSQL',
      variable: 'LUNANEXA_PG_PORT',
    });
  }
  ports.push({
    key: 'temporal',
    port: settings.temporalPort,
    what: 'Temporal gRPC',
    variable: 'LUNANEXA_TEMPORAL_PORT',
  });
  // temporal-server (LUNANEXA_TEMPORAL_MODE=server) has no web UI of its own.
  if (settings.temporalMode !== 'server') {
    ports.push({
      key: 'temporal-ui',
      port: settings.temporalUiPort,
      what: 'Temporal UI',
      variable: 'LUNANEXA_TEMPORAL_UI_PORT',
    });
  }
  for (const service of REPLICATED_SERVICES) {
    const count = settings.processes?.[service] ?? 1;
    for (let k = 1; k <= count; k++) {
      ports.push({
        key: k === 1 ? service : `${service}-${k}`,
        port: settings[`${service}Port`] + k - 1,
        what: k === 1 ? service : `${service} process ${k}`,
        variable: `LUNANEXA_${service.toUpperCase()}_PORT`,
      });
    }
  }
  for (let i = 1; i <= settings.agents; i++) {
    ports.push({
      key: `dgx-${i}-http`,
      port: agentHttpPort(settings, i),
      what: `simulated agent dgx-${i} HTTP`,
      variable: 'LUNANEXA_AGENT_BASE_PORT',
    });
    ports.push({
      key: `dgx-${i}-ssh`,
      port: agentSshPort(settings, i),
      what: `simulated agent dgx-${i} SSH`,
      variable: 'LUNANEXA_AGENT_SSH_BASE_PORT',
    });
  }
  return ports;
}

/** Agent `index`'s HTTP port (1-based): the one assigned, else base + index. */
export function agentHttpPort(settings, index) {
  return settings.assignedPorts?.[`dgx-${index}-http`] ?? settings.agentBasePort + index;
}

/** Agent `index`'s SSH port (1-based): the one assigned, else SSH base + index. */
export function agentSshPort(settings, index) {
  return settings.assignedPorts?.[`dgx-${index}-ssh`] ?? settings.agentSshBasePort + index;
}

/** Every port `startStack` binds on 127.0.0.1, with what uses it and the variable that moves it. */
export function stackPorts(settings) {
  return portEntries(settings).map(({ port, what, variable }) => ({ port, what, variable }));
}

/** Two uses of one port within the settings themselves (e.g. more agents than the SSH offset leaves room for). */
export function portClash(ports) {
  const seen = new Map();
  for (const entry of ports) {
    const earlier = seen.get(entry.port);
    if (earlier) {
      return `port ${entry.port} is set for both ${earlier.what} (${earlier.variable}) and ${entry.what} (${entry.variable}); set one of them to another port`;
    }
    seen.set(entry.port, entry);
  }
  return null;
}

function busyMessage(entry, problem) {
  if (problem === 'EADDRINUSE') {
    return `port ${entry.port} (${entry.what}) is already in use by another process; set ${entry.variable} to move it`;
  }
  return `port ${entry.port} (${entry.what}) may not be bound by this user; set ${entry.variable} to a port above 1023`;
}

function isBusy(port, host) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (error) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(error.code);
      else reject(error);
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(null)));
  });
}

/**
 * The first problem with the stack's ports as one line, or null when every
 * port can be bound. Checked in order, so the message names the first busy one.
 */
export async function checkStackPorts(settings, host = '127.0.0.1') {
  const ports = stackPorts(settings);
  const clash = portClash(ports);
  if (clash) return clash;
  for (const entry of ports) {
    const problem = await isBusy(entry.port, host);
    if (problem) return busyMessage(entry, problem);
  }
  return null;
}

function isInternal(entry, settings) {
  if (!INTERNAL_PORT_VARIABLES.has(entry.variable)) return false;
  const chosen = settings.chosenPortVariables ?? [];
  // SSH ports follow the HTTP base when only that is set: both were chosen then.
  if (entry.variable === 'LUNANEXA_AGENT_SSH_BASE_PORT' && chosen.includes('LUNANEXA_AGENT_BASE_PORT'))
    return false;
  return !chosen.includes(entry.variable);
}

/** A port the system hands out now, skipping those already given to another use. */
async function freePort(host, taken) {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const server = net.createServer();
      server.once('error', reject);
      server.listen({ host, port: 0, exclusive: true }, () => {
        const { port: given } = server.address();
        server.close(() => resolve(given));
      });
    });
    if (!taken.has(port)) return port;
  }
}

export function portsFile(dataDir) {
  return path.join(dataDir, 'ports.json');
}

function readKeptPorts(file) {
  if (!existsSync(file)) return {};
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    return kept && typeof kept === 'object' ? kept : {};
  } catch {
    return {};
  }
}

/**
 * Checks the ports a user chose (throws StackPortError naming the first busy
 * one) and settles every internal port: the one kept in ports.json, else the
 * default, else a free one when that is busy. Answers the settings with the
 * internal ports assigned; ports.json records them. Run before any build step
 * (so a busy chosen port is reported in seconds) and again right before the
 * services start.
 */
export async function resolveStackPorts(settings, { host = '127.0.0.1', log = () => {} } = {}) {
  const entries = portEntries({ ...settings, assignedPorts: undefined });
  const chosen = entries.filter((entry) => !isInternal(entry, settings));
  const clash = portClash(chosen);
  if (clash) throw new StackPortError(clash);
  for (const entry of chosen) {
    const problem = await isBusy(entry.port, host);
    if (problem) throw new StackPortError(busyMessage(entry, problem));
  }
  const file = portsFile(settings.dataDir);
  const kept = readKeptPorts(file);
  const taken = new Set(chosen.map((entry) => entry.port));
  const assigned = {};
  for (const entry of entries.filter((e) => isInternal(e, settings))) {
    const wanted = Number.isInteger(kept[entry.key]) ? kept[entry.key] : entry.port;
    let port = wanted;
    if (taken.has(port) || (await isBusy(port, host))) {
      port = await freePort(host, taken);
      log(`port ${wanted} (${entry.what}) is in use; took ${port} instead (kept in ${file})`);
    }
    taken.add(port);
    assigned[entry.key] = port;
  }
  const record = { ...kept, ...assigned };
  if (JSON.stringify(record) !== JSON.stringify(kept)) {
    mkdirSync(settings.dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  }
  return {
    ...settings,
    pgPort: assigned['postgres'] ?? settings.pgPort,
    temporalPort: assigned['temporal'] ?? settings.temporalPort,
    workerPort: assigned['worker'] ?? settings.workerPort,
    assignedPorts: assigned,
  };
}
