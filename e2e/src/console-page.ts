import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import type { BrowserProblem, RecordedPage } from './browser';

/** Longer than one poll of any view (10 s), so a state that needs one refresh still shows up. */
export const VIEW_TIMEOUT_MS = 30_000;

export const CONSOLE_WIDTHS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
] as const;

export function describeProblems(problems: readonly BrowserProblem[]): string {
  return problems.map((p) => `${p.kind}: ${p.text}${p.url ? ` (${p.url})` : ''}`).join('\n');
}

/**
 * The browser's own report of an api call (GraphQL over HTTP or the
 * live-events WebSocket, or the playground relay) that a stopped api
 * refused: expected while it is down, and not an uncaught error.
 */
export function isRefusedApiCall(problem: BrowserProblem): boolean {
  if (problem.kind !== 'console') return false;
  const socket = /^WebSocket connection to '([^']+)' failed/.exec(problem.text)?.[1];
  if (socket !== undefined) return URL.canParse(socket) && new URL(socket).pathname === '/graphql';
  return (
    problem.text.startsWith('Failed to load resource') &&
    URL.canParse(problem.url) &&
    ['/graphql', '/console/v1/playground/chat'].includes(new URL(problem.url).pathname)
  );
}

export async function expectVisible(
  page: Page,
  locator: ReturnType<Page['getByRole']>,
  timeout = VIEW_TIMEOUT_MS,
): Promise<void> {
  try {
    await locator.waitFor({ state: 'visible', timeout });
  } catch (error) {
    // A CI log is all there is of a failed run: say what the page showed instead.
    const shown = await visibleText(page).catch(() => '(page text unavailable)');
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}\n${page.url()} showed instead:\n${shown}`,
    );
  }
  expect(await locator.isVisible(), `${page.url()}: ${locator.toString()}`).to.equal(true);
}

/**
 * The dialog just opened, once focus is inside it (the console puts it on the
 * first field or heading as soon as the dialog renders, and never takes it
 * back from a field the operator moved to: console shared/dialog-focus).
 */
export async function openedDialog(page: Page): Promise<Locator> {
  const dialog = page.getByRole('dialog').last();
  await expectVisible(page, dialog);
  // A string, evaluated in the page: this package is compiled without the DOM's types.
  await page.waitForFunction(
    `(() => { const all = document.querySelectorAll('[role="dialog"]'); const newest = all[all.length - 1];
       return !!newest && newest.contains(document.activeElement); })()`,
    undefined,
    { timeout: 10_000 },
  );
  return dialog;
}

/** The open dialog's text when there is one (that is where a form's errors are), else the page's; at most 2,000 characters. */
async function visibleText(page: Page): Promise<string> {
  const dialogs = page.getByRole('dialog');
  const scope = (await dialogs.count()) > 0 ? dialogs.last() : page.locator('body');
  const text = (await scope.innerText({ timeout: 2_000 })).replace(/\n{2,}/g, '\n');
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}

/** Signs in through the form and waits for the Overview. */
export async function signIn(
  apiUrl: string,
  { page }: RecordedPage,
  account: { readonly username: string; readonly password: string },
): Promise<void> {
  await page.goto(`${apiUrl}/`);
  await expectVisible(page, page.getByRole('heading', { name: 'Sign in' }));
  await page.getByLabel('Username').fill(account.username);
  await page.getByLabel('Password', { exact: true }).fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expectVisible(page, page.getByRole('heading', { name: 'Overview', level: 1 }));
}

/**
 * Evaluated in the page (e2e has no DOM typings): the focused element's
 * accessible text when it is a control, else ''. A dialog focuses its heading
 * when it opens, and a heading must never pass for the button of the same name.
 */
const FOCUSED_LABEL = `(() => {
  const e = document.activeElement;
  if (!e || !e.matches('button, a[href], input, textarea, select, [role=button], [role=combobox], [role=option], [role=link]')) return '';
  const label = e.labels && e.labels.length > 0 ? e.labels[0].textContent : null;
  return (e.getAttribute('aria-label') || label || e.textContent || '').trim();
})()`;

export async function tabTo(page: Page, name: RegExp, limit = 80): Promise<void> {
  const seen: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const label = await page.evaluate<string>(FOCUSED_LABEL);
    if (name.test(label)) return;
    seen.push(label);
  }
  throw new Error(`Tab never reached ${String(name)}; focus went through: ${seen.join(' | ')}`);
}

/** The focused control's accessible text ('' when focus is on no control), as `tabTo` reads it. */
export async function focusedControl(page: Page): Promise<string> {
  return page.evaluate<string>(FOCUSED_LABEL);
}

/** Whether `locator` holds the focus (evaluated in the page: this package is compiled without the DOM's types). */
async function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate(
    (element) =>
      element === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
  );
}

/** Presses Tab until `locator` (a field whose text is its value, e.g. a select) has the focus. */
export async function tabToField(page: Page, locator: Locator, limit = 80): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await isFocused(locator)) return;
  }
  throw new Error(`Tab never reached ${locator.toString()}`);
}

/**
 * Opens the focused select with Space and moves with the arrow keys to the option whose text matches
 * `option`, then takes it with Enter — the mouse never touches the panel.
 */
export async function chooseWithKeys(page: Page, option: RegExp, limit = 30): Promise<void> {
  await page.keyboard.press('Space');
  const active = page.locator('mat-option.mat-mdc-option-active');
  await page.getByRole('listbox').last().waitFor({ state: 'visible', timeout: 10_000 });
  for (let i = 0; i < limit; i++) {
    if ((await active.count()) > 0 && option.test((await active.first().textContent()) ?? '')) {
      await page.keyboard.press('Enter');
      return;
    }
    await page.keyboard.press('ArrowDown');
  }
  throw new Error(`the arrow keys never reached an option matching ${String(option)}`);
}
