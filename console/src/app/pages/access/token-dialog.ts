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
import { MatOption, MatSelect } from '@angular/material/select';
import { ROLES, type Role } from '@lunanexa/contracts/roles';

import { ConfirmActions } from '../../shared/confirm-actions/confirm-actions';
import { CopyButton } from '../../shared/copy-button/copy-button';
import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { apiTokenInputProblem } from './access-rules';
import { CREATE_API_TOKEN, REVOKE_API_TOKEN, REVOKE_BOOTSTRAP_TOKEN } from './access.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export type TokenDialogData =
  | { readonly action: 'createApiToken'; readonly roles: readonly Role[] }
  | { readonly action: 'revokeApiToken'; readonly id: string; readonly prefix: string; readonly name: string }
  | { readonly action: 'revokeBootstrapToken'; readonly id: string; readonly prefix: string };

interface TokenOutcome {
  readonly summary: string;
  /** A new API token's secret: shown in this dialog only. */
  readonly secret: string | null;
}

/**
 * Creates an API token (the secret is shown once, here) or revokes an API token or a bootstrap token, each
 * confirmed with what stops working.
 */
@Component({
  selector: 'lnx-token-dialog',
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
    MatOption,
    MatSelect,
    ConfirmActions,
    CopyButton,
    ErrorPanel,
    Icon,
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">{{ done() ? heading + ': done' : heading }}</h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" [label]="heading"></div>
      @if (done(); as outcome) {
        <p class="outcome" role="status"><lnx-icon name="ok" /> {{ outcome.summary }}</p>
        @if (outcome.secret; as secret) {
          <p><strong>Shown once.</strong> Store it now; only its sha256 is kept.</p>
          <code aria-label="API token">{{ secret }}</code>
          <lnx-copy-button [text]="secret" label="Copy token" />
        }
      } @else {
        <p>
          <strong>{{ effect }}</strong>
        </p>
        @if (data.action === 'createApiToken') {
          <form id="token-form" [formGroup]="form" (ngSubmit)="confirm()">
            <mat-form-field appearance="outline" subscriptSizing="dynamic">
              <mat-label>Name</mat-label>
              <input matInput formControlName="name" />
              <mat-hint>What it is for, e.g. "CI deploys".</mat-hint>
            </mat-form-field>
            <mat-form-field appearance="outline" subscriptSizing="dynamic">
              <mat-label>Role</mat-label>
              <mat-select formControlName="role">
                @for (role of roleChoices; track role) {
                  <mat-option [value]="role">{{ role }}</mat-option>
                }
              </mat-select>
            </mat-form-field>
            <mat-form-field appearance="outline" subscriptSizing="dynamic">
              <mat-label>Expires in days (empty: never)</mat-label>
              <input matInput type="number" formControlName="expiresInDays" min="1" max="365" />
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
        [destructive]="data.action !== 'createApiToken'"
        (confirmed)="confirm()"
        (closed)="close()"
      />
    </mat-dialog-actions>
  `,
  styleUrl: '../tenants/tenant-dialog.scss',
})
export class TokenDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<TokenDialog, boolean>>(MatDialogRef);
  private readonly fb = inject(NonNullableFormBuilder);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');

  protected readonly data = inject<TokenDialogData>(MAT_DIALOG_DATA);
  protected readonly heading =
    this.data.action === 'createApiToken'
      ? 'Create an API token'
      : this.data.action === 'revokeApiToken'
        ? `Revoke API token ${this.data.prefix}`
        : `Revoke bootstrap token ${this.data.prefix}`;
  protected readonly confirmLabel = this.data.action === 'createApiToken' ? 'Create token' : 'Revoke token';
  protected readonly effect =
    this.data.action === 'createApiToken'
      ? 'Issues a token owned by you, for automation (Authorization: Bearer). Its role may not exceed yours.'
      : this.data.action === 'revokeApiToken'
        ? `Revokes ${this.data.prefix}… (${this.data.name}): every request with it is refused from now on. This cannot be undone.`
        : `Revokes ${this.data.prefix}…: no machine can enroll with it any more. This cannot be undone.`;
  protected readonly roleChoices =
    this.data.action === 'createApiToken' ? this.data.roles : (ROLES as readonly Role[]);
  protected readonly problem = signal<string | null>(null);
  protected readonly form = this.fb.group({
    name: [''],
    role: [(this.roleChoices.at(-1) ?? 'viewer') as Role],
    expiresInDays: this.fb.control<number | null>(90),
  });

  private readonly submission = dialogSubmission<TokenOutcome>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly done = this.submission.outcome;

  protected confirm(): void {
    const data = this.data;
    if (data.action === 'createApiToken') {
      const { name, role, expiresInDays } = this.form.getRawValue();
      const days = expiresInDays === null || String(expiresInDays) === '' ? null : Number(expiresInDays);
      const problem = apiTokenInputProblem(name, days);
      this.problem.set(problem);
      if (problem !== null) return;
      void this.submission.run(() =>
        this.graphql
          .request(CREATE_API_TOKEN, { input: { name: name.trim(), role, expiresInDays: days } })
          .then(({ createApiToken }) => ({
            summary: `${createApiToken.apiToken.prefix}… created (${createApiToken.apiToken.role}).`,
            secret: createApiToken.token,
          })),
      );
      return;
    }
    void this.submission.run(() =>
      data.action === 'revokeApiToken'
        ? this.graphql.request(REVOKE_API_TOKEN, { id: data.id }).then(({ revokeApiToken }) => ({
            summary: `${revokeApiToken.prefix}… is revoked.`,
            secret: null,
          }))
        : this.graphql.request(REVOKE_BOOTSTRAP_TOKEN, { id: data.id }).then(({ revokeBootstrapToken }) => ({
            summary: `${revokeBootstrapToken.prefix}… is revoked.`,
            secret: null,
          })),
    );
  }

  protected close(): void {
    this.dialogRef.close(true);
  }
}
