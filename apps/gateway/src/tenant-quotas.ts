import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import {
  admitRequest,
  finishRequest,
  newQuotaUsage,
  type QuotaLimitName,
  type QuotaUsage,
  type TenantQuotaLimits,
} from '@lunanexa/domain';
import type { CredentialTable } from './credential-table';

/** A refusal the client should retry later: answered with `Retry-After`. */
export class RetryLaterError extends LunaNexaError {
  constructor(
    code: ErrorCode,
    message: string,
    readonly retryAfterSeconds: number,
    /** Metrics label: which limit or which capacity rule refused. */
    readonly reason: string,
  ) {
    super(code, message);
  }
}

const LIMIT_WORDS: Readonly<Record<QuotaLimitName, string>> = {
  requestsPerMinute: 'requests per minute',
  tokensPerMinute: 'tokens per minute',
  maxConcurrentRequests: 'concurrent requests',
};

/** What `admit` hands back: call `finish` exactly once when the response is over. */
export interface QuotaTicket {
  finish(tokensUsed: number): void;
}

export const NO_TICKET: QuotaTicket = { finish: () => undefined };

/**
 * Where the server asks for a tenant's quota: this process's counters
 * (TenantQuotas) or, with several worker processes, the cluster primary's
 * (ClusterTenantQuotas). A promise only when the answer comes from another
 * process, so a tenant without limits never waits.
 */
export interface TenantQuotaGate {
  admit(tenantId: string): QuotaTicket | Promise<QuotaTicket>;
}

/** Whether a tenant has no limit at all: nothing to count for it. */
export function unlimited(limits: TenantQuotaLimits): boolean {
  return (
    limits.requestsPerMinute === null &&
    limits.tokensPerMinute === null &&
    limits.maxConcurrentRequests === null
  );
}

/** QUOTA_EXCEEDED (429 + Retry-After) naming the limit that refused `tenantId`. */
export function quotaRefusal(
  tenantId: string,
  limits: TenantQuotaLimits,
  decision: { readonly limit: QuotaLimitName; readonly retryAfterSeconds: number },
): RetryLaterError {
  return new RetryLaterError(
    ErrorCode.QUOTA_EXCEEDED,
    `Tenant ${tenantId} is over its limit of ${limitValue(limits, decision.limit)} ${LIMIT_WORDS[decision.limit]}; retry after ${decision.retryAfterSeconds} s.`,
    decision.retryAfterSeconds,
    decision.limit,
  );
}

/**
 * Per-tenant quotas, enforced in this gateway process (domain/quota.ts does
 * the arithmetic): the single-process gateway's, and the cluster primary's
 * behind its workers (cluster.ts). Separate gateway hosts each keep their
 * own counters: with N of them behind a load balancer a tenant gets up to N
 * times its limits, so set limits per host (docs/OPERATIONS.md). Tenants
 * without limits cost one Map lookup.
 */
export class TenantQuotas implements TenantQuotaGate {
  private readonly usage = new Map<string, QuotaUsage>();

  constructor(
    private readonly table: CredentialTable,
    private readonly now: () => number = Date.now,
  ) {}

  /** Admits a request of `tenantId` or throws QUOTA_EXCEEDED with the wait before a retry. */
  admit(tenantId: string): QuotaTicket {
    const limits = this.table.quota(tenantId);
    if (unlimited(limits) && !this.usage.has(tenantId)) return NO_TICKET;
    const nowMs = this.now();
    let usage = this.usage.get(tenantId);
    if (usage === undefined) {
      usage = newQuotaUsage(limits, nowMs);
      this.usage.set(tenantId, usage);
    }
    const decision = admitRequest(usage, limits, nowMs);
    if (!decision.admit) throw quotaRefusal(tenantId, limits, decision);
    const tracked = usage;
    let finished = false;
    return {
      finish: (tokensUsed: number): void => {
        if (finished) return;
        finished = true;
        finishRequest(tracked, this.table.quota(tenantId), tokensUsed, this.now());
      },
    };
  }

  /** Tenants with requests in flight right now (for the metric). */
  inFlight(): ReadonlyMap<string, number> {
    const counts = new Map<string, number>();
    for (const [tenantId, usage] of this.usage) if (usage.inFlight > 0) counts.set(tenantId, usage.inFlight);
    return counts;
  }
}

function limitValue(limits: TenantQuotaLimits, name: QuotaLimitName): number {
  return limits[name] ?? Number.POSITIVE_INFINITY;
}
