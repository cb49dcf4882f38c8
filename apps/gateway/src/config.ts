import { availableParallelism } from 'node:os';
import { DataClassSchema } from '@lunanexa/contracts';
import { configFields, loadConfig } from '@lunanexa/observability';
import { z } from 'zod';
import type { AdmissionLimits } from './admission';
import { ACCESS_LOG_MODES, type AccessLogMode } from './access-log';
import { DEFAULT_CREDENTIAL_REFRESH_MS } from './credential-table';
import { DEFAULT_ROUTE_REFRESH_MS } from './postgres-route-table';
import { DEFAULT_REQUEST_RECORD_RETENTION_HOURS } from './request-log';

export const GATEWAY_PROCESS_NAME = 'lunanexa-gateway';
export const GATEWAY_SERVICE = 'gateway';

/** 1 MiB: far above any chat prompt we serve, small enough that a flood of bodies cannot exhaust memory. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/** vLLM's default `--max-num-seqs`: what one replica batches at once before it queues internally. */
export const DEFAULT_REPLICA_CONCURRENCY = 256;
export const DEFAULT_QUEUE_PER_REPLICA = 64;
export const DEFAULT_MAX_QUEUE_WAIT_MS = 30_000;
/** Tenant admissions a gateway worker leases from the cluster primary at once (LUNANEXA_GATEWAY_QUOTA_LEASE). */
export const DEFAULT_QUOTA_LEASE = 32;

/**
 * The gateway's whole configuration, read once at boot from the environment.
 * A bad value stops the process with exit code 78 naming the variable.
 */
export const GatewayConfigSchema = z.object({
  LUNANEXA_GATEWAY_HOST: configFields.host('127.0.0.1'),
  LUNANEXA_GATEWAY_PORT: configFields.port(4100),
  LUNANEXA_LOG_LEVEL: configFields.logLevel(),
  LUNANEXA_GATEWAY_MAX_BODY_BYTES: z.coerce
    .number({ error: 'must be an integer number of bytes' })
    .int('must be an integer number of bytes')
    .min(1024, 'must be at least 1024 bytes')
    .max(64 * 1_048_576, 'must be at most 64 MiB')
    .default(DEFAULT_MAX_BODY_BYTES),
  /**
   * Data class assumed for OpenAI-compatible requests that do not send
   * `x-lunanexa-data-class` (OpenAI bodies have no field for it). Defaults to
   * a sensitive class so unlabeled traffic is never treated as public.
   */
  LUNANEXA_GATEWAY_DEFAULT_DATA_CLASS: DataClassSchema.default('confidential'),
  /** How long shutdown waits for in-flight requests before cutting connections. */
  LUNANEXA_GATEWAY_SHUTDOWN_GRACE_MS: configFields.durationMs(10_000),
  /**
   * Where routes come from. Optional so a gateway can run with no control
   * plane at all (every inference request then gets MODEL_NOT_FOUND).
   */
  DATABASE_URL: configFields.postgresUrl().optional(),
  /**
   * Route snapshot refresh interval: how long a drained node or a newly ready
   * replica takes to be seen. Capped well below the 30 s staleness limit so
   * a few failed refreshes do not already make the gateway unready.
   */
  LUNANEXA_GATEWAY_ROUTE_REFRESH_MS: z.coerce
    .number({ error: 'must be an integer number of milliseconds' })
    .int('must be an integer number of milliseconds')
    .min(100, 'must be at least 100 ms')
    .max(10_000, 'must be at most 10000 ms')
    .default(DEFAULT_ROUTE_REFRESH_MS),
  /**
   * Requests one replica runs at once; more wait in the gateway's queue. Set
   * it to what the runtime serves without queueing internally (vLLM
   * `--max-num-seqs`), so backpressure happens here, where priorities apply.
   */
  LUNANEXA_GATEWAY_REPLICA_CONCURRENCY: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(10_000, 'must be at most 10000')
    .default(DEFAULT_REPLICA_CONCURRENCY),
  /** Requests that may wait per replica of a deployment; beyond it callers get 503 NO_CAPACITY. */
  LUNANEXA_GATEWAY_QUEUE_PER_REPLICA: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(0, 'must be at least 0')
    .max(100_000, 'must be at most 100000')
    .default(DEFAULT_QUEUE_PER_REPLICA),
  /** The longest a request waits for a replica before 503 NO_CAPACITY (its own deadline may be shorter). */
  LUNANEXA_GATEWAY_MAX_QUEUE_WAIT_MS: z.coerce
    .number({ error: 'must be an integer number of milliseconds' })
    .int('must be an integer number of milliseconds')
    .min(10, 'must be at least 10 ms')
    .max(600_000, 'must be at most 600000 ms')
    .default(DEFAULT_MAX_QUEUE_WAIT_MS),
  /** Safety-net reload of gateway keys, operator tokens and quotas; changes arrive at once by NOTIFY. */
  LUNANEXA_GATEWAY_CREDENTIAL_REFRESH_MS: z.coerce
    .number({ error: 'must be an integer number of milliseconds' })
    .int('must be an integer number of milliseconds')
    .min(100, 'must be at least 100 ms')
    .max(600_000, 'must be at most 600000 ms')
    .default(DEFAULT_CREDENTIAL_REFRESH_MS),
  /**
   * Access-log lines: `errors` (default) logs requests answered 4xx/5xx or
   * abandoned by the client, `all` every request, `none` nothing. Every
   * request is in the request records and metrics whatever this says; a log
   * line per successful request is the costliest work on the data path.
   */
  LUNANEXA_GATEWAY_ACCESS_LOG: z.enum(ACCESS_LOG_MODES).default('errors'),
  /**
   * Worker processes sharing the port (`node:cluster`); tenant quotas hold
   * across them (cluster.ts). 1 runs today's single process with no primary.
   * Default: one per core the process may use.
   */
  LUNANEXA_GATEWAY_WORKERS: z.coerce
    .number({ error: 'must be an integer number of processes' })
    .int('must be an integer number of processes')
    .min(1, 'must be at least 1')
    .max(256, 'must be at most 256')
    .default(() => availableParallelism()),
  /**
   * With several workers: the most tenant admissions a worker leases from
   * the primary at once (cluster.ts), so a busy tenant's requests need no
   * message to the primary each. Leases shrink to 1 near a tenant's limit;
   * 1 asks the primary for every request.
   */
  LUNANEXA_GATEWAY_QUOTA_LEASE: z.coerce
    .number({ error: 'must be an integer number of admissions' })
    .int('must be an integer number of admissions')
    .min(1, 'must be at least 1')
    .max(1024, 'must be at most 1024')
    .default(DEFAULT_QUOTA_LEASE),
  /** How long request metadata (never payloads) stays listed in the console's Requests view. */
  LUNANEXA_REQUEST_RECORD_RETENTION_HOURS: z.coerce
    .number({ error: 'must be an integer number of hours' })
    .int('must be an integer number of hours')
    .min(1, 'must be at least 1 hour')
    .max(24 * 366, 'must be at most 366 days')
    .default(DEFAULT_REQUEST_RECORD_RETENTION_HOURS),
});

export interface GatewayConfig {
  readonly host: string;
  readonly port: number;
  readonly logLevel: string;
  readonly maxBodyBytes: number;
  readonly defaultDataClass: z.infer<typeof DataClassSchema>;
  readonly shutdownGraceMs: number;
  readonly databaseUrl: string | null;
  readonly routeRefreshMs: number;
  readonly requestRecordRetentionHours: number;
  readonly admission: AdmissionLimits;
  readonly credentialRefreshMs: number;
  readonly accessLog: AccessLogMode;
  /** Worker processes; 1 = a single process without a cluster primary. */
  readonly workers: number;
  /** Most tenant admissions a worker leases from the primary at once. */
  readonly quotaLeaseSize: number;
}

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const raw = loadConfig(GATEWAY_PROCESS_NAME, GatewayConfigSchema, env);
  return {
    host: raw.LUNANEXA_GATEWAY_HOST,
    port: raw.LUNANEXA_GATEWAY_PORT,
    logLevel: raw.LUNANEXA_LOG_LEVEL,
    maxBodyBytes: raw.LUNANEXA_GATEWAY_MAX_BODY_BYTES,
    defaultDataClass: raw.LUNANEXA_GATEWAY_DEFAULT_DATA_CLASS,
    shutdownGraceMs: raw.LUNANEXA_GATEWAY_SHUTDOWN_GRACE_MS,
    databaseUrl: raw.DATABASE_URL ?? null,
    routeRefreshMs: raw.LUNANEXA_GATEWAY_ROUTE_REFRESH_MS,
    requestRecordRetentionHours: raw.LUNANEXA_REQUEST_RECORD_RETENTION_HOURS,
    admission: {
      replicaConcurrency: raw.LUNANEXA_GATEWAY_REPLICA_CONCURRENCY,
      queuePerReplica: raw.LUNANEXA_GATEWAY_QUEUE_PER_REPLICA,
      maxQueueWaitMs: raw.LUNANEXA_GATEWAY_MAX_QUEUE_WAIT_MS,
    },
    credentialRefreshMs: raw.LUNANEXA_GATEWAY_CREDENTIAL_REFRESH_MS,
    accessLog: raw.LUNANEXA_GATEWAY_ACCESS_LOG,
    workers: raw.LUNANEXA_GATEWAY_WORKERS,
    quotaLeaseSize: raw.LUNANEXA_GATEWAY_QUOTA_LEASE,
  };
}
