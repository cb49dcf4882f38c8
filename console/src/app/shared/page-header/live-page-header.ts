import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';
import { MatButton } from '@angular/material/button';

import { Icon } from '../icon/icon';
import { LiveStatus } from '../live-status/live-status';

/**
 * The heading row of a view that refreshes itself: the h1, how fresh the
 * page is (Live / Polling), "Refresh now", and the view's own actions
 * (projected, e.g. Deploy) after it. The layout is `.page-header` in styles.scss.
 */
@Component({
  selector: 'lnx-live-page-header',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButton, Icon, LiveStatus],
  template: `
    <header class="page-header">
      <div>
        <h1 [attr.id]="headingId() ?? null" [attr.tabindex]="headingId() === undefined ? null : -1">
          {{ heading() }}
        </h1>
        <p class="lede"><lnx-live-status [intervalSeconds]="refreshSeconds()" /></p>
      </div>
      <div class="header-actions">
        <button matButton="tonal" type="button" (click)="refresh.emit()">
          <lnx-icon matButtonIcon name="refresh" />
          Refresh now
        </button>
        <ng-content />
      </div>
    </header>
  `,
})
export class LivePageHeader {
  readonly heading = input.required<string>();
  /** Set on detail pages, whose dialogs hand focus back to the heading (it is then focusable by script). */
  readonly headingId = input<string>();
  readonly refreshSeconds = input.required<number>();
  readonly refresh = output();
}
