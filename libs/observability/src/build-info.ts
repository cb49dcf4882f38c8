import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BuildInfo {
  readonly version: string;
  readonly commit: string;
}

/**
 * Version and commit of the running build. The start/test scripts write
 * `dist/build-info.json` at the repository root at build time; `LUNANEXA_COMMIT`
 * overrides the commit (deployments stamp it), and an unknown commit reads
 * `unknown` rather than failing a process that is otherwise fine.
 */
export function readBuildInfo(repoRoot: string = findRepoRoot()): BuildInfo {
  let version = '0.0.0';
  let commit = 'unknown';
  try {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version?: string };
    version = pkg.version ?? version;
  } catch {
    // A deployment without package.json still reports its commit.
  }
  try {
    const stamped = JSON.parse(
      readFileSync(join(repoRoot, 'dist', 'build-info.json'), 'utf8'),
    ) as Partial<BuildInfo>;
    commit = stamped.commit ?? commit;
  } catch {
    // Not stamped: development build.
  }
  return { version, commit: process.env['LUNANEXA_COMMIT'] ?? commit };
}

/** This file is compiled to libs/observability/dist/src; the repository root is four levels up. */
export function findRepoRoot(): string {
  return join(__dirname, '..', '..', '..', '..');
}
