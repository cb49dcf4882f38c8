/*
 * Accessible names for browser tests:
 *   /access: heading 'Access' (level 1); region 'Your account' with fields 'Current password', 'New password',
 *   'Repeat the new password' and button 'Change password' (then status 'Password changed…'); for admins
 *   region 'Operators' with table 'Operators' (rowheaders are usernames), button 'Create operator…', and per
 *   row buttons 'Reset password of <u>…', 'End sessions of <u>…', 'Disable <u>…'.
 *   Dialogs: 'Create an operator' / 'Reset the password of <u>' / 'End the sessions of <u>' / 'Disable <u>',
 *   confirmed with 'Create operator' / 'Set password' / 'End sessions' / 'Disable account', then 'Done'.
 */
import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { NonNullableFormBuilder, ReactiveFormsModule } from '@angular/forms';
import { MatButton } from '@angular/material/button';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { MatDialog } from '@angular/material/dialog';
import { MatFormField, MatHint, MatLabel } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';

import { openDialog } from '../../shared/dialog-focus/open-dialog';
import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { GraphqlRequestError } from '../../shared/graphql/graphql-error';
import { type PolledQuery, pollQuery } from '../../shared/graphql/polled-query';
import { Icon } from '../../shared/icon/icon';
import { LivePageHeader } from '../../shared/page-header/live-page-header';
import { QueryFailure } from '../../shared/query-status/query-failure';
import { Session } from '../../shared/session/session';
import { ROLES } from '@lunanexa/contracts/roles';

import {
  PASSWORD_MIN_LENGTH,
  canManageOperators,
  newPasswordProblem,
  operatorActions,
  tokenState,
  type OperatorAction,
} from './access-rules';
import {
  API_TOKENS,
  BOOTSTRAP_TOKENS,
  CHANGE_PASSWORD,
  OPERATORS,
  type ApiTokenSummary,
  type BootstrapTokenSummary,
  type OperatorSummary,
} from './access.queries';
import { OperatorActionDialog, type OperatorActionDialogData } from './operator-action-dialog';
import { TokenDialog, type TokenDialogData } from './token-dialog';
import { TableScroll } from '../../shared/table-scroll/table-scroll';

const REFRESH_INTERVAL_MS = 30_000;
const DIALOG_SIZE = { width: '560px', maxWidth: 'calc(100vw - 32px)' } as const;
const ACTION_LABELS: Readonly<Record<OperatorAction, (username: string) => string>> = {
  create: () => 'Create operator…',
  resetPassword: (username) => `Reset password of ${username}…`,
  endSessions: (username) => `End sessions of ${username}…`,
  disable: (username) => `Disable ${username}…`,
};

/**
 * Access: your own account (change your password; every other session of yours ends) and, for
 * administrators, the operator accounts: create one, reset a password, end someone's sessions, disable.
 */
@Component({
  selector: 'lnx-access',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    TableScroll,
    DatePipe,
    ReactiveFormsModule,
    MatButton,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    MatFormField,
    MatHint,
    MatInput,
    MatLabel,
    ErrorPanel,
    Icon,
    LivePageHeader,
    QueryFailure,
  ],
  template: `
    <lnx-live-page-header heading="Access" [refreshSeconds]="refreshSeconds" (refresh)="refreshAll()">
      @if (canManage()) {
        <button matButton="filled" type="button" (click)="act('create', null)">Create operator…</button>
      }
    </lnx-live-page-header>

    <mat-card appearance="outlined" role="region" aria-labelledby="account-title">
      <mat-card-header>
        <mat-card-title><h2 id="account-title">Your account</h2></mat-card-title>
        <mat-card-subtitle>{{ session.operator()?.username }}, role {{ session.role() }}</mat-card-subtitle>
      </mat-card-header>
      <mat-card-content>
        <form class="password-form" [formGroup]="passwordForm" (ngSubmit)="changePassword()">
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Current password</mat-label>
            <input matInput type="password" formControlName="current" autocomplete="current-password" />
          </mat-form-field>
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>New password</mat-label>
            <input matInput type="password" formControlName="password" autocomplete="new-password" />
            <mat-hint>At least {{ minLength }} characters.</mat-hint>
          </mat-form-field>
          <mat-form-field appearance="outline" subscriptSizing="dynamic">
            <mat-label>Repeat the new password</mat-label>
            <input matInput type="password" formControlName="repeated" autocomplete="new-password" />
          </mat-form-field>
          @if (passwordProblem(); as problem) {
            <p class="form-problem" role="alert">{{ problem }}</p>
          }
          @if (passwordError(); as error) {
            <lnx-error-panel heading="Could not change the password" [error]="error" [retryable]="false" />
          }
          @if (passwordChanged()) {
            <p class="outcome" role="status">
              <lnx-icon name="ok" /> Password changed; your other sessions have ended.
            </p>
          }
          <div>
            <button matButton="filled" type="submit" [disabled]="changing()">
              {{ changing() ? 'Changing…' : 'Change password' }}
            </button>
          </div>
        </form>
      </mat-card-content>
    </mat-card>

    @if (canManage()) {
      <mat-card appearance="outlined" role="region" aria-labelledby="operators-title">
        <mat-card-header>
          <mat-card-title><h2 id="operators-title">Operators</h2></mat-card-title>
          <mat-card-subtitle
            >Who can sign in to the console and the API, and with which role</mat-card-subtitle
          >
        </mat-card-header>
        <mat-card-content>
          <lnx-query-failure
            [query]="operators"
            heading="Could not load operators"
            (retry)="operators.refresh()"
          />
          @if (operators.value(); as rows) {
            <div lnxTableScroll="Operators">
              <table class="lnx-table operators">
                <caption class="lnx-visually-hidden">
                  Operators
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Username</th>
                    <th scope="col">Role</th>
                    <th scope="col">State</th>
                    <th scope="col">Created</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  @for (operator of rows; track operator.id) {
                    <tr>
                      <th scope="row">{{ operator.username }}</th>
                      <td>{{ operator.role }}</td>
                      <td>{{ operator.disabledAt ? 'Disabled' : 'Enabled' }}</td>
                      <td>
                        <time [attr.datetime]="operator.createdAt">{{
                          operator.createdAt | date: 'yyyy-MM-dd'
                        }}</time>
                      </td>
                      <td class="actions">
                        @for (action of actionsOf(operator); track action) {
                          <button matButton type="button" (click)="act(action, operator)">
                            {{ label(action, operator.username) }}
                          </button>
                        } @empty {
                          {{ operator.id === session.operator()?.id ? 'you' : '—' }}
                        }
                      </td>
                    </tr>
                  }
                </tbody>
              </table>
            </div>
          }
        </mat-card-content>
      </mat-card>

      <mat-card appearance="outlined" role="region" aria-labelledby="api-tokens-title">
        <mat-card-header>
          <mat-card-title><h2 id="api-tokens-title">API tokens</h2></mat-card-title>
          <mat-card-subtitle>Long-lived credentials for automation (never the secret)</mat-card-subtitle>
        </mat-card-header>
        <mat-card-content>
          <lnx-query-failure
            [query]="apiTokens"
            heading="Could not load API tokens"
            (retry)="apiTokens.refresh()"
          />
          @if (apiTokens.value(); as tokens) {
            @if (tokens.length === 0) {
              <p class="empty">No API tokens yet.</p>
            } @else {
              <div lnxTableScroll="API tokens">
                <table class="lnx-table">
                  <caption class="lnx-visually-hidden">
                    API tokens
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Token</th>
                      <th scope="col">Name</th>
                      <th scope="col">Role</th>
                      <th scope="col">Owner</th>
                      <th scope="col">Expires</th>
                      <th scope="col">State</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    @for (token of tokens; track token.id) {
                      <tr>
                        <th scope="row">
                          <code>{{ token.prefix }}…</code>
                        </th>
                        <td>{{ token.name }}</td>
                        <td>{{ token.role }}</td>
                        <td>{{ token.ownerUsername }}</td>
                        <td>{{ token.expiresAt ? (token.expiresAt | date: 'yyyy-MM-dd') : 'never' }}</td>
                        <td>{{ state(token) }}</td>
                        <td>
                          @if (state(token) === 'Active') {
                            <button matButton type="button" (click)="revokeApiToken(token)">
                              Revoke {{ token.prefix }}…
                            </button>
                          }
                        </td>
                      </tr>
                    }
                  </tbody>
                </table>
              </div>
            }
          }
          <button matButton="outlined" type="button" (click)="createApiToken()">Create API token…</button>
        </mat-card-content>
      </mat-card>

      <mat-card appearance="outlined" role="region" aria-labelledby="bootstrap-title">
        <mat-card-header>
          <mat-card-title><h2 id="bootstrap-title">Bootstrap tokens</h2></mat-card-title>
          <mat-card-subtitle
            >Single-use tokens a new machine enrolls with (create one on the Nodes page)</mat-card-subtitle
          >
        </mat-card-header>
        <mat-card-content>
          <lnx-query-failure
            [query]="bootstrapTokens"
            heading="Could not load bootstrap tokens"
            (retry)="bootstrapTokens.refresh()"
          />
          @if (bootstrapTokens.value(); as tokens) {
            @if (tokens.length === 0) {
              <p class="empty">No bootstrap tokens yet.</p>
            } @else {
              <div lnxTableScroll="Bootstrap tokens">
                <table class="lnx-table">
                  <caption class="lnx-visually-hidden">
                    Bootstrap tokens
                  </caption>
                  <thead>
                    <tr>
                      <th scope="col">Token</th>
                      <th scope="col">Node name</th>
                      <th scope="col">Created by</th>
                      <th scope="col">Expires</th>
                      <th scope="col">State</th>
                      <th scope="col">Actions</th>
                    </tr>
                  </thead>
                  <tbody>
                    @for (token of tokens; track token.id) {
                      <tr>
                        <th scope="row">
                          <code>{{ token.prefix }}…</code>
                        </th>
                        <td>{{ token.nodeName ?? 'any' }}</td>
                        <td>{{ token.createdBy }}</td>
                        <td>{{ token.expiresAt | date: 'yyyy-MM-dd HH:mm' }}</td>
                        <td>{{ state(token) }}</td>
                        <td>
                          @if (state(token) === 'Active') {
                            <button matButton type="button" (click)="revokeBootstrapToken(token)">
                              Revoke {{ token.prefix }}…
                            </button>
                          }
                        </td>
                      </tr>
                    }
                  </tbody>
                </table>
              </div>
            }
          }
        </mat-card-content>
      </mat-card>
    }
  `,
  styles: `
    :host {
      display: grid;
      gap: 16px;
      max-width: 1200px;
    }
    .password-form {
      display: grid;
      gap: 12px;
      max-width: 420px;
    }
    .form-problem {
      color: var(--mat-sys-error);
    }
    td.actions {
      white-space: normal;
    }
  `,
})
export class Access {
  private readonly graphql = inject(GraphqlClient);
  private readonly dialog = inject(MatDialog);
  private readonly fb = inject(NonNullableFormBuilder);
  private readonly flow = this.graphql.startFlow();
  protected readonly session = inject(Session);

  protected readonly refreshSeconds = REFRESH_INTERVAL_MS / 1000;
  protected readonly minLength = PASSWORD_MIN_LENGTH;
  protected readonly canManage = computed(() => canManageOperators((p) => this.session.can(p)));

  protected readonly operators: PolledQuery<readonly OperatorSummary[]> = pollQuery(
    (signal) =>
      // Listing accounts is an administrator's; everyone else sees only their own.
      this.canManage()
        ? this.graphql.request(OPERATORS, {}, { flow: this.flow, signal }).then((data) => data.operators)
        : Promise.resolve([]),
    { intervalMs: REFRESH_INTERVAL_MS },
  );

  protected readonly apiTokens: PolledQuery<readonly ApiTokenSummary[]> = pollQuery(
    (signal) =>
      this.canManage()
        ? this.graphql.request(API_TOKENS, {}, { flow: this.flow, signal }).then((data) => data.apiTokens)
        : Promise.resolve([]),
    { intervalMs: REFRESH_INTERVAL_MS },
  );

  protected readonly bootstrapTokens: PolledQuery<readonly BootstrapTokenSummary[]> = pollQuery(
    (signal) =>
      this.canManage()
        ? this.graphql
            .request(BOOTSTRAP_TOKENS, {}, { flow: this.flow, signal })
            .then((data) => data.bootstrapTokens)
        : Promise.resolve([]),
    { intervalMs: REFRESH_INTERVAL_MS },
  );

  protected readonly passwordForm = this.fb.group({ current: [''], password: [''], repeated: [''] });
  protected readonly passwordProblem = signal<string | null>(null);
  protected readonly passwordError = signal<GraphqlRequestError | null>(null);
  protected readonly passwordChanged = signal(false);
  protected readonly changing = signal(false);

  /** "Refresh now" answers for the whole page: accounts, API tokens and bootstrap tokens alike. */
  protected refreshAll(): void {
    this.operators.refresh();
    this.apiTokens.refresh();
    this.bootstrapTokens.refresh();
  }

  protected actionsOf(operator: OperatorSummary): OperatorAction[] {
    return operatorActions(operator, this.session.operator()?.id);
  }

  protected label(action: OperatorAction, username: string): string {
    return ACTION_LABELS[action](username);
  }

  protected act(action: OperatorAction, operator: OperatorSummary | null): void {
    openDialog<OperatorActionDialog, OperatorActionDialogData>(this.dialog, OperatorActionDialog, {
      ...DIALOG_SIZE,
      // A form opens on its first field; a confirmation on its heading, so Enter does not confirm it.
      initialFocus: action === 'create' || action === 'resetPassword' ? 'first-tabbable' : 'first-heading',
      data: { action, operator },
    })
      .afterClosed()
      .subscribe(() => this.operators.refresh());
  }

  protected state(token: Parameters<typeof tokenState>[0]): string {
    return tokenState(token, new Date());
  }

  protected createApiToken(): void {
    const own = this.session.role();
    const roles = ROLES.slice(0, own === undefined ? 1 : ROLES.indexOf(own) + 1);
    this.openToken({ action: 'createApiToken', roles }, 'first-tabbable');
  }

  protected revokeApiToken(token: ApiTokenSummary): void {
    this.openToken(
      { action: 'revokeApiToken', id: token.id, prefix: token.prefix, name: token.name },
      'first-heading',
    );
  }

  protected revokeBootstrapToken(token: BootstrapTokenSummary): void {
    this.openToken({ action: 'revokeBootstrapToken', id: token.id, prefix: token.prefix }, 'first-heading');
  }

  private openToken(data: TokenDialogData, initialFocus: 'first-tabbable' | 'first-heading'): void {
    openDialog<TokenDialog, TokenDialogData, boolean>(this.dialog, TokenDialog, {
      ...DIALOG_SIZE,
      initialFocus,
      data,
    })
      .afterClosed()
      .subscribe(() => {
        this.apiTokens.refresh();
        this.bootstrapTokens.refresh();
      });
  }

  protected async changePassword(): Promise<void> {
    const { current, password, repeated } = this.passwordForm.getRawValue();
    this.passwordChanged.set(false);
    this.passwordError.set(null);
    const problem =
      current === '' ? 'Enter your current password.' : newPasswordProblem(password, repeated, current);
    this.passwordProblem.set(problem);
    if (problem !== null) return;
    this.changing.set(true);
    try {
      const { changePassword } = await this.graphql.request(
        CHANGE_PASSWORD,
        { input: { currentPassword: current, newPassword: password } },
        { flow: this.flow },
      );
      // Every session of this operator ended, this one too: carry on with the fresh one.
      this.session.start(changePassword);
      this.passwordForm.reset({ current: '', password: '', repeated: '' });
      this.passwordChanged.set(true);
    } catch (error: unknown) {
      if (error instanceof GraphqlRequestError) this.passwordError.set(error);
      else throw error;
    } finally {
      this.changing.set(false);
    }
  }
}
