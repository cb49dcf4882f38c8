#!/usr/bin/env node
import {
  ConfigError,
  createLogger,
  initTracing,
  readBuildInfo,
  runMain,
  stopOnSignals,
} from '@lunanexa/observability';
import { AgentSetupError, startAgent, type RunningAgent } from './agent';
import { AGENT_USAGE, EXIT_USAGE, UsageError, parseAgentArgs } from './args';
import { AGENT_PROCESS_NAME, loadAgentArtifactStoreConfig, loadAgentConfigFile } from './config';
import { pinControllerKey } from './controller-trust/pin';
import { ControllerTrustStateError } from './controller-trust/state';
import { prepareDataDir } from './data-dir';
import { EnrollmentError } from './enrollment/errors';
import { KeyFileError } from './ssh/keys';
import { readAgentVersion } from './version';

/**
 * `lunanexa-agent --config <file> [--bootstrap-token …] [--stop-runtimes-on-exit]`, or
 * `lunanexa-agent trust-controller-key --config <file> --fingerprint SHA256:… [--public-key …]`
 * (exit 0 trusted, 2 not pinned, 1 controller unavailable; see AGENT_USAGE).
 * Exit codes: 0 after SIGTERM/SIGINT (runtimes keep running and the next
 * start adopts them, unless --stop-runtimes-on-exit), 64 bad
 * command line, 78 bad configuration (naming the field and file) — including
 * an enrollment the controller refused or whose answer did not come from the
 * pinned controller key — 1 anything else (e.g. the listen port is taken,
 * /proc/meminfo unreadable, the controller unreachable for the whole
 * enrollment retry window).
 */
async function main(): Promise<void> {
  const invocation = parseAgentArgs(process.argv.slice(2), process.env);
  if (invocation.kind === 'help') {
    process.stdout.write(AGENT_USAGE);
    return;
  }
  if (invocation.kind === 'trust-controller-key') {
    const outcome = await pinControllerKey({
      config: loadAgentConfigFile(invocation.configFile),
      fingerprint: invocation.fingerprint,
      ...(invocation.publicKey === null ? {} : { publicKey: invocation.publicKey }),
    });
    const stream = outcome.exitCode === 0 ? process.stdout : process.stderr;
    for (const line of outcome.lines) stream.write(`${line}\n`);
    process.exitCode = outcome.exitCode;
    return;
  }
  const config = loadAgentConfigFile(invocation.configFile);
  const artifactStore = loadAgentArtifactStoreConfig(process.env);
  prepareDataDir(config.dataDir, invocation.configFile);
  const agentVersion = readAgentVersion();
  const logger = createLogger({ service: AGENT_PROCESS_NAME, level: config.logLevel, version: agentVersion });
  const tracing = initTracing({ service: AGENT_PROCESS_NAME, version: agentVersion });
  const configProblem = (variable: string, message: string): ConfigError =>
    new ConfigError(`${AGENT_PROCESS_NAME}: config file ${invocation.configFile}`, [{ variable, message }]);
  // Signals are handled from here on, not only once started: /health answers (and a supervisor may
  // stop the agent) while it is still enrolling. Runtimes are left running on purpose (an upgrade must
  // not interrupt serving); the next start adopts them. A local stack's simulated nodes ask for the opposite.
  const abort = new AbortController();
  const starting = startAgent({
    config,
    configFile: invocation.configFile,
    logger,
    agentVersion,
    commit: readBuildInfo().commit,
    bootstrapToken: invocation.bootstrapToken,
    signal: abort.signal,
    artifactStore,
  });
  stopOnSignals(logger, async () => {
    abort.abort(new Error('stopped by a signal while starting'));
    const started = await starting.catch(() => null);
    await started?.close({ stopRuntimes: invocation.stopRuntimesOnExit });
    await tracing.shutdown();
  });
  let agent: RunningAgent;
  try {
    agent = await starting;
  } catch (error: unknown) {
    // Stopped by a signal: stopOnSignals ends the process.
    if (abort.signal.aborted) return;
    // A host or node key file the operator must fix (permissions, wrong type) is a configuration problem.
    if (error instanceof KeyFileError) {
      throw configProblem(
        error.file === config.ssh?.hostKeyFile ? 'ssh.hostKeyFile' : 'dataDir',
        error.message,
      );
    }
    if (error instanceof AgentSetupError) throw configProblem(error.field, error.message);
    if (error instanceof ControllerTrustStateError) throw configProblem('dataDir', error.message);
    // Retrying a refused or untrusted enrollment cannot succeed: a new token or a fixed config is needed.
    if (error instanceof EnrollmentError && error.failure !== 'unreachable') {
      logger.error({ event: 'enrollment_failed', failure: error.failure, code: error.code }, error.message);
      const field =
        error.failure === 'untrusted-response'
          ? 'controllerKeyFingerprint'
          : error.code?.startsWith('TOKEN_') === true
            ? '--bootstrap-token'
            : 'controllerUrl';
      throw configProblem(field, `enrollment failed (${error.code ?? error.failure}): ${error.message}`);
    }
    throw error;
  }
  const health = agent.health();
  const ssh = health.ssh;
  logger.info(
    {
      nodeName: config.nodeName,
      nodeId: agent.nodeId,
      enrolled: agent.enrollment !== null,
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
      heartbeats: agent.heartbeat !== null,
    },
    'agent listening',
  );
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
