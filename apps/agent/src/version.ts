import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Name of the southbound protocol this agent speaks (also the SSH subsystem
 * name in DESIGN.md). It belongs in `@lunanexa/agent-protocol`; it lives here
 * until that library exports it.
 */
export const AGENT_PROTOCOL = 'lunanexa-agent-v1';

/**
 * The agent's own version from apps/agent/package.json. Compiled to
 * dist/src, so the package root is two levels up. Read at runtime rather than
 * imported so the manifest is not copied into dist as a module.
 */
export function readAgentVersion(packageRoot: string = join(__dirname, '..', '..')): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string') throw new Error(`${packageRoot}/package.json has no version`);
  return manifest.version;
}
