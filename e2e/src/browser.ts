import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { REPO_ROOT } from './stack-process';

/**
 * Debian's chromium, which `npm test` installs with apt-get when it is
 * missing (scripts/lib/bootstrap.mjs): `npx playwright install` has no build
 * for this distribution.
 */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Git-ignored; each view at each width, for a person to look at after a run. */
export const SCREENSHOT_DIR = join(REPO_ROOT, 'e2e', 'screenshots');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

export interface BrowserProblem {
  readonly kind: 'console' | 'pageerror';
  readonly text: string;
  /** The resource the message is about, when the browser names one (failed loads do). */
  readonly url: string;
}

export interface RecordedPage {
  readonly page: Page;
  /** Every console error and uncaught exception since the page opened, in order. */
  readonly problems: BrowserProblem[];
}

export async function openPage(
  browser: Browser,
  viewport: { readonly width: number; readonly height: number },
): Promise<RecordedPage> {
  const context = await browser.newContext({ viewport: { ...viewport } });
  const page = await context.newPage();
  const problems: BrowserProblem[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error')
      problems.push({ kind: 'console', text: message.text(), url: message.location().url });
  });
  page.on('pageerror', (error) => {
    problems.push({ kind: 'pageerror', text: error.stack ?? error.message, url: page.url() });
  });
  return { page, problems };
}

const SCROLLERS = `document.querySelectorAll('html, body, .mat-drawer-container, .mat-drawer-content')`;
/** Evaluated in the page (e2e has no DOM typings). */
const UNCLIP_SCROLLERS = `${SCROLLERS}.forEach((el) => {
  el.dataset.lnxStyle = el.getAttribute('style') ?? '';
  el.style.height = 'auto';
  el.style.overflow = 'visible';
})`;
const RESTORE_SCROLLERS = `${SCROLLERS}.forEach((el) => {
  if (el.dataset.lnxStyle === undefined) return;
  el.setAttribute('style', el.dataset.lnxStyle);
  delete el.dataset.lnxStyle;
})`;

/** Full-page PNG at `e2e/screenshots/<name>-<width>.png`; returns its path. */
export async function screenshot(page: Page, name: string, width: number): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = join(SCREENSHOT_DIR, `${name}-${width}.png`);
  // The console scrolls inside its sidenav content, not the document: let that grow
  // for the shot so "full page" means the whole view, then put it back.
  await page.evaluate(UNCLIP_SCROLLERS);
  try {
    await page.screenshot({ path: file, fullPage: true });
  } finally {
    await page.evaluate(RESTORE_SCROLLERS).catch(() => undefined);
  }
  return file;
}
