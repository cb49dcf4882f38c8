import { NativeConnection, Worker, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { createActivities, SouthboundClient } from '@lunanexa/activities';
import {
  ControllerKeyRing,
  createDataSource,
  loadOrCreateControllerKey,
  watchControllerKeyRing,
} from '@lunanexa/persistence';
import { initTracing, type Logger, type Tracing } from '@lunanexa/observability';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import type { WorkflowMetricSinks } from '@lunanexa/workflows/dist/src/failure-metrics';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import type { WorkerMetrics } from './metrics';
import { connectFleetWorkflows } from './fleet-workflows';
import { workerArtifactStoreConfig, workerControllerKeyFile, type WorkerConfig } from './config';

export interface RunningWorker {
  readonly worker: Worker;
  readonly db: DataSource;
  /** Resolves when the worker stopped (after `shutdown()` or a fatal error). */
  readonly done: Promise<void>;
  shutdown(): Promise<void>;
}

let runtimeInstalled = false;

function installRuntime(logger: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({
    logger: {
      log: (level, message, meta) =>
        logger[level === 'TRACE' ? 'trace' : (level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error')](
          { ...meta },
          message,
        ),
      trace: (message, meta) => logger.trace({ ...meta }, message),
      debug: (message, meta) => logger.debug({ ...meta }, message),
      info: (message, meta) => logger.info({ ...meta }, message),
      warn: (message, meta) => logger.warn({ ...meta }, message),
      error: (message, meta) => logger.error({ ...meta }, message),
    },
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
  });
}

/**
 * Connects to PostgreSQL and Temporal and starts polling the control task
 * queue. Workflow code is bundled from `@lunanexa/workflows` at start.
 */
export async function startWorker(
  config: WorkerConfig,
  logger: Logger,
  metrics: WorkerMetrics,
): Promise<RunningWorker> {
  installRuntime(logger);
  // The API creates the key on first start; the worker may start first, and the loader is race-safe.
  const key = loadOrCreateControllerKey(workerControllerKeyFile(config));
  const db = createDataSource({ url: config.DATABASE_URL, applicationName: 'lunanexa-worker' });
  await db.initialize();
  // The ring, not the file: after a rotation the worker signs with whichever key the ring says is current.
  const ring = await ControllerKeyRing.open(db, key);
  const stopWatchingRing = watchControllerKeyRing(ring, config.DATABASE_URL, 'lunanexa-worker-keyring', {
    info: (fields, message) => logger.info(fields, message),
    warn: (fields, message) => logger.warn(fields, message),
  });
  const controller = ring.signingIdentity;
  const southbound = new SouthboundClient(ring, { logger });
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const fleetWorkflows = await connectFleetWorkflows({
    address: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.LUNANEXA_TASK_QUEUE,
  });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.LUNANEXA_TASK_QUEUE,
    workflowsPath: require.resolve('@lunanexa/workflows'),
    ...workerInterceptorsAndSinks(metrics, initTracing({ service: 'worker' })),
    activities: createActivities({
      db,
      controller,
      southbound,
      controllerKeyRing: ring,
      artifactStore: workerArtifactStoreConfig(config),
      workflows: fleetWorkflows,
    }),
    // Long enough for in-flight activities (database writes) to finish on SIGTERM.
    shutdownGraceTime: '20 seconds',
  });
  const done = worker.run().finally(async () => {
    await stopWatchingRing();
    await connection.close();
    await fleetWorkflows.close();
    await db.destroy();
  });
  return {
    worker,
    db,
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/**
 * The failure-counting workflow interceptor always; with tracing on, the
 * OpenTelemetry workflow interceptors (bundled with the workflow code), the
 * activity interceptors (an activity is a child of the workflow's span and
 * its log lines carry its trace id) and the sink workflow spans leave by.
 */
function workerInterceptorsAndSinks(
  metrics: WorkerMetrics,
  tracing: Tracing,
): { interceptors: WorkerInterceptors; sinks: InjectedSinks<WorkflowMetricSinks> } {
  const failureMetrics = require.resolve('@lunanexa/workflows/dist/src/failure-metrics');
  if (tracing.spanProcessor === null || tracing.resource === null) {
    return { interceptors: { workflowModules: [failureMetrics] }, sinks: workflowMetricSinks(metrics) };
  }
  return {
    interceptors: {
      workflowModules: [failureMetrics, require.resolve('@lunanexa/workflows/dist/src/tracing-interceptors')],
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: {
      ...workflowMetricSinks(metrics),
      exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource),
    },
  };
}

/** Not called while a run is replayed, so a worker restart does not count a run's failure again. */
function workflowMetricSinks(metrics: WorkerMetrics): InjectedSinks<WorkflowMetricSinks> {
  return {
    metrics: {
      workflowFailed: {
        fn: (_info, workflow) => metrics.workflowFailures.inc({ workflow }),
        callDuringReplay: false,
      },
    },
  };
}
