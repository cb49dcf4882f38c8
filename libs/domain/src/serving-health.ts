import type { ServingHealthState } from '@lunanexa/contracts';

/**
 * What an application router needs to know about one model it may call:
 * whether it can take traffic now. Derived from the gateway's own view
 * (replicas it routes to, requests it finished recently, requests waiting),
 * so it answers without a database round trip on the request path.
 */

/** Recent outcomes are kept for this long; older buckets age out. */
export const RECENT_OUTCOME_WINDOW_SECONDS = 60;
const BUCKET_SECONDS = 5;
const BUCKETS = RECENT_OUTCOME_WINDOW_SECONDS / BUCKET_SECONDS;

/**
 * Above this share of failed requests (with at least MIN_REQUESTS_FOR_RATE
 * in the window) a model is `degraded`: still routable, but a router with an
 * alternative should prefer it.
 */
export const DEGRADED_ERROR_RATE = 0.2;
export const MIN_REQUESTS_FOR_RATE = 5;

export interface OutcomeCounts {
  readonly requests: number;
  readonly errors: number;
}

/**
 * Requests and failures per target over the last minute, in 5 s buckets: a
 * ring per target, so recording is O(1) and memory is bounded by the number
 * of targets, not by traffic.
 */
export class RecentOutcomes {
  private readonly rings = new Map<string, { epochs: number[]; requests: number[]; errors: number[] }>();

  record(target: string, failed: boolean, nowMs: number): void {
    const epoch = Math.floor(nowMs / 1000 / BUCKET_SECONDS);
    let ring = this.rings.get(target);
    if (ring === undefined) {
      ring = {
        epochs: new Array<number>(BUCKETS).fill(-1),
        requests: new Array<number>(BUCKETS).fill(0),
        errors: new Array<number>(BUCKETS).fill(0),
      };
      this.rings.set(target, ring);
    }
    const slot = epoch % BUCKETS;
    if (ring.epochs[slot] !== epoch) {
      ring.epochs[slot] = epoch;
      ring.requests[slot] = 0;
      ring.errors[slot] = 0;
    }
    ring.requests[slot] += 1;
    if (failed) ring.errors[slot] += 1;
  }

  counts(target: string, nowMs: number): OutcomeCounts {
    const ring = this.rings.get(target);
    if (ring === undefined) return { requests: 0, errors: 0 };
    const oldest = Math.floor(nowMs / 1000 / BUCKET_SECONDS) - BUCKETS + 1;
    let requests = 0;
    let errors = 0;
    for (let slot = 0; slot < BUCKETS; slot += 1) {
      if (ring.epochs[slot] < oldest) continue;
      requests += ring.requests[slot];
      errors += ring.errors[slot];
    }
    return { requests, errors };
  }
}

/** Terminal workload states that count as a failure of the serving side, not of the caller. */
const FAILED_OUTCOMES: ReadonlySet<string> = new Set(['Failed', 'TimedOut']);

/**
 * Whether a finished request counts against the model's health: it failed or
 * timed out, or it was refused with a server-side status (5xx). A caller's own
 * mistakes (400, 403, 429 for its quota) say nothing about the model.
 */
export function countsAsServingFailure(outcome: string, httpStatus: number | undefined): boolean {
  return FAILED_OUTCOMES.has(outcome) || (httpStatus !== undefined && httpStatus >= 500);
}

export interface ServingHealthInput {
  readonly readyReplicas: number;
  readonly recent: OutcomeCounts;
  readonly queued: number;
  readonly inFlight: number;
}

export interface ServingHealth {
  readonly state: ServingHealthState;
  readonly readyReplicas: number;
  readonly recentRequests: number;
  /** Share of recent requests that failed on the serving side, 0..1; 0 with no traffic. */
  readonly recentErrorRate: number;
  readonly windowSeconds: number;
  readonly queued: number;
  readonly inFlight: number;
}

export function servingHealth(input: ServingHealthInput): ServingHealth {
  const { requests, errors } = input.recent;
  const recentErrorRate = requests === 0 ? 0 : Math.round((errors / requests) * 1000) / 1000;
  const state: ServingHealthState =
    input.readyReplicas === 0
      ? 'unavailable'
      : requests >= MIN_REQUESTS_FOR_RATE && recentErrorRate > DEGRADED_ERROR_RATE
        ? 'degraded'
        : 'ready';
  return {
    state,
    readyReplicas: input.readyReplicas,
    recentRequests: requests,
    recentErrorRate,
    windowSeconds: RECENT_OUTCOME_WINDOW_SECONDS,
    queued: input.queued,
    inFlight: input.inFlight,
  };
}
