import type { ComponentType } from '@angular/cdk/portal';
import type { MatDialog, MatDialogConfig, MatDialogRef } from '@angular/material/dialog';

/** Where focus goes when a dialog opens: its first field (forms) or its heading (confirmations, receipts). */
export type InitialFocus = 'first-tabbable' | 'first-heading';

const TABBABLE =
  'input:not([disabled]):not([type="hidden"]), textarea:not([disabled]), select:not([disabled]), ' +
  'button:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';
const HEADING = 'h1, h2, h3, h4, h5, h6, [role="heading"]';
/** About half a second at 60 Hz: the dialog's content renders within a frame or two of opening. */
const MAX_FRAMES = 30;

/**
 * Opens a dialog and puts focus in it as soon as its content is rendered, not when its opening animation ends.
 * Material's own `autoFocus` runs at the end of the animation — a fifth of a second after the click, more on a
 * loaded machine — and moved focus away from a field the operator had already started typing in, so the rest
 * of what they typed landed in another field: a quota typed into "Concurrent requests" went to the display
 * name and the quota was saved as unlimited. Material is left only to make sure focus is inside the dialog
 * (`'dialog'` keeps it where it is when it already is), and focus the operator moved themselves is never
 * taken back.
 */
export function openDialog<T, D = unknown, R = unknown>(
  dialog: MatDialog,
  component: ComponentType<T>,
  config: MatDialogConfig<D> & { readonly initialFocus: InitialFocus },
): MatDialogRef<T, R> {
  const { initialFocus, ...rest } = config;
  const ref = dialog.open<T, D, R>(component, { ...rest, autoFocus: 'dialog' });
  focusWhenRendered(ref.id, initialFocus, MAX_FRAMES);
  return ref;
}

function focusWhenRendered(id: string, mode: InitialFocus, framesLeft: number): void {
  requestAnimationFrame(() => {
    const container = document.getElementById(id);
    const target =
      container?.querySelector<HTMLElement>(mode === 'first-heading' ? HEADING : TABBABLE) ?? null;
    if (container === null || target === null) {
      if (framesLeft > 0) focusWhenRendered(id, mode, framesLeft - 1);
      return;
    }
    const active = document.activeElement;
    // The operator got there first (clicked or tabbed into a field): focus stays where they put it.
    if (active !== null && active !== container && container.contains(active)) return;
    if (mode === 'first-heading' && !target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
    target.focus();
  });
}
