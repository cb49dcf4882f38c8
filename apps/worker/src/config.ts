import { z } from 'zod';
import { CONTROL_TASK_QUEUE, DEFAULT_TEMPORAL_NAMESPACE } from '@lunanexa/contracts';
import { configFields, findRepoRoot, loadConfig } from '@lunanexa/observability';
import { join, resolve } from 'node:path';

export const WorkerConfigSchema = z.object({
  DATABASE_URL: configFields.postgresUrl(),
  TEMPORAL_ADDRESS: configFields.temporalAddress('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default(DEFAULT_TEMPORAL_NAMESPACE),
  LUNANEXA_TASK_QUEUE: z.string().min(1).default(CONTROL_TASK_QUEUE),
  LUNANEXA_WORKER_HOST: configFields.host('127.0.0.1'),
  LUNANEXA_WORKER_PORT: configFields.port(4300),
  LUNANEXA_LOG_LEVEL: configFields.logLevel(),
  /** Local state of this installation; the controller key lives under it unless configured. */
  LUNANEXA_DATA_DIR: z.string().min(1).default(join(findRepoRoot(), '.data')),
  /** The controller's Ed25519 key (shared with the API): signs node credentials and assignments. */
  LUNANEXA_CONTROLLER_KEY_FILE: z.string().min(1).optional(),
});
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;

export function loadWorkerConfig(env: Record<string, string | undefined> = process.env): WorkerConfig {
  return loadConfig('lunanexa-worker', WorkerConfigSchema, env);
}

export function workerControllerKeyFile(config: WorkerConfig): string {
  return resolve(
    config.LUNANEXA_CONTROLLER_KEY_FILE ??
      join(config.LUNANEXA_DATA_DIR, 'controller', 'controller-ed25519.pem'),
  );
}
