import {
  ChangeDetectionStrategy,
  Component,
  type ElementRef,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule } from '@angular/forms';
import {
  MAT_DIALOG_DATA,
  MatDialogActions,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';
import { MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';

import { ConfirmActions } from '../../shared/confirm-actions/confirm-actions';
import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { signingKeyInputProblem } from './policy-rules';
import { REGISTER_SIGNING_KEY, REVOKE_SIGNING_KEY, SET_TENANT_UNSIGNED_POLICY } from './policies.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export type SigningDialogData =
  | { readonly action: 'register' }
  | { readonly action: 'revoke'; readonly keyId: string; readonly label: string }
  | { readonly action: 'unsignedPolicy'; readonly tenantId: string; readonly allow: boolean };

/**
 * Artifact signing trust: register an Ed25519 public key (pasted as base64 or PEM), revoke one, or set whether a
 * tenant accepts versions without a provenance signature — each confirmed with what it changes.
 */
@Component({
  selector: 'lnx-signing-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ProgressSlot,
    ReactiveFormsModule,
    MatDialogActions,
    MatDialogContent,
    MatDialogTitle,
    MatFormField,
    MatHint,
    MatInput,
    MatLabel,
    ConfirmActions,
    ErrorPanel,
    Icon,
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">{{ done() ? heading + ': done' : heading }}</h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" [label]="heading"></div>
      @if (done(); as summary) {
        <p class="outcome" role="status"><lnx-icon name="ok" /> {{ summary }}</p>
      } @else {
        <p>
          <strong>{{ effect }}</strong>
        </p>
        @if (data.action === 'register') {
          <form id="signing-form" [formGroup]="form" (ngSubmit)="confirm()">
            <mat-form-field appearance="outline" subscriptSizing="dynamic">
              <mat-label>Label</mat-label>
              <input matInput formControlName="label" />
              <mat-hint>Who holds the private key, e.g. the release pipeline.</mat-hint>
            </mat-form-field>
            <mat-form-field appearance="outline" subscriptSizing="dynamic">
              <mat-label>Public key</mat-label>
              <textarea matInput rows="4" formControlName="publicKey" spellcheck="false"></textarea>
              <mat-hint
                >Ed25519: base64 of the 32 raw bytes, or a PEM (lunanexa signing-key generate).</mat-hint
              >
            </mat-form-field>
            @if (problem(); as problem) {
              <p class="form-problem" role="alert">{{ problem }}</p>
            }
          </form>
        }
        @if (error(); as error) {
          <lnx-error-panel
            [heading]="'Could not ' + confirmLabel.toLowerCase()"
            [error]="error"
            [retryable]="false"
          />
        }
      }
    </mat-dialog-content>
    <mat-dialog-actions align="end">
      <lnx-confirm-actions
        [busy]="busy()"
        [done]="done() !== undefined"
        [confirmLabel]="confirmLabel"
        [destructive]="data.action === 'revoke' || (data.action === 'unsignedPolicy' && data.allow)"
        (confirmed)="confirm()"
        (closed)="close()"
      />
    </mat-dialog-actions>
  `,
  styleUrl: './policy-dialog.scss',
})
export class SigningDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<SigningDialog, boolean>>(MatDialogRef);
  private readonly fb = inject(NonNullableFormBuilder);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');

  protected readonly data = inject<SigningDialogData>(MAT_DIALOG_DATA);
  protected readonly heading =
    this.data.action === 'register'
      ? 'Register a signing key'
      : this.data.action === 'revoke'
        ? `Revoke signing key ${this.data.label}`
        : `${this.data.allow ? 'Allow' : 'Refuse'} unsigned versions for ${this.data.tenantId}`;
  protected readonly confirmLabel =
    this.data.action === 'register'
      ? 'Register key'
      : this.data.action === 'revoke'
        ? 'Revoke key'
        : 'Save policy';
  protected readonly effect =
    this.data.action === 'register'
      ? 'Versions whose provenance signature verifies against this key are trusted from now on, at the deploy gate and on every agent.'
      : this.data.action === 'revoke'
        ? `Stops trusting ${this.data.keyId}: versions signed only by it are refused at the next deploy and by agents. This cannot be undone.`
        : this.data.allow
          ? `Versions without a provenance signature may then be rolled out onto aliases ${this.data.tenantId}'s keys call.`
          : `Versions without a provenance signature are then refused (UNSIGNED_VERSION_NOT_ALLOWED) for aliases ${this.data.tenantId}'s keys call.`;
  protected readonly problem = signal<string | null>(null);
  protected readonly form = this.fb.group({ label: [''], publicKey: [''] });

  private readonly submission = dialogSubmission<string>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly done = this.submission.outcome;

  protected confirm(): void {
    const data = this.data;
    if (data.action === 'register') {
      const { label, publicKey } = this.form.getRawValue();
      const problem = signingKeyInputProblem(label, publicKey);
      this.problem.set(problem);
      if (problem !== null) return;
      void this.submission.run(() =>
        this.graphql
          .request(REGISTER_SIGNING_KEY, { input: { label: label.trim(), publicKey: publicKey.trim() } })
          .then(
            ({ registerSigningKey }) =>
              `${registerSigningKey.keyId} (${registerSigningKey.label}) is trusted.`,
          ),
      );
      return;
    }
    void this.submission.run(() =>
      data.action === 'revoke'
        ? this.graphql
            .request(REVOKE_SIGNING_KEY, { keyId: data.keyId })
            .then(({ revokeSigningKey }) => `${revokeSigningKey.keyId} is revoked.`)
        : this.graphql
            .request(SET_TENANT_UNSIGNED_POLICY, {
              tenantId: data.tenantId,
              allowUnsignedVersions: data.allow,
            })
            .then(
              ({ setTenantUnsignedPolicy }) =>
                `${setTenantUnsignedPolicy.tenantId} ${setTenantUnsignedPolicy.allowUnsignedVersions ? 'allows' : 'refuses'} unsigned versions.`,
            ),
    );
  }

  protected close(): void {
    this.dialogRef.close(true);
  }
}
