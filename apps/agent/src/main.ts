#!/usr/bin/env node
import { ConfigError, createLogger, readBuildInfo, runMain, stopOnSignals } from '@lunanexa/observability';
import { startAgent, type RunningAgent } from './agent';
import { AGENT_USAGE, EXIT_USAGE, UsageError, parseAgentArgs } from './args';
import { AGENT_PROCESS_NAME, loadAgentConfigFile } from './config';
import { prepareDataDir } from './data-dir';
import { KeyFileError } from './ssh/keys';
import { readAgentVersion } from './version';

/**
 * `lunanexa-agent --config <file>`. Exit codes: 0 after SIGTERM/SIGINT,
 * 64 bad command line, 78 bad configuration (naming the field and file),
 * 1 anything else (e.g. the listen port is taken, /proc/meminfo unreadable).
 */
async function main(): Promise<void> {
  const invocation = parseAgentArgs(process.argv.slice(2), process.env);
  if (invocation.kind === 'help') {
    process.stdout.write(AGENT_USAGE);
    return;
  }
  const config = loadAgentConfigFile(invocation.configFile);
  prepareDataDir(config.dataDir, invocation.configFile);
  const agentVersion = readAgentVersion();
  const logger = createLogger({ service: AGENT_PROCESS_NAME, level: config.logLevel, version: agentVersion });
  let agent: RunningAgent;
  try {
    agent = await startAgent({ config, logger, agentVersion, commit: readBuildInfo().commit });
  } catch (error: unknown) {
    // A host or node key file the operator must fix (permissions, wrong type) is a configuration problem.
    if (error instanceof KeyFileError) {
      const field = error.file === config.ssh?.hostKeyFile ? 'ssh.hostKeyFile' : 'dataDir';
      throw new ConfigError(`${AGENT_PROCESS_NAME}: config file ${invocation.configFile}`, [
        { variable: field, message: error.message },
      ]);
    }
    throw error;
  }
  const ssh = agent.health().ssh;
  logger.info(
    {
      nodeName: config.nodeName,
      host: agent.address.address,
      port: agent.address.port,
      inventorySource: config.inventory.source,
      ssh:
        ssh === null
          ? null
          : {
              host: ssh.host,
              port: ssh.port,
              hostKeyFingerprint: ssh.hostKeyFingerprint,
              nodeKeyId: ssh.nodeKeyId,
            },
    },
    'agent listening',
  );
  stopOnSignals(logger, () => agent.close());
}

runMain(AGENT_PROCESS_NAME, async () => {
  try {
    await main();
  } catch (error: unknown) {
    if (error instanceof UsageError) {
      process.stderr.write(`${AGENT_PROCESS_NAME}: ${error.message}\n\n${AGENT_USAGE}`);
      process.exit(EXIT_USAGE);
    }
    throw error;
  }
});
