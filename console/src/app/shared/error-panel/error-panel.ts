import { DatePipe } from '@angular/common';
import { ChangeDetectionStrategy, Component, computed, input, output } from '@angular/core';
import { MatButton } from '@angular/material/button';

import { CopyButton } from '../copy-button/copy-button';
import { type GraphqlRequestError, errorReport, errorTitle } from '../graphql/graphql-error';
import { Icon } from '../icon/icon';

/**
 * Shows a failed API call the way an operator needs it for a ticket or a log
 * search: what failed, the code, and the request and correlation ids.
 */
@Component({
  selector: 'lnx-error-panel',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [DatePipe, MatButton, CopyButton, Icon],
  templateUrl: './error-panel.html',
  styleUrl: './error-panel.scss',
})
export class ErrorPanel {
  readonly error = input.required<GraphqlRequestError>();
  /** What could not be done, e.g. "Could not load system status"; without it the error's title stands alone. */
  readonly heading = input<string>();
  /** Disables Retry while an attempt is already running. */
  readonly busy = input(false);
  /** False where retrying the same call cannot help or another control already does it (a form's submit button). */
  readonly retryable = input(true);
  readonly retry = output();

  protected readonly title = computed(() => {
    const title = errorTitle(this.error().code);
    const heading = this.heading();
    return heading ? `${heading}: ${title}` : title;
  });
  protected readonly report = computed(() => errorReport(this.error()));
}
