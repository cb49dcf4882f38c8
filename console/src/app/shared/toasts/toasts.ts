import { ErrorHandler, Injectable, inject } from '@angular/core';
import { MatSnackBar, type MatSnackBarRef } from '@angular/material/snack-bar';

import { asRequestError } from '../graphql/graphql-error';
import { ErrorToast, type ErrorToastData } from './error-toast';

/**
 * Short-lived messages at the edge of the screen, for outcomes that have no
 * place of their own on the page: an in-place action (cordon, uncordon) that
 * failed. A dialog that shows its error in place does not also toast it.
 */
@Injectable({ providedIn: 'root' })
export class Toasts {
  private readonly snackBar = inject(MatSnackBar);
  private readonly errorHandler = inject(ErrorHandler);

  /**
   * Shows a failed call with its code, request id and correlation id. It
   * stays until the operator dismisses it: the ids are only useful if there
   * is time to copy them. A failure that is not a GraphqlRequestError is a
   * console bug; it is logged and shown as CONSOLE_FAILURE.
   *
   * Announced assertively, by the toast's own role="alert" around what failed
   * and why. The snack bar's live region stays off: with `assertive` it would
   * read out every id and button too, and it sets role="alert" on Firefox
   * only, so the same toast would be announced differently per browser.
   */
  error(heading: string, failure: unknown): MatSnackBarRef<ErrorToast> {
    return this.snackBar.openFromComponent<ErrorToast, ErrorToastData>(ErrorToast, {
      data: { heading, error: asRequestError(failure, this.errorHandler) },
      politeness: 'off',
      // 0: no timer; Dismiss (or Escape in the toast) closes it.
      duration: 0,
      panelClass: 'lnx-error-toast',
    });
  }
}
