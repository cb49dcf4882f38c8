import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

import { Icon, type IconName } from '../icon/icon';
import { type StatusTone, statusTone } from './status-tone';

const ICON_BY_TONE: Readonly<Record<StatusTone, IconName>> = {
  ok: 'ok',
  warn: 'warning',
  error: 'error',
  neutral: 'unknown',
};

/** A status word with a colour and a shape, so it reads without colour vision too. */
@Component({
  selector: 'lnx-status-badge',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [Icon],
  host: { '[attr.data-tone]': 'tone()' },
  template: `<lnx-icon [name]="icon()" /><span>{{ status() }}</span>`,
  styleUrl: './status-badge.scss',
})
export class StatusBadge {
  readonly status = input.required<string>();
  protected readonly tone = computed(() => statusTone(this.status()));
  protected readonly icon = computed(() => ICON_BY_TONE[this.tone()]);
}
