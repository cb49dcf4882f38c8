import { join, resolve } from 'node:path';
import { z } from 'zod';
import {
  CONTROL_TASK_QUEUE,
  DEFAULT_NODE_LEASE_SECONDS,
  DEFAULT_TEMPORAL_NAMESPACE,
} from '@lunanexa/contracts';
import { DEFAULT_QUERY_BUDGET, DEFAULT_QUERY_RATE } from '@lunanexa/domain';
import { configFields, findRepoRoot, loadConfig } from '@lunanexa/observability';

/**
 * Envelope nonces the api remembers for the skew window (120 s) to refuse replays: 1,000 nodes beating every
 * second keep about 120,000. Beyond it new envelopes are refused (429) until old ones expire, so it bounds
 * memory (about 150 bytes each) and caps ingest: size it to fleet × 120 ÷ heartbeat interval, with room.
 */
export const DEFAULT_AGENT_REPLAY_CAPACITY = 262_144;

export const ApiConfigSchema = z.object({
  DATABASE_URL: configFields.postgresUrl(),
  TEMPORAL_ADDRESS: configFields.temporalAddress('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default(DEFAULT_TEMPORAL_NAMESPACE),
  LUNANEXA_TASK_QUEUE: z.string().min(1).default(CONTROL_TASK_QUEUE),
  LUNANEXA_API_HOST: configFields.host('127.0.0.1'),
  LUNANEXA_API_PORT: configFields.port(4000),
  /** Where operators open the Temporal UI; used to build workflow links in receipts. */
  LUNANEXA_TEMPORAL_UI_URL: configFields.url().default('http://127.0.0.1:8233'),
  /** Built console (Angular `dist/browser`). Missing directory = console not served. */
  LUNANEXA_CONSOLE_DIR: z
    .string()
    .min(1)
    .default(join(findRepoRoot(), 'console', 'dist', 'browser')),
  /** How long a mutation waits for its workflow before answering with the workflow id only. */
  LUNANEXA_WORKFLOW_WAIT_MS: configFields.durationMs(30_000),
  LUNANEXA_LOG_LEVEL: configFields.logLevel(),
  /** Local state of this installation (never inside the source tree's tracked files). */
  LUNANEXA_DATA_DIR: z.string().min(1).default(join(findRepoRoot(), '.data')),
  /**
   * The controller's Ed25519 signing key (PKCS#8 PEM, mode 0600): signs
   * operator sessions and, later, node assignments. Created on first start.
   * Default: `<LUNANEXA_DATA_DIR>/controller/controller-ed25519.pem`.
   */
  LUNANEXA_CONTROLLER_KEY_FILE: z.string().min(1).optional(),
  /** The URL agents reach the API at (printed in bootstrap-token answers); default http://<host>:<port>. */
  LUNANEXA_API_PUBLIC_URL: configFields.url().optional(),
  /**
   * The inference gateway the console playground streams through. Default:
   * http://127.0.0.1:<LUNANEXA_GATEWAY_PORT>, the port the launcher gives the gateway.
   */
  LUNANEXA_GATEWAY_URL: configFields.url().optional(),
  LUNANEXA_GATEWAY_PORT: configFields.port(4100),
  /** Lease on every assignment pushed to an agent; the deployment workflow renews it at a third. */
  LUNANEXA_ASSIGNMENT_LEASE_SECONDS: z.coerce.number().int().min(15).max(86_400).default(600),
  /**
   * A node's lease: a heartbeat renews it for this long (agents beat every 5 s). Past it the node is
   * Unreachable and, after the worker's LUNANEXA_NODE_LOST_GRACE_SECONDS, lost (NodeRecovery).
   */
  LUNANEXA_NODE_LEASE_SECONDS: z.coerce.number().int().min(2).max(3_600).default(DEFAULT_NODE_LEASE_SECONDS),
  /** PostgreSQL connections for GraphQL, enrollment and everything else but heartbeats. */
  LUNANEXA_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * PostgreSQL connections that only heartbeat ingest uses, so lease renewals
   * never wait behind audited writes queued on the audit chain's lock (1,000
   * agents enrolling at once starved them in one shared pool), and enough of
   * them for ~200 heartbeats/s when each transaction's round trips are slow
   * (6 saturated at 1,000 agents on a loaded 2-core machine: bench:scale).
   */
  LUNANEXA_HEARTBEAT_DB_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(20),
  /** See DEFAULT_AGENT_REPLAY_CAPACITY. */
  LUNANEXA_AGENT_REPLAY_CAPACITY: z.coerce
    .number()
    .int()
    .min(1_024)
    .max(16_777_216)
    .default(DEFAULT_AGENT_REPLAY_CAPACITY),
  /** Wrong passwords in a row one account may send before sign-ins to it are blocked (libs/domain sign-in-throttle). */
  LUNANEXA_SIGN_IN_ACCOUNT_FAILURES: z.coerce.number().int().min(1).max(1_000).default(5),
  /** Failed sign-ins one client address may send, to any accounts, before its sign-ins are blocked. */
  LUNANEXA_SIGN_IN_ADDRESS_FAILURES: z.coerce.number().int().min(1).max(1_000).default(20),
  /** The first block's length; each further failure doubles it up to LUNANEXA_SIGN_IN_MAX_BLOCK_SECONDS. */
  LUNANEXA_SIGN_IN_BLOCK_SECONDS: z.coerce.number().int().min(1).max(3_600).default(30),
  LUNANEXA_SIGN_IN_MAX_BLOCK_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
  /** The most one GraphQL operation may cost (libs/domain query-cost); dearer ones are refused QUERY_TOO_COSTLY. */
  LUNANEXA_GRAPHQL_MAX_COST: z.coerce
    .number()
    .int()
    .min(100)
    .max(10_000_000)
    .default(DEFAULT_QUERY_BUDGET.maxCost),
  /** Query cost one caller (credential, else address) may spend at once; it refills at the rate below. */
  LUNANEXA_GRAPHQL_COST_BURST: z.coerce
    .number()
    .int()
    .min(100)
    .max(100_000_000)
    .default(DEFAULT_QUERY_RATE.capacity),
  LUNANEXA_GRAPHQL_COST_PER_SECOND: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000_000)
    .default(DEFAULT_QUERY_RATE.refillPerSecond),
  /**
   * How long a GraphQL request waits for its caller's shared bucket in PostgreSQL (one upsert) before this
   * process's own buckets decide it, for the next few seconds (common/shared-query-rate.ts).
   */
  LUNANEXA_GRAPHQL_RATE_DB_TIMEOUT_MS: z.coerce.number().int().min(10).max(10_000).default(250),
  /** Connections of the pool that only the GraphQL rate check uses. */
  LUNANEXA_GRAPHQL_RATE_DB_POOL_SIZE: z.coerce.number().int().min(1).max(50).default(4),
  /** How often each api process deletes the rate buckets that are full again (idle callers); 0 never. */
  LUNANEXA_GRAPHQL_RATE_PRUNE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
});
export type ApiConfig = z.infer<typeof ApiConfigSchema>;

export function loadApiConfig(env: Record<string, string | undefined> = process.env): ApiConfig {
  return loadConfig('lunanexa-api', ApiConfigSchema, env);
}

/** Where the controller signing key lives: the configured file, else under the data directory. */
export function controllerKeyFile(
  config: Pick<ApiConfig, 'LUNANEXA_DATA_DIR' | 'LUNANEXA_CONTROLLER_KEY_FILE'>,
): string {
  return resolve(
    config.LUNANEXA_CONTROLLER_KEY_FILE ??
      join(config.LUNANEXA_DATA_DIR, 'controller', 'controller-ed25519.pem'),
  );
}

export function gatewayUrl(
  config: Pick<ApiConfig, 'LUNANEXA_GATEWAY_URL' | 'LUNANEXA_GATEWAY_PORT'>,
): string {
  return (config.LUNANEXA_GATEWAY_URL ?? `http://127.0.0.1:${config.LUNANEXA_GATEWAY_PORT}`).replace(
    /\/+$/,
    '',
  );
}

export const API_CONFIG = Symbol('API_CONFIG');
export const API_LOGGER = Symbol('API_LOGGER');
export const BUILD_INFO = Symbol('BUILD_INFO');
