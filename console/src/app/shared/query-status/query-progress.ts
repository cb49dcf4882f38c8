import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { MatProgressBar } from '@angular/material/progress-bar';

import type { PolledQuery } from '../graphql/polled-query';

/**
 * The bar over a polled query's view. It shows while the operator waits for
 * an answer (the first one, or a retry after a failure) and not for
 * background polls, which would make the page flicker every few seconds.
 * Its height stays reserved either way, so nothing jumps when it comes and goes.
 */
@Component({
  selector: 'lnx-query-progress',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatProgressBar],
  template: `
    @if (waiting()) {
      <mat-progress-bar mode="indeterminate" [attr.aria-label]="label()" />
    }
  `,
  styles: `
    :host {
      display: block;
      height: 4px;
    }
  `,
})
export class QueryProgress {
  readonly query = input.required<PolledQuery<unknown>>();
  /** The bar's accessible name, e.g. "Loading nodes". */
  readonly label = input.required<string>();
  /**
   * Whether the view shows an answer. By default whether the query has one;
   * a detail page passes whether it has one for the record now in the URL.
   */
  readonly answered = input<boolean>();

  protected readonly waiting = computed(() => {
    const query = this.query();
    const answered = this.answered() ?? query.value() !== undefined;
    return query.loading() && (!answered || query.error() !== undefined);
  });
}
