import { ChangeDetectionStrategy, Component, computed, inject, input } from '@angular/core';

import { LiveEvents } from '../graphql/live-events';

/**
 * Tells the operator how fresh the page is: "Live" while the event socket is
 * up (changes show within a second or so), "Polling" while it is not, with
 * the interval the page falls back to.
 */
@Component({
  selector: 'lnx-live-status',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <span class="dot" [class.on]="live()" aria-hidden="true"></span>
    @if (live()) {
      <span class="state">Live</span> — changes show as they happen; full refresh every
      {{ intervalSeconds() }} s
    } @else {
      <span class="state">Polling</span> — refreshes every {{ intervalSeconds() }} s
    }
  `,
  styles: `
    .dot {
      display: inline-block;
      box-sizing: border-box;
      width: 8px;
      height: 8px;
      margin-inline-end: 6px;
      border-radius: 50%;
      border: 1.5px solid var(--mat-sys-outline);
      vertical-align: 0.05em;
    }

    // Colour is not the only cue: the word next to it says the same.
    .dot.on {
      border-color: var(--mat-sys-primary);
      background: var(--mat-sys-primary);
    }

    .state {
      font-weight: 500;
      color: var(--mat-sys-on-surface);
    }
  `,
})
export class LiveStatus {
  readonly intervalSeconds = input.required<number>();
  private readonly liveEvents = inject(LiveEvents);
  protected readonly live = computed(() => this.liveEvents.status() === 'live');
}
