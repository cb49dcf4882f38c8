import {
  ChangeDetectionStrategy,
  Component,
  type ElementRef,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import {
  MAT_DIALOG_DATA,
  MatDialogActions,
  MatDialogContent,
  MatDialogRef,
  MatDialogTitle,
} from '@angular/material/dialog';
import { MatError, MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';
import { MatOption, MatSelect } from '@angular/material/select';
import { ROLES } from '@lunanexa/contracts/roles';

import { dialogSubmission } from '../../shared/dialog-submission/dialog-submission';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { Icon } from '../../shared/icon/icon';
import { ConfirmActions } from '../../shared/confirm-actions/confirm-actions';
import {
  PASSWORD_MIN_LENGTH,
  newPasswordProblem,
  operatorActionEffect,
  type OperatorAction,
} from './access-rules';
import {
  CREATE_OPERATOR,
  DISABLE_OPERATOR,
  END_OPERATOR_SESSIONS,
  RESET_OPERATOR_PASSWORD,
  type OperatorSummary,
} from './access.queries';
import { ProgressSlot } from '../../shared/progress-slot/progress-slot';

export interface OperatorActionDialogData {
  readonly action: OperatorAction;
  /** The account acted on; null when creating one. */
  readonly operator: OperatorSummary | null;
}

const HEADINGS: Readonly<Record<OperatorAction, (username: string) => string>> = {
  create: () => 'Create an operator',
  resetPassword: (username) => `Reset the password of ${username}`,
  endSessions: (username) => `End the sessions of ${username}`,
  disable: (username) => `Disable ${username}`,
};

const CONFIRM: Readonly<Record<OperatorAction, string>> = {
  create: 'Create operator',
  resetPassword: 'Set password',
  endSessions: 'End sessions',
  disable: 'Disable account',
};

/**
 * One action on an operator account, confirmed with its effect and answered
 * with the account as the API left it: create (username, role, password),
 * reset a password (their sessions end), end their sessions, or disable.
 */
@Component({
  selector: 'lnx-operator-action-dialog',
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
    MatOption,
    MatSelect,
    ErrorPanel,
    Icon,
    ConfirmActions,
  ],
  template: `
    <h2 mat-dialog-title #title tabindex="-1">{{ done() ? heading + ': done' : heading }}</h2>
    <mat-dialog-content>
      <div lnxProgressSlot [active]="busy()" [label]="heading"></div>
      @if (done(); as after) {
        <p class="outcome" role="status">
          <lnx-icon name="ok" />
          {{ after.username }} ({{ after.role }}){{ after.disabledAt ? ' is disabled' : '' }}.
        </p>
      } @else {
        <p>
          <strong>{{ effect }}</strong>
        </p>
        @if (needsForm) {
          <form id="operator-form" [formGroup]="form" (ngSubmit)="confirm()">
            @if (data.action === 'create') {
              <mat-form-field appearance="outline" subscriptSizing="dynamic">
                <mat-label>Username</mat-label>
                <input matInput formControlName="username" autocapitalize="none" spellcheck="false" />
                <mat-error>2-64 of letters, digits, . _ -, starting with a letter.</mat-error>
              </mat-form-field>
              <mat-form-field appearance="outline" subscriptSizing="dynamic">
                <mat-label>Role</mat-label>
                <mat-select formControlName="role">
                  @for (role of roles; track role) {
                    <mat-option [value]="role">{{ role }}</mat-option>
                  }
                </mat-select>
              </mat-form-field>
            }
            <mat-form-field appearance="outline" subscriptSizing="dynamic">
              <mat-label>New password</mat-label>
              <input matInput type="password" formControlName="password" autocomplete="new-password" />
              <mat-hint>At least {{ minLength }} characters.</mat-hint>
            </mat-form-field>
            <mat-form-field appearance="outline" subscriptSizing="dynamic">
              <mat-label>Repeat the new password</mat-label>
              <input matInput type="password" formControlName="repeated" autocomplete="new-password" />
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
        [destructive]="data.action !== 'create'"
        (confirmed)="confirm()"
        (closed)="close()"
      />
    </mat-dialog-actions>
  `,
  styleUrl: '../tenants/tenant-dialog.scss',
})
export class OperatorActionDialog {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialogRef = inject<MatDialogRef<OperatorActionDialog, OperatorSummary>>(MatDialogRef);
  private readonly fb = inject(NonNullableFormBuilder);
  private readonly title = viewChild.required<ElementRef<HTMLElement>>('title');

  protected readonly data = inject<OperatorActionDialogData>(MAT_DIALOG_DATA);
  protected readonly heading = HEADINGS[this.data.action](this.data.operator?.username ?? '');
  protected readonly confirmLabel = CONFIRM[this.data.action];
  protected readonly effect = operatorActionEffect(this.data.action, this.data.operator);
  protected readonly needsForm = this.data.action === 'create' || this.data.action === 'resetPassword';
  protected readonly roles = ROLES;
  protected readonly minLength = PASSWORD_MIN_LENGTH;
  protected readonly problem = signal<string | null>(null);

  protected readonly form = this.fb.group({
    username: ['', [Validators.required, Validators.pattern(/^[A-Za-z][A-Za-z0-9._-]{1,63}$/)]],
    role: ['viewer' as (typeof ROLES)[number]],
    password: [''],
    repeated: [''],
  });

  private readonly submission = dialogSubmission<OperatorSummary>({ focusOnOutcome: this.title });
  protected readonly busy = this.submission.busy;
  protected readonly error = this.submission.error;
  protected readonly done = this.submission.outcome;

  protected confirm(): void {
    const value = this.form.getRawValue();
    if (this.needsForm) {
      const problem = newPasswordProblem(value.password, value.repeated, null);
      this.problem.set(problem);
      if (this.data.action === 'create' && this.form.controls.username.invalid) {
        this.form.controls.username.markAsTouched();
        return;
      }
      if (problem !== null) return;
    }
    const operatorId = this.data.operator?.id ?? '';
    void this.submission.run(() => {
      switch (this.data.action) {
        case 'create':
          return this.graphql
            .request(CREATE_OPERATOR, {
              input: { username: value.username.trim(), role: value.role, password: value.password },
            })
            .then(({ createOperator }) => createOperator);
        case 'resetPassword':
          return this.graphql
            .request(RESET_OPERATOR_PASSWORD, { input: { operatorId, newPassword: value.password } })
            .then(({ resetOperatorPassword }) => resetOperatorPassword);
        case 'endSessions':
          return this.graphql
            .request(END_OPERATOR_SESSIONS, { id: operatorId })
            .then(({ endOperatorSessions }) => endOperatorSessions);
        case 'disable':
          return this.graphql
            .request(DISABLE_OPERATOR, { id: operatorId })
            .then(({ disableOperator }) => disableOperator);
      }
    });
  }

  protected close(): void {
    this.dialogRef.close(this.done());
  }
}
