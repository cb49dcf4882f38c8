import { createHash } from 'node:crypto';

/**
 * Which inference requests get an injected 500, decided from the request
 * number (1, 2, 3… in arrival order) and the seed alone, so a test can
 * predict every failure. The rate is held in parts per million and the
 * choice is integer arithmetic (no floating-point drift): request n fails
 * when ⌊(n·rate + phase)/10⁶⌋ steps up from ⌊((n−1)·rate + phase)/10⁶⌋.
 * Failures are therefore spread evenly, and the first N requests contain
 * ⌊(N·rate + phase)/10⁶⌋ of them — exactly N·rate whenever that is whole.
 * The seed moves the phase, i.e. which requests fail, not how many.
 */

export const PARTS_PER_MILLION = 1_000_000;

/** A rate from configuration (at most six decimals) in parts per million. */
export function ratePpm(rate: number): number {
  return Math.round(rate * PARTS_PER_MILLION);
}

/** The seed's offset into the pattern, in [0, 10⁶). */
export function faultPhase(seed: number): number {
  return createHash('sha256').update(`fault-phase:${seed}`).digest().readUInt32BE(0) % PARTS_PER_MILLION;
}

/** The failure predicate for one process: request number → injected 500 or not. */
export function failureSchedule(errorRatePpm: number, seed: number): (requestNumber: number) => boolean {
  const phase = faultPhase(seed);
  return (requestNumber) => {
    if (!Number.isSafeInteger(requestNumber) || requestNumber < 1) {
      throw new RangeError(`request numbers start at 1, got ${requestNumber}`);
    }
    const before = Math.floor(((requestNumber - 1) * errorRatePpm + phase) / PARTS_PER_MILLION);
    const after = Math.floor((requestNumber * errorRatePpm + phase) / PARTS_PER_MILLION);
    return after > before;
  };
}

export function isInjectedFailure(requestNumber: number, errorRatePpm: number, seed: number): boolean {
  return failureSchedule(errorRatePpm, seed)(requestNumber);
}
