import {
  CpuPriorityError,
  createLogger,
  initTracing,
  lowerCpuPriority,
  readBuildInfo,
  runMain,
  stopOnSignals,
  type Logger,
} from '@lunanexa/observability';
import { loadWorkerConfig, workerHealingRules } from './config';
import { createWorkerHealthServer } from './health-server';
import { createWorkerMetrics } from './metrics';
import { startWorker } from './worker';
import {
  healingLoop,
  keepStandingLoopRunning,
  nodeLeaseWatchLoop,
  retentionExpiryLoop,
} from './standing-loops';

runMain('lunanexa-worker', async () => {
  const config = loadWorkerConfig();
  const build = readBuildInfo();
  const logger = createLogger({
    service: 'worker',
    level: config.LUNANEXA_LOG_LEVEL,
    version: build.version,
  });
  // Before the worker starts its threads (Temporal's runtime, workflow threads): they inherit the priority.
  lowerWorkerPriority(config.LUNANEXA_WORKER_NICE, logger);
  // Before the worker is created: it adds the tracing interceptors only when tracing is on.
  const tracing = initTracing({ service: 'worker', version: build.version });
  const metrics = createWorkerMetrics(build);
  const running = await startWorker(config, logger, metrics);
  const health = createWorkerHealthServer(running.worker, build, metrics);
  const temporal = {
    address: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.LUNANEXA_TASK_QUEUE,
    logger,
  };
  keepStandingLoopRunning(temporal, retentionExpiryLoop(config.LUNANEXA_RETENTION_EXPIRY_INTERVAL_SECONDS));
  keepStandingLoopRunning(
    temporal,
    nodeLeaseWatchLoop({
      graceSeconds: config.LUNANEXA_NODE_LOST_GRACE_SECONDS,
      intervalSeconds: config.LUNANEXA_NODE_WATCH_INTERVAL_SECONDS,
      replacementTimeoutSeconds: config.LUNANEXA_NODE_REPLACEMENT_TIMEOUT_SECONDS,
    }),
  );
  keepStandingLoopRunning(temporal, healingLoop(config.LUNANEXA_HEAL_INTERVAL_SECONDS, workerHealingRules()));
  await new Promise<void>((resolve) =>
    health.listen(config.LUNANEXA_WORKER_PORT, config.LUNANEXA_WORKER_HOST, resolve),
  );
  logger.info(
    {
      taskQueue: config.LUNANEXA_TASK_QUEUE,
      namespace: config.TEMPORAL_NAMESPACE,
      port: config.LUNANEXA_WORKER_PORT,
    },
    'worker polling',
  );
  stopOnSignals(
    logger,
    async () => {
      health.close();
      await running.shutdown();
      await tracing.shutdown();
    },
    {},
    'worker stopping: finishing in-flight tasks',
  );
  await running.done;
});

function lowerWorkerPriority(nice: number, logger: Logger): void {
  if (nice === 0) return;
  try {
    const change = lowerCpuPriority(nice);
    logger.info({ event: 'cpu_priority', ...change }, `worker threads run at nice ${nice} or lower priority`);
  } catch (error) {
    if (!(error instanceof CpuPriorityError)) throw error;
    // Under a seccomp filter that refuses setpriority the worker still works, only at the priority it was given.
    logger.warn({ event: 'cpu_priority_kept', code: error.code, err: error }, error.message);
  }
}
