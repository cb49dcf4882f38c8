import { ChangeDetectionStrategy, Component, type ElementRef, inject, viewChild } from '@angular/core';
import {
  MAT_DIALOG_DATA,
  MatDialogActions,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { Icon } from '../../shared/icon/icon';
import { ConfirmActions } from '../../shared/confirm-actions/confirm-actions';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

/** What the run answered, as the dialog shows it. */
export interface FleetRunOutcome {
  readonly summary: string;
  readonly lines: readonly string[];
  readonly workflowId: string;
  readonly temporalUiUrl: string;
  readonly receiptHash: string | null;
}

export interface FleetRunDialogData {
  readonly heading: string;
  /** What the run will do (from the dry run just shown). */
  readonly scope: string;
  readonly confirmLabel: string;
  readonly run: () => Promise<FleetRunOutcome>;
}

/** Confirms a healing or reconcile pass with its scope, runs it, and shows what it did with its workflow link. */
@Component({
  selector: 'lnx-fleet-run-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    MatDialogActions,
    MatDialogContent,
    MatDialogTitle,
    ErrorPanel,
    Icon,
    ConfirmActions,
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">{{ done() ? data.heading + ': done' : data.heading }}</h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" [label]="data.heading"></div>
      @if (done(); as outcome) {
        <p class="outcome" role="status"><lnx-icon name="ok" /> {{ outcome.summary }}</p>
        @if (outcome.lines.length > 0) {
          <ul>
            @for (line of outcome.lines; track $index) {
              <li>{{ line }}</li>
            }
          </ul>
        }
        <p>
          Workflow
          <a [href]="outcome.temporalUiUrl" target="_blank" rel="noopener">{{ outcome.workflowId }}</a>
          @if (outcome.receiptHash; as hash) {
            · receipt <code>{{ hash }}</code>
          }
        </p>
      } @else {
        <p>
          <strong>{{ data.scope }}</strong>
        </p>
        @if (error(); as error) {
          <lnx-error-panel [heading]="'Could not run: ' + data.heading" [error]="error" [retryable]="false" />
        }
      }
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      <lnx-confirm-actions
        [busy]="busy()"
        [done]="done() !== undefined"
        [confirmLabel]="data.confirmLabel"
        (confirmed)="confirm()"
        (closed)="close()"
      />
    </mat-dialog-actions>
  `,
  styleUrl: '../tenants/tenant-dialog.scss',
})
export class FleetRunDialog {
  private readonly dialogRef = inject<MatDialogRef<FleetRunDialog, FleetRunOutcome>>(MatDialogRef);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');
  protected readonly data = inject<FleetRunDialogData>(MAT_DIALOG_DATA);

  private readonly submission = dialogSubmission<FleetRunOutcome>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly done = this.submission.outcome;

  protected confirm(): void {
    void this.submission.run(() => this.data.run());
  }

  protected close(): void {
    this.dialogRef.close(this.done());
  }
}
