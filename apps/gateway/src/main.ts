#!/usr/bin/env node
import { createLogger, initTracing, readBuildInfo, runMain, stopOnSignals } from '@lunanexa/observability';
import { GATEWAY_PROCESS_NAME, GATEWAY_SERVICE, loadGatewayConfig } from './config';
import { type CredentialTable, PostgresCredentialTable, StaticCredentialTable } from './credential-table';
import { GatewayLoadPublisher, defaultGatewayId } from './load-publisher';
import { createGatewayMetrics } from './metrics';
import { type DataPolicyTable, PostgresDataPolicyTable, StaticDataPolicyTable } from './data-policy-table';
import { NullPayloadCapture, type PayloadCaptureSink, PostgresPayloadCapture } from './payload-capture';
import { PostgresRouteTable } from './postgres-route-table';
import { NullRequestLog, PostgresRequestLog, type RequestLog } from './request-log';
import { EmptyRouteTable, type RouteTable } from './route-table';
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
  const tracing = initTracing({ service: GATEWAY_SERVICE, version: build.version });
  // Shared so the route table's refresh metrics appear on the gateway's /metrics.
  const metrics = createGatewayMetrics(GATEWAY_SERVICE, build);
  let table: PostgresRouteTable | undefined;
  let routes: RouteTable;
  let requestLog: RequestLog = new NullRequestLog();
  let policyTable: PostgresDataPolicyTable | undefined;
  // Without a database no tenant can have a policy: everyone gets the default (keep nothing).
  let dataPolicies: DataPolicyTable = new StaticDataPolicyTable();
  let payloadCapture: PayloadCaptureSink = new NullPayloadCapture();
  // Without a control plane nobody holds a credential: every /v1 call is refused with 401.
  let credentials: CredentialTable = new StaticCredentialTable();
  let credentialTable: PostgresCredentialTable | undefined;
  if (config.databaseUrl !== null) {
    credentialTable = new PostgresCredentialTable({
      databaseUrl: config.databaseUrl,
      logger,
      refreshMs: config.credentialRefreshMs,
      registry: metrics.service.registry,
    });
    credentialTable.start();
    credentials = credentialTable;
    policyTable = new PostgresDataPolicyTable({
      databaseUrl: config.databaseUrl,
      logger,
      refreshMs: config.routeRefreshMs,
      registry: metrics.service.registry,
    });
    policyTable.start();
    dataPolicies = policyTable;
    payloadCapture = new PostgresPayloadCapture({
      databaseUrl: config.databaseUrl,
      logger,
      registry: metrics.service.registry,
    });
    requestLog = new PostgresRequestLog({
      databaseUrl: config.databaseUrl,
      logger,
      registry: metrics.service.registry,
      retentionHours: config.requestRecordRetentionHours,
    });
    table = new PostgresRouteTable({
      databaseUrl: config.databaseUrl,
      logger,
      refreshMs: config.routeRefreshMs,
      registry: metrics.service.registry,
    });
    // Not awaited: /ready answers 503 until the first snapshot, which is how a load balancer should learn it.
    table.start();
    routes = table;
    logger.info({ routeRefreshMs: config.routeRefreshMs }, 'routes from PostgreSQL (DATABASE_URL)');
  } else {
    routes = new EmptyRouteTable();
    logger.info('DATABASE_URL not set: empty route table, every inference request gets MODEL_NOT_FOUND');
  }
  const gateway = createGatewayServer({
    routes,
    credentials,
    admission: config.admission,
    accessLog: config.accessLog,
    logger,
    build,
    metrics,
    requestLog,
    dataPolicies,
    payloadCapture,
    maxBodyBytes: config.maxBodyBytes,
    defaultDataClass: config.defaultDataClass,
  });
  const address = await gateway.listen(config.port, config.host);
  logger.info(
    { host: address.address, port: address.port, maxBodyBytes: config.maxBodyBytes, ...config.admission },
    'gateway listening',
  );
  const loadPublisher =
    config.databaseUrl === null
      ? undefined
      : new GatewayLoadPublisher({
          databaseUrl: config.databaseUrl,
          logger,
          admission: gateway.admission,
          gatewayId: defaultGatewayId(address.port),
        });
  loadPublisher?.start();

  stopOnSignals(
    logger,
    async () => {
      await gateway.close(config.shutdownGraceMs);
      // Only after the server closed: requests still finishing may look up routes until then.
      await table?.close();
      await loadPublisher?.close();
      await credentialTable?.close();
      await requestLog.close();
      await policyTable?.close();
      await payloadCapture.close();
      await tracing.shutdown();
    },
    { graceMs: config.shutdownGraceMs },
    'shutting down: no new connections, finishing in-flight requests',
  );
});
