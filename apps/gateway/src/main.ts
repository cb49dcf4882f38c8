#!/usr/bin/env node
import { createLogger, readBuildInfo, runMain } from '@lunanexa/observability';
import { GATEWAY_PROCESS_NAME, GATEWAY_SERVICE, loadGatewayConfig } from './config';
import { EmptyRouteTable } from './route-table';
import { createGatewayServer } from './server';

/**
 * `lunanexa-gateway`. Exit codes: 0 after SIGTERM/SIGINT once in-flight
 * requests finished, 78 bad configuration (naming the variable), 1 anything
 * else (e.g. the port is taken).
 */
runMain(GATEWAY_PROCESS_NAME, async () => {
  const config = loadGatewayConfig();
  const build = readBuildInfo();
  const logger = createLogger({ service: GATEWAY_SERVICE, level: config.logLevel, version: build.version });
  // No deployments exist yet; the PostgreSQL-backed table replaces this when they do.
  const gateway = createGatewayServer({
    routes: new EmptyRouteTable(),
    logger,
    build,
    maxBodyBytes: config.maxBodyBytes,
    defaultDataClass: config.defaultDataClass,
  });
  const address = await gateway.listen(config.port, config.host);
  logger.info(
    { host: address.address, port: address.port, maxBodyBytes: config.maxBodyBytes },
    'gateway listening',
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal means the operator does not want to wait for in-flight requests.
      logger.warn({ signal }, 'second signal during shutdown; exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info(
      { signal, graceMs: config.shutdownGraceMs },
      'shutting down: no new connections, finishing in-flight requests',
    );
    gateway.close(config.shutdownGraceMs).then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
});
