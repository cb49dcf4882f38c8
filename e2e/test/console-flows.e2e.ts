import { generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  CONSOLE_WIDTHS,
  FleetHarness,
  chooseWithKeys,
  describeProblems,
  expectVisible,
  focusedControl,
  isRefusedApiCall,
  launchBrowser,
  openPage,
  screenshot,
  signIn,
  tabTo,
  tabToField,
  waitUntil,
  type RecordedPage,
  openedDialog,
} from '../src';

/**
 * The console's gates on the real stack (api serving the built console,
 * worker, gateway, Temporal with its UI, PostgreSQL, agents, fake runtimes):
 * the whole operator flow from a bootstrap token to a drained node without
 * leaving the browser, the same enroll → approve with the keyboard alone,
 * what a viewer may and may not do, tenants and their gateway keys (the
 * secret shown once), and every view's empty and error states.
 */

const ADMIN = { username: 'flow-admin', password: 'correct horse battery staple' };
const VIEWER = { username: 'flow-viewer', password: 'viewer horse battery staple' };
const [DESKTOP] = CONSOLE_WIDTHS;

/**
 * Installed in the page before the playground sends: records the Reply region's text length each time it
 * changes, as the browser renders it (evaluated as a string: this package is compiled without the DOM's types).
 */
const REPLY_LENGTH_RECORDER = `(() => {
  const region = document.querySelector('[role="region"][aria-labelledby="reply-title"]');
  if (!region) throw new Error('no Reply region to observe');
  const lengths = [region.textContent.trim().length];
  window.__lunanexaReplyLengths = lengths;
  new MutationObserver(() => {
    const length = region.textContent.trim().length;
    if (length !== lengths[lengths.length - 1]) lengths.push(length);
  }).observe(region, { childList: true, subtree: true, characterData: true });
})()`;

/** Every view in the nav, with the heading it shows and the text of its empty state on a fresh system. */
const VIEWS = [
  { path: 'overview', heading: 'Overview', empty: 'No nodes enrolled.' },
  { path: 'nodes', heading: 'Nodes', empty: 'No nodes yet' },
  { path: 'models', heading: 'Models', empty: 'No models yet.' },
  { path: 'registry', heading: 'Registry', empty: 'No evaluation suite yet.' },
  { path: 'deployments', heading: 'Deployments', empty: 'No deployments yet.' },
  { path: 'benchmarks', heading: 'Benchmarks', empty: 'No benchmark profiles yet.' },
  { path: 'requests', heading: 'Requests', empty: 'No requests' },
  { path: 'tenants', heading: 'Tenants', empty: 'No tenants yet.' },
  { path: 'policies', heading: 'Policies', empty: 'No data policy is set.' },
  { path: 'fleet-health', heading: 'Fleet health', empty: 'Healing would do nothing now.' },
  { path: 'access', heading: 'Access', empty: null },
  { path: 'audit', heading: 'Audit', empty: null },
] as const;

/** The page a test opened last, so a failure leaves a screenshot of what it was looking at. */
let lastPage: RecordedPage | undefined;

async function newPage(
  browser: Browser,
  size: (typeof CONSOLE_WIDTHS)[number] = DESKTOP,
): Promise<RecordedPage> {
  lastPage = await openPage(browser, size);
  return lastPage;
}

function expectNoProblems(recorded: RecordedPage): void {
  expect(recorded.problems, describeProblems(recorded.problems)).to.deep.equal([]);
}

/** Starts an agent with `token` and waits until its node is on record (Pending), naming the agent's log on failure. */
async function enrollAgent(harness: FleetHarness, name: string, token: string): Promise<void> {
  await harness.startAgent(name, token);
  await waitUntil(
    `node ${name} to enroll (agent log: ${harness.logDir}/agent-${name}.log)`,
    async () =>
      (
        await harness.graphql<{ node: { lifecycle: string } | null }>(
          `{ node(node: "${name}") { lifecycle } }`,
        )
      ).node,
    60_000,
  );
}

/** Creates a bootstrap token through the Nodes view and returns it. */
async function createTokenInUi(page: Page, apiUrl: string, nodeName: string): Promise<string> {
  await page.goto(`${apiUrl}/nodes`);
  await page.getByRole('button', { name: 'Create bootstrap token' }).first().click();
  const dialog = await openedDialog(page);
  await dialog.getByLabel('Node name (optional)').fill(nodeName);
  await dialog.getByRole('button', { name: 'Create token' }).click();
  await expectVisible(page, dialog.getByRole('heading', { name: 'Bootstrap token created' }));
  const token = (await dialog.locator('code').first().textContent())?.trim() ?? '';
  expect(token).to.match(/^lnxb_[A-Za-z0-9_-]{43}$/);
  // The exact command to paste on the node, with this token in it.
  await expectVisible(page, dialog.getByText(token, { exact: false }).nth(1));
  await dialog.getByRole('button', { name: 'I have copied it — close' }).click();
  return token;
}

describe('operator console flows on the real stack', function () {
  let harness: FleetHarness;
  let browser: Browser;

  before(async function () {
    this.timeout(300_000);
    harness = await FleetHarness.start('console_flows', {
      serveConsole: true,
      admin: ADMIN,
      temporalUi: true,
    });
    browser = await launchBrowser();
    await harness.graphql('mutation($input: CreateOperatorInput!) { createOperator(input: $input) { id } }', {
      input: { ...VIEWER, role: 'viewer' },
    });
  });

  afterEach(async function () {
    const page = lastPage?.page;
    lastPage = undefined;
    if (this.currentTest?.state !== 'failed' || page === undefined || page.isClosed()) return;
    const name = `failed-${(this.currentTest.title.split(':')[0] ?? 'test').replace(/[^A-Za-z0-9]+/g, '-').slice(0, 40)}`;
    await screenshot(page, name, page.viewportSize()?.width ?? 0).catch(() => undefined);
    await page
      .context()
      .close()
      .catch(() => undefined);
  });

  after(async function () {
    this.timeout(120_000);
    await browser?.close();
    await harness?.stop();
  });

  it('every view renders its empty state on an empty system, at 1440 px and 390 px, with no browser error', async () => {
    for (const size of CONSOLE_WIDTHS) {
      const recorded = await newPage(browser, size);
      const { page } = recorded;
      await signIn(harness.apiUrl, recorded, ADMIN);
      for (const view of VIEWS) {
        await page.goto(`${harness.apiUrl}/${view.path}`);
        await expectVisible(page, page.getByRole('heading', { name: view.heading, level: 1 }));
        if (view.empty !== null) await expectVisible(page, page.getByText(view.empty).first());
        await screenshot(page, `empty-${view.path}`, size.width);
      }
      // Audit is never empty (signing in is audited); a filter that matches nothing shows its empty state.
      await page.goto(`${harness.apiUrl}/audit?correlationId=nothing-has-this-id`);
      await expectVisible(page, page.getByText(/No (audit )?events? match/i).first());
      await screenshot(page, 'empty-audit-filtered', size.width);
      expectNoProblems(recorded);
      await page.context().close();
    }
  });

  it('keyboard only: create a bootstrap token, enroll the agent, approve the pending node — without the mouse', async () => {
    const recorded = await newPage(browser);
    const { page } = recorded;
    await signIn(harness.apiUrl, recorded, ADMIN);
    await page.goto(`${harness.apiUrl}/nodes`);
    await expectVisible(page, page.getByRole('heading', { name: 'Nodes', level: 1 }));
    await tabTo(page, /^Create bootstrap token$/);
    await page.keyboard.press('Enter');
    const dialog = await openedDialog(page);
    await expectVisible(page, dialog.getByRole('heading', { name: 'Create bootstrap token' }));
    await tabTo(page, /^Node name/);
    await page.keyboard.type('kb-node');
    await tabTo(page, /^Create token$/);
    await page.keyboard.press('Enter');
    await expectVisible(page, dialog.getByRole('heading', { name: 'Bootstrap token created' }));
    const token = (await dialog.locator('code').first().textContent())?.trim() ?? '';
    expect(token).to.match(/^lnxb_/);
    await tabTo(page, /I have copied it — close/);
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });

    await enrollAgent(harness, 'kb-node', token);
    await page.goto(`${harness.apiUrl}/nodes/kb-node`);
    await expectVisible(page, page.getByRole('button', { name: 'Approve' }));
    await tabTo(page, /^Approve$/);
    await page.keyboard.press('Enter');
    // The dialog takes focus once it has opened; Tab from there, not from the page behind it.
    const approve = await openedDialog(page);
    await expectVisible(page, approve.getByRole('button', { name: 'Approve kb-node' }));
    await tabTo(page, /^Approve kb-node$/);
    await page.keyboard.press('Enter');
    // The receipt: the workflow link and the ids of the call (its hash once the workflow has written it).
    await expectVisible(
      page,
      page.getByRole('dialog').getByRole('button', { name: 'Copy request id' }),
      90_000,
    );
    await screenshot(page, 'keyboard-approve-receipt', DESKTOP.width);
    await page.keyboard.press('Escape');
    await expectVisible(page, page.getByText('Active', { exact: true }).first());
    await screenshot(page, 'keyboard-approved', DESKTOP.width);
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('UI to UI: token → agent → approve → Ready with inventory → deploy the fake model → stream in the playground → receipt and its Temporal link → cordon and drain with confirmation → Drained and the drain receipt', async () => {
    const recorded = await newPage(browser);
    const { page } = recorded;
    await signIn(harness.apiUrl, recorded, ADMIN);

    const token = await createTokenInUi(page, harness.apiUrl, 'flow-node');
    await enrollAgent(harness, 'flow-node', token);
    await page.goto(`${harness.apiUrl}/nodes`);
    await page.getByRole('link', { name: 'flow-node' }).first().click();
    await expectVisible(page, page.getByRole('heading', { name: 'flow-node', level: 1 }));
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Approve flow-node' }).click();
    await expectVisible(
      page,
      page.getByRole('dialog').getByRole('button', { name: 'Copy receipt hash' }),
      90_000,
    );
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    // Ready, with the simulated DGX Spark's inventory: one GB10 with unified memory.
    await expectVisible(page, page.getByText('Ready', { exact: true }).first());
    await expectVisible(page, page.getByRole('region', { name: 'Inventory' }).getByText(/GB10/).first());
    await screenshot(page, 'flow-node-ready', DESKTOP.width);

    // Deploy the fake model on it, registering the version from the dialog.
    await page.goto(`${harness.apiUrl}/deployments`);
    await page.getByRole('button', { name: 'Deploy' }).first().click();
    const deploy = await openedDialog(page);
    await deploy.getByLabel('Deployment name').fill('flow-chat');
    await deploy.getByRole('button', { name: 'Register a fake model version' }).click();
    await deploy.getByLabel('Model name').fill('flow-model');
    await deploy.getByLabel('Version', { exact: true }).fill('v1');
    await deploy.getByRole('button', { name: 'Register model version' }).click();
    await expectVisible(page, deploy.getByText('flow-model@v1').first());
    await deploy.getByLabel('Node').click();
    await page.getByRole('option', { name: /flow-node/ }).click();
    // A version just registered has no evaluation: the dialog chose Candidate. Serving is refused by the
    // deploy gate, with its code in the error panel, and nothing starts.
    const purpose = deploy.getByRole('combobox', { name: 'Purpose' });
    await expectVisible(page, purpose.getByText(/Candidate/));
    await purpose.click();
    await page.getByRole('option', { name: /Serving/ }).click();
    await expectVisible(
      page,
      deploy.getByText('flow-model@v1 is Verified: only Approved versions serve.', { exact: false }),
    );
    await deploy.getByRole('button', { name: 'Create deployment' }).click();
    await expectVisible(page, deploy.getByText('EVALUATION_NOT_PASSED', { exact: true }), 30_000);
    await screenshot(page, 'flow-deploy-serving-refused', DESKTOP.width);
    await purpose.click();
    await page.getByRole('option', { name: /Candidate/ }).click();
    // Where would it go, and why: the scheduler's dry run for what the form says, with the strategy chosen.
    await deploy.getByRole('combobox', { name: 'Placement strategy' }).click();
    await page.getByRole('option', { name: /Binpack/ }).click();
    await deploy.getByRole('button', { name: 'Where would this go?' }).click();
    const plan = deploy.getByRole('table').filter({ hasText: 'Decision' });
    await expectVisible(page, plan.getByRole('row').filter({ hasText: 'flow-node' }).getByText('chosen'));
    await expectVisible(
      page,
      deploy.getByRole('status').filter({ hasText: /Binpack: 1 of 1 replica\(s\) placed/ }),
    );
    await deploy.getByRole('button', { name: 'Create deployment' }).click();
    await expectVisible(page, deploy.getByRole('heading', { name: 'Deployment flow-chat created' }), 60_000);
    const receiptLink = deploy.getByRole('link', { name: /^deployment\/.*opens the Temporal UI/ });
    await expectVisible(page, receiptLink, 60_000);
    await expectVisible(page, deploy.getByRole('button', { name: 'Copy request id' }));
    await expectVisible(page, deploy.getByRole('button', { name: 'Copy correlation id' }));
    await expectVisible(
      page,
      deploy.getByRole('status', { name: 'Deployment state' }).getByText('Ready', { exact: true }),
      120_000,
    );
    await screenshot(page, 'flow-deploy-receipt', DESKTOP.width);

    // Follow the receipt's workflow link into the Temporal UI: it opens that workflow.
    const workflowId =
      /^(deployment\/[^\s(]+)/.exec(
        (await receiptLink.getAttribute('aria-label')) ?? (await receiptLink.textContent()) ?? '',
      )?.[1] ?? '';
    expect(workflowId).to.match(/^deployment\//);
    const [temporalTab] = await Promise.all([page.context().waitForEvent('page'), receiptLink.click()]);
    await temporalTab.waitForLoadState('domcontentloaded');
    expect(temporalTab.url()).to.contain(harness.temporalUiUrl);
    expect(decodeURIComponent(temporalTab.url())).to.contain(workflowId);
    await temporalTab.getByText(workflowId).first().waitFor({ state: 'visible', timeout: 60_000 });
    await screenshot(temporalTab, 'flow-temporal-ui', DESKTOP.width);
    await temporalTab.close();
    await deploy.getByRole('button', { name: 'Done' }).click();

    // Stream a reply in the playground; it must grow while it streams, not arrive at once.
    await page.goto(`${harness.apiUrl}/requests`);
    const playground = page.getByRole('region', { name: 'Playground' });
    await playground.getByLabel('Deployment').click();
    await page.getByRole('option', { name: /flow-chat/ }).click();
    await playground.getByLabel('Message').fill('Explain unified memory on a GB10 in a few sentences.');
    await playground.getByLabel('Max tokens').fill('60');
    // The reply's length is recorded in the page on every change to it, not by polling from here: a poll
    // round trip on a busy 2-core machine is as long as the whole 1.2 s stream (60 tokens at 50/s), so
    // polling could see a streamed reply arrive in two steps.
    await page.evaluate(REPLY_LENGTH_RECORDER);
    await playground.getByRole('button', { name: 'Send' }).click();
    await expectVisible(page, playground.getByRole('button', { name: 'Copy request id' }), 60_000);
    const lengths = await page.evaluate<number[]>('window.__lunanexaReplyLengths');
    const growth = lengths.filter((length, i) => i > 0 && length > lengths[i - 1]);
    expect(growth.length, `reply lengths over time: ${lengths.join(',')}`).to.be.at.least(3);
    const requestId = (await playground.getByTestId('playground-request-id').textContent())?.trim() ?? '';
    expect(requestId).to.not.equal('');
    await screenshot(page, 'flow-playground', DESKTOP.width);

    // The request is listed (metadata only) under its id, Completed.
    await page.goto(`${harness.apiUrl}/requests?requestId=${encodeURIComponent(requestId)}`);
    const requestRow = page.getByRole('row').filter({ hasText: requestId });
    await expectVisible(page, requestRow.getByText('Completed', { exact: true }));
    await screenshot(page, 'flow-requests', DESKTOP.width);

    // Queue depth as the gateways publish it: a second gateway holding 5 waiters for flow-chat shows as
    // Queued now, in the summary and on the deployment's row.
    const [flowChat] = await harness.sql<{ id: string }>(
      `SELECT id FROM deployments WHERE name = 'flow-chat'`,
    );
    await harness.sql(
      `INSERT INTO gateway_load (gateway_id, group_key, deployment_id, in_flight, queued, capacity, updated_at)
       VALUES ('gateway-b:4100', $1, $1, 4, 5, 4, now())`,
      [flowChat.id],
    );
    await page.goto(`${harness.apiUrl}/requests`);
    await expectVisible(
      page,
      page
        .locator('dl.summary > div', { hasText: 'Queued now' })
        .locator('dd')
        .getByText('5', { exact: true }),
    );
    const deploymentRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'flow-chat' }) });
    await expectVisible(page, deploymentRow.getByRole('cell').last().getByText('5', { exact: true }));
    await screenshot(page, 'flow-requests-queued', DESKTOP.width);
    await harness.sql(`DELETE FROM gateway_load WHERE gateway_id = 'gateway-b:4100'`);

    // Cordon, then drain through the confirmation dialog that states its scope.
    await page.goto(`${harness.apiUrl}/nodes/flow-node`);
    await page.getByRole('button', { name: 'Cordon' }).click();
    await expectVisible(page, page.getByRole('button', { name: 'Uncordon' }));
    await page.getByRole('button', { name: 'Drain…' }).click();
    const drain = await openedDialog(page);
    await expectVisible(page, drain.getByText(/drains node flow-node: 1 replica, \d+ in-flight requests?/));
    await screenshot(page, 'flow-drain-confirm', DESKTOP.width);
    await drain.getByRole('button', { name: 'Drain flow-node' }).click();
    // The node's replica has nowhere else to go: refused with the deployment named, then drained anyway with a
    // reason, which the receipt records.
    await expectVisible(page, drain.getByText('DRAIN_WOULD_STRAND_REPLICAS'));
    await expectVisible(page, drain.getByText(/nowhere to go \(flow-chat\)/));
    const anyway = drain.getByRole('button', { name: 'Drain flow-node anyway' });
    expect(await anyway.isDisabled(), 'no override without a reason').to.equal(true);
    await drain.getByRole('textbox', { name: /Reason/ }).fill('the flow test drains its only node');
    await screenshot(page, 'flow-drain-override', DESKTOP.width);
    await anyway.click();
    await expectVisible(page, drain.getByRole('button', { name: 'Copy receipt hash' }), 120_000);
    await expectVisible(page, drain.getByRole('link', { name: /^drain-node\/.*opens the Temporal UI/ }));
    await screenshot(page, 'flow-drain-receipt', DESKTOP.width);
    await drain.getByRole('button', { name: 'Close' }).click();
    await expectVisible(page, page.getByText('Drained', { exact: true }).first());
    await screenshot(page, 'flow-node-drained', DESKTOP.width);

    // The Overview shows the traffic and the recent changes this flow made.
    await page.goto(`${harness.apiUrl}/overview`);
    await expectVisible(page, page.getByRole('heading', { name: 'Recent changes' }));
    await expectVisible(page, page.getByRole('link', { name: /node\.drain/ }).first());
    await screenshot(page, 'flow-overview', DESKTOP.width);
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('global search opens a node and a deployment from a name prefix', async () => {
    const recorded = await newPage(browser);
    const { page } = recorded;
    await signIn(harness.apiUrl, recorded, ADMIN);
    const search = page.getByRole('combobox', { name: 'Search' });
    await search.fill('flow-no');
    await page
      .getByRole('listbox', { name: 'Search results' })
      .getByRole('option', { name: /Node flow-node/ })
      .click();
    await expectVisible(page, page.getByRole('heading', { name: 'flow-node', level: 1 }));
    await search.fill('flow-ch');
    await page
      .getByRole('listbox', { name: 'Search results' })
      .getByRole('option', { name: /Deployment flow-chat/ })
      .click();
    await expectVisible(page, page.getByRole('heading', { name: 'flow-chat', level: 1 }));
    // The deployment says where its replica may run: the drain above moved it off the only node, and the
    // scheduler's last decision names why that node was passed over.
    const placement = page.getByRole('region', { name: 'Placement' });
    await expectVisible(page, placement.getByText('flow-node', { exact: true }));
    await expectVisible(page, placement.getByText('passed over: being drained of this deployment'));
    await expectVisible(page, placement.getByText(/1 replica\(s\) found no eligible node/));
    await screenshot(page, 'flow-deployment-placement', DESKTOP.width);
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('keyboard only: deploy on a node and drain it through its confirmation and reason — focus moves into each dialog and back', async () => {
    const recorded = await newPage(browser);
    const { page } = recorded;
    await signIn(harness.apiUrl, recorded, ADMIN);
    await page.goto(`${harness.apiUrl}/deployments`);
    await expectVisible(page, page.getByRole('heading', { name: 'Deployments', level: 1 }));
    await tabTo(page, /^Deploy$/);
    // Escape leaves a dialog nothing was sent from, and focus returns to where it was.
    await page.keyboard.press('Enter');
    await (await openedDialog(page)).waitFor({ state: 'visible' });
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await focusedControl(page)).to.equal('Deploy');
    await page.keyboard.press('Enter');
    const deploy = await openedDialog(page);
    expect(await focusedControl(page), 'focus opens on the first field').to.match(/^Deployment name/);
    await page.keyboard.type('kb-chat');
    await tabTo(page, /^Register a fake model version$/);
    await page.keyboard.press('Space');
    await tabTo(page, /^Model name/);
    await page.keyboard.type('kb-model');
    await tabTo(page, /^Version/);
    await page.keyboard.type('v1');
    await tabTo(page, /^Register model version$/);
    await page.keyboard.press('Enter');
    await expectVisible(page, deploy.getByText('kb-model@v1').first());
    await tabToField(page, deploy.getByRole('combobox', { name: 'Node' }));
    await chooseWithKeys(page, /kb-node/);
    await tabTo(page, /^Create deployment$/);
    await page.keyboard.press('Enter');
    await expectVisible(page, deploy.getByRole('heading', { name: 'Deployment kb-chat created' }), 60_000);
    await expectVisible(
      page,
      deploy.getByRole('status', { name: 'Deployment state' }).getByText('Ready', { exact: true }),
      120_000,
    );
    await tabTo(page, /^Done$/);
    await page.keyboard.press('Enter');
    await deploy.waitFor({ state: 'detached' });
    expect(await focusedControl(page), 'focus is back on the control that opened the dialog').to.equal(
      'Deploy',
    );

    await page.goto(`${harness.apiUrl}/nodes/kb-node`);
    await expectVisible(page, page.getByRole('heading', { name: 'kb-node', level: 1 }));
    await tabTo(page, /^Cordon$/);
    await page.keyboard.press('Enter');
    await expectVisible(page, page.getByRole('button', { name: 'Uncordon' }));
    await tabTo(page, /^Drain…$/);
    await page.keyboard.press('Enter');
    const drain = await openedDialog(page);
    await expectVisible(page, drain.getByText(/drains node kb-node: 1 replica/));
    await tabTo(page, /^Drain kb-node$/);
    await page.keyboard.press('Enter');
    await expectVisible(page, drain.getByText('DRAIN_WOULD_STRAND_REPLICAS'));
    await tabTo(page, /Reason/);
    await page.keyboard.type('keyboard test drains its only replica');
    await tabTo(page, /^Drain kb-node anyway$/);
    await page.keyboard.press('Enter');
    await expectVisible(page, drain.getByRole('button', { name: 'Copy receipt hash' }), 120_000);
    await screenshot(page, 'keyboard-drain-receipt', DESKTOP.width);
    // The receipt leaves only through Close (Escape would drop it unread).
    await tabTo(page, /^Close$/);
    await page.keyboard.press('Enter');
    await drain.waitFor({ state: 'detached' });
    expect(await focusedControl(page), 'focus is back on the page, not lost').to.not.equal('');
    await expectVisible(page, page.getByText('Drained', { exact: true }).first());
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('Tenants: create a tenant, set its quotas, issue a gateway key whose secret shows once, revoke it; a viewer only reads', async () => {
    await harness.graphql('mutation($input: CreateAliasInput!) { createAlias(input: $input) { name } }', {
      input: { name: 'tenant-chat', dataClass: 'internal' },
    });
    // Changed in a loop while the quotas are typed, so live updates arrive then.
    await harness.graphql('mutation($input: CreateTenantInput!) { createTenant(input: $input) { id } }', {
      input: { id: 'noise' },
    });
    const recorded = await newPage(browser);
    const { page } = recorded;
    await signIn(harness.apiUrl, recorded, ADMIN);
    await page.goto(`${harness.apiUrl}/tenants`);
    await expectVisible(page, page.getByRole('heading', { name: 'Tenants', level: 1 }));

    await page.getByRole('button', { name: 'Create tenant' }).click();
    let dialog = await openedDialog(page);
    await dialog.getByLabel('Tenant id').fill('acme');
    await dialog.getByLabel('Display name (optional)').fill('Acme Corp');
    await dialog.getByRole('button', { name: 'Create tenant' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: 'Tenant acme saved' }));
    await dialog.getByRole('button', { name: 'Done' }).click();
    // A new tenant opens on its own page, where its quotas and keys are.
    await expectVisible(page, page.getByRole('heading', { name: 'acme', level: 1 }));
    await expectVisible(page, page.getByText('No gateway keys yet.'));

    // A fast operator types the moment the dialog shows, before its opening animation ends, while live updates
    // arrive (another tenant changed in a loop: each change is an audit event the page refreshes on). What is
    // saved must be exactly what was typed: focus once moved at the end of the animation and sent the rest of
    // the typing to another field, and a quota was saved as unlimited.
    let provoking = true;
    const provoked = (async () => {
      let changes = 0;
      while (provoking) {
        await harness.graphql('mutation($input: UpdateTenantInput!) { updateTenant(input: $input) { id } }', {
          input: { id: 'noise', displayName: `noise ${changes}` },
        });
        changes += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return changes;
    })();
    await page.getByRole('button', { name: 'Edit quotas…' }).click();
    dialog = page.getByRole('dialog').last();
    await dialog.getByLabel('Requests per minute').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('600');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.type('0');
    await expectVisible(page, dialog.getByRole('heading', { name: 'Quotas of acme' }));
    expect(await dialog.getByLabel('Requests per minute').inputValue()).to.equal('600');
    expect(await dialog.getByLabel('Concurrent requests').inputValue()).to.equal('0');
    expect(await dialog.getByLabel('Display name (optional)').inputValue()).to.equal('Acme Corp');
    await dialog.getByRole('button', { name: 'Save quotas' }).click();
    // Out of bounds is refused in the form, before anything is sent.
    await expectVisible(page, dialog.getByText(/A whole number from 1 to 100,000/));
    await dialog.getByLabel('Concurrent requests').click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('32');
    await dialog.getByRole('button', { name: 'Save quotas' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: 'Tenant acme saved' }));
    provoking = false;
    expect(await provoked, 'live updates provoked while typing').to.be.greaterThan(3);
    const stored = await harness.graphql<{
      tenant: {
        displayName: string | null;
        quota: {
          requestsPerMinute: number | null;
          tokensPerMinute: number | null;
          maxConcurrentRequests: number | null;
        };
      };
    }>(
      `{ tenant(id: "acme") { displayName quota { requestsPerMinute tokensPerMinute maxConcurrentRequests } } }`,
    );
    expect(stored.tenant).to.deep.equal({
      displayName: 'Acme Corp',
      quota: { requestsPerMinute: 600, tokensPerMinute: null, maxConcurrentRequests: 32 },
    });
    await dialog.getByRole('button', { name: 'Done' }).click();
    const quotas = page.getByRole('region', { name: 'Quotas' });
    await expectVisible(page, quotas.getByText('600', { exact: true }));
    await expectVisible(page, quotas.getByText('32', { exact: true }));
    await expectVisible(page, quotas.getByText('unlimited', { exact: true }));

    await page.getByRole('button', { name: 'Create gateway key…' }).click();
    dialog = await openedDialog(page);
    await expectVisible(page, dialog.getByRole('heading', { name: 'Create a gateway key for acme' }));
    await dialog.getByLabel('Name', { exact: true }).fill('chat app');
    await dialog.getByLabel('Aliases', { exact: true }).click();
    await page.getByRole('option', { name: 'tenant-chat' }).click();
    await page.keyboard.press('Escape');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: 'Gateway key created' }));
    await expectVisible(page, dialog.getByText('Shown once.'));
    await expectVisible(page, dialog.getByRole('button', { name: 'Copy key' }));
    const secret = (await dialog.getByLabel('Gateway key').textContent())?.trim() ?? '';
    expect(secret).to.match(/^lnxk_[A-Za-z0-9_-]{43}$/);
    await screenshot(page, 'tenants-key-shown-once', DESKTOP.width);
    // Escape and the backdrop do not close it: only saying it was copied does.
    await page.keyboard.press('Escape');
    await expectVisible(page, dialog.getByRole('heading', { name: 'Gateway key created' }));
    await dialog.getByRole('button', { name: 'I have copied it — close' }).click();
    await dialog.waitFor({ state: 'detached' });

    const keys = page.getByRole('table', { name: 'Gateway keys of acme' });
    const prefix = secret.slice(0, 13);
    const row = keys.getByRole('row').filter({ hasText: prefix });
    await expectVisible(page, row.getByText('Active'));
    await expectVisible(page, row.getByText('tenant-chat'));
    // Never shown again: not on the page, not in what the API lists.
    expect(await page.content()).not.to.include(secret.slice(13));
    const listed = await harness.graphql<{ gatewayKeys: { prefix: string; state: string }[] }>(
      '{ gatewayKeys(tenantId: "acme") { prefix state } }',
    );
    expect(listed.gatewayKeys).to.deep.equal([{ prefix, state: 'Active' }]);

    await row.getByRole('button', { name: `Revoke key ${prefix}` }).click();
    dialog = await openedDialog(page);
    await expectVisible(page, dialog.getByRole('heading', { name: `Revoke key ${prefix}` }));
    await dialog.getByRole('button', { name: 'Confirm revoke' }).click();
    await expectVisible(page, dialog.getByText(/is revoked; gateways refuse it/));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expectVisible(page, row.getByText('Revoked'));
    expect(await row.getByRole('button', { name: /^Revoke key/ }).count()).to.equal(0);
    await screenshot(page, 'tenants-detail', DESKTOP.width);

    await page.getByRole('link', { name: 'All tenants' }).click();
    const tenants = page.getByRole('table', { name: 'Tenants' });
    await expectVisible(page, tenants.getByRole('row').filter({ hasText: 'Acme Corp' }).getByText('0 / 1'));
    expectNoProblems(recorded);
    await page.context().close();

    const viewer = await newPage(browser);
    await signIn(harness.apiUrl, viewer, VIEWER);
    await viewer.page.goto(`${harness.apiUrl}/tenants/acme`);
    await expectVisible(viewer.page, viewer.page.getByRole('table', { name: 'Gateway keys of acme' }));
    for (const name of [/^Create tenant$/, /^Edit quotas…$/, /^Create gateway key…$/, /^Revoke key/]) {
      expect(await viewer.page.getByRole('button', { name }).count(), String(name)).to.equal(0);
    }
    expectNoProblems(viewer);
    await viewer.page.context().close();
  });

  it('Access: an admin creates an operator, resets their password; they change their own; the admin ends their sessions and disables them — each answered in the dialog', async () => {
    const USER = { username: 'flow-pia', password: 'first pia password' };
    const reset = 'reset by the admin 42';
    const own = 'chosen by pia herself';
    const admin = await newPage(browser);
    await signIn(harness.apiUrl, admin, ADMIN);
    const page = admin.page;
    await page.goto(`${harness.apiUrl}/access`);
    await expectVisible(page, page.getByRole('heading', { name: 'Access', level: 1 }));
    await page.getByRole('button', { name: 'Create operator…' }).click();
    let dialog = await openedDialog(page);
    await dialog.getByLabel('Username').fill(USER.username);
    await dialog.getByLabel('New password', { exact: true }).fill(USER.password);
    await dialog.getByLabel('Repeat the new password').fill('not the same');
    await dialog.getByRole('button', { name: 'Create operator' }).click();
    // Refused in the form, before anything is sent.
    await expectVisible(page, dialog.getByText('The two new passwords differ.'));
    await dialog.getByLabel('Repeat the new password').fill(USER.password);
    await dialog.getByRole('button', { name: 'Create operator' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: 'Create an operator: done' }));
    await dialog.getByRole('button', { name: 'Done' }).click();
    const operators = page.getByRole('table', { name: 'Operators' });
    await expectVisible(page, operators.getByRole('rowheader', { name: USER.username }));

    await page.getByRole('button', { name: `Reset password of ${USER.username}…` }).click();
    dialog = await openedDialog(page);
    await dialog.getByLabel('New password', { exact: true }).fill(reset);
    await dialog.getByLabel('Repeat the new password').fill(reset);
    await dialog.getByRole('button', { name: 'Set password' }).click();
    await expectVisible(
      page,
      dialog.getByRole('heading', { name: `Reset the password of ${USER.username}: done` }),
    );
    await dialog.getByRole('button', { name: 'Done' }).click();

    // Pia signs in with the reset password and picks her own.
    const pia = await newPage(browser);
    await signIn(harness.apiUrl, pia, { username: USER.username, password: reset });
    await pia.page.goto(`${harness.apiUrl}/access`);
    const account = pia.page.getByRole('region', { name: 'Your account' });
    await account.getByLabel('Current password').fill('a wrong current one');
    await account.getByLabel('New password', { exact: true }).fill(own);
    await account.getByLabel('Repeat the new password').fill(own);
    await account.getByRole('button', { name: 'Change password' }).click();
    await expectVisible(
      pia.page,
      account.getByText(/VALIDATION_FAILED|current password is not right/).first(),
    );
    await account.getByLabel('Current password').fill(reset);
    await account.getByRole('button', { name: 'Change password' }).click();
    await expectVisible(pia.page, account.getByText(/Password changed; your other sessions have ended\./));
    // The fresh session carries on.
    await pia.page.goto(`${harness.apiUrl}/tenants`);
    await expectVisible(pia.page, pia.page.getByRole('heading', { name: 'Tenants', level: 1 }));

    await page.getByRole('button', { name: `End sessions of ${USER.username}…` }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('button', { name: 'End sessions' }).click();
    await expectVisible(
      page,
      dialog.getByRole('heading', { name: `End the sessions of ${USER.username}: done` }),
    );
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: `Disable ${USER.username}…` }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('button', { name: 'Disable account' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: `Disable ${USER.username}: done` }));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expectVisible(
      page,
      operators.getByRole('row').filter({ hasText: USER.username }).getByText('Disabled', { exact: true }),
    );
    const actions = await harness.sql<{ action: string }>(
      `SELECT action FROM audit_events WHERE action IN ('operator.create', 'operator.resetPassword',
         'auth.changePassword', 'operator.endSessions', 'operator.disable') AND result = 'succeeded' ORDER BY seq`,
    );
    expect(actions.map((a) => a.action).filter((a, i, all) => all.indexOf(a) === i)).to.include.members([
      'operator.create',
      'operator.resetPassword',
      'auth.changePassword',
      'operator.endSessions',
      'operator.disable',
    ]);
    // An API token: the secret is shown once, in the dialog; then it is revoked.
    await page.getByRole('button', { name: 'Create API token…' }).click();
    dialog = await openedDialog(page);
    await dialog.getByLabel('Name').fill('flow automation');
    await dialog.getByRole('button', { name: 'Create token' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: 'Create an API token: done' }));
    const secret = (await dialog.getByLabel('API token').textContent())?.trim() ?? '';
    expect(secret).to.match(/^lnx_/);
    await dialog.getByRole('button', { name: 'Done' }).click();
    const apiTokens = page.getByRole('region', { name: 'API tokens' });
    const prefix = secret.slice(0, 12);
    await apiTokens.getByRole('button', { name: `Revoke ${prefix}…` }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: `Revoke API token ${prefix}: done` }));
    await dialog.getByRole('button', { name: 'Done' }).click();
    const revokedAnswer = await fetch(`${harness.apiUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ query: '{ me { role } }' }),
    });
    expect(JSON.stringify(await revokedAnswer.json())).to.contain('UNAUTHENTICATED');
    // A bootstrap token nobody used, revoked from the same view.
    const bootstrap = await harness.createBootstrapToken('flow-never-enrolled');
    await page.getByRole('button', { name: 'Refresh now' }).click();
    const bootstrapTokens = page.getByRole('region', { name: 'Bootstrap tokens' });
    const bootstrapPrefix = bootstrap.slice(0, 13);
    const revokeBootstrap = bootstrapTokens.getByRole('button', { name: `Revoke ${bootstrapPrefix}…` });
    // Well within the page's 30 s poll: what shows it is Refresh now, which reloads every table on the page.
    await expectVisible(page, revokeBootstrap, 10_000);
    await revokeBootstrap.click();
    dialog = await openedDialog(page);
    await dialog.getByRole('button', { name: 'Revoke token' }).click();
    await expectVisible(
      page,
      dialog.getByRole('heading', { name: `Revoke bootstrap token ${bootstrapPrefix}: done` }),
    );
    await dialog.getByRole('button', { name: 'Done' }).click();
    await screenshot(page, 'access-operators', DESKTOP.width);
    expectNoProblems(admin);
    await pia.page.context().close();
    await page.context().close();
  });

  it('Fleet health: the healing dry run and the drift view, then a healing pass and a reconcile, each confirmed and answered with its workflow', async () => {
    const recorded = await newPage(browser);
    await signIn(harness.apiUrl, recorded, ADMIN);
    const { page } = recorded;
    await page.goto(`${harness.apiUrl}/fleet-health`);
    await expectVisible(page, page.getByRole('heading', { name: 'Fleet health', level: 1 }));
    const healing = page.getByRole('region', { name: 'Healing' });
    await expectVisible(
      page,
      healing
        .getByText('Healing would do nothing now.')
        .or(healing.getByRole('table', { name: 'Healing plan (dry run)' })),
    );
    await healing.getByRole('button', { name: 'Run healing…' }).click();
    let dialog = await openedDialog(page);
    await expectVisible(
      page,
      dialog.getByText(/^(Runs one healing pass now|The dry run found nothing to do)/),
    );
    await dialog.getByRole('button', { name: 'Run healing' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: 'Run healing: done' }), 90_000);
    await expectVisible(page, dialog.getByRole('link', { name: /^heal/ }));
    await dialog.getByRole('button', { name: 'Done' }).click();

    const drift = page.getByRole('region', { name: 'Drift' });
    await drift.getByRole('button', { name: 'Find drift (dry run)' }).click();
    await expectVisible(
      page,
      drift.getByText(/^No drift/).or(drift.getByRole('table', { name: 'Drift: desired against observed' })),
      90_000,
    );
    await drift.getByRole('button', { name: 'Reconcile…' }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('button', { name: 'Reconcile', exact: true }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: 'Reconcile the fleet: done' }), 90_000);
    await dialog.getByRole('button', { name: 'Done' }).click();
    const [run] = await harness.sql<{ action: string }>(
      `SELECT action FROM audit_events WHERE action = 'fleet.reconcile' ORDER BY seq DESC LIMIT 1`,
    );
    expect(run?.action).to.equal('fleet.reconcile');
    await screenshot(page, 'fleet-health', DESKTOP.width);
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('Signing: an admin registers a signing key from its PEM, revokes it, and sets a tenant to refuse unsigned versions', async () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString().trim();
    await harness.graphql('mutation($input: CreateTenantInput!) { createTenant(input: $input) { id } }', {
      input: { id: 'signed-only' },
    });
    const recorded = await newPage(browser);
    await signIn(harness.apiUrl, recorded, ADMIN);
    const { page } = recorded;
    await page.goto(`${harness.apiUrl}/policies`);
    const keys = page.getByRole('region', { name: 'Signing keys' });
    await keys.getByRole('button', { name: 'Register signing key…' }).click();
    let dialog = await openedDialog(page);
    await dialog.getByLabel('Label').fill('flow release pipeline');
    await dialog.getByLabel('Public key').fill('not a key');
    await dialog.getByRole('button', { name: 'Register key' }).click();
    await expectVisible(page, dialog.getByText(/^An Ed25519 public key/));
    await dialog.getByLabel('Public key').fill(pem);
    await dialog.getByRole('button', { name: 'Register key' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: 'Register a signing key: done' }));
    await dialog.getByRole('button', { name: 'Done' }).click();
    const row = keys.getByRole('row').filter({ hasText: 'flow release pipeline' });
    await expectVisible(page, row.getByText('Trusted'));
    await row.getByRole('button', { name: 'Revoke flow release pipeline…' }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: /: done$/ }));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expectVisible(page, row.getByText(/^Revoked by /));

    await page.goto(`${harness.apiUrl}/tenants/signed-only`);
    await page.getByRole('button', { name: /unsigned versions…$/ }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('button', { name: 'Save policy' }).click();
    await expectVisible(
      page,
      dialog.getByRole('heading', { name: /unsigned versions for signed-only: done$/ }),
    );
    await dialog.getByRole('button', { name: 'Done' }).click();
    const policy = await harness.graphql<{ tenantSigningPolicy: { allowUnsignedVersions: boolean } }>(
      `{ tenantSigningPolicy(tenantId: "signed-only") { allowUnsignedVersions } }`,
    );
    await expectVisible(
      page,
      page.getByText(policy.tenantSigningPolicy.allowUnsignedVersions ? 'allowed' : 'refused', {
        exact: true,
      }),
    );
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('Registry: licenses, runtimes, suites and profiles from a form or pasted JSON, checked as typed; refusals show their code; a license review and a version retired, each confirmed with its scope and answered', async () => {
    const recorded = await newPage(browser);
    const { page } = recorded;
    await signIn(harness.apiUrl, recorded, ADMIN);
    await page.goto(`${harness.apiUrl}/registry`);
    await expectVisible(page, page.getByRole('heading', { name: 'Registry', level: 1 }));
    const checks = (dialog: Locator): Locator => dialog.getByRole('region', { name: 'Checks' });

    // A license from the form: a bad name is named as it is typed, before anything is sent.
    await page.getByRole('button', { name: 'Create license' }).click();
    let dialog = await openedDialog(page);
    await dialog.getByLabel('Name', { exact: true }).fill('Flow Apache');
    await expectVisible(page, checks(dialog).getByText('must be a lower-case DNS label', { exact: false }));
    await dialog.getByLabel('Name', { exact: true }).fill('flow-apache');
    await dialog.getByLabel('SPDX id').fill('Apache-2.0');
    await expectVisible(page, checks(dialog).getByText("Passes the registry's checks."));
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await expectVisible(page, dialog.getByText('License flow-apache is PendingReview', { exact: false }));
    await expectVisible(page, dialog.getByText('Request id'));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'detached' });

    // The same name again, pasted as JSON: valid as typed, refused by the API with its code, nothing stored.
    await page.getByRole('button', { name: 'Create license' }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('radio', { name: 'Paste JSON' }).click();
    await dialog.getByLabel('Spec (JSON)').fill('{"name": "flow-apache", "kind": "spdx"');
    await expectVisible(page, checks(dialog).getByText('is not JSON', { exact: false }));
    await dialog.getByLabel('Spec (JSON)').fill(
      JSON.stringify({
        name: 'flow-apache',
        kind: 'spdx',
        spdxId: 'MIT',
        commercialUse: true,
        allowedDataClasses: ['public'],
      }),
    );
    await expectVisible(page, checks(dialog).getByText("Passes the registry's checks."));
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await expectVisible(page, dialog.getByText('CONFLICT', { exact: true }));
    await expectVisible(page, dialog.getByText('license flow-apache already exists'));
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // The review: the dialog names the decision's reach; the note is required; the answer says who decided.
    await page.getByRole('button', { name: 'Approve flow-apache' }).click();
    dialog = await openedDialog(page);
    await expectVisible(
      page,
      dialog.getByText('No model version is registered under it yet.', { exact: false }),
    );
    await dialog.getByRole('button', { name: 'Confirm approve' }).click();
    await expectVisible(page, dialog.getByText('Say why', { exact: false }));
    await dialog.getByLabel('Note').fill('Apache-2.0 reviewed by legal');
    await dialog.getByRole('button', { name: 'Confirm approve' }).click();
    await expectVisible(page, dialog.getByRole('status').getByText('Approved'));
    await expectVisible(page, dialog.getByText(`operator:${ADMIN.username}`, { exact: false }));
    await dialog.getByRole('button', { name: 'Done' }).click();
    // Approved now: the list offers only the other decision.
    await page.getByRole('button', { name: 'Approve flow-apache' }).waitFor({ state: 'detached' });
    await expectVisible(page, page.getByRole('button', { name: 'Reject flow-apache' }));

    // A runtime pasted as JSON: a shell as executable is refused as typed, then registered and allowed.
    const runtime = {
      name: 'flow-llama',
      version: 'b1',
      kind: 'openai-compatible',
      packaging: { type: 'binary', digest: `sha256:${'ab'.repeat(32)}` },
      launch: { executable: 'bash', args: ['-c', 'llama-server --port {{port}}'], envAllowlist: [] },
      health: { path: '/health', startupTimeoutMs: 60_000, intervalMs: 1_000 },
      supportedHardware: {
        architectures: ['arm64'],
        memoryModels: ['unified'],
        minComputeCapability: '8.0',
        gpusPerReplica: 1,
      },
    };
    await page.getByRole('button', { name: 'Register runtime' }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('radio', { name: 'Paste JSON' }).click();
    await dialog.getByLabel('Spec (JSON)').fill(JSON.stringify(runtime));
    await expectVisible(page, checks(dialog).getByText('launch.executable'));
    await dialog.getByLabel('Spec (JSON)').fill(
      JSON.stringify({
        ...runtime,
        launch: {
          executable: '/opt/llama/llama-server',
          args: ['--model', '{{modelPath}}', '--port', '{{port}}'],
        },
      }),
    );
    await expectVisible(page, checks(dialog).getByText("Passes the registry's checks."));
    await dialog.getByRole('button', { name: 'Register', exact: true }).click();
    await expectVisible(page, dialog.getByText('runtime-flow-llama-b1'));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Allow flow-llama b1' }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('button', { name: 'Confirm allow' }).click();
    await expectVisible(page, dialog.getByText('flow-llama b1 is on the runtime allowlist.'));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expectVisible(page, page.getByRole('button', { name: 'Disallow flow-llama b1' }));

    // An evaluation suite from the form, a benchmark profile from JSON (a missing length is named first).
    await page.getByRole('button', { name: 'Create evaluation suite' }).click();
    dialog = await openedDialog(page);
    await dialog.getByLabel('Name', { exact: true }).fill('flow-smoke');
    await dialog.getByLabel('Prompt').fill('Say hello');
    await dialog.getByLabel('Substring').fill('hello');
    await expectVisible(page, checks(dialog).getByText("Passes the registry's checks."));
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await expectVisible(page, dialog.getByText('Evaluation suite flow-smoke is stored', { exact: false }));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Create benchmark profile' }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('radio', { name: 'Paste JSON' }).click();
    const profile = { name: 'flow-steady', concurrency: 2, inputTokens: 32, outputTokens: 16 };
    await dialog.getByLabel('Spec (JSON)').fill(JSON.stringify(profile));
    await expectVisible(page, checks(dialog).getByText('must set durationSeconds, requestCount or both'));
    await dialog.getByLabel('Spec (JSON)').fill(JSON.stringify({ ...profile, requestCount: 20 }));
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await expectVisible(page, dialog.getByText('Benchmark profile flow-steady is stored.'));
    await dialog.getByRole('button', { name: 'Done' }).click();
    const suites = page.getByRole('table', { name: 'Evaluation suites' });
    await expectVisible(page, suites.getByRole('rowheader', { name: 'flow-smoke' }));
    await expectVisible(
      page,
      page.getByRole('table', { name: 'Benchmark profiles' }).getByRole('rowheader', { name: 'flow-steady' }),
    );
    await screenshot(page, 'registry-records', DESKTOP.width);

    // A version that never reached Approved is retired directly; the dialog offers only the moves its state allows.
    await harness.graphql(
      'mutation { registerModelVersion(input: { model: "flow-retire", version: "v1" }) { ref } }',
    );
    await page.goto(`${harness.apiUrl}/models/flow-retire@v1`);
    await expectVisible(page, page.getByRole('heading', { name: 'flow-retire@v1', level: 1 }));
    expect(await page.getByRole('button', { name: 'Reinstate' }).count()).to.equal(0);
    await page.getByRole('button', { name: 'Retire' }).click();
    dialog = await openedDialog(page);
    await expectVisible(page, dialog.getByText('No alias serves it.', { exact: false }));
    await dialog.getByLabel('Reason').fill('superseded before evaluation');
    await dialog.getByRole('button', { name: 'Confirm retire' }).click();
    await expectVisible(page, dialog.getByRole('status').getByText('Retired'));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expectVisible(page, page.getByText('superseded before evaluation').first());
    expect(await page.getByRole('button', { name: 'Retire' }).count()).to.equal(0);
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('no route scrolls sideways at 1440 px or 390 px: every view and every detail page, with data on them', async () => {
    const data = await harness.graphql<{
      nodes: { name: string }[];
      deployments: { name: string }[];
      modelVersions: { ref: string }[];
      tenants: { id: string }[];
      aliases: { name: string }[];
      auditEvents: { events: { seq: number }[] };
    }>(
      '{ nodes { name } deployments { name } modelVersions { ref } tenants { id } aliases { name } ' +
        'auditEvents(first: 1) { events { seq } } }',
    );
    // Every route once: each view, and one record of each detail route (the ones earlier tests filled most).
    const routes = [
      ...VIEWS.map((view) => view.path),
      ...data.nodes.slice(0, 1).map((node) => `nodes/${encodeURIComponent(node.name)}`),
      ...data.deployments
        .slice(0, 1)
        .map((deployment) => `deployments/${encodeURIComponent(deployment.name)}`),
      ...data.aliases.slice(0, 1).map((alias) => `deployments/aliases/${encodeURIComponent(alias.name)}`),
      ...data.modelVersions.slice(0, 1).map((version) => `models/${encodeURIComponent(version.ref)}`),
      ...data.tenants.slice(0, 1).map((tenant) => `tenants/${encodeURIComponent(tenant.id)}`),
      ...data.auditEvents.events.map((event) => `audit?seq=${event.seq}`),
    ];
    expect(routes.length, 'detail pages to visit').to.be.above(VIEWS.length);
    // Which elements stick out past the viewport, for a failure message that says what to fix.
    const measure = `(() => {
      const root = document.documentElement;
      const wide = [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1 && !el.closest('.table-scroll, [class*="scroll"]'))
        .slice(-4)
        .map((el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.split(' ').join('.') : ''));
      return { scroll: root.scrollWidth, client: root.clientWidth, wide };
    })()`;
    const wider: string[] = [];
    for (const size of CONSOLE_WIDTHS) {
      const recorded = await newPage(browser, size);
      const { page } = recorded;
      const check = async (route: string): Promise<void> => {
        const { scroll, client, wide } = await page.evaluate<{
          scroll: number;
          client: number;
          wide: string[];
        }>(measure);
        if (scroll > client)
          wider.push(`/${route} at ${size.width} px: ${scroll} > ${client} (${wide.join(', ')})`);
      };
      await page.goto(`${harness.apiUrl}/login`);
      await expectVisible(page, page.getByRole('button', { name: 'Sign in' }));
      await check('login');
      // The measure itself: an element wider than the viewport must register, or every check below passes vacuously.
      await page.evaluate(
        `(() => { const probe = document.createElement('div'); probe.id = 'width-probe'; probe.style.width = '3000px';
           probe.style.height = '1px'; document.body.appendChild(probe); })()`,
      );
      const probed = await page.evaluate<{ scroll: number; client: number }>(measure);
      expect(probed.scroll, 'a 3000 px element widens the page').to.be.above(probed.client);
      await page.evaluate(`document.getElementById('width-probe').remove()`);
      await signIn(harness.apiUrl, recorded, ADMIN);
      for (const route of routes) {
        await page.goto(`${harness.apiUrl}/${route}`);
        await page.getByRole('heading', { level: 1 }).first().waitFor({ state: 'visible', timeout: 30_000 });
        // The page's data, not only its frame: a table or card that arrives later can widen it.
        await page.waitForTimeout(400);
        await check(route);
      }
      expectNoProblems(recorded);
      await page.context().close();
    }
    expect(wider, wider.join('\n')).to.deep.equal([]);
  });

  it('a viewer sees no enabled destructive control, and a mutation forged from the viewer’s session is refused', async () => {
    const recorded = await newPage(browser);
    const { page } = recorded;
    // Whatever the earlier tests left, the node is cordoned now; the viewer's forged uncordon must not change that.
    await harness.graphql('mutation { cordonNode(node: "flow-node") { cordoned } }');
    await signIn(harness.apiUrl, recorded, VIEWER);
    const destructive =
      /^(Drain…|Cordon|Uncordon|Approve|Reject|Stop deployment|Rotate credential…|Deploy|Create bootstrap token|Labels and taints…|Send|Register a fake model version|Create tenant|Edit quotas…|Create gateway key…|Revoke key \S+|Approve \S+|Reject \S+|Allow .+|Disallow .+|Create license|Register runtime|Create evaluation suite|Create benchmark profile|Retire|Withdraw|Reinstate|Deprecate)$/;
    for (const path of [
      'nodes',
      'nodes/flow-node',
      'deployments',
      'deployments/flow-chat',
      'requests',
      'tenants',
      'registry',
    ]) {
      await page.goto(`${harness.apiUrl}/${path}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor({ state: 'visible', timeout: 30_000 });
      await page.waitForTimeout(500);
      const buttons = page.getByRole('button', { name: destructive });
      const enabled: string[] = [];
      for (let i = 0; i < (await buttons.count()); i++) {
        // isEnabled honours aria-disabled too, which disabledInteractive buttons use.
        if (await buttons.nth(i).isEnabled()) enabled.push((await buttons.nth(i).textContent()) ?? '');
      }
      expect(enabled, `enabled destructive controls on /${path}`).to.deep.equal([]);
      await screenshot(page, `viewer-${path.replace('/', '-')}`, DESKTOP.width);
    }

    // The same session, used by hand: the API refuses and changes nothing.
    const forged = await page.evaluate<{ code: string | undefined; cordoned: boolean }>(`(async () => {
      const token = Object.values(sessionStorage).concat(Object.values(localStorage))
        .map((v) => { try { return JSON.parse(v); } catch { return v; } })
        .map((v) => (typeof v === 'string' ? v : v && (v.accessToken || v.token)))
        .find((v) => typeof v === 'string' && v.split('.').length === 3);
      const call = (query) => fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token }, body: JSON.stringify({ query }) }).then((r) => r.json());
      const refused = await call('mutation { uncordonNode(node: "flow-node") { cordoned } }');
      const after = await call('{ node(node: "flow-node") { cordoned } }');
      return { code: refused.errors && refused.errors[0].extensions.code, cordoned: after.data.node.cordoned };
    })()`);
    expect(forged).to.deep.equal({ code: 'FORBIDDEN', cordoned: true });
    const audit = await harness.graphql<{ auditEvents: { events: { actor: string; decision: string }[] } }>(
      `{ auditEvents(first: 5, filter: { decision: "denied", actor: "operator:${VIEWER.username}" }) { events { actor decision } } }`,
    );
    expect(audit.auditEvents.events.length, 'the refusal is audited').to.be.at.least(1);
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('every view renders its error state while the api is down, with no uncaught browser error, and recovers', async () => {
    const pages: { size: (typeof CONSOLE_WIDTHS)[number]; recorded: RecordedPage }[] = [];
    for (const size of CONSOLE_WIDTHS) {
      const recorded = await newPage(browser, size);
      await signIn(harness.apiUrl, recorded, ADMIN);
      // Views are lazy chunks the api serves: load each once while it is up, as an operator's session would have.
      for (const view of VIEWS) {
        await recorded.page.goto(`${harness.apiUrl}/${view.path}`);
        await expectVisible(
          recorded.page,
          recorded.page.getByRole('heading', { name: view.heading, level: 1 }),
        );
      }
      pages.push({ size, recorded });
    }
    const before = pages.map(({ recorded }) => recorded.problems.length);
    await harness.api?.kill('SIGKILL');
    try {
      for (const [i, { size, recorded }] of pages.entries()) {
        const { page } = recorded;
        for (const view of VIEWS) {
          // In-app navigation: a reload would need the api to serve the console itself.
          await page.evaluate(
            `history.pushState({}, '', '/${view.path}'); dispatchEvent(new PopStateEvent('popstate'))`,
          );
          await expectVisible(page, page.getByRole('heading', { name: view.heading, level: 1 }));
          await expectVisible(page, page.getByRole('alert').filter({ hasText: 'API unreachable' }).first());
          await expectVisible(page, page.getByRole('button', { name: 'Retry' }).first());
          await screenshot(page, `error-${view.path}`, size.width);
        }
        const unexpected = recorded.problems.slice(before[i]).filter((problem) => !isRefusedApiCall(problem));
        expect(unexpected, describeProblems(unexpected)).to.deep.equal([]);
      }
    } finally {
      await harness.startApi();
    }
    for (const { recorded } of pages) {
      const { page } = recorded;
      await page.getByRole('button', { name: 'Retry' }).first().click();
      await page
        .getByRole('alert')
        .filter({ hasText: 'API unreachable' })
        .first()
        .waitFor({ state: 'detached', timeout: 30_000 });
      await page.context().close();
    }
  });
});
