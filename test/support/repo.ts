import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

/** The repository root: the nearest folder above `start` whose package.json declares workspaces. */
export function findRepoRoot(start: string = __dirname): string {
  for (let dir = path.resolve(start); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { workspaces?: unknown };
      if (parsed.workspaces !== undefined) return dir;
    }
    if (path.dirname(dir) === dir) throw new Error(`no workspace root above ${start}`);
  }
}

/**
 * Files git tracks plus untracked files .gitignore does not exclude: what a
 * commit could contain. Repo-relative, `/`-separated.
 */
export function gitListFiles(repoRoot: string): string[] {
  const output = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  return [...new Set(output.split('\0').filter((file) => file !== ''))].sort();
}
