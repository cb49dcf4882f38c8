import { ChangeDetectionStrategy, Component, type ElementRef, inject, viewChild } from '@angular/core';
import { MatButton } from '@angular/material/button';
import {
  MAT_DIALOG_DATA,
  MatDialogActions,
  MatDialogClose,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { type AllowlistRuntime, SET_RUNTIME_ALLOWED } from './policies.queries';
import { allowlistEffect } from './policy-rules';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface RuntimeAllowlistDialogData {
  readonly runtime: AllowlistRuntime;
}

/** Confirms putting a runtime on the allowlist or taking it off, naming the effect on rollouts. */
@Component({
  selector: 'lnx-runtime-allowlist-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    MatButton,
    MatDialogActions,
    MatDialogClose,
    MatDialogContent,
    MatDialogTitle,
    ErrorPanel,
    Icon,
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">
      {{ saved() ? heading + ': done' : heading }}
    </h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" label="Changing the runtime allowlist"></div>
      @if (saved(); as after) {
        <p class="outcome" role="status">
          <lnx-icon name="ok" />
          {{ after.name }} {{ after.version }} is {{ after.allowed ? 'on' : 'off' }} the runtime allowlist.
        </p>
      } @else {
        <p>
          <strong>{{ effect }}</strong>
        </p>
        @if (error(); as error) {
          <lnx-error-panel
            heading="Could not change the runtime allowlist"
            [error]="error"
            [retryable]="false"
          />
        }
      }
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      @if (saved()) {
        <button matButton="filled" type="button" (click)="done()">Done</button>
      } @else {
        <button matButton type="button" mat-dialog-close [disabled]="busy()">Cancel</button>
        <button
          matButton="filled"
          [class.destructive]="runtime.allowed"
          type="button"
          disabledInteractive
          [disabled]="busy()"
          (click)="confirm()"
        >
          {{ busy() ? 'Saving…' : runtime.allowed ? 'Confirm disallow' : 'Confirm allow' }}
        </button>
      }
    </mat-dialog-actions>
  `,
  styleUrl: './policy-dialog.scss',
})
export class RuntimeAllowlistDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<RuntimeAllowlistDialog, AllowlistRuntime>>(MatDialogRef);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');

  protected readonly runtime = inject<RuntimeAllowlistDialogData>(MAT_DIALOG_DATA).runtime;
  protected readonly heading = `${this.runtime.allowed ? 'Disallow' : 'Allow'} runtime ${this.runtime.name} ${this.runtime.version}`;
  protected readonly effect = allowlistEffect(this.runtime);

  private readonly submission = dialogSubmission<AllowlistRuntime>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly saved = this.submission.outcome;

  protected confirm(): void {
    void this.submission.run(() =>
      this.graphql
        .request(SET_RUNTIME_ALLOWED, { id: this.runtime.id, allowed: !this.runtime.allowed })
        .then(({ setRuntimeAllowed }) => setRuntimeAllowed),
    );
  }

  protected done(): void {
    this.dialogRef.close(this.saved());
  }
}
