import { ErrorCode } from '@lunanexa/contracts';
import {
  PRIORITIES_BY_RANK,
  capacityRetryAfterSeconds,
  chooseReplica,
  queueDecision,
  queueLimit,
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
  release(): void;
}

export type Admission =
  | { readonly kind: 'granted'; readonly slot: Slot }
  | { readonly kind: 'queued'; readonly slot: Promise<Slot> };

interface Waiter {
  readonly group: Group;
  readonly route: Route;
  readonly rank: number;
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

/** The replicas one route resolves to (an alias's deployment, or a pinned ref's replicas) and their queue. */
interface Group {
  readonly key: string;
  deploymentId: string;
  /** Waiters per priority rank, oldest first. */
  readonly queues: Waiter[][];
  queued: number;
  /** Replicas of the route as last seen, for capacity and queue bounds. */
  replicas: number;
  inFlight: number;
  /** Exponentially weighted service time (ms), for Retry-After. */
  serviceMs: number;
}

/** The group a route belongs to: an alias side is one deployment; a pinned ref may span several. */
export function groupKeyOf(route: Route): string {
  return route.alias === null ? refGroupKey(route.modelVersion) : deploymentGroupKey(route.deploymentId);
}

export const refGroupKey = (modelVersion: string): string => `ref:${modelVersion}`;
export const deploymentGroupKey = (deploymentId: string): string => `deployment:${deploymentId}`;

/**
 * Admission and backpressure: at most `replicaConcurrency` requests per
 * replica run at once, each going to the least loaded replica of its route
 * (this gateway's own count, plus the queue and cache pressure the runtime
 * reports: chooseReplica in libs/domain);
 * the rest wait in a bounded per-group queue ordered by priority (high
 * before normal before low, FIFO within one), and beyond that bound are
 * refused with NO_CAPACITY and a Retry-After computed from recent service
 * times. Nothing here grows without bound: queues are capped, and a group
 * or endpoint with nothing running and nobody waiting is forgotten.
 */
export class AdmissionController {
  private readonly endpoints = new Map<string, EndpointLoad>();
  private readonly groups = new Map<string, Group>();

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
  admit(route: Route, rank: number, signal: AbortSignal): Admission {
    const group = this.group(route);
    // Waiters first: a replica that came up (or a slot freed on another group's endpoint) serves the
    // queue before a newcomer, who would otherwise overtake requests that have been waiting.
    if (group.queued > 0)
      for (const endpoint of route.endpoints) this.dispatch(endpoint, this.load(endpoint));
    const granted = group.queued === 0 ? this.tryGrant(group, route, undefined) : undefined;
    if (granted !== undefined) return { kind: 'granted', slot: granted };
    const decision = queueDecision(
      group.queues.map((queue) => queue.length),
      queueLimit(group.replicas, this.limits.queuePerReplica),
      rank,
    );
    if (decision.kind === 'refuse') {
      this.forgetIfIdle(group);
      throw this.noCapacity(group, 'queue-full', 'every replica is busy and the queue is full');
    }
    if (decision.kind === 'shed') {
      const victims = group.queues[decision.shedRank] ?? [];
      const victim = victims.pop();
      if (victim !== undefined) {
        group.queued -= 1;
        this.settle(victim, () =>
          victim.reject(
            this.noCapacity(group, 'shed', 'a request of higher priority took its place in the queue'),
          ),
        );
      }
    }
    return { kind: 'queued', slot: this.enqueue(group, route, rank, signal) };
  }

  /** Another replica of the route for a failover before the first byte, only if one has room now. */
  tryAnother(route: Route, tried: ReadonlySet<RouteEndpoint>): Slot | undefined {
    return this.tryGrant(this.group(route), route, tried);
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
        queues: PRIORITIES_BY_RANK.map(() => []),
        queued: 0,
        replicas: route.endpoints.length,
        inFlight: 0,
        serviceMs: Number.NaN,
      };
      this.groups.set(key, group);
    } else {
      group.replicas = route.endpoints.length;
    }
    return group;
  }

  private load(endpoint: RouteEndpoint): EndpointLoad {
    let load = this.endpoints.get(endpoint.baseUrl);
    if (load === undefined) {
      load = { inFlight: 0, groups: new Set() };
      this.endpoints.set(endpoint.baseUrl, load);
    }
    return load;
  }

  private tryGrant(
    group: Group,
    route: Route,
    exclude: ReadonlySet<RouteEndpoint> | undefined,
  ): Slot | undefined {
    const candidates =
      exclude === undefined ? route.endpoints : route.endpoints.filter((e) => !exclude.has(e));
    const loads = candidates.map((endpoint) => this.endpoints.get(endpoint.baseUrl)?.inFlight ?? 0);
    const index = chooseReplica(loads, this.limits.replicaConcurrency, {
      reported: candidates.map((endpoint) => endpoint.load),
      nowMs: this.now(),
    });
    const endpoint = candidates[index];
    if (endpoint === undefined) return undefined;
    return this.grant(group, endpoint);
  }

  private grant(group: Group, endpoint: RouteEndpoint): Slot {
    const load = this.load(endpoint);
    load.inFlight += 1;
    group.inFlight += 1;
    const started = this.now();
    let released = false;
    return {
      endpoint,
      release: () => {
        if (released) return;
        released = true;
        load.inFlight -= 1;
        group.inFlight -= 1;
        const took = this.now() - started;
        group.serviceMs = Number.isNaN(group.serviceMs) ? took : group.serviceMs * 0.8 + took * 0.2;
        this.dispatch(endpoint, load);
        this.forgetIfIdle(group);
        if (load.inFlight === 0 && load.groups.size === 0) this.endpoints.delete(endpoint.baseUrl);
      },
    };
  }

  private enqueue(group: Group, route: Route, rank: number, signal: AbortSignal): Promise<Slot> {
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
      group.queues[rank]?.push(waiter);
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
    const queue = waiter.group.queues[waiter.rank];
    const index = queue?.indexOf(waiter) ?? -1;
    if (queue !== undefined && index !== -1) {
      queue.splice(index, 1);
      waiter.group.queued -= 1;
    }
  }

  /** While `load`'s endpoint has room, hand slots to the most urgent, oldest waiter of any group it serves. */
  private dispatch(endpoint: RouteEndpoint, load: EndpointLoad): void {
    while (load.inFlight < this.limits.replicaConcurrency && load.groups.size > 0) {
      let best: Waiter | undefined;
      for (const group of load.groups) {
        const head = group.queues.find((queue) => queue.length > 0)?.[0];
        if (head === undefined) continue;
        if (
          best === undefined ||
          head.rank < best.rank ||
          (head.rank === best.rank && head.enqueuedAt < best.enqueuedAt)
        )
          best = head;
      }
      if (best === undefined) return;
      const waiter = best;
      waiter.group.queues[waiter.rank]?.shift();
      waiter.group.queued -= 1;
      // The waiter's own route may know this endpoint by another object (a newer snapshot); use its entry.
      const own =
        waiter.route.endpoints.find((candidate) => candidate.baseUrl === endpoint.baseUrl) ?? endpoint;
      const slot = this.grant(waiter.group, own);
      this.settle(waiter, () => waiter.resolve(slot));
    }
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

  private forgetIfIdle(group: Group): void {
    if (group.inFlight === 0 && group.queued === 0) this.groups.delete(group.key);
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
