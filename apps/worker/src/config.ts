import { z } from 'zod';
import {
  CONTROL_TASK_QUEUE,
  DEFAULT_TEMPORAL_NAMESPACE,
  type HealingRuleSettings,
} from '@lunanexa/contracts';
import { healingRulesFromEnv } from '@lunanexa/domain';
import {
  artifactStoreConfigFromEnv,
  ArtifactStoreConfigError,
  type ArtifactStoreConfig,
} from '@lunanexa/activities';
import { ConfigError, configFields, findRepoRoot, loadConfig } from '@lunanexa/observability';
import { join, resolve } from 'node:path';

export const WorkerConfigSchema = z.object({
  DATABASE_URL: configFields.postgresUrl(),
  TEMPORAL_ADDRESS: configFields.temporalAddress('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default(DEFAULT_TEMPORAL_NAMESPACE),
  LUNANEXA_TASK_QUEUE: z.string().min(1).default(CONTROL_TASK_QUEUE),
  LUNANEXA_WORKER_HOST: configFields.host('127.0.0.1'),
  LUNANEXA_WORKER_PORT: configFields.port(4300),
  LUNANEXA_LOG_LEVEL: configFields.logLevel(),
  /**
   * The worker's CPU priority (nice, all its threads): on a host shared with the api, gateway and PostgreSQL,
   * heartbeat ingest and inference go first and workflows take the CPU time they leave. 0 keeps the priority
   * it was started with; systemd's `Nice=` (infra/systemd) sets it before start instead.
   */
  LUNANEXA_WORKER_NICE: z.coerce
    .number({ error: 'must be a whole number from 0 to 19' })
    .int('must be a whole number from 0 to 19')
    .min(0, 'must be a whole number from 0 to 19')
    .max(19, 'must be a whole number from 0 to 19')
    .default(10),
  /** Local state of this installation; the controller key lives under it unless configured. */
  LUNANEXA_DATA_DIR: z.string().min(1).default(join(findRepoRoot(), '.data')),
  /** The controller's Ed25519 key (shared with the API): signs node credentials and assignments. */
  LUNANEXA_CONTROLLER_KEY_FILE: z.string().min(1).optional(),
  /** Seconds between RetentionExpiry passes (deleting expired payload captures); short in tests. */
  LUNANEXA_RETENTION_EXPIRY_INTERVAL_SECONDS: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1 second')
    .max(86_400, 'must be at most 86400 seconds (one day)')
    .default(300),
  /** A node whose lease has been expired this long is lost: NodeRecovery re-places its replicas. */
  LUNANEXA_NODE_LOST_GRACE_SECONDS: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int('must be a whole number of seconds')
    .min(0, 'must be at least 0 seconds')
    .max(3_600, 'must be at most 3600 seconds (one hour)')
    .default(1),
  /** Seconds between the lease watch's passes over the nodes. */
  LUNANEXA_NODE_WATCH_INTERVAL_SECONDS: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1 second')
    .max(300, 'must be at most 300 seconds')
    .default(1),
  /** How long a NodeRecovery waits for replacements to be Ready before it writes its receipt anyway. */
  LUNANEXA_NODE_REPLACEMENT_TIMEOUT_SECONDS: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int('must be a whole number of seconds')
    .min(5, 'must be at least 5 seconds')
    .max(3_600, 'must be at most 3600 seconds (one hour)')
    .default(300),
  /** Seconds between healing passes (the rules read LUNANEXA_HEAL_*, see docs/OPERATIONS.md). */
  LUNANEXA_HEAL_INTERVAL_SECONDS: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1 second')
    .max(3_600, 'must be at most 3600 seconds (one hour)')
    .default(30),
  /** Artifact stores for digest verification (docs/OPERATIONS.md); checked together by workerArtifactStoreConfig. */
  LUNANEXA_S3_ENDPOINT: z.string().optional(),
  LUNANEXA_S3_REGION: z.string().optional(),
  LUNANEXA_S3_ACCESS_KEY_ID: z.string().optional(),
  LUNANEXA_S3_SECRET_ACCESS_KEY: z.string().optional(),
  LUNANEXA_S3_SESSION_TOKEN: z.string().optional(),
  LUNANEXA_S3_PATH_STYLE: z.string().optional(),
  LUNANEXA_S3_ALLOW_HTTP: z.string().optional(),
  LUNANEXA_OCI_INSECURE_REGISTRIES: z.string().optional(),
  LUNANEXA_OCI_AUTH_REGISTRY: z.string().optional(),
  LUNANEXA_OCI_USERNAME: z.string().optional(),
  LUNANEXA_OCI_PASSWORD: z.string().optional(),
  LUNANEXA_OCI_TOKEN: z.string().optional(),
  LUNANEXA_ARTIFACT_FILE_ROOTS: z.string().optional(),
  LUNANEXA_ARTIFACT_IDLE_TIMEOUT_MS: z.string().optional(),
});
export type WorkerConfig = z.infer<typeof WorkerConfigSchema>;

export function loadWorkerConfig(env: Record<string, string | undefined> = process.env): WorkerConfig {
  const config = loadConfig('lunanexa-worker', WorkerConfigSchema, env);
  // Fail at boot, not at the first verification.
  workerArtifactStoreConfig(config);
  workerHealingRules(env);
  return config;
}

/** The healing rules' settings (LUNANEXA_HEAL_*); a bad value fails the worker at boot. */
export function workerHealingRules(
  env: Record<string, string | undefined> = process.env,
): HealingRuleSettings {
  const { settings, problems } = healingRulesFromEnv(env);
  if (problems.length > 0) throw new ConfigError('lunanexa-worker', problems);
  return settings;
}

/** The artifact stores the verification activity reads, from the LUNANEXA_S3_* / OCI_* / ARTIFACT_* variables. */
export function workerArtifactStoreConfig(config: WorkerConfig): ArtifactStoreConfig {
  try {
    return artifactStoreConfigFromEnv(config);
  } catch (error: unknown) {
    if (error instanceof ArtifactStoreConfigError) throw new ConfigError('lunanexa-worker', error.problems);
    throw error;
  }
}

export function workerControllerKeyFile(config: WorkerConfig): string {
  return resolve(
    config.LUNANEXA_CONTROLLER_KEY_FILE ??
      join(config.LUNANEXA_DATA_DIR, 'controller', 'controller-ed25519.pem'),
  );
}
