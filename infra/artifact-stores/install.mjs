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

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePinnedGoBinary, readGoBinaryPins } from '../../scripts/lib/go-tools.mjs';
import { isMainModule } from '../../scripts/lib/main-module.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_REPO_ROOT = path.resolve(HERE, '..', '..');

/** @returns {{ s3Server: import('../../scripts/lib/go-tools.mjs').GoBinaryPin, ociRegistry: import('../../scripts/lib/go-tools.mjs').GoBinaryPin }} */
export function readArtifactStorePins() {
  return readGoBinaryPins(path.join(HERE, 'versions.json'), ['s3Server', 'ociRegistry']);
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
  const [s3ServerBin, ociRegistryBin] = await Promise.all(
    [pins.s3Server, pins.ociRegistry].map((pin) =>
      ensurePinnedGoBinary({ pin, repoRoot, env, log, installer: 'node infra/artifact-stores/install.mjs' }),
    ),
  );
  return { s3ServerBin, ociRegistryBin };
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
