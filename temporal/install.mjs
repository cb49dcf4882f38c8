// Finds or installs the pinned Temporal CLI (which also runs the dev server).
//
//   node temporal/install.mjs          prints the path of a usable `temporal`
//   import { ensureTemporalCli } from './temporal/install.mjs'
//
// Order: $LUNANEXA_TEMPORAL_CLI, then <repo>/.tools/bin/temporal, then
// `temporal` on PATH, then `go install` of the pin in temporal/version.json
// into <repo>/.tools/bin. A binary counts as usable when it is the pinned
// version: `temporal --version` says so (release builds), or, for binaries
// built by `go install` (which report 0.0.0-DEV), the Go build info embedded
// in the executable names the pinned module version.
//
// Plain Node ESM with builtins only: it runs before any build step.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

// Still importable from here for callers that predate go-tools.mjs.
export { readGoMainModule };

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_REPO_ROOT = path.resolve(HERE, '..');

/** @returns {{ module: string, version: string }} the pin from temporal/version.json */
export function readTemporalPin() {
  const pin = JSON.parse(readFileSync(path.join(HERE, 'version.json'), 'utf8'));
  if (typeof pin.module !== 'string' || !/^v\d+\.\d+\.\d+/.test(pin.version ?? '')) {
    throw new Error(
      `temporal/version.json must hold { "module": "...", "version": "vX.Y.Z" }, got ${JSON.stringify(pin)}`,
    );
  }
  return pin;
}

/**
 * Returns the path of a `temporal` binary of the pinned version, installing it
 * with `go install` into <repoRoot>/.tools/bin when none is found.
 *
 * @param {{ repoRoot?: string, env?: NodeJS.ProcessEnv, log?: (line: string) => void }} [options]
 * @returns {Promise<string>}
 */
export async function ensureTemporalCli({
  repoRoot = DEFAULT_REPO_ROOT,
  env = process.env,
  log = (line) => console.error(line),
} = {}) {
  const pin = readTemporalPin();

  const override = env.LUNANEXA_TEMPORAL_CLI;
  if (override) {
    if (!isExecutable(override)) {
      throw new Error(`LUNANEXA_TEMPORAL_CLI=${override} is not an executable file`);
    }
    return override;
  }

  const toolsBin = path.join(repoRoot, '.tools', 'bin');
  const local = path.join(toolsBin, exeName('temporal'));
  if (await isPinnedCli(local, pin)) return local;

  const onPath = findOnPath(exeName('temporal'), env);
  if (onPath && (await isPinnedCli(onPath, pin))) return onPath;

  const go = findOnPath(exeName('go'), env) ?? firstExisting(['/usr/local/go/bin/go']);
  if (!go) {
    throw new Error(
      `Temporal CLI ${pin.version} not found (looked in ${toolsBin} and on PATH${onPath ? `; ${onPath} is another version` : ''}) ` +
        `and Go is not installed to build it. Either install Go (https://go.dev/dl/) and rerun \`node temporal/install.mjs\`, ` +
        `or put Temporal CLI ${pin.version} on PATH (https://github.com/temporalio/cli/releases/tag/${pin.version}), ` +
        `or set LUNANEXA_TEMPORAL_CLI to the path of a temporal binary.`,
    );
  }

  await withInstallLock(path.join(repoRoot, '.tools'), 'temporal', async () => {
    // Another process may have finished the install while we waited.
    if (await isPinnedCli(local, pin)) return;
    await installTemporalCli({ go, pin, gobin: toolsBin, cwd: repoRoot, env, log });
  });

  if (!(await isPinnedCli(local, pin))) {
    throw new Error(`go install finished but ${local} does not report Temporal CLI ${pin.version}`);
  }
  return local;
}

async function installTemporalCli({ go, pin, gobin, cwd, env, log }) {
  const target = `${pin.module}/cmd/temporal@${pin.version}`;
  log(
    `Installing Temporal CLI ${pin.version} with \`go install ${target}\` into ${gobin} (this takes a few minutes the first time)...`,
  );
  await goInstall({
    go,
    target,
    // Same -X the upstream release build uses, so `temporal --version` reports the pin.
    ldflags: `-s -w -X ${pin.module}/temporalcli.Version=${pin.version.replace(/^v/, '')}`,
    gobin,
    cwd,
    env,
    echoToStderr: true,
    remedy: `Fix the error below and rerun, put Temporal CLI ${pin.version} on PATH, or set LUNANEXA_TEMPORAL_CLI.`,
  });
}

/** True when `binary` exists and is the pinned Temporal CLI version. */
export async function isPinnedCli(binary, pin = readTemporalPin()) {
  if (!isExecutable(binary)) return false;
  const wanted = pin.version.replace(/^v/, '');
  const reported = reportedVersion(binary);
  if (reported === wanted) return true;
  if (reported !== '0.0.0-DEV') return false;
  // Built by `go install` without -X: trust the module version Go recorded.
  const mod = await readGoMainModule(binary).catch(() => null);
  return mod?.path === pin.module && mod.version === pin.version;
}

/** The version `temporal --version` prints ("temporal version 1.5.1 (Server ...)"), or null. */
function reportedVersion(binary) {
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) return null;
  return /temporal version v?(\S+)/.exec(result.stdout)?.[1] ?? null;
}

if (isMainModule(import.meta.url)) {
  ensureTemporalCli().then(
    (cli) => console.log(cli),
    (error) => {
      console.error(error.message);
      process.exitCode = 1;
    },
  );
}
