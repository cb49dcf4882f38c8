import {
  type ElementRef,
  ErrorHandler,
  Injector,
  type Signal,
  afterNextRender,
  inject,
  signal,
} from '@angular/core';
import { MatDialogRef } from '@angular/material/dialog';

import { type GraphqlRequestError, asRequestError } from '../graphql/graphql-error';

/** An operation dialog's one call to the API, from its submit button to what it answered. */
export interface DialogSubmission<T> {
  /** True while the call runs: the dialog shows its bar and disables Cancel and submit. */
  readonly busy: Signal<boolean>;
  /** Why the last attempt failed, for the dialog's error panel; cleared when the next one starts. */
  readonly error: Signal<GraphqlRequestError | undefined>;
  /** What the call answered (the record saved, the workflow's receipt); the dialog shows it in place of its form. */
  readonly outcome: Signal<T | undefined>;
  /**
   * Sends `call()`, unless a call is running or one has already succeeded (a
   * second Enter, a double click). Resolves with the outcome once it shows,
   * or with undefined when the call failed or was not sent.
   */
  run(call: () => Promise<T>): Promise<T | undefined>;
}

export interface DialogSubmissionOptions {
  /** Focused once the outcome shows: the form and its submit button are gone, and this heading says what happened. */
  readonly focusOnOutcome?: Signal<ElementRef<HTMLElement>>;
  /**
   * Keeps Escape and the backdrop from closing the dialog once a call starts.
   * 'while-calling': until it ends, so its answer is not dropped half-way.
   * 'until-done': after a success as well, so the outcome (a workflow's
   * receipt) leaves only through Done. A failure frees the dialog either way.
   */
  readonly holdOpen?: 'while-calling' | 'until-done';
}

/** Must be called in the dialog component's injection context (a field initializer). */
export function dialogSubmission<T>(options: DialogSubmissionOptions = {}): DialogSubmission<T> {
  const errorHandler = inject(ErrorHandler);
  const injector = inject(Injector);
  const dialogRef = inject(MatDialogRef);

  const busy = signal(false);
  const error = signal<GraphqlRequestError | undefined>(undefined);
  const outcome = signal<T | undefined>(undefined);

  const holdOpen = (held: boolean): void => {
    if (options.holdOpen !== undefined) {
      dialogRef.disableClose = held;
    }
  };

  const run = (call: () => Promise<T>): Promise<T | undefined> => {
    if (busy() || outcome() !== undefined) {
      return Promise.resolve(undefined);
    }
    busy.set(true);
    error.set(undefined);
    holdOpen(true);
    // A promise around the call turns a synchronous throw in it into a failure too, so `busy` always ends.
    return new Promise<T>((resolve) => resolve(call()))
      .then(
        (answer): T => {
          outcome.set(answer);
          const heading = options.focusOnOutcome;
          if (heading !== undefined) {
            afterNextRender(() => heading().nativeElement.focus(), { injector });
          }
          return answer;
        },
        (failure: unknown) => {
          error.set(asRequestError(failure, errorHandler));
          holdOpen(false);
          return undefined;
        },
      )
      .finally(() => {
        busy.set(false);
        if (options.holdOpen === 'while-calling') {
          holdOpen(false);
        }
      });
  };

  return { busy: busy.asReadonly(), error: error.asReadonly(), outcome: outcome.asReadonly(), run };
}
