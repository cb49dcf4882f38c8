import { z } from 'zod';
import { CONTROL_TASK_QUEUE, DEFAULT_TEMPORAL_NAMESPACE } from '@lunanexa/contracts';
import { configFields, loadConfig } from '@lunanexa/observability';

export const WorkerConfigSchema = z.object({
  DATABASE_URL: configFields.postgresUrl(),
  TEMPORAL_ADDRESS: configFields.temporalAddress('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default(DEFAULT_TEMPORAL_NAMESPACE),
  LUNANEXA_TASK_QUEUE: z.string().min(1).default(CONTROL_TASK_QUEUE),
  LUNANEXA_WORKER_HOST: configFields.host('127.0.0.1'),
  LUNANEXA_WORKER_PORT: configFields.port(4300),
  LUNANEXA_LOG_LEVEL: configFields.logLevel(),
});
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;

export function loadWorkerConfig(env: Record<string, string | undefined> = process.env): WorkerConfig {
  return loadConfig('lunanexa-worker', WorkerConfigSchema, env);
}
