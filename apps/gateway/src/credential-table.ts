import { createPublicKey } from 'node:crypto';
import { type WorkloadPriority, WorkloadPrioritySchema } from '@lunanexa/contracts';
import type { TenantQuotaLimits } from '@lunanexa/domain';
import type { VerifyingKey } from '@lunanexa/credentials';
import type { Logger } from '@lunanexa/observability';
import {
  GATEWAY_CREDENTIALS_CHANNEL,
  type GatewayCredentialSnapshot,
  type GatewayKeyCredential,
  type OperatorCredential,
  type OperatorTokenCredential,
  loadGatewayCredentials,
  touchGatewayKeysLastUsed,
  listenTo,
  queryableOf,
} from '@lunanexa/persistence';
import { Client, Pool } from 'pg';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The gateway's view of who may call it, behind a port like the route table:
 * every lookup is a Map read on an in-memory snapshot, so authenticating a
 * request never waits on PostgreSQL. Keys are found by the sha256 of the
 * presented secret; the table holds hashes only.
 */
export interface CredentialTable {
  /** True once the first snapshot loaded; until then /v1 answers 503 and /ready 503. */
  ready(): boolean;
  gatewayKey(keyHash: string): GatewayKeyCredential | undefined;
  operatorToken(tokenHash: string): OperatorTokenCredential | undefined;
  operator(operatorId: string): OperatorCredential | undefined;
  controllerKey(fingerprint: string): VerifyingKey | undefined;
  /** A tenant's limits; a tenant nobody configured (or not in the table) is unlimited. */
  quota(tenantId: string): TenantQuotaLimits;
  /** The highest priority the tenant's requests may run at; null: any (and for a tenant not in the table). */
  maxPriority(tenantId: string): WorkloadPriority | null;
  /** Notes a key's use; written to `last_used_at` in batches, never on the request path. */
  keyUsed(keyId: string, at: Date): void;
  /**
   * A caller presented a credential the snapshot does not have: it may have
   * been created a moment ago, its notification still on the way. Resolves
   * after a reload that started after this call, so it sees every key
   * committed before the request arrived. Reloads for misses start at most
   * once per `MISS_RELOAD_INTERVAL_MS` and the misses waiting for one share
   * it: a flood of bad keys costs one reload a second, and each bad key
   * waits at most that long for its 401. Absent for tables that cannot reload.
   */
  reloadAfterMiss?(): Promise<void>;
}

/** At most one reload a second for credentials the snapshot does not know. */
export const MISS_RELOAD_INTERVAL_MS = 1_000;

export const UNLIMITED: TenantQuotaLimits = Object.freeze({
  requestsPerMinute: null,
  tokensPerMinute: null,
  maxConcurrentRequests: null,
});

interface Indexed {
  readonly keys: ReadonlyMap<string, GatewayKeyCredential>;
  readonly tokens: ReadonlyMap<string, OperatorTokenCredential>;
  readonly operators: ReadonlyMap<string, OperatorCredential>;
  readonly controllerKeys: ReadonlyMap<string, VerifyingKey>;
  readonly quotas: ReadonlyMap<string, TenantQuotaLimits>;
  readonly maxPriorities: ReadonlyMap<string, WorkloadPriority>;
}

/**
 * Builds the lookup maps. A tenant's limits object is reused when unchanged
 * across reloads, so quota state keyed on it (domain/quota.ts) notices only
 * real changes. A public key that does not parse is skipped and reported.
 */
export function indexCredentials(
  snapshot: GatewayCredentialSnapshot,
  previous: Indexed | undefined,
  onBadKey: (fingerprint: string) => void = () => undefined,
): Indexed {
  const quotas = new Map<string, TenantQuotaLimits>();
  for (const tenant of snapshot.tenants) {
    const before = previous?.quotas.get(tenant.tenantId);
    const same =
      before !== undefined &&
      before.requestsPerMinute === tenant.requestsPerMinute &&
      before.tokensPerMinute === tenant.tokensPerMinute &&
      before.maxConcurrentRequests === tenant.maxConcurrentRequests;
    quotas.set(
      tenant.tenantId,
      same
        ? before
        : Object.freeze({
            requestsPerMinute: tenant.requestsPerMinute,
            tokensPerMinute: tenant.tokensPerMinute,
            maxConcurrentRequests: tenant.maxConcurrentRequests,
          }),
    );
  }
  const maxPriorities = new Map<string, WorkloadPriority>();
  for (const tenant of snapshot.tenants) {
    // A value this build does not know caps nothing rather than refusing the tenant's traffic.
    const cap = WorkloadPrioritySchema.safeParse(tenant.maxPriority).data;
    if (cap !== undefined) maxPriorities.set(tenant.tenantId, cap);
  }
  const controllerKeys = new Map<string, VerifyingKey>();
  for (const key of snapshot.controllerKeys) {
    const known = previous?.controllerKeys.get(key.fingerprint);
    if (known !== undefined) {
      controllerKeys.set(key.fingerprint, known);
      continue;
    }
    try {
      const publicKey = createPublicKey({ key: key.publicKeyPem, format: 'pem' });
      if (publicKey.asymmetricKeyType !== 'ed25519') throw new Error('not Ed25519');
      controllerKeys.set(key.fingerprint, { publicKey, fingerprint: key.fingerprint });
    } catch {
      onBadKey(key.fingerprint);
    }
  }
  return {
    keys: new Map(snapshot.gatewayKeys.map((key) => [key.keyHash, key])),
    tokens: new Map(snapshot.operatorTokens.map((token) => [token.tokenHash, token])),
    operators: new Map(snapshot.operators.map((operator) => [operator.id, operator])),
    controllerKeys,
    quotas,
    maxPriorities,
  };
}

const EMPTY_SNAPSHOT: GatewayCredentialSnapshot = {
  tenants: [],
  gatewayKeys: [],
  operatorTokens: [],
  operators: [],
  controllerKeys: [],
};

/** A fixed table: tests, and a gateway run without a control plane (then nobody can call /v1). */
export class StaticCredentialTable implements CredentialTable {
  readonly used = new Map<string, Date>();
  /** Unset: a fixed table has nothing to reload. A test sets it to play the reload a miss asks for. */
  reloadAfterMiss?: () => Promise<void>;
  private indexed: Indexed;

  constructor(snapshot: Partial<GatewayCredentialSnapshot> = {}) {
    this.indexed = indexCredentials({ ...EMPTY_SNAPSHOT, ...snapshot }, undefined);
  }

  /** Replaces the contents, as a reload would. */
  replace(snapshot: Partial<GatewayCredentialSnapshot>): void {
    this.indexed = indexCredentials({ ...EMPTY_SNAPSHOT, ...snapshot }, this.indexed);
  }

  ready(): boolean {
    return true;
  }
  gatewayKey(keyHash: string): GatewayKeyCredential | undefined {
    return this.indexed.keys.get(keyHash);
  }
  operatorToken(tokenHash: string): OperatorTokenCredential | undefined {
    return this.indexed.tokens.get(tokenHash);
  }
  operator(operatorId: string): OperatorCredential | undefined {
    return this.indexed.operators.get(operatorId);
  }
  controllerKey(fingerprint: string): VerifyingKey | undefined {
    return this.indexed.controllerKeys.get(fingerprint);
  }
  quota(tenantId: string): TenantQuotaLimits {
    return this.indexed.quotas.get(tenantId) ?? UNLIMITED;
  }
  maxPriority(tenantId: string): WorkloadPriority | null {
    return this.indexed.maxPriorities.get(tenantId) ?? null;
  }
  keyUsed(keyId: string, at: Date): void {
    this.used.set(keyId, at);
  }
}

export const DEFAULT_CREDENTIAL_REFRESH_MS = 30_000;
/** How often gateway keys' last use is written. */
const KEY_USE_FLUSH_MS = 30_000;
/** After a lost LISTEN connection, wait this long before dialling again. */
const LISTEN_RETRY_MS = 2_000;

export interface PostgresCredentialTableOptions {
  readonly databaseUrl: string;
  readonly logger: Logger;
  /** Safety-net reload interval; changes arrive by NOTIFY at once. */
  readonly refreshMs?: number;
  readonly registry?: Registry;
}

/**
 * Credentials from PostgreSQL. A LISTEN connection on
 * `lunanexa_gateway_credentials` reloads the snapshot as soon as a tenant,
 * key, operator, API token or controller key changes (so revoking a key
 * takes effect within one round trip), and a timer reloads it every
 * `refreshMs` in case a notification was lost while the connection was down.
 * A failed reload keeps the last snapshot: an outage does not lock every
 * tenant out, nor let a revoked key back in.
 */
export class PostgresCredentialTable implements CredentialTable {
  private readonly pool: Pool;
  private readonly logger: Logger;
  private readonly refreshMs: number;
  private readonly failures: Counter;
  private readonly reloads: Counter;
  private indexed: Indexed | undefined;
  private loadedAtMs: number | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private pending = false;
  private timer: NodeJS.Timeout | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private listener: Client | undefined;
  private closed = false;
  private consecutiveFailures = 0;
  private readonly used = new Map<string, Date>();
  /** When the last reload a miss asked for started; the next waits out the interval from here. */
  private lastMissReloadAtMs = Number.NEGATIVE_INFINITY;
  /** A reload misses asked for that has not started yet: later misses join it. */
  private nextMissReload:
    | { readonly timer: NodeJS.Timeout; readonly done: Promise<void>; readonly resolve: () => void }
    | undefined;

  constructor(private readonly options: PostgresCredentialTableOptions) {
    this.logger = options.logger;
    this.refreshMs = options.refreshMs ?? DEFAULT_CREDENTIAL_REFRESH_MS;
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      application_name: 'lunanexa-gateway-credentials',
      max: 1,
      connectionTimeoutMillis: 5000,
      statement_timeout: 5000,
      query_timeout: 5000,
    });
    this.pool.on('error', (error) => this.logger.warn({ err: error }, 'credential connection error'));
    const registers = options.registry ? [options.registry] : [];
    this.failures = new Counter({
      name: 'lunanexa_gateway_credential_refresh_failures_total',
      help: 'Credential reloads from PostgreSQL that failed; the previous snapshot kept applying.',
      registers,
    });
    this.reloads = new Counter({
      name: 'lunanexa_gateway_credential_reloads_total',
      help: 'Credential snapshots loaded from PostgreSQL (at start, on a change notification, on the safety-net timer).',
      registers,
    });
    const age = (): number =>
      this.loadedAtMs === undefined ? Number.NaN : (Date.now() - this.loadedAtMs) / 1000;
    new Gauge({
      name: 'lunanexa_gateway_credential_snapshot_age_seconds',
      help: 'Seconds since the credential snapshot (gateway keys, tenants, operator tokens) was loaded.',
      registers,
      collect() {
        this.set(age());
      },
    });
  }

  ready(): boolean {
    return this.indexed !== undefined;
  }
  gatewayKey(keyHash: string): GatewayKeyCredential | undefined {
    return this.indexed?.keys.get(keyHash);
  }
  operatorToken(tokenHash: string): OperatorTokenCredential | undefined {
    return this.indexed?.tokens.get(tokenHash);
  }
  operator(operatorId: string): OperatorCredential | undefined {
    return this.indexed?.operators.get(operatorId);
  }
  controllerKey(fingerprint: string): VerifyingKey | undefined {
    return this.indexed?.controllerKeys.get(fingerprint);
  }
  quota(tenantId: string): TenantQuotaLimits {
    return this.indexed?.quotas.get(tenantId) ?? UNLIMITED;
  }
  maxPriority(tenantId: string): WorkloadPriority | null {
    return this.indexed?.maxPriorities.get(tenantId) ?? null;
  }
  keyUsed(keyId: string, at: Date): void {
    this.used.set(keyId, at);
  }
  reloadAfterMiss(): Promise<void> {
    // Joining a reload that already started would read the table as it was
    // before this caller's key may have been committed: wait for the next one.
    if (this.nextMissReload) return this.nextMissReload.done;
    if (this.closed) return Promise.resolve();
    const delayMs = Math.max(0, this.lastMissReloadAtMs + MISS_RELOAD_INTERVAL_MS - Date.now());
    let resolve!: () => void;
    const done = new Promise<void>((settle) => (resolve = settle));
    const timer = setTimeout(() => {
      this.nextMissReload = undefined;
      this.lastMissReloadAtMs = Date.now();
      void this.refresh().then(resolve, resolve);
    }, delayMs);
    this.nextMissReload = { timer, done, resolve };
    return done;
  }

  start(): void {
    if (this.closed || this.timer !== undefined) return;
    void this.listen();
    const tick = (): void => {
      void this.refresh().then(() => {
        if (this.closed) return;
        this.timer = setTimeout(tick, this.refreshMs);
        this.timer.unref();
      });
    };
    tick();
    this.flushTimer = setInterval(() => void this.flushKeyUse(), KEY_USE_FLUSH_MS);
    this.flushTimer.unref();
  }

  /**
   * One reload after any already running. Notifications that arrive while a
   * reload waits to run are folded into it: a burst of changes costs one reload.
   */
  refresh(): Promise<boolean> {
    if (this.pending) return this.queue.then(() => this.indexed !== undefined);
    this.pending = true;
    const run = this.queue.then(() => {
      this.pending = false;
      return this.load();
    });
    this.queue = run;
    return run;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.flushTimer);
    if (this.nextMissReload) {
      clearTimeout(this.nextMissReload.timer);
      this.nextMissReload.resolve();
      this.nextMissReload = undefined;
    }
    await this.queue;
    await this.flushKeyUse();
    await this.listener?.end().catch(() => undefined);
    await this.pool.end();
  }

  private async load(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const snapshot = await loadGatewayCredentials(queryableOf(this.pool));
      this.indexed = indexCredentials(snapshot, this.indexed, (fingerprint) =>
        this.logger.error(
          { fingerprint },
          'controller public key does not parse; session tokens it signed are refused',
        ),
      );
      this.loadedAtMs = Date.now();
      this.reloads.inc();
      if (this.consecutiveFailures > 0)
        this.logger.info({ failedReloads: this.consecutiveFailures }, 'credential reload recovered');
      this.consecutiveFailures = 0;
      return true;
    } catch (error: unknown) {
      this.failures.inc();
      this.consecutiveFailures += 1;
      if (this.consecutiveFailures === 1)
        this.logger.warn({ err: error }, 'credential reload failed; the previous snapshot applies');
      return false;
    }
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new Client({
      connectionString: this.options.databaseUrl,
      application_name: 'lunanexa-gateway-credentials-listen',
      connectionTimeoutMillis: 5000,
    });
    const retry = (): void => {
      if (this.closed || this.listener !== client) return;
      this.listener = undefined;
      client.removeAllListeners();
      void client.end().catch(() => undefined);
      const timer = setTimeout(() => {
        // Whatever changed while we were not listening is picked up by this reload.
        void this.listen().then(() => this.refresh());
      }, LISTEN_RETRY_MS);
      timer.unref();
    };
    this.listener = client;
    client.on('error', (error) => {
      this.logger.warn({ err: error }, 'credential change listener failed; reconnecting');
      retry();
    });
    client.on('end', retry);
    client.on('notification', () => void this.refresh());
    try {
      await client.connect();
      await listenTo(client, GATEWAY_CREDENTIALS_CHANNEL);
    } catch (error: unknown) {
      this.logger.warn({ err: error }, 'credential change listener could not connect; retrying');
      retry();
    }
  }

  private async flushKeyUse(): Promise<void> {
    if (this.used.size === 0) return;
    const entries = [...this.used].map(([id, usedAt]) => ({ id, lastUsedAt: usedAt.toISOString() }));
    this.used.clear();
    try {
      await touchGatewayKeysLastUsed(queryableOf(this.pool), entries);
    } catch (error: unknown) {
      // Last use is informational; losing one flush only makes it a little older.
      this.logger.warn({ err: error, keys: entries.length }, 'could not record gateway keys last use');
    }
  }
}
