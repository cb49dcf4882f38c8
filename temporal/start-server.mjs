// Runs Temporal the way a production install does (infra/temporal/README.md):
// `temporal-server` with infra/temporal/config/production.yaml, persistence and
// visibility in two PostgreSQL databases whose schema infra/temporal/setup-schema.sh
// creates with `temporal-sql-tool`. The launcher uses it when
// LUNANEXA_TEMPORAL_MODE=server, so the documented production path runs on one
// machine too (the process-loss test runs the whole stack on it).
//
//   import { startTemporalServer } from './temporal/start-server.mjs'
//
// Differences from a production host, all through the template's environment:
// loopback addresses, ports chosen free at start (the frontend's is given),
// and no TLS to a PostgreSQL on this machine (the template allows that only
// over loopback). The server has no web UI; a production install runs
// temporal-ui beside it.
//
// Plain Node ESM with builtins only: it runs before any build step.

import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { DEFAULT_REPO_ROOT, ensureTemporalCli } from './install.mjs';
import { ensureTemporalServer } from './install-server.mjs';
import {
  assertPortFree,
  ensureNamespaceAndSearchAttributes,
  readTemporalContract,
  spawnServerGroup,
  tail,
  waitUntilHealthy,
} from './start-dev.mjs';

const CONFIG_ROOT = path.join(DEFAULT_REPO_ROOT, 'infra', 'temporal');
const SETUP_SCHEMA = path.join(CONFIG_ROOT, 'setup-schema.sh');

/**
 * @param {{
 *   databaseUrl: string,            PostgreSQL the two Temporal databases live in; its user must be able to CREATE DATABASE
 *   dataDir: string,
 *   port?: number,                  frontend gRPC port (the address clients use)
 *   databasePrefix?: string,        databases <prefix> and <prefix>_visibility
 *   logFile?: string,
 *   cliPath?: string,               the Temporal CLI, for health checks and namespace registration
 *   startTimeoutMs?: number,
 *   log?: (line: string) => void,
 *   nice?: number,                  CPU priority of every server thread (0 keeps ours)
 * }} options
 */
export async function startTemporalServer({
  databaseUrl,
  dataDir,
  port = 7233,
  databasePrefix = 'temporal',
  logFile,
  cliPath,
  startTimeoutMs = 120_000,
  log = () => undefined,
  nice = 0,
}) {
  const host = '127.0.0.1';
  const { namespace, searchAttributes } = readTemporalContract();
  cliPath ??= await ensureTemporalCli();
  const { server, sqlTool } = await ensureTemporalServer({ log });
  const stateDir = path.join(path.resolve(dataDir), 'temporal-server');
  mkdirSync(stateDir, { recursive: true });
  logFile = path.resolve(logFile ?? path.join(stateDir, 'temporal-server.log'));
  mkdirSync(path.dirname(logFile), { recursive: true });
  await assertPortFree(host, port, 'gRPC');

  const sql = new URL(databaseUrl);
  const loopback = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(sql.hostname);
  const [
    frontendHttp,
    frontendMembership,
    historyGrpc,
    historyMembership,
    matchingGrpc,
    matchingMembership,
    workerGrpc,
    workerMembership,
    metrics,
  ] = await freePorts(host, 9);
  const env = {
    ...process.env,
    TEMPORAL_SQL_HOST: sql.hostname.replace(/^\[|\]$/g, ''),
    TEMPORAL_SQL_PORT: sql.port || '5432',
    TEMPORAL_SQL_USER: decodeURIComponent(sql.username),
    TEMPORAL_SQL_PASSWORD: decodeURIComponent(sql.password),
    TEMPORAL_SQL_DATABASE: databasePrefix,
    TEMPORAL_SQL_VISIBILITY_DATABASE: `${databasePrefix}_visibility`,
    // The template's rule: TLS may be off only for a PostgreSQL on this host, over loopback.
    TEMPORAL_SQL_TLS: loopback ? (process.env.TEMPORAL_SQL_TLS ?? 'false') : 'true',
    TEMPORAL_SQL_TOOL: sqlTool,
    TEMPORAL_BROADCAST_ADDRESS: host,
    TEMPORAL_BIND_IP: host,
    TEMPORAL_LOG_LEVEL: process.env.TEMPORAL_LOG_LEVEL ?? 'warn',
    TEMPORAL_METRICS_ADDRESS: `${host}:${metrics}`,
    TEMPORAL_FRONTEND_GRPC_PORT: String(port),
    TEMPORAL_FRONTEND_HTTP_PORT: String(frontendHttp),
    TEMPORAL_FRONTEND_MEMBERSHIP_PORT: String(frontendMembership),
    TEMPORAL_HISTORY_GRPC_PORT: String(historyGrpc),
    TEMPORAL_HISTORY_MEMBERSHIP_PORT: String(historyMembership),
    TEMPORAL_MATCHING_GRPC_PORT: String(matchingGrpc),
    TEMPORAL_MATCHING_MEMBERSHIP_PORT: String(matchingMembership),
    TEMPORAL_WORKER_GRPC_PORT: String(workerGrpc),
    TEMPORAL_WORKER_MEMBERSHIP_PORT: String(workerMembership),
    TEMPORAL_DYNAMIC_CONFIG_FILE: path.join(CONFIG_ROOT, 'config', 'dynamicconfig', 'production.yaml'),
  };

  log(
    `setting up the Temporal schema in ${databasePrefix} and ${databasePrefix}_visibility (temporal-sql-tool)…`,
  );
  const schema = await run('bash', [SETUP_SCHEMA], env, logFile);
  if (schema.code !== 0) {
    throw new Error(`${SETUP_SCHEMA} failed (exit ${schema.code})\n--- ${logFile} ---\n${tail(logFile, 30)}`);
  }

  const args = [
    '--root',
    CONFIG_ROOT,
    '--config',
    'config',
    '--env',
    'production',
    '--allow-no-auth',
    'start',
  ];
  const child = await spawnServerGroup({ command: server, args, nice, env, logFile, graceMs: 15_000 });
  const { exited, spawnFailed, stop } = child;

  const address = `${host}:${port}`;
  try {
    await Promise.race([
      waitUntilHealthy({
        cliPath,
        address,
        timeoutMs: startTimeoutMs,
        isRunning: child.isRunning,
        what: 'temporal-server',
      }),
      spawnFailed,
    ]);
    // A fresh cluster answers SERVING before its namespace cache is warm: registration retries inside.
    await ensureNamespaceAndSearchAttributes({ cliPath, address, namespace, searchAttributes });
  } catch (error) {
    await stop();
    error.message += `\n--- last lines of ${logFile} ---\n${tail(logFile, 40)}`;
    throw error;
  }
  return { pid: child.pid, address, namespace, uiUrl: null, logFile, exited, stop };
}

function run(command, args, env, logFile) {
  return new Promise((resolve, reject) => {
    const logFd = openSync(logFile, 'a');
    try {
      const child = spawn(command, args, { env, stdio: ['ignore', logFd, logFd] });
      child.once('error', reject);
      child.once('exit', (code) => resolve({ code }));
    } finally {
      closeSync(logFd);
    }
  });
}

/**
 * `count` distinct ports free right now on `host`, below 32768: temporal-server records its membership port in a
 * smallint column (cluster_membership.rpc_port), so a kernel-chosen ephemeral port (32768+) stops it at start.
 */
async function freePorts(host, count) {
  const ports = [];
  while (ports.length < count) {
    // 10000-19999: below the ephemeral range, and apart from the 20000+ ports the e2e stacks pick for their nodes.
    const port = 10_000 + Math.floor(Math.random() * 10_000);
    if (ports.includes(port)) continue;
    const free = await new Promise((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
    });
    if (free) ports.push(port);
  }
  return ports;
}
