import { ChangeDetectionStrategy, Component, type ElementRef, inject, viewChild } from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
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
import { MatOption, MatSelect } from '@angular/material/select';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { DATA_CLASSES } from '../deployments/create-alias-dialog';
import { type DataPolicy, SET_DATA_POLICY } from './policies.queries';
import { MAX_RETENTION_DAYS, RETENTION_MODES, TENANT_ID_PATTERN, retentionText } from './policy-rules';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface DataPolicyDialogData {
  /** The policy to edit; absent for a tenant that has none yet. */
  readonly policy?: DataPolicy;
}

/**
 * Sets one tenant's data policy: the data class it sends, how long its
 * payloads are kept (never, or N days) and whether it consents to evaluation
 * capture. The API audits the change with the policy before and after; the
 * gateway applies it within a refresh.
 */
@Component({
  selector: 'lnx-data-policy-dialog',
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
    MatOption,
    MatSelect,
    ErrorPanel,
    Icon,
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">
      {{ saved() ? 'Data policy of ' + saved()?.tenantId + ' saved' : heading }}
    </h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" label="Saving the data policy"></div>
      @if (saved(); as policy) {
        <p class="outcome" role="status">
          <lnx-icon name="ok" />
          {{ policy.tenantId }}: {{ policy.dataClass }} data, payloads {{ retentionText(policy) }}, evaluation
          capture {{ policy.evaluationCaptureConsent ? 'consented' : 'not consented' }}.
        </p>
      } @else {
        <form id="policy-form" [formGroup]="form" (ngSubmit)="submit()">
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Tenant id</mat-label>
            <input matInput formControlName="tenantId" required autocapitalize="none" spellcheck="false" />
            <mat-hint
              >As callers send it in x-lunanexa-tenant-id; "default" for requests without one.</mat-hint
            >
            <mat-error>An opaque id: letters, digits and . _ : - (at most 128).</mat-error>
          </mat-form-field>
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Data class</mat-label>
            <mat-select formControlName="dataClass" required>
              @for (dataClass of dataClasses; track dataClass) {
                <mat-option [value]="dataClass">{{ dataClass }}</mat-option>
              }
            </mat-select>
            <mat-hint>Models whose license does not allow it refuse the tenant's requests.</mat-hint>
          </mat-form-field>
          <div class="pair">
            <mat-form-field appearance="outline" subscriptSizing="dynamic">
              <mat-label>Payload retention</mat-label>
              <mat-select formControlName="retentionMode" required>
                @for (mode of retentionModes; track mode) {
                  <mat-option [value]="mode">{{ mode === 'none' ? 'none: never kept' : 'days' }}</mat-option>
                }
              </mat-select>
            </mat-form-field>
            @if (mode() === 'days') {
              <mat-form-field appearance="outline" subscriptSizing="dynamic">
                <mat-label>Retention days</mat-label>
                <input
                  matInput
                  type="number"
                  formControlName="retentionDays"
                  min="1"
                  [max]="maxDays"
                  step="1"
                />
                <mat-error>A whole number from 1 to {{ maxDays }}.</mat-error>
              </mat-form-field>
            }
          </div>
          <mat-checkbox formControlName="evaluationCaptureConsent">
            Consents to keeping completed requests for evaluation (never for training)
          </mat-checkbox>
        </form>
        @if (error(); as error) {
          <lnx-error-panel heading="Could not save the data policy" [error]="error" [retryable]="false" />
        }
      }
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      @if (saved()) {
        <button matButton="filled" type="button" (click)="done()">Done</button>
      } @else {
        <button matButton type="button" mat-dialog-close [disabled]="busy()">Cancel</button>
        <button matButton="filled" type="submit" form="policy-form" disabledInteractive [disabled]="busy()">
          {{ busy() ? 'Saving…' : 'Save policy' }}
        </button>
      }
    </mat-dialog-actions>
  `,
  styleUrl: './policy-dialog.scss',
})
export class DataPolicyDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<DataPolicyDialog, DataPolicy>>(MatDialogRef);
  private readonly fb = inject(NonNullableFormBuilder);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');
  private readonly policy = inject<DataPolicyDialogData>(MAT_DIALOG_DATA).policy;

  protected readonly heading = this.policy ? `Data policy of ${this.policy.tenantId}` : 'Set a data policy';
  protected readonly dataClasses = DATA_CLASSES;
  protected readonly retentionModes = RETENTION_MODES;
  protected readonly maxDays = MAX_RETENTION_DAYS;
  protected readonly retentionText = retentionText;

  protected readonly form = this.fb.group({
    tenantId: [
      { value: this.policy?.tenantId ?? '', disabled: this.policy !== undefined },
      [Validators.required, Validators.pattern(TENANT_ID_PATTERN)],
    ],
    dataClass: [this.policy?.dataClass ?? 'internal', [Validators.required]],
    retentionMode: [this.policy?.retentionMode ?? 'none', [Validators.required]],
    retentionDays: this.fb.control<number | null>(this.policy?.retentionDays ?? 30, [
      Validators.min(1),
      Validators.max(MAX_RETENTION_DAYS),
    ]),
    evaluationCaptureConsent: [this.policy?.evaluationCaptureConsent ?? false],
  });

  protected readonly mode = toSignal(this.form.controls.retentionMode.valueChanges, {
    initialValue: this.form.controls.retentionMode.value,
  });

  private readonly submission = dialogSubmission<DataPolicy>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly saved = this.submission.outcome;

  protected submit(): void {
    const value = this.form.getRawValue();
    const days = value.retentionDays;
    const daysValid = days !== null && Number.isInteger(days) && days >= 1 && days <= MAX_RETENTION_DAYS;
    if (this.form.invalid || (value.retentionMode === 'days' && !daysValid)) {
      this.form.markAllAsTouched();
      return;
    }
    void this.submission.run(() =>
      this.graphql
        .request(SET_DATA_POLICY, {
          input: {
            tenantId: value.tenantId,
            dataClass: value.dataClass,
            retentionMode: value.retentionMode,
            retentionDays: value.retentionMode === 'days' ? days : null,
            evaluationCaptureConsent: value.evaluationCaptureConsent,
          },
        })
        .then(({ setDataPolicy }) => setDataPolicy),
    );
  }

  protected done(): void {
    this.dialogRef.close(this.saved());
  }
}
