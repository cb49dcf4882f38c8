// "Install whatever is missing": npm packages, the pinned Temporal CLI, the
// TypeScript build and the console build. Each step is a fast no-op when it
// is already done, so `npm start` and `npm test` can always run it. Steps that
// do not need each other run at once: the Temporal CLI's `go install` beside
// `npm ci` and the builds, the console build (which compiles the contracts
// from source) beside tsc.

import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Runs a command to completion without blocking the event loop, so another step's child runs meanwhile. Output is
 * collected and shown only on failure: two steps' output interleaved on one terminal reads badly.
 */
function runAsync(command, args, description) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: REPO_ROOT,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) return resolve(Buffer.concat(output).toString('utf8'));
      process.stderr.write(Buffer.concat(output));
      reject(new Error(`${description ?? `${command} ${args.join(' ')}`} failed (exit ${code ?? signal})`));
    });
  });
}

/** `npm ci` when node_modules is missing or older than package-lock.json. */
export async function ensureNodeModules(log) {
  const marker = path.join(REPO_ROOT, 'node_modules', '.package-lock.json');
  const lock = path.join(REPO_ROOT, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  log('installing npm packages (npm ci)…');
  const started = Date.now();
  await runAsync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
  log(`npm packages installed in ${seconds(started)} s`);
}

const seconds = (since) => ((Date.now() - since) / 1000).toFixed(1);

export async function ensureTemporal(log) {
  const { ensureTemporalCli } = await import('../../temporal/install.mjs');
  return ensureTemporalCli({ repoRoot: REPO_ROOT, log });
}

/** temporal-server and temporal-sql-tool (LUNANEXA_TEMPORAL_MODE=server, and the process-loss e2e test). */
export async function ensureTemporalServerBinaries(log) {
  const { ensureTemporalServer } = await import('../../temporal/install-server.mjs');
  return ensureTemporalServer({ repoRoot: REPO_ROOT, log });
}

/** The pinned S3-compatible server and OCI registry the integration and e2e tests run (infra/artifact-stores). */
export async function ensureArtifactStores(log) {
  const { ensureArtifactStoreServers } = await import('../../infra/artifact-stores/install.mjs');
  return ensureArtifactStoreServers({ repoRoot: REPO_ROOT, log });
}

function gitCommit() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
    return dirty ? `${commit}-dirty` : commit;
  } catch {
    return 'unknown';
  }
}

/** Incremental TypeScript build of every package, and the build stamp the services report. */
export async function buildTypeScript(log) {
  log('building TypeScript (incremental)…');
  const started = Date.now();
  await runAsync(
    path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc'),
    ['-b', 'tsconfig.build.json'],
    'tsc -b tsconfig.build.json',
  );
  log(`TypeScript built in ${seconds(started)} s`);
  mkdirSync(path.join(REPO_ROOT, 'dist'), { recursive: true });
  writeFileSync(
    path.join(REPO_ROOT, 'dist', 'build-info.json'),
    `${JSON.stringify({ commit: gitCommit() })}\n`,
  );
}

export async function buildConsole(log) {
  const output = await runAsync(
    process.execPath,
    [path.join(REPO_ROOT, 'scripts', 'build-console.mjs')],
    'console build',
  );
  for (const line of output.trimEnd().split('\n')) if (line) log(line);
}

export const CHROMIUM = '/usr/bin/chromium';

const CHROMIUM_HOWTO = `install it with: sudo apt-get install -y --no-install-recommends chromium`;

function aptGet(args) {
  return spawnSync('apt-get', args, {
    cwd: REPO_ROOT,
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

/**
 * `apt-get install` of one Debian package when this runs as root with apt-get; the package lists are refreshed
 * (slow, so only when needed: a fresh container has none) and the install retried once. Returns an error message
 * naming `howTo`, or null once `installed()` holds.
 */
function aptInstall(pkg, what, installed, howTo, log) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !hasApt) {
    return `${what} is missing and cannot be installed here (${isRoot ? 'no apt-get' : 'not running as root'}); ${howTo}`;
  }
  const install = ['install', '-y', '--no-install-recommends', pkg];
  log(`installing ${what} (apt-get ${install.join(' ')})…`);
  let result = aptGet(install);
  if (result.status !== 0) {
    log('apt-get install failed; refreshing package lists (apt-get update) and retrying…');
    if (aptGet(['update']).status === 0) result = aptGet(install);
  }
  if (result.status !== 0 || !installed()) {
    return `apt-get could not install ${what} (exit ${result.status ?? result.signal}); ${howTo}`;
  }
  log(`${what} installed`);
  return null;
}

/**
 * The browser the console e2e tests drive (playwright-core, Debian's chromium;
 * `npx playwright install` has no download to offer on this distribution).
 * Returns an error message instead of throwing so only the e2e tier fails.
 */
export function ensureChromium(log) {
  if (existsSync(CHROMIUM)) return null;
  return aptInstall('chromium', CHROMIUM, () => existsSync(CHROMIUM), CHROMIUM_HOWTO, log);
}

const promtoolRuns = () => spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * Prometheus' `promtool`, which the unit tier runs on infra/prometheus (test/promtool.spec.ts): Debian's
 * `prometheus` package, installed with apt-get when it is missing and this runs as root. Returns an error message
 * instead of throwing: the spec then fails naming what is missing.
 */
export function ensurePromtool(log) {
  if (process.env.LUNANEXA_PROMTOOL || promtoolRuns()) return null;
  const howTo = 'install it with: sudo apt-get install -y --no-install-recommends prometheus';
  return aptInstall('prometheus', 'promtool', promtoolRuns, howTo, log);
}

export async function bootstrap(
  log,
  { console: withConsole = true, artifactStores = false, temporalServer = false } = {},
) {
  // The Go tools need nothing from node_modules; the builds need node_modules and nothing from each other.
  const goTools = Promise.all([
    ensureTemporal(log),
    artifactStores ? ensureArtifactStores(log) : null,
    temporalServer ? ensureTemporalServerBinaries(log) : null,
  ]);
  // A failing Go build is reported once awaited below, after the node side settles; never as an unhandled rejection.
  goTools.catch(() => undefined);
  const builds = ensureNodeModules(log).then(() =>
    Promise.all([buildTypeScript(log), withConsole ? buildConsole(log) : null]),
  );
  const [[temporalCli, stores]] = await Promise.all([goTools, builds]);
  return { temporalCli, artifactStores: stores };
}
