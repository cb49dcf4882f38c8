import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';
import { MatButton } from '@angular/material/button';
import { MatDialogClose } from '@angular/material/dialog';

/**
 * The buttons of a confirm-then-answer dialog: Cancel and the confirm button while it has not run (both
 * held while it runs), then Done once the outcome is shown. Put it inside `<mat-dialog-actions>`.
 */
@Component({
  selector: 'lnx-confirm-actions',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButton, MatDialogClose],
  template: `
    @if (done()) {
      <button matButton="filled" type="button" (click)="closed.emit()">Done</button>
    } @else {
      <button matButton type="button" mat-dialog-close [disabled]="busy()">Cancel</button>
      <button
        matButton="filled"
        [class.destructive]="destructive()"
        type="button"
        disabledInteractive
        [disabled]="busy()"
        (click)="confirmed.emit()"
      >
        {{ busy() && busyLabel() ? busyLabel() : confirmLabel() }}
      </button>
    }
  `,
  styles: `
    :host {
      display: contents;
    }
  `,
})
export class ConfirmActions {
  readonly busy = input.required<boolean>();
  readonly done = input.required<boolean>();
  readonly confirmLabel = input.required<string>();
  /** Shown on the confirm button while the call runs ("Revoking…"); default: the confirm label. */
  readonly busyLabel = input<string>('');
  /** Styles the confirm button as destructive (revoke, purge, disable). */
  readonly destructive = input(false);
  readonly confirmed = output();
  readonly closed = output();
}
