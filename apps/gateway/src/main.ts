#!/usr/bin/env node
import { createLogger, readBuildInfo, runMain, stopOnSignals } from '@lunanexa/observability';
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

  stopOnSignals(
    logger,
    () => gateway.close(config.shutdownGraceMs),
    { graceMs: config.shutdownGraceMs },
    'shutting down: no new connections, finishing in-flight requests',
  );
});
