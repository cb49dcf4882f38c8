import { ChangeDetectionStrategy, Component, type ElementRef, inject, viewChild } from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButton } from '@angular/material/button';
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
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import {
  DISPLAY_NAME_MAX,
  QUOTAS,
  TENANT_ID_PATTERN,
  quotaFieldValid,
  quotaSummary,
  quotaText,
} from './tenant-rules';
import { CREATE_TENANT, type TenantSummary, UPDATE_TENANT } from './tenants.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface TenantDialogData {
  /** The tenant whose name and quotas to edit; absent: create a new tenant. */
  readonly tenant?: TenantSummary;
}

/**
 * Creates a tenant, or edits one's display name and quotas. An empty quota
 * is unlimited. Editing sends every field, so what the form shows is what is
 * stored; the API audits the change with before and after, and gateways
 * apply it at once.
 */
@Component({
  selector: 'lnx-tenant-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    ReactiveFormsModule,
    MatButton,
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
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">
      {{ saved() ? 'Tenant ' + saved()?.id + ' saved' : heading }}
    </h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" label="Saving the tenant"></div>
      @if (saved(); as tenant) {
        <p class="outcome" role="status">
          <lnx-icon name="ok" />
          {{ tenant.id }}: {{ quotaSummary(tenant.quota) }}.
        </p>
      } @else {
        <form id="tenant-form" [formGroup]="form" (ngSubmit)="submit()">
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Tenant id</mat-label>
            <input matInput formControlName="id" required autocapitalize="none" spellcheck="false" />
            <mat-hint>What its requests carry (x-lunanexa-tenant-id); cannot change later.</mat-hint>
            <mat-error>An opaque id: letters, digits and . _ : - (at most 128).</mat-error>
          </mat-form-field>
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Display name (optional)</mat-label>
            <input matInput formControlName="displayName" [maxlength]="displayNameMax" />
            <mat-error>At most {{ displayNameMax }} characters.</mat-error>
          </mat-form-field>
          <fieldset>
            <legend>Quotas — leave empty for unlimited</legend>
            @for (quota of quotas; track quota.field) {
              <mat-form-field appearance="outline" subscriptSizing="dynamic">
                <mat-label>{{ quota.label }}</mat-label>
                <input
                  matInput
                  type="number"
                  [formControlName]="quota.field"
                  [min]="quota.min"
                  [max]="quota.max"
                  step="1"
                  placeholder="unlimited"
                />
                <mat-hint
                  >{{ quotaText(quota.min) }}–{{ quotaText(quota.max) }}, or empty: unlimited</mat-hint
                >
                <mat-error
                  >A whole number from {{ quotaText(quota.min) }} to {{ quotaText(quota.max) }}, or
                  empty.</mat-error
                >
              </mat-form-field>
            }
          </fieldset>
        </form>
        @if (error(); as error) {
          <lnx-error-panel heading="Could not save the tenant" [error]="error" [retryable]="false" />
        }
      }
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      @if (saved()) {
        <button matButton="filled" type="button" (click)="done()">Done</button>
      } @else {
        <button matButton type="button" mat-dialog-close [disabled]="busy()">Cancel</button>
        <button matButton="filled" type="submit" form="tenant-form" disabledInteractive [disabled]="busy()">
          {{ busy() ? 'Saving…' : tenant ? 'Save quotas' : 'Create tenant' }}
        </button>
      }
    </mat-dialog-actions>
  `,
  styleUrl: './tenant-dialog.scss',
})
export class TenantDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<TenantDialog, TenantSummary>>(MatDialogRef);
  private readonly fb = inject(NonNullableFormBuilder);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');

  protected readonly tenant = inject<TenantDialogData>(MAT_DIALOG_DATA).tenant;
  protected readonly heading = this.tenant ? `Quotas of ${this.tenant.id}` : 'Create a tenant';
  protected readonly quotas = QUOTAS;
  protected readonly displayNameMax = DISPLAY_NAME_MAX;
  protected readonly quotaText = quotaText;
  protected readonly quotaSummary = quotaSummary;

  protected readonly form = this.fb.group({
    id: [
      { value: this.tenant?.id ?? '', disabled: this.tenant !== undefined },
      [Validators.required, Validators.pattern(TENANT_ID_PATTERN)],
    ],
    displayName: [this.tenant?.displayName ?? '', [Validators.maxLength(DISPLAY_NAME_MAX)]],
    requestsPerMinute: this.quotaControl('requestsPerMinute'),
    tokensPerMinute: this.quotaControl('tokensPerMinute'),
    maxConcurrentRequests: this.quotaControl('maxConcurrentRequests'),
  });

  private readonly submission = dialogSubmission<TenantSummary>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly saved = this.submission.outcome;

  private quotaControl(field: 'requestsPerMinute' | 'tokensPerMinute' | 'maxConcurrentRequests') {
    return this.fb.control<number | null>(this.tenant?.quota[field] ?? null, [
      (control) => (quotaFieldValid(control.value as number | null, field) ? null : { quota: true }),
    ]);
  }

  protected submit(): void {
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      return;
    }
    const value = this.form.getRawValue();
    const displayName = value.displayName.trim() === '' ? null : value.displayName.trim();
    const quota = {
      requestsPerMinute: value.requestsPerMinute,
      tokensPerMinute: value.tokensPerMinute,
      maxConcurrentRequests: value.maxConcurrentRequests,
    };
    void this.submission.run(() =>
      this.tenant
        ? this.graphql
            .request(UPDATE_TENANT, { input: { id: this.tenant.id, displayName, ...quota } })
            .then(({ updateTenant }) => updateTenant)
        : this.graphql
            .request(CREATE_TENANT, { input: { id: value.id.trim(), displayName, ...quota } })
            .then(({ createTenant }) => createTenant),
    );
  }

  protected done(): void {
    this.dialogRef.close(this.saved());
  }
}
