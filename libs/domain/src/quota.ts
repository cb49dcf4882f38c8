/**
 * Tenant quota arithmetic: requests per minute, tokens per minute and
 * concurrent requests. Pure — the caller owns the clock and the state — so
 * the gateway's enforcement and these rules are tested apart.
 *
 * Per-minute limits are token buckets: capacity = the limit, refilled
 * continuously at limit/60 per second, so a tenant may burst up to one
 * minute's allowance and then proceeds at the steady rate.
 *
 * - requests/minute: a request takes one unit at admission; refused when less
 *   than one is left.
 * - tokens/minute: the size of a completion is unknown until it ends, so a
 *   request is admitted while the bucket is not in debt and its real usage
 *   (prompt + completion tokens) is charged when it finishes; the bucket may
 *   go negative, and the tenant waits until it has refilled past zero.
 * - concurrent requests: counted from admission until the response closes.
 *
 * A `null` limit means unlimited.
 */

export interface TenantQuotaLimits {
  readonly requestsPerMinute: number | null;
  readonly tokensPerMinute: number | null;
  readonly maxConcurrentRequests: number | null;
}

export type QuotaLimitName = keyof TenantQuotaLimits;

/** Mutable per-tenant usage; create with `newQuotaUsage`. */
export interface QuotaUsage {
  requestTokens: number;
  completionTokens: number;
  inFlight: number;
  /** When the buckets were last refilled (ms, the caller's clock). */
  refilledAtMs: number;
  /** The limits the buckets were last filled against: a limit newly set on an unlimited tenant starts full. */
  limits: TenantQuotaLimits;
}

export type QuotaDecision =
  | { readonly admit: true }
  | { readonly admit: false; readonly limit: QuotaLimitName; readonly retryAfterSeconds: number };

const MS_PER_MINUTE = 60_000;
/** Retry-After never says more than this: a caller should come back and learn the current state. */
export const MAX_RETRY_AFTER_SECONDS = 60;

export function newQuotaUsage(limits: TenantQuotaLimits, nowMs: number): QuotaUsage {
  return {
    requestTokens: limits.requestsPerMinute ?? 0,
    completionTokens: limits.tokensPerMinute ?? 0,
    inFlight: 0,
    refilledAtMs: nowMs,
    limits,
  };
}

function refillBucket(level: number, limit: number | null, elapsedMs: number): number {
  if (limit === null) return 0;
  // A limit lowered since the last refill caps a full bucket at the new limit.
  return Math.min(limit, level + (limit * elapsedMs) / MS_PER_MINUTE);
}

/** Brings both buckets up to `nowMs`. A clock that went backwards refills nothing. */
export function refillQuota(usage: QuotaUsage, limits: TenantQuotaLimits, nowMs: number): void {
  if (usage.limits !== limits) {
    if (usage.limits.requestsPerMinute === null && limits.requestsPerMinute !== null)
      usage.requestTokens = limits.requestsPerMinute;
    if (usage.limits.tokensPerMinute === null && limits.tokensPerMinute !== null)
      usage.completionTokens = limits.tokensPerMinute;
    usage.limits = limits;
  }
  const elapsed = Math.max(0, nowMs - usage.refilledAtMs);
  usage.requestTokens = refillBucket(usage.requestTokens, limits.requestsPerMinute, elapsed);
  usage.completionTokens = refillBucket(usage.completionTokens, limits.tokensPerMinute, elapsed);
  usage.refilledAtMs = Math.max(usage.refilledAtMs, nowMs);
}

/** Whole seconds until a bucket at `level` holds `needed`, at `limit` per minute; at least 1. */
export function secondsUntil(level: number, needed: number, limit: number): number {
  const missing = needed - level;
  if (missing <= 0) return 1;
  const seconds = Math.ceil((missing * MS_PER_MINUTE) / limit / 1000);
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, seconds));
}

/**
 * Admits one request (taking its request unit and a concurrency slot) or
 * says which limit refused it and when to retry. Checked in a fixed order —
 * concurrency, requests, tokens — so the answer names the limit that will
 * still apply when the caller comes back.
 */
export function admitRequest(usage: QuotaUsage, limits: TenantQuotaLimits, nowMs: number): QuotaDecision {
  refillQuota(usage, limits, nowMs);
  if (limits.maxConcurrentRequests !== null && usage.inFlight >= limits.maxConcurrentRequests)
    return { admit: false, limit: 'maxConcurrentRequests', retryAfterSeconds: 1 };
  if (limits.requestsPerMinute !== null && usage.requestTokens < 1)
    return {
      admit: false,
      limit: 'requestsPerMinute',
      retryAfterSeconds: secondsUntil(usage.requestTokens, 1, limits.requestsPerMinute),
    };
  if (limits.tokensPerMinute !== null && usage.completionTokens <= 0)
    return {
      admit: false,
      limit: 'tokensPerMinute',
      // Strictly above zero: an empty bucket admits nothing.
      retryAfterSeconds: secondsUntil(usage.completionTokens, Number.MIN_VALUE, limits.tokensPerMinute),
    };
  if (limits.requestsPerMinute !== null) usage.requestTokens -= 1;
  usage.inFlight += 1;
  return { admit: true };
}

/** A request admitted by `admitRequest` ended: frees its slot and charges the tokens it used. */
export function finishRequest(
  usage: QuotaUsage,
  limits: TenantQuotaLimits,
  tokensUsed: number,
  nowMs: number,
): void {
  refillQuota(usage, limits, nowMs);
  usage.inFlight = Math.max(0, usage.inFlight - 1);
  if (limits.tokensPerMinute !== null && Number.isFinite(tokensUsed) && tokensUsed > 0) {
    // Debt is bounded at one minute's allowance, so one huge completion blocks a tenant for at most a minute.
    usage.completionTokens = Math.max(-limits.tokensPerMinute, usage.completionTokens - tokensUsed);
  }
}
