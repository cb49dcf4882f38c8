// Finds or installs the pinned Temporal server and its schema tool, the two
// binaries of a production install (infra/temporal/README.md): temporal-server
// runs the cluster on PostgreSQL, temporal-sql-tool creates and upgrades its
// schema. Built from the same Go module the pinned CLI's dev server embeds, so
// the process-loss test exercises the production path with the server we ship.
//
//   node temporal/install-server.mjs     prints the two paths, one per line
//   import { ensureTemporalServer } from './temporal/install-server.mjs'
//
// Order per binary: $LUNANEXA_TEMPORAL_SERVER / $LUNANEXA_TEMPORAL_SQL_TOOL, then
// <repo>/.tools/bin, then PATH, then `go install` of the pin in
// temporal/server-version.json. A binary counts when Go's build info names the
// pinned module and version (release archives are accepted by `--version`).
//
// Plain Node ESM with builtins only: it runs before any build step.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  exeName,
  findOnPath,
  firstExisting,
  goInstall,
  isExecutable,
  readGoMainModule,
  withInstallLock,
} from '../scripts/lib/go-tools.mjs';
import { isMainModule } from '../scripts/lib/main-module.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_REPO_ROOT = path.resolve(HERE, '..');

/** The two binaries: the name a production install uses and the Go package that builds it. */
const BINARIES = [
  { name: 'temporal-server', pkg: 'cmd/server', envVar: 'LUNANEXA_TEMPORAL_SERVER' },
  { name: 'temporal-sql-tool', pkg: 'cmd/tools/sql', envVar: 'LUNANEXA_TEMPORAL_SQL_TOOL' },
];

/** @returns {{ module: string, version: string }} */
export function readTemporalServerPin() {
  const pin = JSON.parse(readFileSync(path.join(HERE, 'server-version.json'), 'utf8'));
  if (typeof pin.module !== 'string' || !/^v\d+\.\d+\.\d+/.test(pin.version ?? '')) {
    throw new Error(
      `temporal/server-version.json must hold { "module": "...", "version": "vX.Y.Z" }, got ${JSON.stringify(pin)}`,
    );
  }
  return pin;
}

/**
 * Paths of temporal-server and temporal-sql-tool of the pinned version,
 * installing them with `go install` into <repoRoot>/.tools/bin when missing.
 *
 * @param {{ repoRoot?: string, env?: NodeJS.ProcessEnv, log?: (line: string) => void }} [options]
 * @returns {Promise<{ server: string, sqlTool: string }>}
 */
export async function ensureTemporalServer({
  repoRoot = DEFAULT_REPO_ROOT,
  env = process.env,
  log = (line) => console.error(line),
} = {}) {
  const pin = readTemporalServerPin();
  const toolsDir = path.join(repoRoot, '.tools');
  const toolsBin = path.join(toolsDir, 'bin');
  const found = {};
  for (const binary of BINARIES) {
    const override = env[binary.envVar];
    if (override) {
      if (!isExecutable(override)) throw new Error(`${binary.envVar}=${override} is not an executable file`);
      found[binary.name] = override;
      continue;
    }
    const local = path.join(toolsBin, exeName(binary.name));
    if (await isPinned(local, pin)) {
      found[binary.name] = local;
      continue;
    }
    const onPath = findOnPath(exeName(binary.name), env);
    if (onPath && (await isPinned(onPath, pin))) {
      found[binary.name] = onPath;
      continue;
    }
    const go = findOnPath(exeName('go'), env) ?? firstExisting(['/usr/local/go/bin/go']);
    if (!go) {
      throw new Error(
        `${binary.name} ${pin.version} not found (looked in ${toolsBin} and on PATH) and Go is not installed to build it. ` +
          `Install Go and rerun \`node temporal/install-server.mjs\`, put ${binary.name} from the Temporal server ` +
          `${pin.version} release archive on PATH, or set ${binary.envVar}.`,
      );
    }
    await withInstallLock(toolsDir, binary.name, async () => {
      if (await isPinned(local, pin)) return;
      // `go install` names the binary after its package (server, sql): build into a
      // private directory and rename, so a half-written file never has the real name.
      const staging = mkdtempSync(path.join(toolsDir, `${binary.name}-build-`));
      try {
        log(`Installing ${binary.name} ${pin.version} with \`go install ${pin.module}/${binary.pkg}\`...`);
        await goInstall({
          go,
          target: `${pin.module}/${binary.pkg}@${pin.version}`,
          ldflags: '-s -w',
          gobin: staging,
          cwd: repoRoot,
          env,
          remedy: `Fix the error below and rerun, or set ${binary.envVar} to a ${binary.name} of ${pin.version}.`,
        });
        renameSync(path.join(staging, exeName(path.basename(binary.pkg))), local);
      } finally {
        rmSync(staging, { recursive: true, force: true });
      }
    });
    if (!(await isPinned(local, pin))) {
      throw new Error(`go install finished but ${local} is not ${pin.module} ${pin.version}`);
    }
    found[binary.name] = local;
  }
  return { server: found['temporal-server'], sqlTool: found['temporal-sql-tool'] };
}

/** True when `binary` is of the pinned server version (Go build info, or a release's `--version`). */
async function isPinned(binary, pin) {
  if (!isExecutable(binary)) return false;
  const mod = await readGoMainModule(binary).catch(() => null);
  if (mod?.path === pin.module) return mod.version === pin.version;
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const wanted = pin.version.replace(/^v/, '');
  return result.status === 0 && new RegExp(`version ${wanted.replace(/\./g, '\\.')}\\b`).test(result.stdout);
}

if (isMainModule(import.meta.url)) {
  ensureTemporalServer().then(
    ({ server, sqlTool }) => console.log(`${server}\n${sqlTool}`),
    (error) => {
      console.error(error.message);
      process.exitCode = 1;
    },
  );
}
