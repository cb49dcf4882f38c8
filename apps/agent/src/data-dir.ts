import { accessSync, constants, mkdirSync } from 'node:fs';
import { ConfigError } from '@lunanexa/observability';
import { AGENT_PROCESS_NAME } from './config';

/**
 * Creates the agent's state directory (owner-only: it will hold the node key
 * and accepted assignments) and proves it is writable now, at boot, rather
 * than on the first assignment. Failure is a configuration error naming
 * `dataDir`, because the operator fixes it in the config file or on disk.
 */
export function prepareDataDir(dataDir: string, configFile: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    accessSync(dataDir, constants.W_OK);
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`${AGENT_PROCESS_NAME}: config file ${configFile}`, [
      { variable: 'dataDir', message: `${dataDir} cannot be created or written: ${reason}` },
    ]);
  }
}
