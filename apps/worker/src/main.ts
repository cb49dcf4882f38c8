import { createLogger, readBuildInfo, runMain, stopOnSignals } from '@lunanexa/observability';
import { loadWorkerConfig } from './config';
import { createWorkerHealthServer } from './health-server';
import { startWorker } from './worker';
import { keepRetentionExpiryRunning } from './retention-expiry';

runMain('lunanexa-worker', async () => {
  const config = loadWorkerConfig();
  const build = readBuildInfo();
  const logger = createLogger({
    service: 'worker',
    level: config.LUNANEXA_LOG_LEVEL,
    version: build.version,
  });
  const running = await startWorker(config, logger);
  const health = createWorkerHealthServer(running.worker, build);
  keepRetentionExpiryRunning({
    address: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.LUNANEXA_TASK_QUEUE,
    intervalSeconds: config.LUNANEXA_RETENTION_EXPIRY_INTERVAL_SECONDS,
    logger,
  });
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
    },
    {},
    'worker stopping: finishing in-flight tasks',
  );
  await running.done;
});
