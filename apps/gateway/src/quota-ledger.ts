import {
  admitRequest,
  finishRequest,
  newQuotaUsage,
  type QuotaDecision,
  type QuotaUsage,
  type TenantQuotaLimits,
} from '@lunanexa/domain';

/**
 * The cluster primary's tenant quota counters, shared by every worker
 * process (domain/quota.ts does the arithmetic). Workers send the limits
 * they read from PostgreSQL with each request, so the primary needs no
 * database. It also remembers which worker holds which concurrency slots:
 * when a worker dies, its requests died with it and their slots are freed.
 */
export class QuotaLedger {
  private readonly usage = new Map<string, QuotaUsage>();
  /** Slots held per worker and tenant. */
  private readonly held = new Map<number, Map<string, number>>();

  constructor(private readonly now: () => number = Date.now) {}

  admit(worker: number, tenantId: string, limits: TenantQuotaLimits): QuotaDecision {
    const nowMs = this.now();
    let usage = this.usage.get(tenantId);
    if (usage === undefined) {
      usage = newQuotaUsage(limits, nowMs);
      this.usage.set(tenantId, usage);
    }
    const decision = admitRequest(usage, this.interned(usage, limits), nowMs);
    if (decision.admit) {
      let tenants = this.held.get(worker);
      if (tenants === undefined) {
        tenants = new Map();
        this.held.set(worker, tenants);
      }
      tenants.set(tenantId, (tenants.get(tenantId) ?? 0) + 1);
    }
    return decision;
  }

  finish(worker: number, tenantId: string, limits: TenantQuotaLimits, tokensUsed: number): void {
    const usage = this.usage.get(tenantId);
    const tenants = this.held.get(worker);
    const slots = tenants?.get(tenantId) ?? 0;
    // A finish for a slot this ledger never granted (or already freed with its worker) charges nothing.
    if (usage === undefined || tenants === undefined || slots === 0) return;
    if (slots === 1) tenants.delete(tenantId);
    else tenants.set(tenantId, slots - 1);
    finishRequest(usage, this.interned(usage, limits), tokensUsed, this.now());
  }

  /** A worker exited: the requests it was running are over, so their slots are free again. */
  releaseWorker(worker: number): number {
    const tenants = this.held.get(worker);
    this.held.delete(worker);
    let freed = 0;
    for (const [tenantId, slots] of tenants ?? []) {
      const usage = this.usage.get(tenantId);
      if (usage === undefined) continue;
      usage.inFlight = Math.max(0, usage.inFlight - slots);
      freed += slots;
    }
    return freed;
  }

  /** Requests in flight per tenant across every worker. */
  inFlight(): ReadonlyMap<string, number> {
    const counts = new Map<string, number>();
    for (const [tenantId, usage] of this.usage) if (usage.inFlight > 0) counts.set(tenantId, usage.inFlight);
    return counts;
  }

  /**
   * Limits arrive as a fresh object with every message; the quota arithmetic
   * compares them by identity to notice a changed limit, so equal values
   * keep the object it already has.
   */
  private interned(usage: QuotaUsage, limits: TenantQuotaLimits): TenantQuotaLimits {
    const before = usage.limits;
    return before.requestsPerMinute === limits.requestsPerMinute &&
      before.tokensPerMinute === limits.tokensPerMinute &&
      before.maxConcurrentRequests === limits.maxConcurrentRequests
      ? before
      : limits;
  }
}
