import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './stack-process';

/**
 * The release before this one (docs/UPGRADING.md): the upgrade test runs it
 * as version N and this tree as N+1. Bump all three at each release: the
 * commit the release was cut from, its version and its newest migration.
 */
export const PREVIOUS_RELEASE = {
  version: '0.1.0',
  commit: 'c902d97a1e7784c52eb45fc6f13fe5f5be17ba43',
  lastMigration: 'TrustedSigningKeys1768300000000',
} as const;

/** What the previous release's processes need built: api, worker, gateway, agent and the fake runtime. */
const PROJECTS = ['apps/api', 'apps/worker', 'apps/gateway', 'apps/agent', 'apps/fake-runtime'];

function run(command: string, args: string[], cwd: string, timeoutMs: number): void {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(' ')} failed (${String(result.status ?? result.signal)}):\n${result.stdout}${result.stderr}`,
    );
}

/**
 * The previous release's source at its commit (git archive), built with this
 * tree's dependencies: a node_modules of links to this tree's packages, except
 * the workspace packages, which point into the release's own source. Built once
 * per machine (the first run takes a TypeScript build, a few minutes on two
 * cores) and kept in the temporary directory under the commit's name.
 */
export function previousReleaseRoot(): string {
  const root = join(
    tmpdir(),
    `lunanexa-release-${PREVIOUS_RELEASE.version}-${PREVIOUS_RELEASE.commit.slice(0, 12)}`,
  );
  const modules = join(REPO_ROOT, 'node_modules');
  if (existsSync(join(root, '.built'))) {
    // Kept from a run of another checkout (a CI clone since deleted, say): its links may point at a node_modules
    // that is gone. The built output does not depend on where the links point, so only the links are made again.
    if (readlinkSync(join(root, 'node_modules', 'typescript')) !== join(modules, 'typescript'))
      linkDependencies(root, modules);
    return root;
  }
  const partial = `${root}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const archive = join(partial, '.source.tar');
  run('git', ['-C', REPO_ROOT, 'archive', '--output', archive, PREVIOUS_RELEASE.commit], REPO_ROOT, 120_000);
  run('tar', ['-xf', archive], partial, 120_000);
  rmSync(archive);
  linkDependencies(partial, modules);
  run(process.execPath, [join(modules, 'typescript', 'bin', 'tsc'), '-b', ...PROJECTS], partial, 15 * 60_000);
  writeFileSync(join(partial, '.built'), `${PREVIOUS_RELEASE.commit}\n`);
  if (existsSync(root)) rmSync(root, { recursive: true, force: true });
  renameSync(partial, root);
  return root;
}

/** `releaseRoot/node_modules`: links to this tree's packages, the workspace packages into the release's own source. */
function linkDependencies(releaseRoot: string, modules: string): void {
  rmSync(join(releaseRoot, 'node_modules'), { recursive: true, force: true });
  mkdirSync(join(releaseRoot, 'node_modules', '@lunanexa'), { recursive: true });
  for (const entry of readdirSync(modules)) {
    if (entry === '@lunanexa') continue;
    symlinkSync(join(modules, entry), join(releaseRoot, 'node_modules', entry));
  }
  // Relative links (../../libs/…) resolve inside the release's own tree.
  for (const entry of readdirSync(join(modules, '@lunanexa')))
    symlinkSync(
      readlinkSync(join(modules, '@lunanexa', entry)),
      join(releaseRoot, 'node_modules', '@lunanexa', entry),
    );
}
