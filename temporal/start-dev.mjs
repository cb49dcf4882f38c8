// Runs the Temporal dev server for one machine and registers what LunaNexa
// needs in it (namespace + custom search attributes).
//
//   node temporal/start-dev.mjs [--data-dir .data] [--host 127.0.0.1] [--port 7233] [--ui-port 8233] [--namespace lunanexa]
//   import { startTemporalDevServer, ensureNamespaceAndSearchAttributes } from './temporal/start-dev.mjs'
//
// State lives in <dataDir>/temporal/temporal.db (SQLite), so workflows,
// namespaces and search attributes survive restarts. The server runs in its own
// process group; stop() ends the whole group.
//
// The namespace default and the search attribute names are read from
// libs/contracts/src/temporal.ts, the one place they are defined.
//
// Plain Node ESM with builtins only: it runs before any build step.

import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_REPO_ROOT, ensureTemporalCli } from './install.mjs';
import { isMainModule } from '../scripts/lib/main-module.mjs';

const CONTRACTS_FILE = path.join(DEFAULT_REPO_ROOT, 'libs', 'contracts', 'src', 'temporal.ts');

/**
 * Reads DEFAULT_TEMPORAL_NAMESPACE and SEARCH_ATTRIBUTES from the contracts
 * source. All LunaNexa search attributes are Keyword (see that file).
 *
 * @returns {{ namespace: string, searchAttributes: Record<string, 'Keyword'> }}
 */
export function readTemporalContract(file = CONTRACTS_FILE) {
  const source = readFileSync(file, 'utf8');
  const namespace = /export const DEFAULT_TEMPORAL_NAMESPACE\s*=\s*['"]([^'"]+)['"]/.exec(source)?.[1];
  const block = /export const SEARCH_ATTRIBUTES\s*=\s*\{([\s\S]*?)\}\s*as const/.exec(source)?.[1];
  const names = block ? [...block.matchAll(/:\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]/g)].map((m) => m[1]) : [];
  if (!namespace || names.length === 0) {
    throw new Error(`could not read DEFAULT_TEMPORAL_NAMESPACE and SEARCH_ATTRIBUTES from ${file}`);
  }
  return { namespace, searchAttributes: Object.fromEntries(names.map((name) => [name, 'Keyword'])) };
}

/**
 * Starts `temporal server start-dev` and resolves once it is healthy and the
 * namespace and search attributes exist.
 *
 * @param {{
 *   cliPath?: string, dataDir?: string, host?: string, port?: number, uiPort?: number,
 *   namespace?: string, logFile?: string, searchAttributes?: Record<string, string>, startTimeoutMs?: number,
 *   nice?: number,
 * }} [options]
 * @returns {Promise<{ pid: number, address: string, uiUrl: string, namespace: string, dbFile: string, logFile: string,
 *   exited: Promise<{ code: number | null, signal: string | null }>, stop(): Promise<void> }>}
 */
export async function startTemporalDevServer({
  cliPath,
  dataDir = path.join(DEFAULT_REPO_ROOT, '.data'),
  host = '127.0.0.1',
  port = 7233,
  uiPort = 8233,
  namespace,
  logFile,
  searchAttributes,
  startTimeoutMs = 60_000,
  nice = 0,
} = {}) {
  const contract = namespace && searchAttributes ? null : readTemporalContract();
  namespace ??= contract.namespace;
  searchAttributes ??= contract.searchAttributes;
  cliPath ??= await ensureTemporalCli();

  const stateDir = path.join(path.resolve(dataDir), 'temporal');
  mkdirSync(stateDir, { recursive: true });
  const dbFile = path.join(stateDir, 'temporal.db');
  const pidFile = path.join(stateDir, 'server.pid');
  logFile = path.resolve(logFile ?? path.join(stateDir, 'temporal.log'));
  mkdirSync(path.dirname(logFile), { recursive: true });

  refuseIfAlreadyRunning(pidFile, dbFile);
  await assertPortFree(host, port, 'gRPC');
  await assertPortFree(host, uiPort, 'web UI');

  const args = [
    'server',
    'start-dev',
    '--db-filename',
    dbFile,
    '--ip',
    host,
    '--port',
    String(port),
    '--ui-port',
    String(uiPort),
  ];
  args.push('--log-level', 'warn', '--namespace', namespace);
  for (const [name, type] of Object.entries(searchAttributes))
    args.push('--search-attribute', `${name}=${type}`);

  const server = await spawnServerGroup({
    command: cliPath,
    args,
    nice,
    logFile,
    graceMs: 10_000,
    afterStop: () => rmSync(pidFile, { force: true }),
  });
  writeFileSync(pidFile, `${server.pid}\n`);
  const { exited, spawnFailed, stop } = server;

  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const uiHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const uiUrl = `http://${uiHost.includes(':') ? `[${uiHost}]` : uiHost}:${uiPort}`;

  try {
    await Promise.race([
      waitUntilHealthy({ cliPath, address, timeoutMs: startTimeoutMs, isRunning: server.isRunning }),
      spawnFailed,
    ]);
    await ensureNamespaceAndSearchAttributes({ cliPath, address, namespace, searchAttributes });
  } catch (error) {
    await stop();
    error.message += `\n--- last lines of ${logFile} ---\n${tail(logFile, 40)}`;
    throw error;
  }

  return { pid: server.pid, address, uiUrl, namespace, dbFile, logFile, exited, stop };
}

/**
 * Starts a Temporal server process (dev server or temporal-server) as the leader of its own process group, output
 * appended to `logFile`. The parent keeps no reference to it but never leaves it behind when it exits without
 * calling stop(); stop() sends SIGTERM to the group, SIGKILL after `graceMs`, and waits until the group is empty.
 * Rejects when the command cannot be started at all (e.g. ENOENT).
 *
 * @param {{ command: string, args: string[], nice?: number, env?: NodeJS.ProcessEnv, logFile: string,
 *   graceMs: number, afterStop?: () => void }} options
 */
export async function spawnServerGroup({
  command,
  args,
  nice = 0,
  env = process.env,
  logFile,
  graceMs,
  afterStop,
}) {
  const logFd = openSync(logFile, 'a');
  let child;
  // `nice` execs the server, so the pid (and the process group stop() signals) stays the server's; every thread it
  // starts inherits the lower priority (docs/OPERATIONS.md, "CPU priority").
  const [file, argv] = nice > 0 ? ['nice', ['-n', String(nice), command, ...args]] : [command, args];
  try {
    writeFileSync(logFd, `\n--- ${new Date().toISOString()} ${file} ${argv.join(' ')}\n`);
    child = spawn(file, argv, { detached: true, env, stdio: ['ignore', logFd, logFd] });
  } finally {
    closeSync(logFd);
  }
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const spawnFailed = new Promise((_, reject) => child.once('error', reject));
  spawnFailed.catch(() => {});
  if (child.pid === undefined) await spawnFailed;
  let running = true;
  void exited.then(() => {
    running = false;
  });
  child.unref();
  const killOnExit = () => killGroup(child.pid, 'SIGTERM');
  process.once('exit', killOnExit);

  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      process.removeListener('exit', killOnExit);
      if (running) {
        killGroup(child.pid, 'SIGTERM');
        const done = await Promise.race([exited.then(() => true), delay(graceMs).then(() => false)]);
        if (!done) {
          killGroup(child.pid, 'SIGKILL');
          await exited;
        }
      }
      // The server leads its group; wait for anything else it started to go too.
      for (let i = 0; i < 50 && groupAlive(child.pid); i++) await delay(100);
      if (groupAlive(child.pid)) killGroup(child.pid, 'SIGKILL');
      afterStop?.();
    })());
  return { pid: child.pid, exited, spawnFailed, isRunning: () => running, stop };
}

/**
 * Makes sure `namespace` exists and carries every search attribute (creating
 * only what is missing). Works against the dev server and a production
 * cluster alike; `extraArgs` carries connection flags such as
 * `['--tls', '--tls-ca-path', ca]` (the CLI's TEMPORAL_* environment variables
 * work too).
 *
 * @param {{ cliPath: string, address: string, namespace?: string, searchAttributes?: Record<string, string>,
 *   retention?: string, extraArgs?: string[], timeoutMs?: number }} options
 * @returns {Promise<{ namespaceCreated: boolean, createdSearchAttributes: string[] }>}
 */
export async function ensureNamespaceAndSearchAttributes({
  cliPath,
  address,
  namespace,
  searchAttributes,
  retention,
  extraArgs = [],
  timeoutMs = 60_000,
}) {
  const contract = namespace && searchAttributes ? null : readTemporalContract();
  namespace ??= contract.namespace;
  searchAttributes ??= contract.searchAttributes;
  const cli = (...args) =>
    runCli(cliPath, [...args, '--address', address, '--namespace', namespace, ...extraArgs]);

  let namespaceCreated = false;
  const described = await cli('operator', 'namespace', 'describe');
  if (!described.ok) {
    if (!/not found/i.test(described.output)) {
      throw new Error(`temporal operator namespace describe ${namespace} failed: ${described.output}`);
    }
    const created = await cli(
      'operator',
      'namespace',
      'create',
      ...(retention ? ['--retention', retention] : []),
    );
    if (!created.ok && !/already (exists|registered)/i.test(created.output)) {
      throw new Error(`temporal operator namespace create ${namespace} failed: ${created.output}`);
    }
    namespaceCreated = created.ok;
  }

  // A cluster learns about a new namespace on its next registry refresh, so
  // the first calls after create may still say "not found": retry those.
  const deadline = Date.now() + timeoutMs;
  const retryWhileNamespaceUnknown = async (fn) => {
    for (;;) {
      const result = await fn();
      if (result.ok || !/not found/i.test(result.output) || Date.now() > deadline) return result;
      await delay(1000);
    }
  };

  const listAttributes = async () => {
    const listed = await retryWhileNamespaceUnknown(() =>
      cli('operator', 'search-attribute', 'list', '--output', 'json'),
    );
    if (!listed.ok) throw new Error(`temporal operator search-attribute list failed: ${listed.output}`);
    return JSON.parse(listed.stdout).customAttributes ?? {};
  };

  const existing = await listAttributes();
  const missing = Object.keys(searchAttributes).filter((name) => !(name in existing));
  if (missing.length > 0) {
    // The CLI pairs the i-th --name with the i-th --type, so repeat --type per name.
    const pairs = missing.flatMap((name) => ['--name', name, '--type', searchAttributes[name]]);
    const created = await retryWhileNamespaceUnknown(() =>
      cli('operator', 'search-attribute', 'create', ...pairs),
    );
    if (!created.ok && !/already exists/i.test(created.output)) {
      throw new Error(
        `temporal operator search-attribute create ${missing.join(', ')} failed: ${created.output}`,
      );
    }
  }

  const now = await listAttributes();
  for (const [name, type] of Object.entries(searchAttributes)) {
    const actual = now[name];
    if (!actual) throw new Error(`search attribute ${name} is still missing in namespace ${namespace}`);
    if (indexedValueType(type) !== actual) {
      throw new Error(
        `search attribute ${name} in namespace ${namespace} has type ${actual}, expected ${indexedValueType(type)}`,
      );
    }
  }
  return { namespaceCreated, createdSearchAttributes: missing };
}

/** "Keyword" → "INDEXED_VALUE_TYPE_KEYWORD", "KeywordList" → "INDEXED_VALUE_TYPE_KEYWORD_LIST" (the CLI's JSON form). */
function indexedValueType(type) {
  return `INDEXED_VALUE_TYPE_${type.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
}

/** Resolves once `temporal operator cluster health` answers SERVING at `address`. */
export async function waitUntilHealthy({
  cliPath,
  address,
  timeoutMs,
  isRunning,
  what = 'the Temporal dev server',
}) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    if (!isRunning()) throw new Error(`${what} exited during startup`);
    const health = await runCli(cliPath, ['operator', 'cluster', 'health', '--address', address], 5_000);
    if (health.ok && /SERVING/.test(health.stdout)) return;
    last = health.output;
    await delay(250);
  }
  throw new Error(
    `${what} at ${address} was not healthy after ${timeoutMs / 1000}s (last check: ${last.trim()})`,
  );
}

/** @returns {Promise<{ ok: boolean, stdout: string, output: string }>} */
function runCli(cliPath, args, timeout = 30_000) {
  return new Promise((resolve) => {
    execFile(
      cliPath,
      [...args, '--color', 'never'],
      { timeout, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ ok: !error, stdout, output: `${stderr}${stdout}`.trim() || String(error?.message ?? '') });
      },
    );
  });
}

/** A server left running by a killed parent still holds our SQLite file: say so instead of starting a second one. */
function refuseIfAlreadyRunning(pidFile, dbFile) {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  let cmdline = '';
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    // not running (or no /proc): the pid file is stale
  }
  if (pid && cmdline.includes(dbFile)) {
    throw new Error(
      `a Temporal dev server (pid ${pid}) is already running on ${dbFile}; stop it with \`kill -TERM -${pid}\` or use another --data-dir`,
    );
  }
  rmSync(pidFile, { force: true });
}

export function assertPortFree(host, port, what) {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (error) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `${host}:${port} (Temporal ${what} port) is already in use; is another Temporal server running? Choose another port.`,
            )
          : error,
      ),
    );
    server.listen({ host, port, exclusive: true }, () => server.close(resolve));
  });
}

export function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

export function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

export function tail(file, lines) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function delay(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main() {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string', default: path.join(DEFAULT_REPO_ROOT, '.data') },
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '7233' },
      'ui-port': { type: 'string', default: '8233' },
      namespace: { type: 'string' },
    },
  });
  const server = await startTemporalDevServer({
    dataDir: values['data-dir'],
    host: values.host,
    port: Number(values.port),
    uiPort: Number(values['ui-port']),
    namespace: values.namespace,
  });
  console.log(`Temporal dev server ready (pid ${server.pid})`);
  console.log(`  address:   ${server.address}  namespace: ${server.namespace}`);
  console.log(`  web UI:    ${server.uiUrl}`);
  console.log(`  database:  ${server.dbFile}`);
  console.log(`  log:       ${server.logFile}`);
  console.log('Press Ctrl-C to stop.');
  const keepAlive = setInterval(() => {}, 60_000); // the server child is unref'd

  let shuttingDown = false;
  const shutdown = async (signal) => {
    shuttingDown = true;
    console.log(`${signal}: stopping the Temporal dev server...`);
    await server.stop();
    console.log('Temporal dev server stopped.');
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  const { code, signal } = await server.exited;
  if (shuttingDown) return; // shutdown() exits the process
  clearInterval(keepAlive);
  console.error(
    `The Temporal dev server exited unexpectedly (code ${code}, signal ${signal}); see ${server.logFile}:`,
  );
  console.error(tail(server.logFile, 20));
  await server.stop();
  process.exit(1);
}

if (isMainModule(import.meta.url)) {
  main().catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
