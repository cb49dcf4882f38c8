import type { WorkloadPriority } from '@lunanexa/contracts';
import { priorityRank } from './admission';

/**
 * Fairness between tenants at the gateway: a caller's priority is capped by
 * what an admin allowed its tenant; within one priority band waiting requests
 * are served round robin between tenants; a full queue makes room for a
 * tenant below its share by shedding the youngest request of the tenant with
 * the most waiting; and a tenant that holds more slots than another recently
 * active one leaves a little headroom free for it, so a light tenant's
 * request rarely waits behind a heavy one's burst at all.
 */

/** The priority a request runs at: the one asked for, lowered to the tenant's highest allowed one. */
export function clampPriority(
  requested: WorkloadPriority,
  allowed: WorkloadPriority | null,
): { readonly priority: WorkloadPriority; readonly clamped: boolean } {
  if (allowed === null || priorityRank(requested) >= priorityRank(allowed))
    return { priority: requested, clamped: false };
  return { priority: allowed, clamped: true };
}

/**
 * Waiting requests of one priority band, one FIFO lane per tenant, served
 * round robin: after a tenant's request leaves, that tenant goes to the back
 * of the rotation. A tenant with 1,000 requests waiting and one with 1 get
 * alternate turns. Lanes are forgotten when empty, so the structure holds no
 * more than the waiters it has.
 */
export class FairQueue<T> {
  /** Insertion order is the rotation: the first lane is served next. */
  private readonly lanes = new Map<string, T[]>();
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** Waiters of `tenant` in this band. */
  waiting(tenant: string): number {
    return this.lanes.get(tenant)?.length ?? 0;
  }

  push(tenant: string, item: T): void {
    let lane = this.lanes.get(tenant);
    if (lane === undefined) {
      lane = [];
      this.lanes.set(tenant, lane);
    }
    lane.push(item);
    this.count += 1;
  }

  /** The next waiter to serve among tenants `eligible` accepts (all when absent), without removing it. */
  peek(eligible?: (tenant: string) => boolean): T | undefined {
    for (const [tenant, lane] of this.lanes) if (eligible === undefined || eligible(tenant)) return lane[0];
    return undefined;
  }

  /** Removes and returns what `peek(eligible)` would; its tenant moves to the back of the rotation. */
  shift(eligible?: (tenant: string) => boolean): T | undefined {
    for (const [tenant, lane] of this.lanes) {
      if (eligible !== undefined && !eligible(tenant)) continue;
      const item = lane.shift();
      this.count -= 1;
      this.lanes.delete(tenant);
      if (lane.length > 0) this.lanes.set(tenant, lane);
      return item;
    }
    return undefined;
  }

  /** Removes one waiter (it left: client gone, deadline); false when it is not here. */
  remove(tenant: string, item: T): boolean {
    const lane = this.lanes.get(tenant);
    const index = lane?.indexOf(item) ?? -1;
    if (lane === undefined || index === -1) return false;
    lane.splice(index, 1);
    this.count -= 1;
    if (lane.length === 0) this.lanes.delete(tenant);
    return true;
  }

  /** The tenant with the most waiters (the earliest in rotation on a tie) and how many. */
  largest(): { readonly tenant: string; readonly waiting: number } | undefined {
    let best: { tenant: string; waiting: number } | undefined;
    for (const [tenant, lane] of this.lanes)
      if (best === undefined || lane.length > best.waiting) best = { tenant, waiting: lane.length };
    return best;
  }

  /** Removes and returns the youngest waiter of `tenant` (the one shed to make room). */
  popYoungest(tenant: string): T | undefined {
    const lane = this.lanes.get(tenant);
    const item = lane?.pop();
    if (item === undefined) return undefined;
    this.count -= 1;
    if (lane?.length === 0) this.lanes.delete(tenant);
    return item;
  }
}

/**
 * When the queue is full for a newcomer of `tenant`, whether the band's
 * largest tenant should give up its youngest waiter instead: only when it has
 * more waiting than the newcomer's tenant, so a burst cannot lock a quieter
 * tenant out of the queue, while a tenant never sheds its own requests or an
 * equal tenant's.
 */
export function fairShedVictim(
  largest: { readonly tenant: string; readonly waiting: number } | undefined,
  tenant: string,
  ownWaiting: number,
): string | null {
  if (largest === undefined || largest.tenant === tenant) return null;
  return largest.waiting > ownWaiting ? largest.tenant : null;
}

/** Slots held back at least per recently active lighter tenant. */
export const FAIR_HEADROOM_PER_TENANT = 2;

/** A tenant counts as active this long after its last request, so a steady low-rate tenant keeps its headroom. */
export const FAIR_ACTIVE_WINDOW_MS = 10_000;

/** What the gateway knows of one tenant of a replica group. */
export interface TenantShare {
  readonly inFlight: number;
  readonly lastSeenMs: number;
  /** Most requests it had running at once lately (this window and the last, see notePeak). */
  readonly recentPeak: number;
}

/** The tenant's peak, rolled over every FAIR_ACTIVE_WINDOW_MS, so one old burst is forgotten within two windows. */
export interface PeakWindow {
  peak: number;
  previousPeak: number;
  windowStartMs: number;
}

/** Notes `inFlight` at `nowMs`; returns the recent peak (this window's or the last one's, the larger). */
export function notePeak(window: PeakWindow, inFlight: number, nowMs: number): number {
  if (nowMs - window.windowStartMs > FAIR_ACTIVE_WINDOW_MS) {
    window.previousPeak = window.peak;
    window.peak = inFlight;
    window.windowStartMs = nowMs;
  } else if (inFlight > window.peak) window.peak = inFlight;
  return Math.max(window.peak, window.previousPeak);
}

/**
 * Slots of a group a request of a tenant holding `ownInFlight` must leave
 * free: for each other tenant active within FAIR_ACTIVE_WINDOW_MS that holds
 * fewer slots, what it lacks of one more than its recent peak (at least
 * FAIR_HEADROOM_PER_TENANT) — so a steady tenant's own overlap finds a slot
 * free; at most half the group's capacity, so headroom never halves
 * throughput. With a single tenant nothing is held back.
 */
export function fairHeadroom(
  ownInFlight: number,
  others: Iterable<TenantShare>,
  nowMs: number,
  capacity: number,
): number {
  let reserved = 0;
  for (const other of others) {
    if (other.inFlight >= ownInFlight || nowMs - other.lastSeenMs > FAIR_ACTIVE_WINDOW_MS) continue;
    const wants = Math.max(FAIR_HEADROOM_PER_TENANT, other.recentPeak + 1);
    reserved += Math.max(0, wants - other.inFlight);
  }
  return Math.min(reserved, Math.floor(capacity / 2));
}
