import { BreakpointObserver } from '@angular/cdk/layout';
import {
  ChangeDetectionStrategy,
  Component,
  type ElementRef,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { toSignal } from '@angular/core/rxjs-interop';
import { MatIconButton } from '@angular/material/button';
import { MatListItem, MatListItemIcon, MatListItemTitle, MatNavList } from '@angular/material/list';
import { type MatSidenav, MatSidenavModule } from '@angular/material/sidenav';
import { MatToolbar } from '@angular/material/toolbar';
import { RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { map } from 'rxjs';

import { CONSOLE_VIEWS } from './console-views';
import { Icon } from './shared/icon/icon';

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
    MatIconButton,
    MatSidenavModule,
    MatNavList,
    MatListItem,
    MatListItemIcon,
    MatListItemTitle,
    Icon,
  ],
  templateUrl: './app.html',
  styleUrl: './app.scss',
})
export class App {
  protected readonly views = CONSOLE_VIEWS;

  protected readonly compact = toSignal(
    inject(BreakpointObserver)
      .observe(COMPACT_LAYOUT)
      .pipe(map((state) => state.matches)),
    { initialValue: false },
  );

  /** Mirrors the nav's state for `aria-expanded` from the moment it starts moving; the backdrop and Escape close it without us. */
  protected readonly navOpen = signal(false);

  private readonly sidenav = viewChild.required<MatSidenav>('sidenav');
  private readonly main = viewChild.required<ElementRef<HTMLElement>>('main');

  protected toggleNav(): void {
    void this.sidenav().toggle();
  }

  protected navigated(): void {
    // In the overlay layout the open nav covers the page the operator just chose.
    if (this.compact()) {
      void this.sidenav().close();
    }
  }

  protected skipToContent(): void {
    this.main().nativeElement.focus();
  }
}
