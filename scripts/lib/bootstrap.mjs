// "Install whatever is missing": npm packages, the pinned Temporal CLI, the
// TypeScript build and the console build. Each step is a fast no-op when it
// is already done, so `npm start` and `npm test` can always run it.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function run(command, args, { quiet = false } = {}) {
  const result = spawnSync(command, args, {
    cwd: REPO_ROOT,
    stdio: quiet ? 'pipe' : 'inherit',
    env: process.env,
  });
  if (result.status !== 0) {
    if (quiet) process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
  }
}

/** `npm ci` when node_modules is missing or older than package-lock.json. */
export function ensureNodeModules(log) {
  const marker = path.join(REPO_ROOT, 'node_modules', '.package-lock.json');
  const lock = path.join(REPO_ROOT, 'package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  log('installing npm packages (npm ci)…');
  run('npm', ['ci', '--no-audit', '--no-fund']);
}

export async function ensureTemporal(log) {
  const { ensureTemporalCli } = await import('../../temporal/install.mjs');
  return ensureTemporalCli({ repoRoot: REPO_ROOT, log });
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
export function buildTypeScript(log) {
  log('building TypeScript (incremental)…');
  run(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsc'), ['-b', 'tsconfig.build.json']);
  mkdirSync(path.join(REPO_ROOT, 'dist'), { recursive: true });
  writeFileSync(
    path.join(REPO_ROOT, 'dist', 'build-info.json'),
    `${JSON.stringify({ commit: gitCommit() })}\n`,
  );
}

export function buildConsole() {
  run(process.execPath, [path.join(REPO_ROOT, 'scripts', 'build-console.mjs')]);
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
 * The browser the console e2e tests drive (playwright-core, Debian's chromium;
 * `npx playwright install` has no download to offer on this distribution).
 * Returns an error message instead of throwing so only the e2e tier fails.
 */
export function ensureChromium(log) {
  if (existsSync(CHROMIUM)) return null;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!isRoot || !hasApt) {
    return `${CHROMIUM} is missing and cannot be installed here (${
      isRoot ? 'no apt-get' : 'not running as root'
    }); ${CHROMIUM_HOWTO}`;
  }
  const install = ['install', '-y', '--no-install-recommends', 'chromium'];
  log(`installing chromium (apt-get ${install.join(' ')})…`);
  let result = aptGet(install);
  if (result.status !== 0) {
    // A fresh container has no package lists; refreshing them is slow, so only when needed.
    log('apt-get install failed; refreshing package lists (apt-get update) and retrying…');
    if (aptGet(['update']).status === 0) result = aptGet(install);
  }
  if (result.status !== 0 || !existsSync(CHROMIUM)) {
    return `apt-get could not install chromium (exit ${result.status ?? result.signal}); ${CHROMIUM_HOWTO}`;
  }
  log(`chromium installed at ${CHROMIUM}`);
  return null;
}

export async function bootstrap(log, { console: withConsole = true, artifactStores = false } = {}) {
  ensureNodeModules(log);
  const [temporalCli, stores] = await Promise.all([
    ensureTemporal(log),
    artifactStores ? ensureArtifactStores(log) : null,
  ]);
  buildTypeScript(log);
  if (withConsole) buildConsole();
  return { temporalCli, artifactStores: stores };
}
