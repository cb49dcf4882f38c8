/**
 * Failed sign-ins are throttled per account and per address, so a password
 * cannot be guessed at the speed of the API, and so one address cannot spray
 * a few guesses at many accounts. Nothing is locked forever: a block ends on
 * its own, and failures older than `forgetAfterSeconds` no longer count.
 *
 * Each key (an account's username, a client address) may fail `freeFailures`
 * times in a row; each further failure blocks the key for
 * `baseBlockSeconds`, doubling per failure up to `maxBlockSeconds`. While a
 * key is blocked every attempt is refused before the password is checked (the
 * right password included: a guess that lands during a block tells the
 * guesser nothing). A successful sign-in clears its account's count; an
 * address's count only ages out (a guesser with one valid account must not
 * reset it).
 */
export interface SignInThrottlePolicy {
  readonly freeFailures: number;
  readonly baseBlockSeconds: number;
  readonly maxBlockSeconds: number;
  readonly forgetAfterSeconds: number;
}

/** Five wrong passwords in a row for one account, then 30 s, 60 s, … at most 15 min. */
export const ACCOUNT_SIGN_IN_THROTTLE: SignInThrottlePolicy = {
  freeFailures: 5,
  baseBlockSeconds: 30,
  maxBlockSeconds: 900,
  forgetAfterSeconds: 3_600,
};

/** Twenty failures from one address (any accounts), then the same doubling block. */
export const ADDRESS_SIGN_IN_THROTTLE: SignInThrottlePolicy = {
  freeFailures: 20,
  baseBlockSeconds: 30,
  maxBlockSeconds: 900,
  forgetAfterSeconds: 3_600,
};

export type SignInThrottleScope = 'account' | 'address';

export interface SignInThrottleState {
  readonly failures: number;
  readonly lastFailureAt: Date | null;
  readonly blockedUntil: Date | null;
}

export const NO_SIGN_IN_FAILURES: SignInThrottleState = {
  failures: 0,
  lastFailureAt: null,
  blockedUntil: null,
};

/** Seconds until the key may try again; 0 when it is not blocked. */
export function signInRetryAfterSeconds(state: SignInThrottleState, now: Date): number {
  if (state.blockedUntil === null) return 0;
  const remainingMs = state.blockedUntil.getTime() - now.getTime();
  return remainingMs > 0 ? Math.ceil(remainingMs / 1000) : 0;
}

/** The key's state after one more failure; `blockStarted` when this failure began (or lengthened) a block. */
export function afterSignInFailure(
  state: SignInThrottleState,
  now: Date,
  policy: SignInThrottlePolicy,
): SignInThrottleState & { readonly blockStarted: boolean } {
  const forgotten =
    state.lastFailureAt === null ||
    now.getTime() - state.lastFailureAt.getTime() >= policy.forgetAfterSeconds * 1000;
  const failures = (forgotten ? 0 : state.failures) + 1;
  const over = failures - policy.freeFailures;
  if (over <= 0) return { failures, lastFailureAt: now, blockedUntil: null, blockStarted: false };
  const seconds = Math.min(policy.maxBlockSeconds, policy.baseBlockSeconds * 2 ** Math.min(over - 1, 30));
  return {
    failures,
    lastFailureAt: now,
    blockedUntil: new Date(now.getTime() + seconds * 1000),
    blockStarted: true,
  };
}
