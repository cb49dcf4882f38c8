import { Clipboard } from '@angular/cdk/clipboard';
import { ChangeDetectionStrategy, Component, DestroyRef, inject, input, signal } from '@angular/core';
import { MatButton, MatIconButton } from '@angular/material/button';
import { MatTooltip } from '@angular/material/tooltip';

import { Icon } from '../icon/icon';

/** How long the button shows that the copy worked before it can be read as "copy" again. */
const CONFIRMATION_MS = 2000;

/**
 * Copies a value such as a correlation id. Uses the CDK clipboard because it
 * falls back to a hidden textarea where the async Clipboard API is missing
 * (plain HTTP on a LAN address is not a secure context).
 */
@Component({
  selector: 'lnx-copy-button',
  changeDetection: ChangeDetectionStrategy.OnPush,
  imports: [MatButton, MatIconButton, MatTooltip, Icon],
  template: `
    @let icon = copied() ? 'check' : 'copy';
    @if (caption(); as caption) {
      <button matButton="outlined" type="button" [matTooltip]="label()" (click)="copy()">
        <lnx-icon matButtonIcon [name]="icon" />
        {{ caption }}
      </button>
    } @else {
      <button matIconButton type="button" [attr.aria-label]="label()" [matTooltip]="label()" (click)="copy()">
        <lnx-icon [name]="icon" />
      </button>
    }
    <span class="lnx-visually-hidden" role="status">{{ announcement() }}</span>
  `,
  styles: `
    :host {
      display: inline-flex;
      --lnx-icon-size: 18px;
    }
  `,
})
export class CopyButton {
  private readonly clipboard = inject(Clipboard);

  readonly text = input.required<string>();
  /** Says what is copied, e.g. "Copy correlation id": the tooltip, and the accessible name of the icon-only form. */
  readonly label = input.required<string>();
  /** Visible text; without it the button is icon-only. */
  readonly caption = input<string>();

  protected readonly copied = signal(false);
  protected readonly announcement = signal('');
  private resetTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    inject(DestroyRef).onDestroy(() => clearTimeout(this.resetTimer));
  }

  protected copy(): void {
    const ok = this.clipboard.copy(this.text());
    this.copied.set(ok);
    this.announcement.set(ok ? 'Copied' : 'Copy failed: select the text and copy it by hand');
    clearTimeout(this.resetTimer);
    this.resetTimer = setTimeout(() => {
      this.copied.set(false);
      this.announcement.set('');
    }, CONFIRMATION_MS);
  }
}
