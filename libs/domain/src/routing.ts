import type { ChatMessage, RoutingPolicy } from '@lunanexa/contracts';

/**
 * Which replica of a deployment takes a request, by the deployment's routing
 * policy (contracts ROUTING_POLICIES), and why. Pure: the gateway's admission
 * controller keeps the counters and the hash ring and calls these.
 */

/** Why a replica was chosen; recorded on the request (request_records.routing_reason). */
export type RoutingReason =
  /** round-robin: the next replica in rotation with room. */
  | 'rotation'
  /** least-loaded: the lowest own + runtime-reported load, nearly full KV caches avoided. */
  | 'least-loaded'
  /** prefix-affinity: the replica the prompt prefix hashes to. */
  | 'affinity'
  /** prefix-affinity: the prefix's replica was above the load bound (or full); the next one on the ring. */
  | 'affinity-overflow'
  /** The request waited in the queue and took the first replica that freed a slot. */
  | 'queued'
  /** A retry before the first byte on another replica with room. */
  | 'failover';

/**
 * No replica of a prefix-affinity deployment is given a request while it has
 * this many times the mean in flight (consistent hashing with bounded loads,
 * Mirrokni, Thorup & Zadimoghaddam 2018): a popular prefix spills to the next
 * replica on the ring instead of queueing behind itself.
 */
export const AFFINITY_LOAD_FACTOR = 1.25;

/** Points per replica on the ring: enough that 2-16 replicas get close to equal arcs. */
export const RING_POINTS_PER_REPLICA = 160;

/**
 * How much of a prompt the affinity hash reads at most. What it reads is the
 * part of a chat that repeats: the system prompt when there is one (every
 * conversation of a tenant or an application starts with it), otherwise the
 * first user message (every turn of one conversation re-sends it). Hashing
 * the first user message as well when a system prompt exists would scatter a
 * tenant's single-turn requests — each asks something new — over every
 * replica, and each replica would have to cache every tenant's system prompt.
 */
export const AFFINITY_PREFIX_MAX_CHARS = 16_384;

/** 32-bit FNV-1a, continued from `hash`: cheap, no allocation, good enough spread for a ring. */
export function fnv1a(text: string, hash = 0x811c9dc5, limit = text.length): number {
  let h = hash >>> 0;
  const end = Math.min(limit, text.length);
  for (let i = 0; i < end; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The hash of a chat request's affinity prefix: its leading system messages, else its first user message. */
export function chatPrefixHash(messages: readonly Pick<ChatMessage, 'role' | 'content'>[]): number {
  let hash = 0x811c9dc5;
  let budget = AFFINITY_PREFIX_MAX_CHARS;
  let sawSystem = false;
  for (const message of messages) {
    if (budget <= 0) break;
    const system = message.role === 'system';
    if (!system && sawSystem) break;
    hash = fnv1a(message.role, hash);
    hash = fnv1a(message.content, hash, budget);
    budget -= message.content.length;
    if (system) sawSystem = true;
    else if (message.role === 'user') break;
  }
  return hash;
}

/** The hash of a completion prompt's prefix (the leading AFFINITY_PREFIX_MAX_CHARS characters). */
export function completionPrefixHash(prompt: string): number {
  return fnv1a(prompt, undefined, AFFINITY_PREFIX_MAX_CHARS);
}

/** A consistent-hash ring over replica ids: sorted points and the id each belongs to. */
export interface HashRing {
  readonly ids: readonly string[];
  readonly points: Uint32Array;
  readonly owners: Uint16Array;
}

/**
 * The ring for these replica ids (their order does not matter): each id gets
 * RING_POINTS_PER_REPLICA points, so adding or removing a replica moves only
 * the prefixes on its own arcs.
 */
export function buildHashRing(ids: readonly string[], pointsPerReplica = RING_POINTS_PER_REPLICA): HashRing {
  const sorted = [...new Set(ids)].sort();
  const entries: { point: number; owner: number }[] = [];
  sorted.forEach((id, owner) => {
    for (let i = 0; i < pointsPerReplica; i += 1) entries.push({ point: fnv1a(`${id}#${i}`), owner });
  });
  entries.sort((a, b) => a.point - b.point || a.owner - b.owner);
  return {
    ids: sorted,
    points: Uint32Array.from(entries, (entry) => entry.point),
    owners: Uint16Array.from(entries, (entry) => entry.owner),
  };
}

/** Every replica id once, in ring order clockwise from `hash`: the first is the prefix's home. */
export function ringOrder(ring: HashRing, hash: number): string[] {
  const { points, owners, ids } = ring;
  if (points.length === 0) return [];
  let lo = 0;
  let hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (points[mid] < hash >>> 0) lo = mid + 1;
    else hi = mid;
  }
  const seen = new Set<number>();
  const order: string[] = [];
  for (let step = 0; step < points.length && order.length < ids.length; step += 1) {
    const owner = owners[(lo + step) % points.length];
    if (seen.has(owner)) continue;
    seen.add(owner);
    order.push(ids[owner]);
  }
  return order;
}

/**
 * The most requests one replica may hold under bounded-load affinity when
 * `totalInFlight` run over `replicas` replicas and one more arrives:
 * factor × (total + 1) / replicas, the mean after the arrival times the
 * factor (not rounded up: ⌈…⌉ would let a replica hold 2 while the mean is 1).
 */
export function affinityLoadBound(
  totalInFlight: number,
  replicas: number,
  factor = AFFINITY_LOAD_FACTOR,
): number {
  return (factor * (totalInFlight + 1)) / Math.max(1, replicas);
}

/**
 * Bounded-load affinity: the first replica in `order` (the ring walk, as
 * indices into `inFlight`) that stays within the load bound with this
 * request and below `replicaConcurrency` — `affinity` when that is the
 * prefix's own replica, else `affinity-overflow`. When none does (few
 * requests in flight: the bound is below 2 until the mean passes 0.6), the
 * least loaded replica with room, earliest on the walk on a tie; it holds at
 * most the mean, so no replica ever goes above the bound because of a
 * spill. -1 when every replica is full.
 */
export function chooseAffinityReplica(
  order: readonly number[],
  inFlight: readonly number[],
  replicaConcurrency: number,
  factor = AFFINITY_LOAD_FACTOR,
): { readonly index: number; readonly reason: 'affinity' | 'affinity-overflow' } {
  let total = 0;
  for (const count of inFlight) total += count;
  const bound = affinityLoadBound(total, inFlight.length, factor);
  let least = -1;
  let leastLoad = Number.POSITIVE_INFINITY;
  for (let step = 0; step < order.length; step += 1) {
    const index = order[step];
    const load = inFlight[index] ?? Number.POSITIVE_INFINITY;
    if (load >= replicaConcurrency) continue;
    if (load + 1 <= bound) return { index, reason: step === 0 ? 'affinity' : 'affinity-overflow' };
    if (load < leastLoad) {
      least = index;
      leastLoad = load;
    }
  }
  return { index: least, reason: least === order[0] ? 'affinity' : 'affinity-overflow' };
}

/** Round robin: the first replica in rotation order (the route already rotates) with room; -1 when all are full. */
export function chooseRotationReplica(inFlight: readonly number[], replicaConcurrency: number): number {
  for (let index = 0; index < inFlight.length; index += 1)
    if ((inFlight[index] ?? Number.POSITIVE_INFINITY) < replicaConcurrency) return index;
  return -1;
}

/** Whether a policy needs the prompt's prefix hash: computed only then, to keep the hot path light. */
export function policyHashesPrefix(policy: RoutingPolicy): boolean {
  return policy === 'prefix-affinity';
}
