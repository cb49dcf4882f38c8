import { ChangeDetectionStrategy, Component, type ElementRef, inject, viewChild } from '@angular/core';
import { FormControl, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButton } from '@angular/material/button';
import { MatCheckbox } from '@angular/material/checkbox';
import {
  MAT_DIALOG_DATA,
  MatDialogActions,
  MatDialogClose,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';
import { MatError, MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import {
  GraphqlClient,
  type GraphqlFlow,
  WORKFLOW_CALL_TIMEOUT_MS,
} from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { StatusBadge } from '../../shared/status-badge/status-badge';
import { type AliasServing, type VersionAction, retirementMode, versionActionEffect } from './model-rules';
import {
  APPROVE_MODEL_VERSION,
  DEPRECATE_MODEL_VERSION,
  type ModelVersionDetail,
  REINSTATE_MODEL_VERSION,
  RETIRE_MODEL_VERSION,
  VERIFY_MODEL_VERSION,
} from './models.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface VersionActionDialogData {
  readonly version: ModelVersionDetail;
  readonly action: Exclude<VersionAction, 'evaluate'>;
  readonly label: string;
  /** The aliases serving the version now: the scope of deprecating, retiring or reinstating it. */
  readonly serving?: readonly AliasServing[];
  readonly flow?: GraphqlFlow;
}

/** The API's bound on a note or reason. */
const MAX_TEXT_LENGTH = 1024;

/**
 * Confirms a lifecycle step of a version (verify the digest, approve for
 * rollouts, deprecate, reinstate, retire or withdraw) with its effect and
 * the aliases it touches, then shows the state the API answered with.
 * Deprecating and retiring need a reason (it is kept on the version).
 */
@Component({
  selector: 'lnx-version-action-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    ReactiveFormsModule,
    MatButton,
    MatCheckbox,
    MatDialogActions,
    MatDialogClose,
    MatDialogContent,
    MatDialogTitle,
    MatError,
    MatFormField,
    MatHint,
    MatInput,
    MatLabel,
    ErrorPanel,
    Icon,
    StatusBadge,
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">
      {{ result() ? label + ': done' : label + ' ' + version.ref }}
    </h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" [label]="label + ' in progress'"></div>
      @if (result(); as after) {
        <p class="outcome" role="status">
          <lnx-icon name="ok" />
          {{ after.ref }} is now <lnx-status-badge [status]="after.state" />
        </p>
        @if (after.verification; as verification) {
          @if (action === 'verify') {
            <p>
              {{
                verification.ok
                  ? 'The stored bytes match the digest.'
                  : 'Verification failed: ' + (verification.code ?? '') + ' ' + (verification.message ?? '')
              }}
            </p>
          }
        }
      } @else {
        <p>
          <strong>{{ effect }}</strong>
        </p>
        @if (retirement(); as mode) {
          @if (mode.choice) {
            <mat-checkbox [formControl]="withdraw">
              Withdraw now (license withdrawn, weights compromised): skip the deprecation period
            </mat-checkbox>
          } @else if (mode.withdraw) {
            <p>
              An approved version leaves service only by withdrawal: it is retired at once, without a
              deprecation period.
            </p>
          }
        }
        @if (action !== 'verify') {
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>{{ needsReason ? 'Reason' : 'Note (optional)' }}</mat-label>
            <textarea matInput [formControl]="text" rows="2" [attr.maxlength]="maxTextLength"></textarea>
            <mat-hint>Kept with the version and in the audit log.</mat-hint>
            <mat-error>
              @if (text.hasError('required')) {
                Say why, for whoever finds it {{ action === 'retire' ? 'retired' : 'deprecated' }}.
              } @else {
                At most {{ maxTextLength }} characters.
              }
            </mat-error>
          </mat-form-field>
        }
        @if (error(); as error) {
          <lnx-error-panel
            [heading]="'Could not ' + label.toLowerCase() + ' ' + version.ref"
            [error]="error"
            [retryable]="false"
          />
        }
      }
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      @if (result()) {
        <button matButton="filled" type="button" (click)="done()">Done</button>
      } @else {
        <button matButton type="button" mat-dialog-close [disabled]="busy()">Cancel</button>
        <button
          matButton="filled"
          [class.destructive]="action === 'deprecate' || action === 'retire'"
          type="button"
          disabledInteractive
          [disabled]="busy()"
          (click)="confirm()"
        >
          {{ busy() ? 'Working…' : error() ? 'Try again' : 'Confirm ' + label.toLowerCase() }}
        </button>
      }
    </mat-dialog-actions>
  `,
  styleUrl: './model-dialog.scss',
})
export class VersionActionDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<VersionActionDialog, ModelVersionDetail>>(MatDialogRef);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');
  private readonly data = inject<VersionActionDialogData>(MAT_DIALOG_DATA);
  private readonly flow = this.data.flow ?? this.graphql.startFlow();

  protected readonly version = this.data.version;
  protected readonly action = this.data.action;
  protected readonly label = this.data.label;
  protected readonly maxTextLength = MAX_TEXT_LENGTH;
  protected readonly effect =
    this.action === 'verify'
      ? `Hashes the artifact of ${this.version.ref} in its store and compares it with ${this.version.artifact.digest}. ` +
        'A mismatch marks the version VerificationFailed; nothing rolls out with a mismatched digest.'
      : versionActionEffect(this.action, this.version, this.data.serving ?? []);
  protected readonly needsReason = this.action === 'deprecate' || this.action === 'retire';
  protected readonly text = new FormControl('', {
    nonNullable: true,
    validators: [Validators.maxLength(MAX_TEXT_LENGTH), ...(this.needsReason ? [Validators.required] : [])],
  });
  protected readonly withdraw = new FormControl(false, { nonNullable: true });
  /** For a retirement: whether it goes out as a withdrawal, and whether the operator chooses (Deprecated versions). */
  protected readonly retirement = (): ReturnType<typeof retirementMode> =>
    this.action === 'retire' ? retirementMode(this.version, this.withdraw.value) : null;

  private readonly submission = dialogSubmission<ModelVersionDetail>({
    focusOnOutcome: this.title,
    holdOpen: 'while-calling',
  });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly result = this.submission.outcome;

  private send(): Promise<ModelVersionDetail> {
    const ref = this.version.ref;
    const text = this.text.value.trim();
    const options = { flow: this.flow, timeoutMs: WORKFLOW_CALL_TIMEOUT_MS };
    switch (this.action) {
      case 'verify':
        return this.graphql.request(VERIFY_MODEL_VERSION, { ref }, options).then((d) => d.verifyModelVersion);
      case 'approve':
        return this.graphql
          .request(APPROVE_MODEL_VERSION, { ref, note: text === '' ? null : text }, options)
          .then((d) => d.approveModelVersion);
      case 'deprecate':
        return this.graphql
          .request(DEPRECATE_MODEL_VERSION, { ref, reason: text }, options)
          .then((d) => d.deprecateModelVersion);
      case 'reinstate':
        return this.graphql
          .request(REINSTATE_MODEL_VERSION, { ref, note: text === '' ? null : text }, options)
          .then((d) => d.reinstateModelVersion);
      case 'retire':
        return this.graphql
          .request(
            RETIRE_MODEL_VERSION,
            { ref, reason: text, withdraw: this.retirement()?.withdraw ?? false },
            options,
          )
          .then((d) => d.retireModelVersion);
    }
  }

  protected confirm(): void {
    if (this.text.invalid) {
      this.text.markAsTouched();
      return;
    }
    void this.submission.run(() => this.send());
  }

  protected done(): void {
    this.dialogRef.close(this.result());
  }
}
