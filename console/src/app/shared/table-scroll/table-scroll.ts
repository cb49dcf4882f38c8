import { Directive, input } from '@angular/core';

/**
 * The wrapper that lets a wide table scroll sideways on its own: focusable, so the keyboard can scroll it,
 * and a region named after the table ("Nodes, scrollable"). Use it on the div around a `lnx-table`:
 * `<div lnxTableScroll="Nodes">`.
 */
@Directive({
  selector: 'div[lnxTableScroll]',
  host: {
    class: 'table-scroll',
    tabindex: '0',
    role: 'region',
    '[attr.aria-label]': 'lnxTableScroll() + ", scrollable"',
  },
})
export class TableScroll {
  /** What the table lists, as its region is named. */
  readonly lnxTableScroll = input.required<string>();
}
