import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { MatButton } from '@angular/material/button';
import {
  MAT_SNACK_BAR_DATA,
  MatSnackBarAction,
  MatSnackBarActions,
  MatSnackBarLabel,
  MatSnackBarRef,
} from '@angular/material/snack-bar';

import { CopyButton } from '../copy-button/copy-button';
import { type GraphqlRequestError, errorTitle } from '../graphql/graphql-error';
import { Icon } from '../icon/icon';

export interface ErrorToastData {
  /** What could not be done: "Could not cordon dgx-1". */
  readonly heading: string;
  readonly error: GraphqlRequestError;
}

/**
 * A failed call in a snack bar, for actions that have no panel of their own
 * to show it in: what failed, the code, and the request and correlation ids
 * an operator needs for a ticket or a log search, each with a copy button.
 * It stays until dismissed (Dismiss, or Escape while focus is in it).
 */
@Component({
  selector: 'lnx-error-toast',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButton, MatSnackBarAction, MatSnackBarActions, MatSnackBarLabel, CopyButton, Icon],
  host: { '(keydown.escape)': 'dismiss()' },
  template: `
    <div matSnackBarLabel class="label">
      <!-- The assertive announcement: what failed and why. The ids below are for reading and copying, not for reading out. -->
      <div role="alert">
        <p class="title">
          <lnx-icon name="error" />
          <span>{{ title }}</span>
        </p>
        <p class="message">{{ error.message }}</p>
      </div>
      <dl class="ids">
        @for (id of ids; track id.label) {
          <div>
            <dt>{{ id.label }}</dt>
            <dd>
              @if (id.value) {
                <code>{{ id.value }}</code>
                <lnx-copy-button [text]="id.value" [label]="id.copyLabel" />
              } @else {
                —
              }
            </dd>
          </div>
        }
      </dl>
    </div>
    <div matSnackBarActions class="actions">
      <button matButton matSnackBarAction type="button" (click)="dismiss()">Dismiss</button>
    </div>
  `,
  styles: `
    :host {
      display: flex;
      flex-wrap: wrap;
      align-items: flex-end;
      justify-content: flex-end;
      // Icon buttons would otherwise take the page's muted colour, unreadable on the error surface.
      --mat-icon-button-icon-color: currentColor;
      --lnx-icon-size: 18px;
    }

    // Dismiss sits beside the ids where the snack bar is wide, under them on a phone.
    .label {
      flex: 1 1 340px;
      min-width: 0;
      padding-block: 12px 4px;
    }

    .title {
      display: flex;
      align-items: center;
      gap: 8px;
      margin: 0;
      font: var(--mat-sys-title-small);
      --lnx-icon-size: 20px;
    }

    .message {
      margin: 4px 0 8px;
      overflow-wrap: anywhere;
    }

    .ids {
      display: grid;
      grid-template-columns: max-content minmax(0, 1fr);
      align-items: center;
      gap: 0 12px;
      margin: 0;

      > div {
        display: contents;
      }

      dt {
        font-weight: 500;
      }

      dd {
        display: flex;
        align-items: center;
        gap: 2px;
        min-width: 0;
        min-height: 40px;
        margin: 0;
      }

      code {
        font-family: var(--lnx-mono-font);
        font-size: 0.9em;
        overflow-wrap: anywhere;
      }
    }

    .actions {
      padding-bottom: 4px;
    }
  `,
})
export class ErrorToast {
  private readonly snackBarRef = inject<MatSnackBarRef<ErrorToast>>(MatSnackBarRef);
  private readonly data = inject<ErrorToastData>(MAT_SNACK_BAR_DATA);

  protected readonly error = this.data.error;
  protected readonly title = `${this.data.heading}: ${errorTitle(this.error.code)}`;
  protected readonly ids = [
    { label: 'Error code', value: this.error.code, copyLabel: 'Copy error code' },
    { label: 'Request id', value: this.error.requestId, copyLabel: 'Copy request id' },
    { label: 'Correlation id', value: this.error.correlationId, copyLabel: 'Copy correlation id' },
  ] as const;

  protected dismiss(): void {
    this.snackBarRef.dismissWithAction();
  }
}
