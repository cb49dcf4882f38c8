#!/usr/bin/env node
import { createLogger, readBuildInfo, runMain, stopOnSignals } from '@lunanexa/observability';
import {
  EXIT_CRASH,
  EXIT_USAGE,
  FAKE_RUNTIME_PROCESS_NAME,
  FAKE_RUNTIME_SERVICE,
  FAKE_RUNTIME_USAGE,
  UsageError,
  parseFakeRuntimeArgs,
} from './config';
import { createFakeRuntimeServer } from './server';

/**
 * `lunanexa-fake-runtime [options]`. Exit codes: 0 after SIGTERM/SIGINT once
 * in-flight requests finished (or the grace period ran out), 64 bad command
 * line, 78 bad configuration (naming the flag and variable), 70 the crash
 * asked for with --crash-after-requests, 1 anything else (e.g. port taken).
 */
runMain(FAKE_RUNTIME_PROCESS_NAME, async () => {
  let invocation: ReturnType<typeof parseFakeRuntimeArgs>;
  try {
    invocation = parseFakeRuntimeArgs(process.argv.slice(2), process.env);
  } catch (error: unknown) {
    if (error instanceof UsageError) {
      process.stderr.write(`${FAKE_RUNTIME_PROCESS_NAME}: ${error.message}\n\n${FAKE_RUNTIME_USAGE}`);
      process.exit(EXIT_USAGE);
    }
    throw error;
  }
  if (invocation.kind === 'help') {
    process.stdout.write(FAKE_RUNTIME_USAGE);
    return;
  }
  const { config } = invocation;
  const build = readBuildInfo();
  const logger = createLogger({
    service: FAKE_RUNTIME_SERVICE,
    level: config.logLevel,
    version: build.version,
  });
  const server = createFakeRuntimeServer({
    config,
    logger,
    build,
    onCrash: (request) => {
      logger.warn({ request }, 'crashing on purpose (crash-after-requests reached)');
      // Abrupt on purpose: no graceful close, in-flight connections are cut.
      process.exit(EXIT_CRASH);
    },
  });
  const address = await server.listen();
  logger.info(
    {
      host: address.address,
      port: address.port,
      model: config.model,
      ttftMs: config.ttftMs,
      tokensPerSecond: config.tokensPerSecond,
      errorRate: config.errorRate,
      crashAfterRequests: config.crashAfterRequests,
      startupDelayMs: config.startupDelayMs,
    },
    'fake runtime listening',
  );

  stopOnSignals(logger, () => server.close(config.shutdownGraceMs), { graceMs: config.shutdownGraceMs });
});
