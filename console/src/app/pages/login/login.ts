import {
  ChangeDetectionStrategy,
  Component,
  type ElementRef,
  ErrorHandler,
  afterNextRender,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { FormGroupDirective, NonNullableFormBuilder, ReactiveFormsModule, Validators } from '@angular/forms';
import { MatButton, MatIconButton } from '@angular/material/button';
import {
  MatCard,
  MatCardContent,
  MatCardHeader,
  MatCardSubtitle,
  MatCardTitle,
} from '@angular/material/card';
import { MatError, MatFormField, MatLabel, MatSuffix } from '@angular/material/form-field';
import { MatInput } from '@angular/material/input';
import { ActivatedRoute, Router } from '@angular/router';
import { ErrorCode } from '@lunanexa/contracts/errors';

import { ErrorPanel } from '../../shared/error-panel/error-panel';
import { GraphqlClient } from '../../shared/graphql/graphql-client';
import { GraphqlRequestError, TransportErrorCode } from '../../shared/graphql/graphql-error';
import { Icon } from '../../shared/icon/icon';
import { safeReturnUrl } from '../../shared/session/return-url';
import { Session } from '../../shared/session/session';
import { LOGIN } from '../../shared/session/session.operations';

/** Username and password for a 15-minute session, then back to the page the operator came from. */
@Component({
  selector: 'lnx-login',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    ReactiveFormsModule,
    MatButton,
    MatIconButton,
    MatCard,
    MatCardContent,
    MatCardHeader,
    MatCardSubtitle,
    MatCardTitle,
    MatError,
    MatFormField,
    MatInput,
    MatLabel,
    MatSuffix,
    ErrorPanel,
    Icon,
  ],
  templateUrl: './login.html',
  styleUrl: './login.scss',
})
export class Login {
  private readonly graphql = inject(GraphqlClient);
  private readonly session = inject(Session);
  private readonly router = inject(Router);
  private readonly route = inject(ActivatedRoute);
  private readonly errorHandler = inject(ErrorHandler);

  protected readonly form = inject(NonNullableFormBuilder).group({
    username: ['', Validators.required],
    password: ['', Validators.required],
  });

  /** Why the previous session ended (expired, signed out), until this sign-in succeeds. */
  protected readonly notice = this.session.notice;
  protected readonly error = signal<GraphqlRequestError | undefined>(undefined);
  protected readonly busy = signal(false);
  protected readonly passwordVisible = signal(false);

  private readonly formDirective = viewChild.required(FormGroupDirective);
  private readonly usernameInput = viewChild.required<ElementRef<HTMLInputElement>>('usernameInput');
  private readonly passwordInput = viewChild.required<ElementRef<HTMLInputElement>>('passwordInput');

  constructor() {
    afterNextRender(() => this.usernameInput().nativeElement.focus());
  }

  protected submit(): void {
    if (this.busy()) {
      return;
    }
    const { username, password } = this.form.controls;
    if (this.form.invalid) {
      this.form.markAllAsTouched();
      (username.invalid ? this.usernameInput() : this.passwordInput()).nativeElement.focus();
      return;
    }
    this.busy.set(true);
    this.error.set(undefined);
    void this.signIn(username.value.trim(), password.value).finally(() => this.busy.set(false));
  }

  private async signIn(username: string, password: string): Promise<void> {
    try {
      const data = await this.graphql.request(
        LOGIN,
        { input: { username, password } },
        { credential: 'none' },
      );
      this.session.start(data.login);
      await this.router.navigateByUrl(safeReturnUrl(this.route.snapshot.queryParamMap.get('returnUrl')));
    } catch (failure: unknown) {
      // A failed navigation (say, a page bundle that no longer exists after a deployment) lands here too.
      this.failed(failure);
    }
  }

  private failed(failure: unknown): void {
    if (!(failure instanceof GraphqlRequestError)) {
      // Not an API answer: a console bug or an answer it cannot use. Logged, and still shown.
      this.errorHandler.handleError(failure);
    }
    const error =
      failure instanceof GraphqlRequestError
        ? failure
        : new GraphqlRequestError({
            code: TransportErrorCode.CONSOLE_FAILURE,
            message: failure instanceof Error ? failure.message : 'The console failed to start the session.',
            requestId: '',
            correlationId: '',
          });
    this.error.set(error);
    if (error.code === ErrorCode.UNAUTHENTICATED) {
      // Wrong username or password (the API does not say which): type the password again. Resetting
      // the submitted state too keeps the emptied field from also showing "Enter your password".
      this.formDirective().resetForm({ username: this.form.controls.username.value, password: '' });
      this.passwordInput().nativeElement.focus();
    }
  }
}
