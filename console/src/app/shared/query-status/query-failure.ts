import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, input, output } from '@angular/core';

import { ErrorPanel } from '../error-panel/error-panel';
import type { PolledQuery } from '../graphql/polled-query';

/**
 * What a polled query's view says while its last attempt failed: the error
 * panel, then, if the view still shows an earlier answer, how old that answer
 * is. It lays out no box of its own, so both sit in the view's column (and its
 * gaps) as if the view held them itself.
 */
@Component({
  selector: 'lnx-query-failure',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, ErrorPanel],
  template: `
    @if (query().error(); as error) {
      @if (!reportedElsewhere()) {
        <lnx-error-panel
          [heading]="heading()"
          [error]="error"
          [busy]="query().loading()"
          (retry)="retry.emit()"
        />
      }
      @if (showsAnswer()) {
        <p class="stale">Showing the last answer, from {{ query().updatedAt() | date: 'HH:mm:ss' }}.</p>
      }
    }
  `,
  styles: `
    :host {
      display: contents;
    }

    .stale {
      margin: 0;
      font: var(--mat-sys-body-medium);
      color: var(--mat-sys-on-surface-variant);
    }
  `,
})
export class QueryFailure {
  readonly query = input.required<PolledQuery<unknown>>();
  /** What could not be done, e.g. "Could not load nodes". */
  readonly heading = input.required<string>();
  /**
   * Whether the view shows an earlier answer. By default whether the query
   * has one; a detail page passes whether it has one for the record now in the URL.
   */
  readonly answered = input<boolean>();
  /** True while the page already reports this failure in a panel of its own, so it is not said twice. */
  readonly reportedElsewhere = input(false);
  /** The panel's Retry; usually the query's refresh(), more where a page paces its loads. */
  readonly retry = output();

  protected readonly showsAnswer = computed(() => this.answered() ?? this.query().value() !== undefined);
}
