import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export { AGENT_PROTOCOL } from '@lunanexa/agent-protocol';

/**
 * The agent's own version from apps/agent/package.json. Compiled to
 * dist/src, so the package root is two levels up. Read at runtime rather than
 * imported so the manifest is not copied into dist as a module.
 */
export function readAgentVersion(packageRoot: string = join(__dirname, '..', '..')): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as {
    version?: unknown;
  };
  if (typeof manifest.version !== 'string') throw new Error(`${packageRoot}/package.json has no version`);
  return manifest.version;
}
