// Finds or installs the pinned artifact store servers the integration and
// e2e tests run as real processes: an S3-compatible server (Versity S3
// Gateway, which checks SigV4 signatures, so the signer is tested against a
// real verifier) and the reference OCI distribution registry.
//
//   node infra/artifact-stores/install.mjs     prints both paths, one per line
//   import { ensureArtifactStoreServers } from './infra/artifact-stores/install.mjs'
//
// Order for each: its environment variable (LUNANEXA_S3_SERVER_BIN,
// LUNANEXA_OCI_REGISTRY_BIN), then <repo>/.tools/bin/<binary> when the Go
// build info embedded in it names the pinned module version, then
// `go install <package>@<version>` of the pin in versions.json into
// <repo>/.tools/bin. Both builds run at once (they are mostly waiting on
// downloads and the linker).
//
// Plain Node ESM with builtins only: it runs before any build step.

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
} from '../../scripts/lib/go-tools.mjs';
import { isMainModule } from '../../scripts/lib/main-module.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_REPO_ROOT = path.resolve(HERE, '..', '..');

/**
 * @typedef {{ module: string, package: string, version: string, binary: string, env: string }} ServerPin
 * @returns {{ s3Server: ServerPin, ociRegistry: ServerPin }}
 */
export function readArtifactStorePins() {
  const pins = JSON.parse(readFileSync(path.join(HERE, 'versions.json'), 'utf8'));
  for (const key of ['s3Server', 'ociRegistry']) {
    const pin = pins[key];
    if (
      typeof pin?.module !== 'string' ||
      typeof pin.package !== 'string' ||
      !pin.package.startsWith(pin.module) ||
      !/^v\d+\.\d+\.\d+/.test(pin.version ?? '') ||
      !/^[a-z0-9-]+$/.test(pin.binary ?? '') ||
      !/^LUNANEXA_[A-Z0-9_]+$/.test(pin.env ?? '')
    ) {
      throw new Error(
        `infra/artifact-stores/versions.json: ${key} must hold { module, package, version: "vX.Y.Z", binary, env }, got ${JSON.stringify(pin)}`,
      );
    }
  }
  return pins;
}

/**
 * Returns the paths of the pinned S3-compatible server and OCI registry,
 * installing whichever is missing with `go install` into <repoRoot>/.tools/bin.
 *
 * @param {{ repoRoot?: string, env?: NodeJS.ProcessEnv, log?: (line: string) => void }} [options]
 * @returns {Promise<{ s3ServerBin: string, ociRegistryBin: string }>}
 */
export async function ensureArtifactStoreServers({
  repoRoot = DEFAULT_REPO_ROOT,
  env = process.env,
  log = (line) => console.error(line),
} = {}) {
  const pins = readArtifactStorePins();
  const toolsBin = path.join(repoRoot, '.tools', 'bin');
  const [s3ServerBin, ociRegistryBin] = await Promise.all(
    [pins.s3Server, pins.ociRegistry].map((pin) => ensureServer({ pin, toolsBin, repoRoot, env, log })),
  );
  return { s3ServerBin, ociRegistryBin };
}

async function ensureServer({ pin, toolsBin, repoRoot, env, log }) {
  const override = env[pin.env];
  if (override) {
    if (!isExecutable(override)) throw new Error(`${pin.env}=${override} is not an executable file`);
    return override;
  }
  const local = path.join(toolsBin, exeName(pin.binary));
  if (await isPinned(local, pin)) return local;

  const go = findOnPath(exeName('go'), env) ?? firstExisting(['/usr/local/go/bin/go']);
  if (!go) {
    throw new Error(
      `${pin.binary} ${pin.version} not found in ${toolsBin} and Go is not installed to build it. ` +
        `Install Go (https://go.dev/dl/) and rerun \`node infra/artifact-stores/install.mjs\`, ` +
        `or set ${pin.env} to the path of a ${pin.binary} binary.`,
    );
  }
  await withInstallLock(path.join(repoRoot, '.tools'), pin.binary, async () => {
    if (await isPinned(local, pin)) return;
    await installServer({ go, pin, gobin: toolsBin, cwd: repoRoot, env, log });
  });
  if (!(await isPinned(local, pin))) {
    throw new Error(`go install finished but ${local} is not ${pin.module} ${pin.version}`);
  }
  return local;
}

/** True when `binary` exists and its embedded Go build info names the pinned module version. */
export async function isPinned(binary, pin) {
  if (!isExecutable(binary)) return false;
  const mod = await readGoMainModule(binary).catch(() => null);
  return mod?.path === pin.module && mod.version === pin.version;
}

async function installServer({ go, pin, gobin, cwd, env, log }) {
  const target = `${pin.package}@${pin.version}`;
  log(
    `Installing ${pin.binary} with \`go install ${target}\` into ${gobin} (a few minutes the first time)...`,
  );
  const started = Date.now();
  await goInstall({
    go,
    target,
    // -s -w: no symbol tables; the build info the pin check reads stays.
    ldflags: '-s -w',
    gobin,
    cwd,
    env,
    remedy: `Fix the error below and rerun, or set ${pin.env}.`,
  });
  log(`${pin.binary} ${pin.version} installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

if (isMainModule(import.meta.url)) {
  ensureArtifactStoreServers().then(
    ({ s3ServerBin, ociRegistryBin }) => console.log(`${s3ServerBin}\n${ociRegistryBin}`),
    (error) => {
      console.error(error.message);
      process.exitCode = 1;
    },
  );
}
