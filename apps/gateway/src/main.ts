#!/usr/bin/env node
import cluster from 'node:cluster';
import { createLogger, initTracing, readBuildInfo, runMain, stopOnSignals } from '@lunanexa/observability';
import {
  joinCluster,
  runGatewayPrimary,
  untilLoaded,
  WORKER_LOAD_WAIT_MS,
  workerAdmissionLimits,
} from './cluster';
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
 * else (e.g. the port is taken). With LUNANEXA_GATEWAY_WORKERS > 1 this
 * process is the cluster primary and each worker runs the rest (cluster.ts).
 */
runMain(GATEWAY_PROCESS_NAME, async () => {
  const config = loadGatewayConfig();
  const build = readBuildInfo();
  const rootLogger = createLogger({
    service: GATEWAY_SERVICE,
    level: config.logLevel,
    version: build.version,
  });
  if (config.workers > 1 && cluster.isPrimary) {
    await runGatewayPrimary({
      workers: config.workers,
      shutdownGraceMs: config.shutdownGraceMs,
      logger: rootLogger,
    });
    process.exit(process.exitCode ?? 0);
  }
  const workerId = cluster.worker?.id;
  const logger = workerId === undefined ? rootLogger : rootLogger.child({ worker: workerId });
  const tracing = initTracing({ service: GATEWAY_SERVICE, version: build.version });
  // Shared so the route table's refresh metrics appear on the gateway's /metrics.
  const metrics = createGatewayMetrics(GATEWAY_SERVICE, build);
  const worker = cluster.isWorker ? joinCluster(metrics.service.registry, config.quotaLeaseSize) : undefined;
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
  // A worker's share of the replica limits: the host as a whole keeps the configured ones.
  const admission =
    worker === undefined ? config.admission : workerAdmissionLimits(config.admission, config.workers);
  const gateway = createGatewayServer({
    routes,
    credentials,
    admission,
    quotas: worker?.quotas(credentials),
    metricsText: worker?.metricsText,
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
  if (worker !== undefined && !(await untilLoaded([routes, credentials, dataPolicies]))) {
    logger.warn(
      { waitedMs: WORKER_LOAD_WAIT_MS },
      'listening before the route, credential and policy snapshots loaded: requests get 503 until they do',
    );
  }
  const address = await gateway.listen(config.port, config.host);
  logger.info(
    {
      host: address.address,
      port: address.port,
      maxBodyBytes: config.maxBodyBytes,
      workers: config.workers,
      ...admission,
    },
    'gateway listening',
  );
  const loadPublisher =
    config.databaseUrl === null
      ? undefined
      : new GatewayLoadPublisher({
          databaseUrl: config.databaseUrl,
          logger,
          admission: gateway.admission,
          // Each worker publishes its own queue: the rows are summed per deployment where they are read.
          gatewayId: defaultGatewayId(address.port) + (workerId === undefined ? '' : `/${workerId}`),
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
