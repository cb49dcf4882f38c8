#!/usr/bin/env node
/**
 * Prints the functions a `.cpuprofile` spent the most self time in (or,
 * with `--sort total`, the most time under).
 *
 *   node apps/gateway/dist/bench/cpu-profile-top.js [FILE.cpuprofile | DIR] [--top 30] [--sort self|total]
 *
 * Without a path: the newest profile under bench/profiles/ (where
 * `npm run bench -- --cpu-prof` has the gateway write its own).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { findRepoRoot } from '@lunanexa/observability';
import { type CpuProfile, renderTopFunctions, summariseProfile } from './cpu-profile';

/** Every `.cpuprofile` under `dir`, newest first. */
export function profilesUnder(dir: string): string[] {
  const found: { file: string; mtime: number }[] = [];
  const walk = (current: string): void => {
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.cpuprofile')) found.push({ file: full, mtime: statSync(full).mtimeMs });
    }
  };
  walk(dir);
  return found.sort((a, b) => b.mtime - a.mtime).map((entry) => entry.file);
}

/** The top functions of one profile file as text, locations relative to the repository. */
export function topOfProfileFile(
  file: string,
  limit: number,
  root = findRepoRoot(),
  sortBy: 'self' | 'total' = 'self',
): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  return `${relative(root, file) || file}\n${renderTopFunctions(summariseProfile(profile, root), limit, sortBy)}`;
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '30' }, sort: { type: 'string', default: 'self' } },
  });
  const limit = Number(values.top);
  if (!Number.isInteger(limit) || limit < 1) throw new Error('--top must be a positive integer');
  const sortBy = values.sort;
  if (sortBy !== 'self' && sortBy !== 'total') throw new Error('--sort must be self or total');
  const root = findRepoRoot();
  const target = positionals[0] ?? join(root, 'bench', 'profiles');
  const file = statSync(target).isDirectory() ? profilesUnder(target)[0] : target;
  if (file === undefined) throw new Error(`no .cpuprofile under ${target} (run npm run bench -- --cpu-prof)`);
  process.stdout.write(topOfProfileFile(file, limit, root, sortBy));
}

if (require.main === module) {
  try {
    main();
  } catch (error: unknown) {
    process.stderr.write(`cpu-profile-top: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
