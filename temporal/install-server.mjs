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
// <repo>/.tools/bin, then PATH (a release archive's binaries carry the same Go
// build info), then `go install` of the pin in temporal/server-version.json.
//
// Plain Node ESM with builtins only: it runs before any build step.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePinnedGoBinary, readGoBinaryPins } from '../scripts/lib/go-tools.mjs';
import { isMainModule } from '../scripts/lib/main-module.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DEFAULT_REPO_ROOT = path.resolve(HERE, '..');

export function readTemporalServerPins() {
  return readGoBinaryPins(path.join(HERE, 'server-version.json'), ['server', 'sqlTool']);
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
  const pins = readTemporalServerPins();
  const ensure = (pin) =>
    ensurePinnedGoBinary({
      pin,
      repoRoot,
      env,
      log,
      installer: 'node temporal/install-server.mjs',
      searchPath: true,
    });
  // One after the other: both link the same server packages, and the second reuses the first's build cache.
  const server = await ensure(pins.server);
  const sqlTool = await ensure(pins.sqlTool);
  return { server, sqlTool };
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
