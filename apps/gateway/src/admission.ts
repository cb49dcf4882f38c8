import { DEFAULT_ROUTING_POLICY, ErrorCode, type RoutingPolicy } from '@lunanexa/contracts';
import {
  FAIR_ACTIVE_WINDOW_MS,
  FairQueue,
  PRIORITIES_BY_RANK,
  type PeakWindow,
  notePeak,
  type HashRing,
  type RoutingReason,
  buildHashRing,
  capacityRetryAfterSeconds,
  chooseAffinityReplica,
  chooseReplica,
  chooseRotationReplica,
  fairHeadroom,
  fairShedVictim,
  queueDecision,
  queueLimit,
  ringOrder,
} from '@lunanexa/domain';
import type { Route, RouteEndpoint } from './route-table';
import { RetryLaterError } from './tenant-quotas';

export interface AdmissionLimits {
  /** Requests one replica runs at once. */
  readonly replicaConcurrency: number;
  /** Requests allowed to wait, per replica of the group. */
  readonly queuePerReplica: number;
  /** Longest a request waits in the queue before it is refused (its own deadline may be shorter). */
  readonly maxQueueWaitMs: number;
}

/** A replica slot a request holds while it runs; `release` exactly once. */
export interface Slot {
  readonly endpoint: RouteEndpoint;
  /** Why this replica: recorded on the request with the route's policy. */
  readonly reason: RoutingReason;
  release(): void;
}

/** Who asks for a slot, as admission needs it. */
export interface AdmissionRequest {
  /** Queue order, 0 first (domain priorityRank), after the tenant's cap. */
  readonly rank: number;
  /** The authenticated tenant: the unit of fairness in the queue. */
  readonly tenant: string;
  /** Hash of the prompt prefix; computed only when the route's policy is prefix-affinity. */
  readonly prefixHash?: number;
}

export type Admission =
  | { readonly kind: 'granted'; readonly slot: Slot }
  | { readonly kind: 'queued'; readonly slot: Promise<Slot> };

interface Waiter {
  readonly group: Group;
  readonly route: Route;
  readonly rank: number;
  readonly tenant: string;
  readonly enqueuedAt: number;
  readonly resolve: (slot: Slot) => void;
  readonly reject: (error: Error) => void;
  readonly cleanup: () => void;
  settled: boolean;
}

/** Requests in flight per replica endpoint, across every group that routes to it. */
interface EndpointLoad {
  inFlight: number;
  /** Groups with waiters that this endpoint could serve. */
  readonly groups: Set<Group>;
}

interface TenantState extends PeakWindow {
  inFlight: number;
  lastSeenMs: number;
  recentPeak: number;
}

/** The replicas one route resolves to (an alias's deployment, or a pinned ref's replicas) and their queue. */
interface Group {
  readonly key: string;
  deploymentId: string;
  /** Waiters per priority rank, round robin between tenants within one. */
  readonly queues: FairQueue<Waiter>[];
  /** Slots each tenant holds, its recent peak and when it last asked; only kept while the group lives. */
  readonly tenants: Map<string, TenantState>;
  queued: number;
  /** Replicas of the route as last seen, for capacity and queue bounds. */
  replicas: number;
  inFlight: number;
  /** Exponentially weighted service time (ms), for Retry-After. */
  serviceMs: number;
  /** When idle tenants were last dropped (forgetIdleTenants). */
  sweptAtMs: number;
}

/** Prefixes whose spill target admission remembers; a few hundred KiB at most. */
export const SPILL_MEMORY = 8192;

/** The group a route belongs to: an alias side is one deployment; a pinned ref may span several. */
export function groupKeyOf(route: Route): string {
  return route.alias === null ? refGroupKey(route.modelVersion) : deploymentGroupKey(route.deploymentId);
}

export const refGroupKey = (modelVersion: string): string => `ref:${modelVersion}`;
export const deploymentGroupKey = (deploymentId: string): string => `deployment:${deploymentId}`;

/**
 * Admission and backpressure: at most `replicaConcurrency` requests per
 * replica run at once, each going to the replica its route's routing policy
 * picks (libs/domain routing.ts: rotation, least loaded by this gateway's
 * count plus what the runtime reports, or prefix affinity on a
 * bounded-load hash ring); the rest wait in a bounded per-group queue ordered
 * by priority (high before normal before low) and, within one priority,
 * round robin between tenants (libs/domain fairness.ts), and beyond that
 * bound are refused with NO_CAPACITY and a Retry-After computed from recent
 * service times. A full queue sheds a less urgent waiter, or the youngest
 * waiter of a tenant with more waiting than the newcomer's. A tenant holding
 * more slots than another recently active one leaves that one a little
 * headroom. Nothing here grows without bound: queues are capped, and a group
 * or endpoint with nothing running and nobody waiting is forgotten (a group
 * once no tenant has used it for the headroom window).
 */
export class AdmissionController {
  private readonly endpoints = new Map<string, EndpointLoad>();
  private readonly groups = new Map<string, Group>();
  /** Rings by the route's replica set: rebuilt only when the set changes (a route snapshot reuses its arrays). */
  private readonly rings = new WeakMap<readonly RouteEndpoint[], HashRing>();
  /**
   * Where each prefix last spilled to when its own replica was above the
   * bound (hash → base URL), oldest first, at most SPILL_MEMORY entries: the
   * next spill of that prefix goes there again if it has room, so a popular
   * prefix warms one second replica instead of every replica in turn.
   */
  private readonly spills = new Map<number, string>();
  private sweptAtMs = 0;

  constructor(
    private readonly limits: AdmissionLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A slot on one of `route`'s replicas now, or a place in its queue. Throws
   * NO_CAPACITY (503 + Retry-After) when the queue is full of requests at
   * least as urgent. A queued request leaves the queue when `signal` aborts
   * (client gone, deadline) — the promise then rejects with the signal's reason.
   */
  admit(route: Route, request: AdmissionRequest, signal: AbortSignal): Admission {
    this.sweepIdleGroups();
    const group = this.group(route);
    const { rank, tenant } = request;
    const share = this.tenantShare(group, tenant);
    share.lastSeenMs = this.now();
    // Waiters first: a replica that came up (or a slot freed on another group's endpoint) serves the
    // queue before a newcomer, who would otherwise overtake requests that have been waiting.
    if (group.queued > 0)
      for (const endpoint of route.endpoints) this.dispatch(endpoint, this.load(endpoint));
    // Waiters left after dispatch are blocked by headroom or by full replicas: a tenant with none
    // waiting at this or a more urgent priority may take a slot its headroom leaves it.
    const mayGrant = group.queued === 0 || !this.waitingAtOrAbove(group, tenant, rank);
    const granted = mayGrant ? this.tryGrant(group, route, undefined, tenant, request.prefixHash) : undefined;
    if (granted !== undefined) return { kind: 'granted', slot: granted };
    const decision = queueDecision(
      group.queues.map((queue) => queue.length),
      queueLimit(group.replicas, this.limits.queuePerReplica),
      rank,
    );
    if (decision.kind === 'refuse') {
      const band = group.queues[rank];
      const victimTenant = band && fairShedVictim(band.largest(), tenant, band.waiting(tenant));
      const victim = victimTenant ? band?.popYoungest(victimTenant) : undefined;
      if (victim === undefined) {
        this.forgetIfIdle(group);
        throw this.noCapacity(group, 'queue-full', 'every replica is busy and the queue is full');
      }
      group.queued -= 1;
      this.settle(victim, () =>
        victim.reject(
          this.noCapacity(group, 'fair-share', 'a tenant with fewer requests waiting took its place'),
        ),
      );
    }
    if (decision.kind === 'shed') {
      const victims = group.queues[decision.shedRank];
      const largest = victims?.largest();
      const victim = largest === undefined ? undefined : victims?.popYoungest(largest.tenant);
      if (victim !== undefined) {
        group.queued -= 1;
        this.settle(victim, () =>
          victim.reject(
            this.noCapacity(group, 'shed', 'a request of higher priority took its place in the queue'),
          ),
        );
      }
    }
    return { kind: 'queued', slot: this.enqueue(group, route, rank, tenant, signal) };
  }

  /** Another replica of the route for a failover before the first byte, only if one has room now. */
  tryAnother(route: Route, tried: ReadonlySet<RouteEndpoint>, tenant: string): Slot | undefined {
    const slot = this.tryGrant(this.group(route), route, tried, tenant, undefined);
    return slot && { ...slot, reason: 'failover' };
  }

  /** Requests waiting and running in these groups (keys as groupKeyOf makes them); an unseen group is idle. */
  queueLoad(keys: readonly string[]): { queued: number; inFlight: number } {
    let queued = 0;
    let inFlight = 0;
    for (const key of keys) {
      const group = this.groups.get(key);
      if (group === undefined) continue;
      queued += group.queued;
      inFlight += group.inFlight;
    }
    return { queued, inFlight };
  }

  /** Requests this gateway has running on each replica (by base URL), for benchmarks and debugging. */
  endpointInFlight(): Map<string, number> {
    return new Map([...this.endpoints].map(([baseUrl, load]) => [baseUrl, load.inFlight]));
  }

  /** Every group's state, for /metrics and the load the console shows. */
  snapshot(): { key: string; deploymentId: string; inFlight: number; queued: number; capacity: number }[] {
    return [...this.groups.values()].map((group) => ({
      key: group.key,
      deploymentId: group.deploymentId,
      inFlight: group.inFlight,
      queued: group.queued,
      capacity: group.replicas * this.limits.replicaConcurrency,
    }));
  }

  private group(route: Route): Group {
    const key = groupKeyOf(route);
    let group = this.groups.get(key);
    if (group === undefined) {
      group = {
        key,
        deploymentId: route.deploymentId,
        queues: PRIORITIES_BY_RANK.map(() => new FairQueue<Waiter>()),
        tenants: new Map(),
        queued: 0,
        replicas: route.endpoints.length,
        inFlight: 0,
        serviceMs: Number.NaN,
        sweptAtMs: 0,
      };
      this.groups.set(key, group);
    } else {
      group.replicas = route.endpoints.length;
    }
    return group;
  }

  private tenantShare(group: Group, tenant: string): TenantState {
    let share = group.tenants.get(tenant);
    if (share === undefined) {
      const now = this.now();
      share = { inFlight: 0, lastSeenMs: now, recentPeak: 0, peak: 0, previousPeak: 0, windowStartMs: now };
      group.tenants.set(tenant, share);
    }
    return share;
  }

  private waitingAtOrAbove(group: Group, tenant: string, rank: number): boolean {
    for (let r = 0; r <= rank; r += 1) if ((group.queues[r]?.waiting(tenant) ?? 0) > 0) return true;
    return false;
  }

  /**
   * Whether `tenant` may take one more slot of `group` now: always while it
   * is the group's only tenant (one Map size check on the common path);
   * otherwise only if the slots left exceed the headroom lighter, recently
   * active tenants are owed.
   */
  private headroomAllows(group: Group, tenant: string): boolean {
    if (group.tenants.size <= 1) return true;
    const own = group.tenants.get(tenant)?.inFlight ?? 0;
    const capacity = group.replicas * this.limits.replicaConcurrency;
    // The tenant's own entry counts for nothing there: fairHeadroom skips tenants holding as much as `own`.
    return group.inFlight + fairHeadroom(own, group.tenants.values(), this.now(), capacity) < capacity;
  }

  private load(endpoint: RouteEndpoint): EndpointLoad {
    let load = this.endpoints.get(endpoint.baseUrl);
    if (load === undefined) {
      load = { inFlight: 0, groups: new Set() };
      this.endpoints.set(endpoint.baseUrl, load);
    }
    return load;
  }

  private ring(route: Route): HashRing {
    let ring = this.rings.get(route.endpoints);
    if (ring === undefined) {
      ring = buildHashRing(route.endpoints.map((endpoint) => endpoint.baseUrl));
      this.rings.set(route.endpoints, ring);
    }
    return ring;
  }

  private tryGrant(
    group: Group,
    route: Route,
    exclude: ReadonlySet<RouteEndpoint> | undefined,
    tenant: string,
    prefixHash: number | undefined,
  ): Slot | undefined {
    if (!this.headroomAllows(group, tenant)) return undefined;
    const candidates =
      exclude === undefined ? route.endpoints : route.endpoints.filter((e) => !exclude.has(e));
    const loads = candidates.map((endpoint) => this.endpoints.get(endpoint.baseUrl)?.inFlight ?? 0);
    const policy: RoutingPolicy = route.routingPolicy ?? DEFAULT_ROUTING_POLICY;
    let index: number;
    let reason: RoutingReason;
    if (policy === 'prefix-affinity' && prefixHash !== undefined) {
      const position = new Map(candidates.map((endpoint, i) => [endpoint.baseUrl, i]));
      const ring = ringOrder(this.ring(route), prefixHash);
      const spilled = this.spills.get(prefixHash);
      // The ring's order, with the prefix's last spill target moved right behind its own replica.
      if (spilled !== undefined && ring.indexOf(spilled) > 1) {
        ring.splice(ring.indexOf(spilled), 1);
        ring.splice(1, 0, spilled);
      }
      const order = ring.flatMap((baseUrl) => {
        const i = position.get(baseUrl);
        return i === undefined ? [] : [i];
      });
      ({ index, reason } = chooseAffinityReplica(order, loads, this.limits.replicaConcurrency));
      const chosen = candidates[index];
      if (reason === 'affinity-overflow' && chosen !== undefined)
        this.rememberSpill(prefixHash, chosen.baseUrl);
    } else if (policy === 'round-robin') {
      index = chooseRotationReplica(loads, this.limits.replicaConcurrency);
      reason = 'rotation';
    } else {
      index = chooseReplica(loads, this.limits.replicaConcurrency, {
        reported: candidates.map((endpoint) => endpoint.load),
        nowMs: this.now(),
      });
      reason = 'least-loaded';
    }
    const endpoint = candidates[index];
    if (endpoint === undefined) return undefined;
    return this.grant(group, endpoint, tenant, reason);
  }

  private rememberSpill(prefixHash: number, baseUrl: string): void {
    this.spills.delete(prefixHash);
    this.spills.set(prefixHash, baseUrl);
    if (this.spills.size > SPILL_MEMORY) {
      const oldest = this.spills.keys().next();
      if (oldest.done !== true) this.spills.delete(oldest.value);
    }
  }

  private grant(group: Group, endpoint: RouteEndpoint, tenant: string, reason: RoutingReason): Slot {
    const load = this.load(endpoint);
    const share = this.tenantShare(group, tenant);
    load.inFlight += 1;
    group.inFlight += 1;
    share.inFlight += 1;
    share.recentPeak = notePeak(share, share.inFlight, this.now());
    const started = this.now();
    let released = false;
    return {
      endpoint,
      reason,
      release: () => {
        if (released) return;
        released = true;
        load.inFlight -= 1;
        group.inFlight -= 1;
        share.inFlight -= 1;
        const took = this.now() - started;
        group.serviceMs = Number.isNaN(group.serviceMs) ? took : group.serviceMs * 0.8 + took * 0.2;
        this.dispatch(endpoint, load);
        if (group.tenants.size > 1) this.dispatchGroup(group);
        this.forgetIdleTenants(group);
        this.forgetIfIdle(group);
        if (load.inFlight === 0 && load.groups.size === 0) this.endpoints.delete(endpoint.baseUrl);
      },
    };
  }

  private enqueue(
    group: Group,
    route: Route,
    rank: number,
    tenant: string,
    signal: AbortSignal,
  ): Promise<Slot> {
    return new Promise<Slot>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = (): void => {
        this.remove(waiter);
        this.settle(waiter, () => reject(signal.reason as Error));
      };
      const timer = setTimeout(() => {
        this.remove(waiter);
        this.settle(waiter, () =>
          reject(
            this.noCapacity(
              group,
              'queue-timeout',
              `no replica had room within ${this.limits.maxQueueWaitMs} ms`,
            ),
          ),
        );
      }, this.limits.maxQueueWaitMs);
      const waiter: Waiter = {
        group,
        route,
        rank,
        tenant,
        enqueuedAt: this.now(),
        resolve,
        reject,
        settled: false,
        cleanup: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      group.queues[rank]?.push(tenant, waiter);
      group.queued += 1;
      for (const endpoint of route.endpoints) this.load(endpoint).groups.add(group);
    });
  }

  private settle(waiter: Waiter, outcome: () => void): void {
    if (waiter.settled) return;
    waiter.settled = true;
    waiter.cleanup();
    outcome();
    if (waiter.group.queued === 0) this.detach(waiter.group, waiter.route);
  }

  private remove(waiter: Waiter): void {
    if (waiter.group.queues[waiter.rank]?.remove(waiter.tenant, waiter) === true) waiter.group.queued -= 1;
  }

  /** The most urgent waiter of `group` that its tenant's headroom lets run now, next in its band's rotation. */
  private head(group: Group): Waiter | undefined {
    const eligible =
      group.tenants.size <= 1 ? undefined : (tenant: string) => this.headroomAllows(group, tenant);
    for (const queue of group.queues) {
      if (queue.length === 0) continue;
      const head = queue.peek(eligible);
      if (head !== undefined) return head;
    }
    return undefined;
  }

  /**
   * While `load`'s endpoint has room, hand slots to the most urgent waiter of
   * any group it serves (the oldest among groups' heads; within a group the
   * band's tenant rotation decides).
   */
  private dispatch(endpoint: RouteEndpoint, load: EndpointLoad): void {
    while (load.inFlight < this.limits.replicaConcurrency && load.groups.size > 0) {
      let best: Waiter | undefined;
      for (const group of load.groups) {
        const head = this.head(group);
        if (head === undefined) continue;
        if (
          best === undefined ||
          head.rank < best.rank ||
          (head.rank === best.rank && head.enqueuedAt < best.enqueuedAt)
        )
          best = head;
      }
      if (best === undefined) return;
      this.serve(best, endpoint);
    }
  }

  /** A slot freed in a group of several tenants can unblock a waiter whose replica had room all along. */
  private dispatchGroup(group: Group): void {
    if (group.queued === 0) return;
    const route = group.queues.find((queue) => queue.length > 0)?.peek()?.route;
    if (route === undefined) return;
    for (const endpoint of route.endpoints) {
      const load = this.endpoints.get(endpoint.baseUrl);
      if (load !== undefined) this.dispatch(endpoint, load);
    }
  }

  private serve(waiter: Waiter, endpoint: RouteEndpoint): void {
    const eligible =
      waiter.group.tenants.size <= 1
        ? undefined
        : (tenant: string) => this.headroomAllows(waiter.group, tenant);
    waiter.group.queues[waiter.rank]?.shift(eligible);
    waiter.group.queued -= 1;
    // The waiter's own route may know this endpoint by another object (a newer snapshot); use its entry.
    const own =
      waiter.route.endpoints.find((candidate) => candidate.baseUrl === endpoint.baseUrl) ?? endpoint;
    const slot = this.grant(waiter.group, own, waiter.tenant, 'queued');
    this.settle(waiter, () => waiter.resolve(slot));
  }

  private detach(group: Group, route: Route): void {
    for (const endpoint of route.endpoints) {
      const load = this.endpoints.get(endpoint.baseUrl);
      if (load === undefined) continue;
      load.groups.delete(group);
      if (load.inFlight === 0 && load.groups.size === 0) this.endpoints.delete(endpoint.baseUrl);
    }
    this.forgetIfIdle(group);
  }

  /**
   * Tenants with nothing running, quiet for longer than the headroom window,
   * drop out of the group; swept at most once a second, not per release.
   */
  private forgetIdleTenants(group: Group): void {
    if (group.tenants.size <= 1) return;
    const now = this.now();
    if (now - group.sweptAtMs < 1000) return;
    group.sweptAtMs = now;
    for (const [tenant, share] of group.tenants)
      if (
        share.inFlight === 0 &&
        now - share.lastSeenMs > FAIR_ACTIVE_WINDOW_MS &&
        !this.waits(group, tenant)
      )
        group.tenants.delete(tenant);
  }

  private waits(group: Group, tenant: string): boolean {
    return group.queues.some((queue) => queue.waiting(tenant) > 0);
  }

  /**
   * An idle group is dropped, unless a tenant used it within the headroom
   * window: then it stays (inFlight 0, queued 0) so a steady low-rate tenant
   * between two requests is still known when a neighbour's burst arrives;
   * sweepIdleGroups drops it once that window has passed.
   */
  private forgetIfIdle(group: Group): void {
    if (group.inFlight !== 0 || group.queued !== 0) return;
    const now = this.now();
    for (const share of group.tenants.values()) if (now - share.lastSeenMs <= FAIR_ACTIVE_WINDOW_MS) return;
    this.groups.delete(group.key);
  }

  /** At most once per headroom window: drops idle groups no tenant used within it. */
  private sweepIdleGroups(): void {
    const now = this.now();
    if (now - this.sweptAtMs < FAIR_ACTIVE_WINDOW_MS) return;
    this.sweptAtMs = now;
    for (const group of [...this.groups.values()]) this.forgetIfIdle(group);
  }

  private noCapacity(group: Group, reason: string, why: string): RetryLaterError {
    const capacity = group.replicas * this.limits.replicaConcurrency;
    const retryAfter = capacityRetryAfterSeconds(group.serviceMs, group.queued, capacity);
    return new RetryLaterError(
      ErrorCode.NO_CAPACITY,
      `${why} (${group.inFlight} running, ${group.queued} waiting, ${capacity} at once); retry after ${retryAfter} s.`,
      retryAfter,
      reason,
    );
  }
}
