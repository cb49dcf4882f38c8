import {
  admitRequest,
  finishRequest,
  newQuotaUsage,
  refillQuota,
  type QuotaDecision,
  type QuotaUsage,
  type TenantQuotaLimits,
} from '@lunanexa/domain';

/** What a worker asking for a lease gets: `granted` admissions (at least one), or the refusal. */
export type LeaseDecision =
  { readonly admit: true; readonly granted: number } | Extract<QuotaDecision, { readonly admit: false }>;

/**
 * The cluster primary's tenant quota counters, shared by every worker
 * process (domain/quota.ts does the arithmetic). Workers send the limits
 * they read from PostgreSQL with each message, so the primary needs no
 * database.
 *
 * Workers lease admissions in batches (`lease`): each admission of a lease
 * is counted here when it is granted — its request unit taken, its
 * concurrency slot held — exactly as if a request had arrived, so the sum of
 * what every worker admits never exceeds a concurrency or requests-per-minute
 * limit. A worker gives back what it did not use (`giveBack`): the slot is
 * freed and the request unit returned to the bucket. A lease is at most a
 * share of the tenant's headroom (1/(2 × workers) of what is left under its
 * tightest limit), so near a limit every worker asks one admission at a time
 * and idle leases cannot starve another worker of more than half the headroom.
 *
 * The ledger also remembers which worker holds which slots (leased and in
 * use): when a worker dies, its requests died with it and the slots are freed.
 */
export class QuotaLedger {
  private readonly usage = new Map<string, QuotaUsage>();
  /** Slots held per worker and tenant: admissions leased and not yet finished or given back. */
  private readonly held = new Map<number, Map<string, number>>();

  constructor(
    private readonly now: () => number = Date.now,
    /** Worker processes sharing the counters: a lease is at most 1/(2 × workers) of the headroom. */
    private readonly workers = 1,
  ) {}

  /** One admission (a lease of one). */
  admit(worker: number, tenantId: string, limits: TenantQuotaLimits): QuotaDecision {
    const decision = this.lease(worker, tenantId, limits, 1);
    return decision.admit ? { admit: true } : decision;
  }

  /**
   * Up to `want` admissions for `worker`, each counted as an admitted
   * request. At least one when the tenant is within its limits; fewer than
   * `want` near a limit.
   */
  lease(worker: number, tenantId: string, limits: TenantQuotaLimits, want: number): LeaseDecision {
    const nowMs = this.now();
    let usage = this.usage.get(tenantId);
    if (usage === undefined) {
      usage = newQuotaUsage(limits, nowMs);
      this.usage.set(tenantId, usage);
    }
    const current = this.interned(usage, limits);
    const first = admitRequest(usage, current, nowMs);
    if (!first.admit) return first;
    const wanted = Math.max(1, Math.floor(want));
    const more = Math.min(wanted - 1, this.share(usage, current));
    let granted = 1;
    // Refilled by the first admission already: the rest need no clock reading of their own.
    while (granted <= more && admitRequest(usage, current, nowMs).admit) granted += 1;
    this.hold(worker, tenantId, granted);
    return { admit: true, granted };
  }

  /** `count` admitted requests of `worker` ended, using `tokensUsed` tokens between them. */
  finish(worker: number, tenantId: string, limits: TenantQuotaLimits, tokensUsed: number, count = 1): void {
    const usage = this.usage.get(tenantId);
    // A finish for slots this ledger never granted (or already freed with their worker) charges nothing.
    const slots = this.release(worker, tenantId, count);
    if (usage === undefined || slots === 0) return;
    const current = this.interned(usage, limits);
    const nowMs = this.now();
    // The tokens of every finished request are charged, the slots only as far as this worker held them.
    finishRequest(usage, current, tokensUsed, nowMs);
    usage.inFlight = Math.max(0, usage.inFlight - (slots - 1));
  }

  /**
   * `count` leased admissions `worker` did not use: their slots are free and
   * their request units back in the bucket (never above the limit).
   */
  giveBack(worker: number, tenantId: string, limits: TenantQuotaLimits, count: number): void {
    const usage = this.usage.get(tenantId);
    const slots = this.release(worker, tenantId, count);
    if (usage === undefined || slots === 0) return;
    const current = this.interned(usage, limits);
    refillQuota(usage, current, this.now());
    usage.inFlight = Math.max(0, usage.inFlight - slots);
    if (current.requestsPerMinute !== null)
      usage.requestTokens = Math.min(current.requestsPerMinute, usage.requestTokens + slots);
  }

  /** Workers other than `worker` holding slots of `tenantId` (asked to give back what they do not use). */
  holdersOf(tenantId: string, except: number): number[] {
    const holders: number[] = [];
    for (const [worker, tenants] of this.held)
      if (worker !== except && (tenants.get(tenantId) ?? 0) > 0) holders.push(worker);
    return holders;
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

  /** Requests in flight (or leased to a worker) per tenant across every worker. */
  inFlight(): ReadonlyMap<string, number> {
    const counts = new Map<string, number>();
    for (const [tenantId, usage] of this.usage) if (usage.inFlight > 0) counts.set(tenantId, usage.inFlight);
    return counts;
  }

  /** How many more admissions one lease may hold beyond its first: a share of the headroom left. */
  private share(usage: QuotaUsage, limits: TenantQuotaLimits): number {
    let headroom = Number.POSITIVE_INFINITY;
    if (limits.maxConcurrentRequests !== null)
      headroom = Math.min(headroom, limits.maxConcurrentRequests - usage.inFlight);
    if (limits.requestsPerMinute !== null) headroom = Math.min(headroom, usage.requestTokens);
    return Math.max(0, Math.floor(headroom / (2 * this.workers)));
  }

  private hold(worker: number, tenantId: string, slots: number): void {
    let tenants = this.held.get(worker);
    if (tenants === undefined) {
      tenants = new Map();
      this.held.set(worker, tenants);
    }
    tenants.set(tenantId, (tenants.get(tenantId) ?? 0) + slots);
  }

  /** Takes up to `count` of `worker`'s slots of `tenantId`; how many it held of them. */
  private release(worker: number, tenantId: string, count: number): number {
    const tenants = this.held.get(worker);
    const held = tenants?.get(tenantId) ?? 0;
    const slots = Math.min(held, Math.max(0, Math.floor(count)));
    if (tenants === undefined || slots === 0) return 0;
    if (held === slots) tenants.delete(tenantId);
    else tenants.set(tenantId, held - slots);
    return slots;
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
