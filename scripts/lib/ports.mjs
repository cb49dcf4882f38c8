// The ports the local stack binds, each with the variable that moves it, and
// a check run before anything starts: a busy port (another service already
// listening, e.g. NATS on 4222) fails the start in one line naming the port,
// its use and its variable, instead of a service dying half-way up.

import net from 'node:net';

/** Every port `startStack` binds on 127.0.0.1, with what uses it and the variable that moves it. */
export function stackPorts(settings) {
  const ports = [];
  if (!settings.databaseUrl) {
    ports.push({ port: settings.pgPort, what: 'embedded PostgreSQL', variable: 'LUNANEXA_PG_PORT' });
  }
  ports.push(
    { port: settings.temporalPort, what: 'Temporal gRPC', variable: 'LUNANEXA_TEMPORAL_PORT' },
    { port: settings.temporalUiPort, what: 'Temporal UI', variable: 'LUNANEXA_TEMPORAL_UI_PORT' },
    { port: settings.apiPort, what: 'api', variable: 'LUNANEXA_API_PORT' },
    { port: settings.gatewayPort, what: 'gateway', variable: 'LUNANEXA_GATEWAY_PORT' },
    { port: settings.workerPort, what: 'worker', variable: 'LUNANEXA_WORKER_PORT' },
  );
  for (let i = 1; i <= settings.agents; i++) {
    ports.push({
      port: settings.agentBasePort + i,
      what: `simulated agent dgx-${i} HTTP`,
      variable: 'LUNANEXA_AGENT_BASE_PORT',
    });
    ports.push({
      port: settings.agentSshBasePort + i,
      what: `simulated agent dgx-${i} SSH`,
      variable: 'LUNANEXA_AGENT_SSH_BASE_PORT',
    });
  }
  return ports;
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
    if (problem === 'EADDRINUSE') {
      return `port ${entry.port} (${entry.what}) is already in use by another process; set ${entry.variable} to move it`;
    }
    if (problem === 'EACCES') {
      return `port ${entry.port} (${entry.what}) may not be bound by this user; set ${entry.variable} to a port above 1023`;
    }
  }
  return null;
}
