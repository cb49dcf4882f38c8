import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import {
  CONSOLE_WIDTHS,
  FleetHarness,
  VIEW_TIMEOUT_MS,
  describeProblems,
  expectVisible,
  isRefusedApiCall as isRefusedGraphqlCall,
  launchBrowser,
  openPage,
  screenshot,
  signIn as signInAs,
  type RecordedPage,
  openedDialog,
  waitUntil,
} from '../src';

/**
 * The operator console in a real browser, served by the api exactly as in
 * production (`npm run build:console` output), on an empty system: sign-in,
 * the Overview with its empty state, and its error state once the api process
 * is gone. Screenshots of every view at both widths land in e2e/screenshots/.
 */

const ADMIN = { username: 'console-admin', password: 'correct horse battery staple' };
const WIDTHS = CONSOLE_WIDTHS;

/** Evaluated in the page (e2e has no DOM typings): the `name` of the focused element. */
const FOCUSED_NAME = `document.activeElement && document.activeElement.getAttribute('name')`;

async function signIn(harness: FleetHarness, recorded: RecordedPage): Promise<void> {
  await signInAs(harness.apiUrl, recorded, ADMIN);
}

/** The Overview of a system nobody has used yet, once both of its queries have answered. */
async function expectEmptyOverview({ page }: RecordedPage): Promise<void> {
  const dependencies = page.getByRole('table', { name: 'Dependency checks' });
  await expectVisible(page, dependencies);
  for (const name of ['postgresql', 'temporal'])
    await expectVisible(page, dependencies.getByRole('rowheader', { name }));
  await expectVisible(page, page.getByText('No system checks yet.'));
  await expectVisible(page, page.getByText('No nodes enrolled.'));
  expect(await page.title()).to.equal('Overview · LunaNexa');
}

describe('operator console in a browser', function () {
  let harness: FleetHarness;
  let browser: Browser;

  before(async function () {
    this.timeout(300_000);
    harness = await FleetHarness.start('console', { serveConsole: true, admin: ADMIN });
    browser = await launchBrowser();
  });

  after(async function () {
    this.timeout(120_000);
    await browser?.close();
    await harness?.stop();
  });

  for (const size of WIDTHS) {
    it(`signs in through the form and shows the empty Overview at ${size.width} px`, async () => {
      const recorded = await openPage(browser, size);
      const { page } = recorded;
      await page.goto(`${harness.apiUrl}/`);
      await expectVisible(page, page.getByRole('heading', { name: 'Sign in' }));
      expect(new URL(page.url()).pathname).to.equal('/login');
      await screenshot(page, 'login', size.width);

      await signIn(harness, recorded);
      await expectEmptyOverview(recorded);
      // Who is signed in stays visible at every width; the nav folds behind a button on a phone.
      await expectVisible(page, page.getByText(ADMIN.username, { exact: true }));
      if (size.width < 600) await expectVisible(page, page.getByRole('button', { name: 'Navigation' }));
      else await expectVisible(page, page.getByRole('navigation', { name: 'Console' }));
      await screenshot(page, 'overview', size.width);

      expect(recorded.problems, describeProblems(recorded.problems)).to.deep.equal([]);
      await page.context().close();
    });
  }

  it('signs in with the keyboard alone (Tab and Enter)', async () => {
    const recorded = await openPage(browser, WIDTHS[0]);
    const { page } = recorded;
    await page.goto(`${harness.apiUrl}/`);
    const username = page.getByLabel('Username');
    await expectVisible(page, username);
    // The sign-in page puts the caret in Username itself.
    await page.waitForFunction(`${FOCUSED_NAME} === 'username'`);
    await page.keyboard.type(ADMIN.username);
    await page.keyboard.press('Tab');
    expect(await page.evaluate<unknown>(FOCUSED_NAME)).to.equal('password');
    await page.keyboard.type(ADMIN.password);
    await page.keyboard.press('Enter');
    await expectVisible(page, page.getByRole('heading', { name: 'Overview', level: 1 }));
    expect(recorded.problems, describeProblems(recorded.problems)).to.deep.equal([]);
    await page.context().close();
  });

  it('shows the Overview error state while the api is down, and recovers when it is back', async () => {
    const views: { size: (typeof WIDTHS)[number]; recorded: RecordedPage }[] = [];
    for (const size of WIDTHS) {
      const recorded = await openPage(browser, size);
      views.push({ size, recorded });
      await signIn(harness, recorded);
      await expectEmptyOverview(recorded);
    }
    const problemsBefore = views.map(({ recorded }) => recorded.problems.length);

    await harness.api?.kill('SIGKILL');
    try {
      for (const [i, { size, recorded }] of views.entries()) {
        const { page } = recorded;
        await page.getByRole('button', { name: 'Refresh now' }).click();
        await expectVisible(page, page.getByRole('alert').filter({ hasText: 'API unreachable' }));
        await expectVisible(page, page.getByText('The API could not be reached.'));
        await expectVisible(
          page,
          page.locator('lnx-error-panel.page-error').getByRole('button', { name: 'Retry' }),
        );
        await screenshot(page, 'overview-api-down', size.width);

        const unexpected = recorded.problems.slice(problemsBefore[i]).filter((p) => !isRefusedGraphqlCall(p));
        expect(unexpected, describeProblems(unexpected)).to.deep.equal([]);
      }
    } finally {
      await harness.startApi();
    }

    for (const { recorded } of views) {
      const { page } = recorded;
      // The page-level panel's Retry refreshes every card; each card's own panel retries only that card. The
      // page also refreshes itself every 10 s: on a slow machine that can already have happened between the
      // api answering again and its /ready, and then there is no panel left to retry from.
      const retry = page.locator('lnx-error-panel.page-error').getByRole('button', { name: 'Retry' });
      // (A poll can also win the race between the check and the click; what must hold is the recovery below.)
      if (await retry.isVisible()) await retry.click({ timeout: 5_000 }).catch(() => undefined);
      // Each card shows its own error until its retry answers, so there can be several for a moment; wait for none.
      await page
        .getByRole('alert')
        .filter({ hasText: 'API unreachable' })
        .first()
        .waitFor({ state: 'detached', timeout: VIEW_TIMEOUT_MS });
      await expectEmptyOverview(recorded);
      expect(recorded.problems.filter((p) => !isRefusedGraphqlCall(p))).to.deep.equal([]);
      await page.context().close();
    }
  });

  it('Nodes: empty state, then create a bootstrap token in the UI, enroll an agent with it, approve it, see it Ready', async () => {
    for (const size of WIDTHS) {
      const recorded = await openPage(browser, size);
      const { page } = recorded;
      await signIn(harness, recorded);
      await page.goto(`${harness.apiUrl}/nodes`);
      await expectVisible(page, page.getByRole('heading', { name: 'Nodes', level: 1 }));
      await expectVisible(page, page.getByText('No nodes yet'));
      await screenshot(page, 'nodes-empty', size.width);
      expect(recorded.problems, describeProblems(recorded.problems)).to.deep.equal([]);
      await page.context().close();
    }

    const recorded = await openPage(browser, WIDTHS[0]);
    const { page } = recorded;
    await signIn(harness, recorded);
    await page.goto(`${harness.apiUrl}/nodes`);
    await page.getByRole('button', { name: 'Create bootstrap token' }).click();
    const dialog = await openedDialog(page);
    await expectVisible(page, dialog.getByRole('heading', { name: 'Create bootstrap token' }));
    await dialog.getByLabel('Node name (optional)').fill('ui-node');
    await dialog.getByRole('button', { name: 'Create token' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: 'Bootstrap token created' }));
    const token = (await dialog.locator('code').first().textContent())?.trim() ?? '';
    expect(token).to.match(/^lnxb_[A-Za-z0-9_-]{43}$/);
    await screenshot(page, 'nodes-token-created', WIDTHS[0].width);
    await dialog.getByRole('button', { name: 'I have copied it — close' }).click();

    await harness.startAgent('ui-node', token);
    // The Overview counts the enrolled node and lists it as awaiting approval, linking to its detail.
    await page.goto(`${harness.apiUrl}/overview`);
    await expectVisible(page, page.getByRole('link', { name: '1 enrolled' }));
    const pendingAlert = page.getByRole('listitem').filter({ hasText: 'Pending — awaiting approval' });
    await expectVisible(page, pendingAlert.getByRole('link', { name: 'ui-node' }));
    await screenshot(page, 'overview-pending-node', WIDTHS[0].width);
    await pendingAlert.getByRole('link', { name: 'ui-node' }).click();
    await expectVisible(page, page.getByRole('heading', { name: 'ui-node', level: 1 }));
    expect(new URL(page.url()).pathname).to.equal('/nodes/ui-node');

    // Links from before the detail had its own path still open the node.
    await page.goto(`${harness.apiUrl}/nodes?node=ui-node`);
    await expectVisible(page, page.getByRole('button', { name: 'Approve' }));
    expect(new URL(page.url()).pathname).to.equal('/nodes/ui-node');
    expect(await page.title()).to.equal('ui-node · LunaNexa');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve ui-node' }).click();
    await expectVisible(
      page,
      page
        .getByRole('dialog')
        .getByText('Copy receipt hash')
        .or(page.getByRole('dialog').getByRole('button', { name: 'Copy receipt hash' })),
    );
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.goto(`${harness.apiUrl}/nodes`);
    const row = page.getByRole('row').filter({ hasText: 'ui-node' });
    await expectVisible(page, row.getByText('Active'));
    await expectVisible(page, row.getByText('Ready'));
    await screenshot(page, 'nodes-list', WIDTHS[0].width);

    // A change made elsewhere shows through the live socket, well before the next 10 s poll.
    await expectVisible(page, page.getByText('Live', { exact: true }));
    await page.getByRole('button', { name: 'Refresh now' }).click();
    await expectVisible(page, row.getByRole('cell', { name: 'No', exact: true }));
    // Refresh now restarted the 10 s interval, so a change within 3 s can only have come from the event.
    await page.waitForTimeout(500);
    await harness.graphql('mutation { cordonNode(node: "ui-node") { cordoned } }');
    await row.getByRole('cell', { name: 'Yes', exact: true }).waitFor({ state: 'visible', timeout: 3_000 });
    await harness.graphql('mutation { uncordonNode(node: "ui-node") { cordoned } }');
    await row.getByRole('cell', { name: 'No', exact: true }).waitFor({ state: 'visible', timeout: 3_000 });

    // Deep links to a node's detail load from a fresh page (the api answers them with the console).
    await page.goto(`${harness.apiUrl}/nodes/ui-node`);
    await expectVisible(page, page.getByRole('heading', { name: 'ui-node', level: 1 }));
    // Its recovery history: read from the receipts NodeRecovery writes; none for a node never lost.
    await expectVisible(
      page,
      page.getByRole('region', { name: 'Recovery' }).getByText('This node was never declared lost.'),
    );
    await page.getByRole('link', { name: 'All nodes' }).click();
    await expectVisible(page, page.getByRole('heading', { name: 'Nodes', level: 1 }));

    // Active and Ready: counted on the Overview, with nothing left to alert about.
    await page.goto(`${harness.apiUrl}/overview`);
    await expectVisible(page, page.getByRole('link', { name: '1 enrolled' }));
    await expectVisible(page, page.getByText('None: every node is approved'));
    await screenshot(page, 'overview-fleet', WIDTHS[0].width);
    expect(recorded.problems, describeProblems(recorded.problems)).to.deep.equal([]);
    await page.context().close();
  });

  it('Nodes: a Pending node nobody recognises is rejected with a reason, answered with a receipt', async () => {
    const token = await harness.createBootstrapToken('stray-node');
    await harness.startAgent('stray-node', token);
    await waitUntil('stray-node Pending', async () => {
      const rows = await harness.sql<{ lifecycle: string }>(
        `SELECT lifecycle FROM nodes WHERE name = 'stray-node'`,
      );
      return rows[0]?.lifecycle === 'Pending' ? true : null;
    });
    const recorded = await openPage(browser, WIDTHS[0]);
    const { page } = recorded;
    await signIn(harness, recorded);
    await page.goto(`${harness.apiUrl}/nodes/stray-node`);
    await page.getByRole('button', { name: 'Reject' }).click();
    const dialog = await openedDialog(page);
    const confirm = dialog.getByRole('button', { name: 'Reject stray-node' });
    // A reason is required before anything is sent.
    expect(await confirm.isDisabled()).to.equal(true);
    await dialog
      .getByLabel('Reason (recorded on the receipt)')
      .fill('host key does not match the machine in rack 4');
    await confirm.click();
    await expectVisible(page, dialog.getByRole('button', { name: 'Copy receipt hash' }), 60_000);
    await dialog.getByRole('button', { name: 'Close' }).click();
    const rows = await harness.sql<{ lifecycle: string }>(
      `SELECT lifecycle FROM nodes WHERE name = 'stray-node'`,
    );
    expect(rows[0]?.lifecycle).to.equal('Rejected');
    const [audited] = await harness.sql<{ evidence: Record<string, unknown> }>(
      `SELECT evidence FROM audit_events WHERE action LIKE 'node.reject%' ORDER BY seq DESC LIMIT 1`,
    );
    expect(JSON.stringify(audited?.evidence)).to.contain('host key does not match the machine in rack 4');
    expect(recorded.problems, describeProblems(recorded.problems)).to.deep.equal([]);
    await page.context().close();
    await harness.agents.get('stray-node')?.service.kill('SIGTERM');
  });
  it('Audit: the chain verifies, sign-in and token events are listed, a filter narrows them, an event opens verified', async () => {
    // A token created over the API: the Audit view must show changes made outside the console too.
    await harness.createBootstrapToken('audit-node');
    for (const size of WIDTHS) {
      const recorded = await openPage(browser, size);
      const { page } = recorded;
      await signIn(harness, recorded);
      await page.goto(`${harness.apiUrl}/audit`);
      await expectVisible(page, page.getByRole('heading', { name: 'Audit', level: 1 }));
      await expectVisible(page, page.getByText(/Audit chain valid: \d+ events verified\./));
      const table = page.getByRole('table', { name: 'Audit events, newest first' });
      await expectVisible(page, table.getByRole('link', { name: 'auth.login', exact: true }).first());
      await expectVisible(
        page,
        table.getByRole('link', { name: 'bootstrap-token.create', exact: true }).first(),
      );

      await page.getByLabel('Action').fill('bootstrap-token.*');
      await page.getByRole('button', { name: 'Apply' }).click();
      await table
        .getByRole('link', { name: 'auth.login', exact: true })
        .first()
        .waitFor({ state: 'detached' });
      // The filtered page may still be loading when the old rows go: read it once its rows are there.
      await expectVisible(page, table.locator('td.action').filter({ hasText: 'bootstrap-token.' }).first());
      const actions = await table.locator('td.action').allTextContents();
      expect(actions.length).to.be.greaterThan(0);
      expect(actions.map((a) => a.trim())).to.satisfy((all: string[]) =>
        all.every((a) => a.startsWith('bootstrap-token.')),
      );

      await table.getByRole('link', { name: 'bootstrap-token.create', exact: true }).first().click();
      const detail = page.getByTestId('audit-detail');
      await expectVisible(page, detail.getByRole('heading', { name: /^Event \d+$/ }));
      expect(new URL(page.url()).searchParams.get('seq')).to.match(/^\d+$/);
      await expectVisible(
        page,
        detail.getByTestId('audit-chain-link').getByText('verified', { exact: true }),
      );
      await expectVisible(page, detail.getByText('"tokenId"'));
      await screenshot(page, 'audit', size.width);

      expect(recorded.problems, describeProblems(recorded.problems)).to.deep.equal([]);
      await page.context().close();
    }
  });
});
