import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The CLI's version from apps/cli/package.json (compiled to dist/src, so two
 * levels up). Read at runtime so the manifest is not compiled into dist.
 */
export function readCliVersion(packageRoot: string = join(__dirname, '..', '..')): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    version?: unknown;
  };
  if (typeof manifest.version !== 'string') throw new Error(`${packageRoot}/package.json has no version`);
  return manifest.version;
}
