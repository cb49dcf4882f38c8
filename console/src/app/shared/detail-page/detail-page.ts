import { ChangeDetectionStrategy, Component, computed, input, output } from '@angular/core';
import { RouterLink } from '@angular/router';

import { LivePageHeader } from '../page-header/live-page-header';
import { QueryFailure } from '../query-status/query-failure';
import { QueryProgress } from '../query-status/query-progress';
import type { DetailQuery } from './detail-query';

/**
 * The frame of a detail page: breadcrumb back to the list, the live header
 * (the page's own actions go in an element marked `detailActions`), the
 * loading bar and failure panel of its {@link DetailQuery}, then the page's
 * content, or what it says when the record does not exist or has not loaded.
 * It lays out no box of its own: everything sits in the page's column.
 */
@Component({
  selector: 'lnx-detail-page',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [RouterLink, LivePageHeader, QueryFailure, QueryProgress],
  template: `
    <nav class="back" aria-label="Breadcrumb">
      <a [routerLink]="backLink()">{{ backLabel() }}</a>
    </nav>

    <lnx-live-page-header
      [heading]="heading()"
      [headingId]="headingId()"
      [refreshSeconds]="refreshSeconds()"
      (refresh)="refresh.emit()"
    >
      <ng-content select="[detailActions]" />
    </lnx-live-page-header>

    <lnx-query-progress [query]="query()" [answered]="answered()" [label]="'Loading ' + noun()" />

    <lnx-query-failure
      [query]="query()"
      [answered]="answered()"
      [heading]="'Could not load the ' + noun()"
      (retry)="refresh.emit()"
    />

    <ng-content />

    @if (query().current() === null) {
      <p class="empty" role="status">
        There is no {{ missing() }} <code>{{ heading() }}</code>.
        <a [routerLink]="backLink()">Back to {{ backLabelLower() }}</a>
      </p>
    } @else if (!answered() && !query().error()) {
      <p class="empty">Loading {{ heading() }}…</p>
    }
  `,
  styles: `
    :host {
      display: contents;
    }

    .back {
      margin-bottom: -16px;
      font: var(--mat-sys-label-large);
    }

    /* The bar sits just under the header, not a whole gap away from it and from what follows. */
    lnx-query-progress {
      margin: -20px 0 -20px;
    }

    .empty {
      margin: 0;
      font: var(--mat-sys-body-medium);
      color: var(--mat-sys-on-surface-variant);
    }
  `,
})
export class DetailPage {
  readonly query = input.required<DetailQuery<unknown, unknown>>();
  /** The record's name or id, from the URL. */
  readonly heading = input.required<string>();
  /** The h1's id, which dialogs hand focus back to. */
  readonly headingId = input.required<string>();
  readonly refreshSeconds = input.required<number>();
  /** What the page shows, for the loading bar and the failure ("node", "model version"). */
  readonly noun = input.required<string>();
  /** "node named", "model version": the words before the key when there is no such record. */
  readonly missing = input.required<string>();
  readonly backLink = input.required<string>();
  /** The breadcrumb, e.g. "All nodes". */
  readonly backLabel = input.required<string>();
  /** Refresh now and Retry: the query's refresh, or more where a page paces its loads. */
  readonly refresh = output();

  protected readonly answered = computed(() => this.query().current() !== undefined);
  protected readonly backLabelLower = computed(
    () => this.backLabel().charAt(0).toLowerCase() + this.backLabel().slice(1),
  );
}
