import { createHash } from 'node:crypto';
import { canonicalJson, ErrorCode, LunaNexaError, type Assignment } from '@lunanexa/contracts';

/**
 * The spec digest the generation fence compares: sha256 over the canonical
 * JSON of the assignment without `leaseExpiresAt`. The lease is left out on
 * purpose — renewing a lease at the same generation is not a change of intent.
 */
export function assignmentSpecDigest(assignment: Assignment): string {
  const { leaseExpiresAt: _lease, ...spec } = assignment;
  return `sha256:${createHash('sha256').update(canonicalJson(spec), 'utf8').digest('hex')}`;
}

export interface FenceEntry {
  /** What is fenced: for assignments, the assignment id. */
  readonly key: string;
  readonly generation: number;
  readonly digest: string;
}

/**
 * `advance`: newer than anything accepted for the key (or the first).
 * `same`: the generation and digest already accepted (a re-delivery or a lease renewal).
 */
export type FenceDecision = 'advance' | 'same';

/**
 * Generation fencing. For each key it holds the highest generation accepted
 * and the digest accepted at it, and refuses with `STALE_GENERATION` a lower
 * generation, or the same generation with different content (two writers
 * disagreeing about one generation — e.g. a deposed controller still pushing).
 * The fence never moves backwards; it is rebuilt from persisted state at boot.
 */
export class GenerationFence {
  private readonly highest = new Map<string, FenceEntry>();

  constructor(entries: Iterable<FenceEntry> = []) {
    for (const entry of entries) this.record(entry);
  }

  /** Decides without recording; throws STALE_GENERATION. */
  check(key: string, generation: number, digest: string): FenceDecision {
    const held = this.highest.get(key);
    if (held === undefined || generation > held.generation) return 'advance';
    if (generation < held.generation) {
      throw new LunaNexaError(
        ErrorCode.STALE_GENERATION,
        `generation ${generation} of ${key} is older than the accepted generation ${held.generation}`,
      );
    }
    if (digest !== held.digest) {
      throw new LunaNexaError(
        ErrorCode.STALE_GENERATION,
        `generation ${generation} of ${key} was already accepted with different content`,
      );
    }
    return 'same';
  }

  /** Checks, then records. */
  accept(key: string, generation: number, digest: string): FenceDecision {
    const decision = this.check(key, generation, digest);
    if (decision === 'advance') this.highest.set(key, { key, generation, digest });
    return decision;
  }

  get(key: string): FenceEntry | undefined {
    return this.highest.get(key);
  }

  entries(): FenceEntry[] {
    return [...this.highest.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  get size(): number {
    return this.highest.size;
  }

  private record(entry: FenceEntry): void {
    if (!Number.isInteger(entry.generation) || entry.generation < 0) {
      throw new Error(`fence entry ${entry.key}: generation must be a non-negative integer`);
    }
    if (this.highest.has(entry.key)) throw new Error(`fence entry ${entry.key} appears twice`);
    this.highest.set(entry.key, entry);
  }
}
