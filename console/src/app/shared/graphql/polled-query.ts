import {
  DOCUMENT,
  DestroyRef,
  ErrorHandler,
  type Signal,
  afterNextRender,
  inject,
  signal,
} from '@angular/core';

import type { Observable } from 'rxjs';

import { GraphqlRequestError, TransportErrorCode } from './graphql-error';

export interface PolledQuery<T> {
  /** The last successful result; kept through later failures so a flaky API does not blank the page. */
  readonly value: Signal<T | undefined>;
  /** The failure of the most recent attempt, cleared by the next success. */
  readonly error: Signal<GraphqlRequestError | undefined>;
  readonly loading: Signal<boolean>;
  /** When `value` was last refreshed. */
  readonly updatedAt: Signal<Date | undefined>;
  /** Loads now (cancelling a load in flight) and restarts the interval. */
  refresh(): void;
}

export interface PollOptions {
  readonly intervalMs: number;
  /**
   * Each emission asks for an early refresh (a live event said something
   * changed). Bursts collapse into one load at most every
   * {@link MIN_TRIGGERED_GAP_MS}, and a trigger during a load queues one more
   * load instead of cancelling it, so a busy fleet cannot starve the page of
   * answers. Polling carries on regardless: it is what notices changes that
   * send no event, and all there is while the live socket is down.
   */
  readonly refreshOn?: Observable<unknown>;
}

const MIN_TRIGGERED_GAP_MS = 1_000;

/**
 * Runs `load` now and again `intervalMs` after each attempt finishes, so slow
 * answers never pile up. Polling pauses while the tab is hidden (no load on
 * the API from background tabs) and catches up as soon as it is visible.
 * Stops and cancels the call in flight when the calling component is destroyed.
 *
 * Must be called in an injection context (a field initializer or constructor).
 */
export function pollQuery<T>(
  load: (signal: AbortSignal) => Promise<T>,
  options: PollOptions,
): PolledQuery<T> {
  const document = inject(DOCUMENT);
  const errorHandler = inject(ErrorHandler);

  const value = signal<T | undefined>(undefined);
  const error = signal<GraphqlRequestError | undefined>(undefined);
  // Loading from the start: the first load waits for the first render (below), and until then no view may look empty.
  const loading = signal(true);
  const updatedAt = signal<Date | undefined>(undefined);

  let inFlight: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stale = false;
  let destroyed = false;
  let triggered = false;
  let lastStartedAt = Number.NEGATIVE_INFINITY;

  const schedule = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (destroyed) {
      return;
    }
    if (document.visibilityState === 'hidden') {
      stale = true;
      return;
    }
    const delay = triggered
      ? Math.max(0, lastStartedAt + MIN_TRIGGERED_GAP_MS - Date.now())
      : options.intervalMs;
    timer = setTimeout(run, delay);
  };

  const run = (): void => {
    clearTimeout(timer);
    timer = undefined;
    stale = false;
    triggered = false;
    lastStartedAt = Date.now();
    inFlight?.abort();
    const attempt = new AbortController();
    inFlight = attempt;
    loading.set(true);
    // Starting from a resolved promise turns a synchronous throw in `load` into a rejection too.
    void Promise.resolve(attempt.signal)
      .then(load)
      .then(
        (result) => {
          if (inFlight !== attempt) {
            return;
          }
          value.set(result);
          error.set(undefined);
          updatedAt.set(new Date());
        },
        (failure: unknown) => {
          if (inFlight !== attempt) {
            return;
          }
          if (failure instanceof GraphqlRequestError) {
            error.set(failure);
            return;
          }
          // Anything else is a bug in the console, not an API failure: report it
          // through Angular's handler and still show the operator an error panel.
          errorHandler.handleError(failure);
          error.set(
            new GraphqlRequestError({
              code: TransportErrorCode.CONSOLE_FAILURE,
              message:
                failure instanceof Error ? failure.message : 'The console failed to process the answer.',
              requestId: '',
              correlationId: '',
            }),
          );
        },
      )
      .finally(() => {
        if (inFlight !== attempt) {
          return;
        }
        inFlight = undefined;
        loading.set(false);
        schedule();
      });
  };

  const onVisibilityChange = (): void => {
    if (document.visibilityState === 'visible' && stale && inFlight === undefined) {
      run();
    }
  };
  document.addEventListener('visibilitychange', onVisibilityChange);

  const triggers = options.refreshOn?.subscribe(() => {
    if (destroyed || triggered) {
      return;
    }
    triggered = true;
    // A load in flight reschedules when it finishes; otherwise bring the next one forward now.
    if (inFlight === undefined) {
      schedule();
    }
  });

  inject(DestroyRef).onDestroy(() => {
    destroyed = true;
    triggers?.unsubscribe();
    clearTimeout(timer);
    document.removeEventListener('visibilitychange', onVisibilityChange);
    const attempt = inFlight;
    inFlight = undefined;
    attempt?.abort();
  });

  // Not in the constructor: a routed component's inputs (`name` from the URL) may
  // not be bound yet then, and `load` reads them. After the first render they are.
  afterNextRender(() => {
    if (!destroyed && inFlight === undefined && timer === undefined) run();
  });

  return {
    value: value.asReadonly(),
    error: error.asReadonly(),
    loading: loading.asReadonly(),
    updatedAt: updatedAt.asReadonly(),
    refresh: run,
  };
}
