import { ChangeDetectionStrategy, Component, type ElementRef, inject, viewChild } from '@angular/core';
import { FormControl, ReactiveFormsModule, Validators } from '@angular/forms';
import {
  MAT_DIALOG_DATA,
  MatDialogActions,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';
import { MatError, MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';

import { ConfirmActions } from '../../shared/confirm-actions/confirm-actions';
import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { type LicenseUse, MAX_NOTE_LENGTH, licenseDecisionEffect } from './registry-rules';
import { APPROVE_LICENSE, REJECT_LICENSE, type RegistryLicense } from './registry.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface LicenseDecisionDialogData {
  readonly license: RegistryLicense;
  readonly decision: 'approve' | 'reject';
  /** The versions registered under the license: what the decision reaches. */
  readonly uses: readonly LicenseUse[];
}

interface Decided {
  readonly license: RegistryLicense;
  readonly requestId: string;
}

/**
 * An administrator's review of a license: approve or reject it with a note
 * (kept on the license and in the audit log), after reading which versions
 * the decision reaches. Shows the decision the API recorded, and who made it.
 */
@Component({
  selector: 'lnx-license-decision-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    ReactiveFormsModule,
    MatDialogActions,
    MatDialogContent,
    MatDialogTitle,
    MatError,
    MatFormField,
    MatHint,
    MatInput,
    MatLabel,
    ConfirmActions,
    ErrorPanel,
    Icon,
    StatusBadge,
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">{{ decided() ? heading + ': done' : heading }}</h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" [label]="heading + ' in progress'"></div>
      @if (decided(); as after) {
        <p class="outcome" role="status">
          <lnx-icon name="ok" />
          {{ after.license.name }} is now <lnx-status-badge [status]="after.license.approvalState" />
        </p>
        <dl class="receipt">
          <dt>Decided by</dt>
          <dd>
            <code>{{ after.license.decidedBy ?? '—' }}</code>
          </dd>
          <dt>Decided at</dt>
          <dd>
            <code>{{ after.license.decidedAt ?? '—' }}</code>
          </dd>
          <dt>Request id</dt>
          <dd>
            <code>{{ after.requestId }}</code>
          </dd>
        </dl>
      } @else {
        <p>
          <strong>{{ effect }}</strong>
        </p>
        <mat-form-field appearance="outline" subscriptSizing="dynamic">
          <mat-label>Note</mat-label>
          <textarea matInput [formControl]="note" rows="2" [attr.maxlength]="maxNote"></textarea>
          <mat-hint>Why: kept with the license and in the audit log.</mat-hint>
          <mat-error>
            @if (note.hasError('maxlength')) {
              At most {{ maxNote }} characters.
            } @else {
              Say why, for whoever reads the review later.
            }
          </mat-error>
        </mat-form-field>
        @if (error(); as error) {
          <lnx-error-panel
            [heading]="'Could not ' + decision + ' ' + license.name"
            [error]="error"
            [retryable]="false"
          />
        }
      }
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      <lnx-confirm-actions
        [busy]="busy()"
        [done]="decided() !== undefined"
        [confirmLabel]="error() ? 'Try again' : decision === 'approve' ? 'Confirm approve' : 'Confirm reject'"
        busyLabel="Saving…"
        [destructive]="decision === 'reject'"
        (confirmed)="confirm()"
        (closed)="done()"
      />
    </mat-dialog-actions>
  `,
  styleUrl: './registry-dialog.scss',
})
export class LicenseDecisionDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<LicenseDecisionDialog, RegistryLicense>>(MatDialogRef);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');
  private readonly data = inject<LicenseDecisionDialogData>(MAT_DIALOG_DATA);

  protected readonly license = this.data.license;
  protected readonly decision = this.data.decision;
  protected readonly heading = `${this.decision === 'approve' ? 'Approve' : 'Reject'} license ${this.license.name}`;
  protected readonly effect = licenseDecisionEffect(this.decision, this.license, this.data.uses);
  protected readonly maxNote = MAX_NOTE_LENGTH;
  protected readonly note = new FormControl('', {
    nonNullable: true,
    validators: [Validators.required, Validators.pattern(/\S/), Validators.maxLength(MAX_NOTE_LENGTH)],
  });

  private readonly submission = dialogSubmission<Decided>({
    focusOnOutcome: this.title,
    holdOpen: 'while-calling',
  });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly decided = this.submission.outcome;

  protected confirm(): void {
    if (this.note.invalid) {
      this.note.markAsTouched();
      return;
    }
    const variables = { name: this.license.name, note: this.note.value.trim() };
    void this.submission.run(() =>
      this.graphql
        .requestWithIds(this.decision === 'approve' ? APPROVE_LICENSE : REJECT_LICENSE, variables)
        .then(({ data, requestId }) => ({ license: data.license, requestId })),
    );
  }

  protected done(): void {
    this.dialogRef.close(this.decided()?.license);
  }
}
