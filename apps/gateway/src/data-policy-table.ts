import { DATA_CLASSES, type DataClass, type TenantDataPolicy, defaultDataPolicy } from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import { dataPolicyRows, queryableOf, type DataPolicyRow } from '@lunanexa/persistence';
import { Pool } from 'pg';
import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The gateway's view of tenant data policies, behind a port like the route
 * table: `policyFor` is a synchronous Map lookup on an in-memory snapshot,
 * so the request path never waits on PostgreSQL. A tenant without a policy
 * gets the default (contracts data-policy.ts: keep nothing, no consent,
 * data class internal).
 */
export interface DataPolicyTable {
  policyFor(tenantId: string): TenantDataPolicy;
  /** True once the first snapshot loaded; until then the gateway is not ready and refuses inference. */
  ready(): boolean;
}

/** A fixed table: no control plane (every tenant gets the default), and tests. */
export class StaticDataPolicyTable implements DataPolicyTable {
  private readonly policies: ReadonlyMap<string, TenantDataPolicy>;

  constructor(policies: readonly TenantDataPolicy[] = []) {
    this.policies = new Map(policies.map((policy) => [policy.tenantId, policy]));
  }

  policyFor(tenantId: string): TenantDataPolicy {
    return this.policies.get(tenantId) ?? defaultDataPolicy(tenantId);
  }

  ready(): boolean {
    return true;
  }
}

/**
 * A row as a policy. The database's CHECK constraints make a bad row
 * impossible; should one appear anyway, it reads as the most cautious
 * policy (restricted, keep nothing) rather than something more permissive.
 */
export function policyFromRow(row: DataPolicyRow): TenantDataPolicy {
  const dataClass: DataClass = (DATA_CLASSES as readonly string[]).includes(row.data_class)
    ? (row.data_class as DataClass)
    : 'restricted';
  const days = row.retention_days;
  return {
    tenantId: row.tenant_id,
    dataClass,
    retention:
      row.retention_mode === 'days' && days !== null && days >= 1 ? { mode: 'days', days } : { mode: 'none' },
    evaluationCaptureConsent: row.evaluation_capture_consent === true,
    updatedBy: row.updated_by,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

export interface PostgresDataPolicyTableOptions {
  readonly databaseUrl: string;
  readonly logger: Logger;
  readonly refreshMs: number;
  readonly registry?: Registry;
}

/**
 * Policies from PostgreSQL, reloaded every `refreshMs`. A failed refresh
 * keeps the last snapshot (a policy change takes effect one refresh late, an
 * outage does not turn every tenant into the default); before the first load
 * ready() is false, so no request is served under a policy we have not read.
 */
export class PostgresDataPolicyTable implements DataPolicyTable {
  private readonly pool: Pool;
  private readonly failures: Counter;
  private snapshot: ReadonlyMap<string, TenantDataPolicy> = new Map();
  private loaded = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<boolean> | undefined;
  private closed = false;
  private consecutiveFailures = 0;

  constructor(private readonly options: PostgresDataPolicyTableOptions) {
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      max: 1,
      application_name: 'lunanexa-gateway-data-policies',
      connectionTimeoutMillis: 5000,
      statement_timeout: 5000,
    });
    this.pool.on('error', (error) => options.logger.warn({ err: error }, 'data policy connection error'));
    const registers = options.registry ? [options.registry] : [];
    this.failures = new Counter({
      name: 'lunanexa_gateway_data_policy_refresh_failures_total',
      help: 'Data policy refreshes from PostgreSQL that failed; the previous snapshot kept applying.',
      registers,
    });
    const snapshotSize = (): number => this.snapshot.size;
    new Gauge({
      name: 'lunanexa_gateway_data_policies',
      help: 'Tenant data policies in the gateway snapshot (tenants without one get the default).',
      registers,
      collect() {
        this.set(snapshotSize());
      },
    });
  }

  policyFor(tenantId: string): TenantDataPolicy {
    return this.snapshot.get(tenantId) ?? defaultDataPolicy(tenantId);
  }

  ready(): boolean {
    return this.loaded;
  }

  start(): void {
    if (this.timer !== undefined || this.closed) return;
    const tick = (): void => {
      void this.refresh().then(() => {
        if (this.closed) return;
        this.timer = setTimeout(tick, this.options.refreshMs);
        this.timer.unref();
      });
    };
    tick();
  }

  /** One reload, after any already running; resolves true when the snapshot was replaced. */
  refresh(): Promise<boolean> {
    const previous = this.running ?? Promise.resolve(true);
    const next = previous.then(() => this.load());
    this.running = next;
    return next;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.running;
    await this.pool.end();
  }

  private async load(): Promise<boolean> {
    try {
      const rows = await dataPolicyRows(queryableOf(this.pool));
      this.snapshot = new Map(rows.map((row) => [row.tenant_id, policyFromRow(row)]));
      this.loaded = true;
      this.consecutiveFailures = 0;
      return true;
    } catch (error: unknown) {
      this.failures.inc();
      this.consecutiveFailures += 1;
      // One line when an outage starts, not one per refresh interval.
      if (this.consecutiveFailures === 1)
        this.options.logger.warn({ err: error }, 'data policy refresh failed; the previous snapshot applies');
      return false;
    }
  }
}
