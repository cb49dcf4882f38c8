import { BreakpointObserver } from '@angular/cdk/layout';
import { formatDate } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  type ElementRef,
  ErrorHandler,
  LOCALE_ID,
  computed,
  inject,
  linkedSignal,
  viewChild,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatButton, MatIconButton } from '@angular/material/button';
import { MatListItem, MatListItemIcon, MatListItemTitle, MatNavList } from '@angular/material/list';
import { type MatSidenav, MatSidenavModule } from '@angular/material/sidenav';
import { MatToolbar } from '@angular/material/toolbar';
import { MatTooltip } from '@angular/material/tooltip';
import { Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { map } from 'rxjs';

import { CONSOLE_VIEWS } from './console-views';
import { GraphqlClient } from './shared/graphql/graphql-client';
import { GraphqlRequestError } from './shared/graphql/graphql-error';
import { Icon } from './shared/icon/icon';
import { Search } from './shared/search/search';
import { LOGIN_PATH } from './shared/session/return-url';
import { SESSION_NOTICES, Session, refusesCredential } from './shared/session/session';
import { LOGOUT } from './shared/session/session.operations';

/** Below this width the side nav would squeeze tables, so it becomes an overlay behind a menu button. */
const COMPACT_LAYOUT = '(max-width: 839.98px)';

@Component({
  selector: 'lnx-root',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [
    RouterOutlet,
    RouterLink,
    RouterLinkActive,
    MatToolbar,
    MatButton,
    MatIconButton,
    MatTooltip,
    MatSidenavModule,
    MatNavList,
    MatListItem,
    MatListItemIcon,
    MatListItemTitle,
    Icon,
    Search,
  ],
  templateUrl: './app.html',
  styleUrl: './app.scss',
})
export class App {
  private readonly graphql = inject(GraphqlClient);
  private readonly router = inject(Router);
  private readonly errorHandler = inject(ErrorHandler);
  private readonly locale = inject(LOCALE_ID);
  protected readonly session = inject(Session);

  /** The views the signed-in role can use; none while signed out (the sign-in page has no nav). */
  protected readonly views = computed(() =>
    CONSOLE_VIEWS.filter((view) => this.session.can(view.permission)),
  );

  protected readonly compact = toSignal(
    inject(BreakpointObserver)
      .observe(COMPACT_LAYOUT)
      .pipe(map((state) => state.matches)),
    { initialValue: false },
  );

  /**
   * Mirrors the nav's state for `aria-expanded` from the moment it starts moving; the backdrop and Escape
   * close it without us. Closed again whenever a session starts or ends, since the nav comes and goes with it.
   */
  protected readonly navOpen = linkedSignal({ source: this.session.signedIn, computation: () => false });

  // Absent while signed out.
  private readonly sidenav = viewChild<MatSidenav>('sidenav');
  private readonly main = viewChild.required<ElementRef<HTMLElement>>('main');
  private readonly search = viewChild(Search);

  /** On a phone the open search field takes the toolbar row; what it would cover is hidden meanwhile. */
  protected readonly searchCoversToolbar = computed(() => this.search()?.coversToolbar() ?? false);

  protected toggleNav(): void {
    void this.sidenav()?.toggle();
  }

  protected navigated(): void {
    // In the overlay layout the open nav covers the page the operator just chose.
    if (this.compact()) {
      void this.sidenav()?.close();
    }
  }

  /**
   * Ends the session in this tab at once, then asks the API to end it (and
   * every other session of the account) with `logout`. The operator is not
   * kept waiting on the API; if it does not confirm, the sign-in page says so
   * and until when the token stays valid.
   */
  protected signOut(): void {
    const expiresAt = this.session.expiresAt();
    const token = this.session.end(SESSION_NOTICES.signedOut);
    void this.router.navigateByUrl(LOGIN_PATH);
    if (token === undefined) {
      return;
    }
    void this.graphql.request(LOGOUT, {}, { credential: { bearer: token } }).catch((failure: unknown) => {
      if (failure instanceof GraphqlRequestError && refusesCredential(failure.code)) {
        // The API already refuses the token: the session is over there too.
        return;
      }
      if (!(failure instanceof GraphqlRequestError)) {
        this.errorHandler.handleError(failure);
        return;
      }
      const until = expiresAt ? ` It stays valid until ${formatDate(expiresAt, 'HH:mm', this.locale)}.` : '';
      this.session.amendNotice({
        tone: 'warning',
        message: `You signed out of this tab, but the API did not confirm ending the session.${until}`,
        error: failure,
      });
    });
  }

  protected skipToContent(): void {
    this.main().nativeElement.focus();
  }
}
