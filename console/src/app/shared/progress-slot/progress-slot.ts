import { ChangeDetectionStrategy, Component, input } from '@angular/core';
import { MatProgressBar } from '@angular/material/progress-bar';

/**
 * The steady slot over a dialog's or card's content where an indeterminate bar shows while a call or a load
 * runs. The slot keeps its height (the host's `.progress-slot` styles) so nothing jumps when the bar comes and
 * goes. Use it on a div: `<div lnxProgressSlot [active]="busy()" label="Saving the policy"></div>`.
 */
@Component({
  selector: 'div[lnxProgressSlot]',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatProgressBar],
  host: { class: 'progress-slot' },
  template: `
    @if (active()) {
      <mat-progress-bar mode="indeterminate" [attr.aria-label]="label()" />
    }
  `,
})
export class ProgressSlot {
  /** Whether the bar shows: the call or load is running. */
  readonly active = input.required<boolean>();
  /** What is running, for assistive technology ("Saving the data policy"). */
  readonly label = input.required<string>();
}
