import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { DEFAULT_MAX_SKEW_MS } from './protocol';

export interface ReplayGuardOptions {
  /** How long after `issuedAt` an envelope can still pass the skew check; nonces are kept that long. */
  readonly windowMs?: number;
  /** Most nonces held at once. When full of unexpired nonces the guard refuses rather than forgets. */
  readonly capacity?: number;
}

/** Sweep expired nonces at least this often (in insertions), so a quiet guard does not hold stale entries. */
const SWEEP_EVERY = 1024;

/**
 * Remembers envelope nonces for as long as their envelope could pass the
 * clock-skew check (`issuedAt + windowMs`), so every exact replay is refused
 * with `REPLAY_DETECTED`: inside the window by the nonce, outside it by the
 * timestamp. Memory is bounded by `capacity`; a guard full of nonces that are
 * still live refuses new envelopes (`RATE_LIMITED`) instead of forgetting one
 * that could then be replayed — failing closed.
 */
export class ReplayGuard {
  readonly windowMs: number;
  readonly capacity: number;
  /** nonce → epoch ms after which the nonce can no longer pass the skew check. */
  private readonly seen = new Map<string, number>();
  private insertsSinceSweep = 0;

  constructor(options: ReplayGuardOptions = {}) {
    this.windowMs = options.windowMs ?? DEFAULT_MAX_SKEW_MS;
    this.capacity = options.capacity ?? 65_536;
    if (!Number.isInteger(this.windowMs) || this.windowMs <= 0) throw new Error('windowMs must be positive');
    if (!Number.isInteger(this.capacity) || this.capacity <= 0) throw new Error('capacity must be positive');
  }

  get size(): number {
    return this.seen.size;
  }

  /** True if the nonce is remembered and still live at `nowMs`. */
  has(nonce: string, nowMs: number): boolean {
    const expiresAt = this.seen.get(nonce);
    return expiresAt !== undefined && expiresAt >= nowMs;
  }

  /**
   * Records a nonce first seen at `nowMs` on an envelope issued at
   * `issuedAtMs`; throws REPLAY_DETECTED if it is already live.
   */
  remember(nonce: string, issuedAtMs: number, nowMs: number): void {
    if (this.has(nonce, nowMs)) {
      throw new LunaNexaError(ErrorCode.REPLAY_DETECTED, 'nonce already seen inside the replay window');
    }
    this.insertsSinceSweep += 1;
    if (this.seen.size >= this.capacity || this.insertsSinceSweep >= SWEEP_EVERY) this.sweep(nowMs);
    if (this.seen.size >= this.capacity) {
      throw new LunaNexaError(
        ErrorCode.RATE_LIMITED,
        `replay window holds ${this.capacity} live nonces; retry when older ones expire`,
      );
    }
    // Delete first so a re-inserted (expired) nonce moves to the end of the map's order.
    this.seen.delete(nonce);
    this.seen.set(nonce, issuedAtMs + this.windowMs);
  }

  /** Forgets every nonce that can no longer pass the skew check. */
  sweep(nowMs: number): void {
    this.insertsSinceSweep = 0;
    for (const [nonce, expiresAt] of this.seen) {
      if (expiresAt < nowMs) this.seen.delete(nonce);
    }
  }
}
