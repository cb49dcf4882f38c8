import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, Locator, Page } from 'playwright-core';
import { GatewayClient } from '@lunanexa/sdk';
import {
  CONSOLE_WIDTHS,
  FleetHarness,
  REPO_ROOT,
  SCREENSHOT_DIR,
  describeProblems,
  expectVisible,
  fakeRuntimeProcesses,
  formatLeakFinding,
  launchBrowser,
  openPage,
  openedDialog,
  scanForLeaks,
  screenshot,
  signIn,
  waitUntil,
  type LeakAllowEntry,
  type LeakFinding,
  type RecordedPage,
  chooseOption,
  createAlias,
  currentRevision,
  evaluateAndApprove,
  promoteRollout,
  rolloutState,
  startRolloutAndWatch,
} from '../src';

/**
 * The release scenario (the seed's final UI-to-UI scenario, nine steps) on
 * one stack: api serving the built console, worker, gateway, Temporal,
 * PostgreSQL and four simulated DGX nodes (real agents, fake runtimes).
 * Operator steps go through the browser, including the tenant and the
 * gateway key the application uses: created on the Tenants page, the key
 * read from the page that shows it once. Every application call (the SDK
 * traffic loop, the streamed call, the failover traffic) goes through
 * `@lunanexa/sdk` with that tenant key, never an operator credential, and
 * step 5 checks the request record names the tenant. Assertions read the
 * API, the agents' stores and /proc. Screenshots land in
 * e2e/screenshots/release-*, each view at 1440 px and at 390 px.
 *
 * Step 2's license is the built-in synthetic license, not one created and
 * approved in the Registry view: the registry lets fake-format weights (all
 * a simulated node can serve) carry that license only. Creating and
 * reviewing licenses in the browser is console-flows.e2e.ts's.
 */

const ADMIN = { username: 'release-admin', password: 'correct horse battery staple' };
const [DESKTOP, PHONE] = CONSOLE_WIDTHS;
const NODES = ['dgx-1', 'dgx-2', 'dgx-3', 'dgx-4'] as const;
const ALIAS = 'release-chat';
const TENANT = 'release-app';
const SUITE = 'release-smoke';
const PROFILE = 'release-short';
const V1 = { version: '1' };
const V2 = { version: '2' };
const ref = (v: { version: string }): string => `release@${v.version}`;
/** What the agent passes to a binary runtime from the node's own environment (apps/agent BINARY_BASE_ENV). */
const NODE_OWN_ENV = ['PATH', 'HOME', 'LANG', 'TZ'];

/** Every API answer the browser and the SDK saw, for step 9's scan. */
const responses: { source: string; text: string }[] = [];
let lastPage: RecordedPage | undefined;

function expectNoProblems(recorded: RecordedPage): void {
  expect(recorded.problems, describeProblems(recorded.problems)).to.deep.equal([]);
}

/** Live fake runtimes of these models, by the assignment the agent started each for (its process tag). */
function runtimesByAssignment(models: readonly string[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const pid of models.flatMap((model) => fakeRuntimeProcesses(model))) {
    try {
      const tag = readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .find((v) => v.startsWith('LUNANEXA_RUNTIME_ASSIGNMENT='));
      const assignment = tag?.slice(tag.indexOf('=') + 1) ?? 'untagged';
      (out[assignment] ??= []).push(pid);
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** Sets a multiple mat-select: clicks each option (toggling it), then closes the panel. */
async function toggle(page: Page, scope: Locator, label: string, options: readonly string[]): Promise<void> {
  await scope.getByLabel(label, { exact: true }).locator('.mat-mdc-select-arrow-wrapper').click();
  for (const option of options) await page.getByRole('option', { name: option, exact: true }).click();
  await page.keyboard.press('Escape');
}

/** The digest a fake-format artifact of `ref` must carry (libs/artifact-store synthetic.ts). */
function syntheticDigest(modelRef: string): string {
  return `sha256:${createHash('sha256').update(`lunanexa-fake-weights:${modelRef}`).digest('hex')}`;
}

/** The runtime the versions run on, registered in the Registry view: the fake runtime every agent ships. */
const RUNTIME = {
  name: 'release-fake',
  version: '1',
  kind: 'fake',
  packaging: {
    type: 'binary',
    digest: `sha256:${createHash('sha256').update('lunanexa-fake-runtime').digest('hex')}`,
  },
  launch: {
    executable: 'lunanexa-fake-runtime',
    args: ['--host', '{{host}}', '--port', '{{port}}', '--model', '{{servedModelName}}'],
    envAllowlist: ['LUNANEXA_FAKE_TTFT_MS', 'LUNANEXA_FAKE_TOKENS_PER_SECOND'],
  },
  health: { path: '/health', startupTimeoutMs: 30_000, intervalMs: 1_000 },
  supportedHardware: {
    architectures: ['arm64', 'amd64'],
    memoryModels: ['unified', 'discrete'],
    minComputeCapability: '0.0',
    gpusPerReplica: 0,
  },
};

/** One SDK caller of the alias, like an application: streams, and counts answers and failures. */
interface Traffic {
  ok: number;
  failed: string[];
  stop(): Promise<void>;
}

describe('release scenario: nine steps from a clean controller to a verified evidence bundle and a clean leak scan', function () {
  this.timeout(900_000);
  let harness: FleetHarness;
  let browser: Browser;
  /** The application's client: made in step 4 with the tenant's gateway key, read from the Tenants page. */
  let sdk: GatewayClient;
  let traffic: Traffic | null = null;

  before(async function () {
    this.timeout(300_000);
    harness = await FleetHarness.start('release_scenario', {
      serveConsole: true,
      admin: ADMIN,
      leaseSeconds: 60,
    });
    browser = await launchBrowser();
  });

  afterEach(async function () {
    const page = lastPage?.page;
    lastPage = undefined;
    if (this.currentTest?.state !== 'failed' || page === undefined || page.isClosed()) return;
    const name = `failed-release-${(this.currentTest.title.split(':')[0] ?? 'step').replace(/[^A-Za-z0-9]+/g, '-').slice(0, 40)}`;
    await screenshot(page, name, page.viewportSize()?.width ?? 0).catch(() => undefined);
  });

  after(async function () {
    this.timeout(120_000);
    await traffic?.stop();
    await browser?.close();
    await harness?.stop();
  });

  async function newPage(size: (typeof CONSOLE_WIDTHS)[number] = DESKTOP): Promise<RecordedPage> {
    lastPage = await openPage(browser, size);
    lastPage.page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.pathname !== '/graphql' && !url.pathname.startsWith('/v1/')) return;
      if (url.pathname.startsWith('/v1/evidence')) return; // a gzip archive: verified in step 8 instead
      const body = response.request().postData() ?? '';
      const operation = /\b(?:query|mutation)\s+(\w+)/.exec(body)?.[1] ?? '';
      void response
        .text()
        .then((text) =>
          responses.push({
            source: `${response.request().method()} ${url.pathname} ${operation}`.trim(),
            text,
          }),
        )
        .catch(() => undefined);
    });
    await signIn(harness.apiUrl, lastPage, ADMIN);
    return lastPage;
  }

  /** The same view at 390 px: every page the scenario shows is checked at both widths. */
  async function phoneShot(path: string, name: string, visible: (page: Page) => Locator): Promise<void> {
    const phone = await openPage(browser, PHONE);
    await signIn(harness.apiUrl, phone, ADMIN);
    await phone.page.goto(`${harness.apiUrl}${path}`);
    await expectVisible(phone.page, visible(phone.page));
    await screenshot(phone.page, name, PHONE.width);
    expectNoProblems(phone);
    await phone.page.context().close();
  }

  /**
   * The current view at 1440 px, then the same state at 390 px: the viewport is narrowed in place, so a dialog,
   * a form being filled or a run in progress is shot as it is (reloading at 390 px would lose it).
   */
  async function bothWidths(page: Page, name: string): Promise<void> {
    await screenshot(page, name, DESKTOP.width);
    await page.setViewportSize(PHONE);
    try {
      // Let the layout take the new breakpoint (the sidenav turns into an overlay) before the shot.
      await page.waitForFunction('document.documentElement.clientWidth <= 390', undefined, {
        timeout: 5_000,
      });
      await page.waitForTimeout(300);
      await screenshot(page, name, PHONE.width);
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  }

  function startTraffic(): Traffic {
    let running = true;
    const state: Traffic = {
      ok: 0,
      failed: [],
      stop: async () => {
        running = false;
        await loop;
      },
    };
    const loop = (async () => {
      while (running) {
        try {
          const stream = await sdk.streamChatCompletion({
            model: ALIAS,
            messages: [{ role: 'user', content: 'status?' }],
            max_tokens: 4,
          });
          for await (const chunk of stream) void chunk;
          state.ok += 1;
        } catch (error) {
          state.failed.push(error instanceof Error ? error.message : String(error));
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    })();
    return state;
  }

  async function registerEvaluateApprove(page: Page, spec: { version: string }): Promise<void> {
    const modelRef = ref(spec);
    const candidate = `release-${spec.version}-candidate`;
    // Registered from the Models view: digest-pinned, under the built-in synthetic license (the only license
    // fake-format weights may carry), on the runtime registered in the Registry view; then its digest verified.
    await page.goto(`${harness.apiUrl}/models`);
    await page.getByRole('button', { name: 'Create model version' }).first().click();
    const create = await openedDialog(page);
    await create.getByLabel('Model name').fill('release');
    await create.getByLabel('Version', { exact: true }).fill(spec.version);
    await create.getByLabel('Artifact URI').fill(`file:///var/lib/lunanexa/models/release/${spec.version}`);
    await create.getByLabel('Digest').fill(syntheticDigest(modelRef));
    await create.getByLabel('Size (bytes)').fill('1');
    await chooseOption(page, create, 'Format', 'fake');
    await create.getByLabel('Provenance').fill(`release scenario build ${spec.version}`);
    await chooseOption(page, create, 'License', /lunanexa-synthetic/);
    await chooseOption(page, create, 'Runtime', new RegExp(`${RUNTIME.name} ${RUNTIME.version}`));
    // What one replica needs: a DGX Spark's arm64 with unified memory, no GPU of its own for the fake runtime.
    await toggle(page, create, 'Architectures', ['arm64', 'amd64']);
    await toggle(page, create, 'GPU memory', ['unified', 'discrete']);
    await create.getByLabel('Min. compute capability').fill('0.0');
    await create.getByLabel('GPUs per replica').fill('0');
    await create.getByRole('button', { name: 'Register model version' }).click();
    await create.getByRole('button', { name: `Open ${modelRef}` }).click();
    await expectVisible(page, page.getByRole('heading', { name: modelRef, level: 1 }));
    await page.getByRole('button', { name: 'Verify digest' }).click();
    const verify = await openedDialog(page);
    await verify.getByRole('button', { name: 'Confirm verify digest' }).click();
    await expectVisible(page, verify.getByText('The stored bytes match the digest.'), 60_000);
    await verify.getByRole('button', { name: 'Done' }).click();
    await expectVisible(
      page,
      page.getByRole('status', { name: 'Version state' }).getByText('Verified', { exact: true }),
    );

    await page.goto(`${harness.apiUrl}/deployments`);
    await page.getByRole('button', { name: 'Deploy' }).first().click();
    const deploy = await openedDialog(page);
    await deploy.getByLabel('Deployment name').fill(candidate);
    await chooseOption(page, deploy, 'Model version', new RegExp(modelRef));
    // Verified, not yet evaluated: only a Candidate deployment passes the deploy gate.
    await chooseOption(page, deploy, 'Purpose', /Candidate/);
    await deploy.getByRole('button', { name: 'Create deployment' }).click();
    await expectVisible(
      page,
      deploy.getByRole('status', { name: 'Deployment state' }).getByText('Ready', { exact: true }),
      120_000,
    );
    await deploy.getByRole('button', { name: 'Done' }).click();

    await page.goto(`${harness.apiUrl}/models/${modelRef}`);
    await expectVisible(page, page.getByRole('heading', { name: modelRef, level: 1 }));
    await evaluateAndApprove(page, { modelRef, candidate, suite: SUITE, profile: PROFILE });

    // The candidate served its purpose: stopped from its page, through its confirmation.
    await page.goto(`${harness.apiUrl}/deployments/${candidate}`);
    await page.getByRole('button', { name: 'Stop deployment' }).click();
    const stop = await openedDialog(page);
    await stop.getByRole('button', { name: 'Confirm stop' }).click();
    await expectVisible(page, stop.getByRole('status').getByText(`Stopped: ${candidate}`), 120_000);
    await stop.getByRole('button', { name: 'Done' }).click();
  }

  /** Run assignments of every live deployment, and the runtimes that serve each model on this test's nodes. */
  async function desiredState(): Promise<{
    alias: { currentRevision: number; modelRef: string };
    deployments: { name: string; desiredReplicas: number; runAssignments: number; modelRef: string }[];
  }> {
    const data = await harness.graphql<{
      alias: { currentRevision: number; current: { modelRef: string } };
      deployments: {
        name: string;
        state: string;
        desiredReplicas: number;
        modelRef: string;
        assignments: { intent: string }[];
      }[];
    }>(
      `{ alias(alias: "${ALIAS}") { currentRevision current { modelRef } }
         deployments { name state desiredReplicas modelRef assignments { intent } } }`,
    );
    return {
      alias: { currentRevision: data.alias.currentRevision, modelRef: data.alias.current.modelRef },
      deployments: data.deployments
        .filter((d) => d.state !== 'Stopped' && d.state !== 'Failed')
        .map((d) => ({
          name: d.name,
          desiredReplicas: d.desiredReplicas,
          modelRef: d.modelRef,
          runAssignments: d.assignments.filter((a) => a.intent === 'Run').length,
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
    };
  }

  it('1: a clean controller and four DGX nodes enrolled from the Nodes view (tokens and approvals in the browser)', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    await page.goto(`${harness.apiUrl}/nodes`);
    await expectVisible(page, page.getByText('No nodes yet').first());
    for (const name of NODES) {
      await page.goto(`${harness.apiUrl}/nodes`);
      await page.getByRole('button', { name: 'Create bootstrap token' }).first().click();
      const dialog = await openedDialog(page);
      await dialog.getByLabel('Node name (optional)').fill(name);
      await dialog.getByRole('button', { name: 'Create token' }).click();
      await expectVisible(page, dialog.getByRole('heading', { name: 'Bootstrap token created' }));
      const token = (await dialog.locator('code').first().textContent())?.trim() ?? '';
      expect(token).to.match(/^lnxb_/);
      await dialog.getByRole('button', { name: 'I have copied it — close' }).click();
      // The machine's side: the agent starts with the token an operator pasted on it.
      await harness.startAgent(name, token);
    }
    for (const name of NODES) {
      await page.goto(`${harness.apiUrl}/nodes/${name}`);
      await expectVisible(page, page.getByRole('heading', { name, level: 1 }), 60_000);
      await expectVisible(page, page.getByRole('button', { name: 'Approve' }), 60_000);
      await page.getByRole('button', { name: 'Approve' }).click();
      await page
        .getByRole('dialog')
        .getByRole('button', { name: `Approve ${name}` })
        .click();
      await expectVisible(
        page,
        page.getByRole('dialog').getByRole('button', { name: 'Copy receipt hash' }),
        90_000,
      );
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    }
    await page.goto(`${harness.apiUrl}/nodes`);
    for (const name of NODES) {
      await expectVisible(
        page,
        page.getByRole('row').filter({ hasText: name }).getByText('Ready').first(),
        90_000,
      );
    }
    await screenshot(page, 'release-1-nodes', DESKTOP.width);
    await phoneShot('/nodes', 'release-1-nodes', (p) => p.getByText('dgx-4').first());
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('2 and 3: two digest-pinned versions registered, evaluated against candidates and approved in the browser', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    // The runtime (pasted as JSON, then put on the allowlist), the suite (its form) and the profile (pasted as
    // JSON) the versions and their evaluations use, all from the Registry view.
    await page.goto(`${harness.apiUrl}/registry`);
    await expectVisible(page, page.getByRole('heading', { name: 'Registry', level: 1 }));
    const checks = (dialog: Locator): Locator => dialog.getByRole('region', { name: 'Checks' });
    await page.getByRole('button', { name: 'Register runtime' }).click();
    let dialog = await openedDialog(page);
    await dialog.getByRole('radio', { name: 'Paste JSON' }).click();
    await dialog.getByLabel('Spec (JSON)').fill(JSON.stringify(RUNTIME));
    await expectVisible(page, checks(dialog).getByText("Passes the registry's checks."));
    await dialog.getByRole('button', { name: 'Register', exact: true }).click();
    await expectVisible(page, dialog.getByText(`runtime-${RUNTIME.name}-${RUNTIME.version}`).first());
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: `Allow ${RUNTIME.name} ${RUNTIME.version}` }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('button', { name: 'Confirm allow' }).click();
    await expectVisible(
      page,
      dialog.getByText(`${RUNTIME.name} ${RUNTIME.version} is on the runtime allowlist.`),
    );
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Create evaluation suite' }).click();
    dialog = await openedDialog(page);
    await dialog.getByLabel('Name', { exact: true }).fill(SUITE);
    await dialog.getByLabel('Pass threshold (0–1)').fill('0.5');
    await dialog.getByLabel('Max tokens').fill('64');
    await dialog.getByLabel('Prompt').fill('Tell me about replicas.');
    await dialog.getByLabel('Substring').fill('.');
    await expectVisible(page, checks(dialog).getByText("Passes the registry's checks."));
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await expectVisible(page, dialog.getByText(`Evaluation suite ${SUITE} is stored`, { exact: false }));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Create benchmark profile' }).click();
    dialog = await openedDialog(page);
    await dialog.getByRole('radio', { name: 'Paste JSON' }).click();
    await dialog
      .getByLabel('Spec (JSON)')
      .fill(
        JSON.stringify({ name: PROFILE, concurrency: 2, inputTokens: 8, outputTokens: 8, requestCount: 10 }),
      );
    await expectVisible(page, checks(dialog).getByText("Passes the registry's checks."));
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await expectVisible(page, dialog.getByText(`Benchmark profile ${PROFILE} is stored.`));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await screenshot(page, 'release-3-registry', DESKTOP.width);
    await phoneShot('/registry', 'release-3-registry', (p) =>
      p.getByRole('table', { name: 'Benchmark profiles' }).getByRole('rowheader', { name: PROFILE }),
    );
    await registerEvaluateApprove(page, V1);
    await registerEvaluateApprove(page, V2);
    // Digest-pinned: each version names its artifact by digest, shown on its page.
    for (const v of [V1, V2]) {
      const version = await harness.graphql<{
        modelVersion: { state: string; artifactDigest: string | null };
      }>(`{ modelVersion(ref: "${ref(v)}") { state artifactDigest } }`);
      expect(version.modelVersion.state).to.equal('Approved');
      expect(version.modelVersion.artifactDigest ?? '').to.match(/^sha256:[0-9a-f]{64}$/);
    }
    await page.goto(`${harness.apiUrl}/models`);
    await expectVisible(page, page.getByRole('link', { name: ref(V2), exact: true }));
    await screenshot(page, 'release-3-models', DESKTOP.width);
    await phoneShot('/models', 'release-3-models', (p) =>
      p.getByRole('link', { name: ref(V2), exact: true }),
    );
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('4: the alias serves release@1; a tenant and its gateway key are made on the Tenants page; release@2 canaries, its placement is inspected, it is promoted; the application calls it through @lunanexa/sdk with the tenant key', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    await createAlias(page, harness.apiUrl, ALIAS);

    // The application's tenant and its gateway key for the alias, from the Tenants page; the key is read from the
    // dialog that shows it once, as an operator copies it into the application's configuration.
    await page.goto(`${harness.apiUrl}/tenants`);
    await expectVisible(page, page.getByRole('heading', { name: 'Tenants', level: 1 }));
    await page.getByRole('button', { name: 'Create tenant' }).click();
    let dialog = await openedDialog(page);
    await dialog.getByLabel('Tenant id').fill(TENANT);
    await dialog.getByLabel('Display name (optional)').fill('Release application');
    await dialog.getByRole('button', { name: 'Create tenant' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: `Tenant ${TENANT} saved` }));
    await dialog.getByRole('button', { name: 'Done' }).click();
    await expectVisible(page, page.getByRole('heading', { name: TENANT, level: 1 }));
    await page.getByRole('button', { name: 'Create gateway key…' }).click();
    dialog = await openedDialog(page);
    await dialog.getByLabel('Name', { exact: true }).fill('release application');
    await dialog.getByLabel('Aliases', { exact: true }).click();
    await page.getByRole('option', { name: ALIAS, exact: true }).click();
    await page.keyboard.press('Escape');
    await dialog.getByRole('button', { name: 'Create key' }).click();
    await expectVisible(page, dialog.getByRole('heading', { name: 'Gateway key created' }));
    const tenantKey = (await dialog.getByLabel('Gateway key').textContent())?.trim() ?? '';
    expect(tenantKey).to.match(/^lnxk_[A-Za-z0-9_-]{43}$/);
    await dialog.getByRole('button', { name: 'I have copied it — close' }).click();
    await dialog.waitFor({ state: 'detached' });
    const keys = page.getByRole('table', { name: `Gateway keys of ${TENANT}` });
    await expectVisible(page, keys.getByRole('row').filter({ hasText: ALIAS }).getByText('Active'));
    await screenshot(page, 'release-4-tenant', DESKTOP.width);
    await phoneShot(`/tenants/${TENANT}`, 'release-4-tenant', (p) =>
      p.getByRole('table', { name: `Gateway keys of ${TENANT}` }).getByText('Active'),
    );
    await page.goto(`${harness.apiUrl}/tenants`);
    await expectVisible(page, page.getByRole('table', { name: 'Tenants' }).getByText('Release application'));
    await bothWidths(page, 'release-4-tenants');
    sdk = new GatewayClient({ baseUrl: harness.gatewayUrl, apiKey: tenantKey });

    await page.goto(`${harness.apiUrl}/deployments/aliases/${ALIAS}`);
    await startRolloutAndWatch(page, { alias: ALIAS, modelRef: ref(V1) });
    await expectVisible(page, rolloutState(page).getByText('Promoted', { exact: true }), 240_000);
    await expectVisible(page, currentRevision(page).filter({ hasText: `revision 1: ${ref(V1)}` }), 60_000);
    await waitUntil(
      'the alias to answer through the SDK',
      async () =>
        await sdk
          .createChatCompletion({ model: ALIAS, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 })
          .then(
            () => true,
            () => false,
          ),
      60_000,
    );
    traffic = startTraffic();

    await startRolloutAndWatch(page, {
      alias: ALIAS,
      modelRef: ref(V2),
      plan: {
        steps: '50, 100',
        analysisWindowSeconds: 30,
        requestsPerStep: 10,
        p95SlackMs: 1000,
        bakeSeconds: 900,
      },
    });
    await expectVisible(page, rolloutState(page).getByText('Canary', { exact: true }), 240_000);
    await bothWidths(page, 'release-4-canary');

    // Inspect the canary's placement on its deployment page.
    const canary = await harness.graphql<{
      alias: { activeRollout: { canaryDeploymentId: string | null } | null };
    }>(`{ alias(alias: "${ALIAS}") { activeRollout { canaryDeploymentId } } }`);
    const canaryId = canary.alias.activeRollout?.canaryDeploymentId ?? '';
    expect(canaryId).to.not.equal('');
    const detail = await newPage();
    await detail.page.goto(`${harness.apiUrl}/deployments/${canaryId}`);
    const placement = detail.page.getByRole('region', { name: 'Placement' });
    await expectVisible(detail.page, placement.getByText(/^placed:/).first(), 60_000);
    await bothWidths(detail.page, 'release-4-canary-placement');
    expectNoProblems(detail);
    await detail.page.context().close();
    lastPage = recorded;

    await promoteRollout(page, ref(V2));
    await expectVisible(page, rolloutState(page).getByText('Promoted', { exact: true }), 120_000);
    await expectVisible(page, currentRevision(page).filter({ hasText: `revision 2: ${ref(V2)}` }), 60_000);
    await screenshot(page, 'release-4-promoted', DESKTOP.width);
    await phoneShot(`/deployments/aliases/${ALIAS}`, 'release-4-promoted', (p) =>
      currentRevision(p).filter({ hasText: `revision 2: ${ref(V2)}` }),
    );

    await waitUntil(
      'the SDK to be answered by release@2',
      async () => {
        const answer = await sdk.createChatCompletion({
          model: ALIAS,
          messages: [{ role: 'user', content: 'hi' }],
          max_tokens: 1,
        });
        return answer.model === ref(V2);
      },
      60_000,
    );
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('5: a streamed SDK call shows in the console with its usage and its tenant, and the promotion’s audit receipt is there', async () => {
    const requestId = `release-${Date.now().toString(36)}`;
    const stream = await sdk.streamChatCompletion(
      {
        model: ALIAS,
        messages: [{ role: 'user', content: 'Explain canary rollouts in a few sentences.' }],
        max_tokens: 40,
        stream_options: { include_usage: true },
      },
      { requestId },
    );
    const arrivals: number[] = [];
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta?.content ?? '';
      if (delta !== '') arrivals.push(Date.now());
      text += delta;
    }
    responses.push({ source: 'SDK stream', text });
    expect(arrivals.length, 'tokens arrive as a stream, not at once').to.be.at.least(3);
    const usage = stream.usage;
    expect(usage?.completion_tokens ?? 0).to.be.greaterThan(0);

    const recorded = await newPage();
    const { page } = recorded;
    // What the console's request list was given for this call: it counted against the tenant whose key made it.
    const shownTenants: (string | null)[] = [];
    page.on('response', (response) => {
      if (!(response.request().postData() ?? '').includes('ConsoleRequestRecords')) return;
      void response
        .json()
        .then(
          (body: {
            data?: { requestRecords?: { items?: { requestId: string; tenantId: string | null }[] } };
          }) => {
            for (const item of body.data?.requestRecords?.items ?? [])
              if (item.requestId === requestId) shownTenants.push(item.tenantId);
          },
        )
        .catch(() => undefined);
    });
    await page.goto(`${harness.apiUrl}/requests?requestId=${encodeURIComponent(requestId)}`);
    const row = page.getByRole('row').filter({ hasText: requestId });
    await expectVisible(page, row.getByText('Completed', { exact: true }), 60_000);
    await waitUntil('the console to have been given the request record', () =>
      Promise.resolve(shownTenants.length > 0),
    );
    expect([...new Set(shownTenants)]).to.deep.equal([TENANT]);
    const byTenant = await harness.graphql<{
      requestRecords: { items: { requestId: string; tenantId: string | null; outcome: string }[] };
    }>(
      `query($filter: RequestRecordFilter) { requestRecords(first: 5, filter: $filter) { items { requestId tenantId outcome } } }`,
      { filter: { requestId, tenant: TENANT } },
    );
    expect(byTenant.requestRecords.items).to.deep.equal([
      { requestId, tenantId: TENANT, outcome: 'Completed' },
    ]);
    await expectVisible(page, row.getByText(`→ ${String(usage?.completion_tokens)}`, { exact: false }));
    await bothWidths(page, 'release-5-request-usage');

    await page.goto(`${harness.apiUrl}/deployments/aliases/${ALIAS}`);
    await expectVisible(
      page,
      page.getByRole('table', { name: /Receipts the rollout workflow wrote/ }).getByText('rollout.promote'),
      60_000,
    );
    await page.goto(`${harness.apiUrl}/audit`);
    await expectVisible(page, page.getByText('rollout.promote').first(), 60_000);
    await bothWidths(page, 'release-5-audit');
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('6: a saturation sweep and cold starts started from the Benchmarks page load the serving node; another node is drained; the alias fails over without a failed call', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    await page.goto(`${harness.apiUrl}/benchmarks`);
    const form = page.getByRole('region', { name: 'Start a benchmark run' });
    await chooseOption(page, form, 'Alias or deployment', new RegExp(`alias ${ALIAS}`));
    await chooseOption(page, form, 'Profile to run', new RegExp(PROFILE));
    await form.getByLabel('Kinds', { exact: true }).locator('.mat-mdc-select-arrow-wrapper').click();
    await page.getByRole('option', { name: 'Cold start' }).click();
    await page.keyboard.press('Escape');
    await form.getByLabel('Cold start repeats').fill('2');
    await bothWidths(page, 'release-6-benchmark-start');
    await form.getByRole('button', { name: 'Start benchmark run' }).click();
    const progress = form.getByRole('status', { name: 'Benchmark run progress' });
    await expectVisible(page, progress.getByText(/^Running: 0 of 2 kinds measured/), 60_000);
    await bothWidths(page, 'release-6-benchmark-running');
    await expectVisible(page, progress.getByText('Succeeded: 2 of 2 kinds measured'), 300_000);
    const runs = page.getByRole('region', { name: 'Benchmark runs' });
    await expectVisible(
      page,
      runs.getByRole('img', { name: 'Saturation curve: throughput and p95 TTFT by concurrency' }),
    );
    await expectVisible(page, runs.getByRole('table', { name: 'Cold start repeats' }));
    await expectVisible(
      page,
      runs.getByText(/Deploy to first token p50 \/ p95 \/ p99: .* over 2 repeats \(none failed\)/),
    );
    await screenshot(page, 'release-6-benchmarks', DESKTOP.width);
    await phoneShot('/benchmarks', 'release-6-benchmarks', (p) =>
      p.getByRole('table', { name: 'Cold start repeats' }),
    );

    const run = (
      await harness.graphql<{
        benchmarkRuns: {
          state: string;
          saturation: {
            steps: { concurrency: number; errors: number; queueDepth: { max: number } | null }[];
          };
          coldStart: {
            repeats: number;
            failures: number;
            deployToFirstTokenMs: { p50: number; p99: number } | null;
            deployToReadyMs: { p50: number } | null;
          };
        }[];
      }>(
        `{ benchmarkRuns(limit: 1) { state saturation { steps { concurrency errors queueDepth { max } } }
             coldStart { repeats failures deployToFirstTokenMs { p50 p99 } deployToReadyMs { p50 } } } }`,
      )
    ).benchmarkRuns[0];
    expect(run?.state).to.equal('Succeeded');
    // Bounded queueing: a closed loop never has more waiting than its clients, and nothing was refused.
    for (const step of run?.saturation.steps ?? []) {
      expect(step.errors, `errors at ${step.concurrency} concurrent`).to.equal(0);
      if (step.queueDepth) expect(step.queueDepth.max).to.be.at.most(step.concurrency);
    }
    expect(run?.coldStart.repeats).to.equal(2);
    expect(run?.coldStart.failures).to.equal(0);
    // First token after Ready, Ready after the request: the clock measured the whole path.
    expect(run?.coldStart.deployToFirstTokenMs?.p50 ?? 0).to.be.greaterThan(
      run?.coldStart.deployToReadyMs?.p50 ?? 0,
    );
    // Every cold-start deployment was stopped again.
    await waitUntil(
      'the cold-start deployments stopped',
      async () => (await desiredState()).deployments.every((d) => !d.name.startsWith('cold-start-')),
      120_000,
    );

    // Drain a node that holds a replica of the alias's deployments (the stable release@1 still bakes behind it).
    const serving = await harness.graphql<{
      deployments: { state: string; modelRef: string; assignments: { nodeName: string; intent: string }[] }[];
    }>(`{ deployments { state modelRef assignments { nodeName intent } } }`);
    const v1Node = serving.deployments
      .filter((d) => d.modelRef === ref(V1) && d.state === 'Ready')
      .flatMap((d) => d.assignments.filter((a) => a.intent === 'Run').map((a) => a.nodeName))[0];
    expect(v1Node, 'release@1 runs somewhere while release@2 bakes').to.be.a('string');
    const failedBefore = traffic?.failed.length ?? 0;
    await page.goto(`${harness.apiUrl}/nodes/${v1Node ?? ''}`);
    await page.getByRole('button', { name: 'Cordon' }).click();
    await expectVisible(page, page.getByRole('button', { name: 'Uncordon' }));
    await page.getByRole('button', { name: 'Drain…' }).click();
    const drain = await openedDialog(page);
    await drain.getByRole('button', { name: `Drain ${v1Node ?? ''}` }).click();
    await expectVisible(page, drain.getByRole('button', { name: 'Copy receipt hash' }), 180_000);
    await drain.getByRole('button', { name: 'Close' }).click();
    await expectVisible(page, page.getByText('Drained', { exact: true }).first(), 60_000);
    await bothWidths(page, 'release-6-drained');
    // Failover: release@1's replica now runs elsewhere, and the application saw no failed call.
    await waitUntil(
      'release@1 Ready on another node',
      async () => {
        const after = await harness.graphql<{
          deployments: {
            state: string;
            modelRef: string;
            assignments: { nodeName: string; intent: string; observedState: string | null }[];
          }[];
        }>(`{ deployments { state modelRef assignments { nodeName intent observedState } } }`);
        return after.deployments.some(
          (d) =>
            d.modelRef === ref(V1) &&
            d.assignments.some(
              (a) => a.intent === 'Run' && a.observedState === 'Ready' && a.nodeName !== v1Node,
            ),
        );
      },
      120_000,
    );
    expect(traffic?.failed.slice(failedBefore) ?? []).to.deep.equal([]);
    expect(traffic?.ok ?? 0).to.be.greaterThan(0);
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('7: the controller (api and worker) and one agent killed and restarted: nothing runs twice, no desired state is lost', async () => {
    const before = await desiredState();
    const servingNode = (
      await harness.graphql<{
        deployments: {
          modelRef: string;
          state: string;
          assignments: { nodeName: string; intent: string }[];
        }[];
      }>(`{ deployments { modelRef state assignments { nodeName intent } } }`)
    ).deployments
      .filter((d) => d.modelRef === ref(V2) && d.state === 'Ready')
      .flatMap((d) => d.assignments.filter((a) => a.intent === 'Run').map((a) => a.nodeName))[0];
    expect(servingNode).to.be.a('string');
    const runtimesBefore = {
      v1: fakeRuntimeProcesses(ref(V1)).length,
      v2: fakeRuntimeProcesses(ref(V2)).length,
    };

    await harness.api?.kill('SIGKILL');
    await harness.worker?.kill('SIGKILL');
    await harness.agents.get(servingNode ?? '')?.service.kill('SIGKILL');
    await harness.startWorker();
    await harness.startApi();
    await harness.startAgent(servingNode ?? '');

    await waitUntil(
      'every deployment Ready again after the restarts',
      async () => {
        const data = await harness.graphql<{ deployments: { state: string; name: string }[] }>(
          `{ deployments { name state } }`,
        );
        return data.deployments.filter((d) => d.state !== 'Stopped').every((d) => d.state === 'Ready');
      },
      120_000,
    );
    const after = await desiredState();
    expect(after).to.deep.equal(before);
    for (const d of after.deployments) {
      expect(d.runAssignments, `${d.name}: one Run assignment per desired replica`).to.equal(
        d.desiredReplicas,
      );
    }
    // No duplicate execution: once the restarted agent has reconciled, one runtime per assignment and as many as
    // before. A runtime being replaced may overlap its successor for a moment (it is stopping); one that stays is a
    // duplicate, and the message names each assignment's processes.
    let settled: Record<string, number[]> = {};
    await waitUntil(
      'one runtime per assignment after the restarts',
      () => {
        settled = runtimesByAssignment([ref(V1), ref(V2)]);
        const counts = {
          v1: fakeRuntimeProcesses(ref(V1)).length,
          v2: fakeRuntimeProcesses(ref(V2)).length,
        };
        return Promise.resolve(
          Object.values(settled).every((pids) => pids.length === 1) &&
            JSON.stringify(counts) === JSON.stringify(runtimesBefore),
        );
      },
      30_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; runtimes by assignment: ${JSON.stringify(settled)}`);
    });
    // The restarted agent holds each of its assignments once.
    const held = JSON.parse(
      readFileSync(join(harness.agents.get(servingNode ?? '')?.stateDir ?? '', 'assignments.json'), 'utf8'),
    ) as { assignments: { assignmentId?: string; id?: string }[] };
    const ids = held.assignments.map((a) => a.assignmentId ?? a.id);
    expect(new Set(ids).size).to.equal(ids.length);

    // The console agrees: the alias still serves revision 2, its rollout still bakes.
    const recorded = await newPage();
    const { page } = recorded;
    await page.goto(`${harness.apiUrl}/deployments/aliases/${ALIAS}`);
    await expectVisible(page, currentRevision(page).filter({ hasText: `revision 2: ${ref(V2)}` }), 60_000);
    await expectVisible(page, rolloutState(page).getByText('Promoted', { exact: true }));
    await bothWidths(page, 'release-7-after-restart');
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('8: the alias is rolled back in the browser and its evidence bundle, exported from the console, verifies offline', async () => {
    const recorded = await newPage();
    const { page } = recorded;
    await page.goto(`${harness.apiUrl}/deployments/aliases/${ALIAS}`);
    await page.getByRole('button', { name: 'Roll back', exact: true }).click();
    const rollback = await openedDialog(page);
    await rollback.getByLabel('Reason (optional)').fill('release scenario: roll back after the restart');
    await rollback.getByRole('button', { name: 'Confirm roll back' }).click();
    await expectVisible(page, rollback.getByText('The rollout workflow has the roll back signal.'), 60_000);
    await rollback.getByRole('button', { name: 'Done' }).click();
    await expectVisible(page, rolloutState(page).getByText('RolledBack', { exact: true }), 120_000);
    await expectVisible(
      page,
      currentRevision(page).filter({ hasText: new RegExp(`revision \\d+: ${ref(V1)}`) }),
      60_000,
    );
    await screenshot(page, 'release-8-rolled-back', DESKTOP.width);
    await phoneShot(`/deployments/aliases/${ALIAS}`, 'release-8-rolled-back', (p) =>
      currentRevision(p).filter({ hasText: new RegExp(`revision \\d+: ${ref(V1)}`) }),
    );

    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 120_000 }),
      page.getByRole('button', { name: 'Export evidence' }).click(),
    ]);
    const dir = join(SCREENSHOT_DIR, 'release-evidence');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const file = join(dir, download.suggestedFilename() || 'evidence.tar.gz');
    await download.saveAs(file);
    const fingerprint = await harness.controllerFingerprint();
    // Offline: no --api-url, nothing but the file and the controller key's fingerprint.
    const verify = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'apps/cli/dist/src/main.js'),
        'evidence',
        'verify',
        file,
        '--fingerprint',
        fingerprint,
      ],
      { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env['PATH'] ?? '' } },
    );
    expect(verify.status, `${verify.stdout}\n${verify.stderr}`).to.equal(0);
    expect(verify.stdout).to.match(/signer pinned\s+yes/);
    expectNoProblems(recorded);
    await page.context().close();
  });

  it('9: no product name, secret or machine path in API responses, assignments, runtime environments or runtime argv', async () => {
    await traffic?.stop();
    traffic = null;
    const findings: LeakFinding[] = [];
    expect(responses.length).to.be.greaterThan(50);
    // Credentials handed to the operator who asked for them: the session of the sign-in, the bootstrap token
    // of the Nodes view (shown once, to paste on the node), the tenant's gateway key of the Tenants page (shown
    // once, to configure the application with). Anything else of these kinds is a leak.
    const handedOver: LeakAllowEntry[] = [
      {
        kind: 'jwt',
        source: 'POST /graphql ConsoleLogin',
        reason: 'the signed-in session’s own access token',
      },
      {
        kind: 'secret-literal',
        source: 'POST /graphql ConsoleCreateBootstrapToken',
        match: /lnxb_/,
        reason: 'the bootstrap token, shown once to the operator who created it',
      },
      {
        kind: 'secret-literal',
        source: 'POST /graphql ConsoleCreateGatewayKey',
        match: /lnxk_/,
        reason: 'the gateway key, shown once to the operator who created it for the application',
      },
    ];
    for (const r of responses) findings.push(...scanForLeaks(r.text, r.source, { allow: handedOver }));
    // The assignments as the API shows them, and as the agents hold them (the signed documents).
    // Images: the runtimes' packaging (the fake runtime is a binary named by digest; a container runtime's image and
    // launch line are scanned the same way).
    const shown = await harness.graphql(
      `{ deployments { name modelRef assignments { id nodeName intent message } }
         runtimes { id name kind packaging { type image digest } launch { executable args envAllowlist } } }`,
    );
    findings.push(...scanForLeaks(JSON.stringify(shown), 'GraphQL assignments and runtimes'));
    for (const name of NODES) {
      const stateDir = harness.agents.get(name)?.stateDir ?? '';
      const store = join(stateDir, 'assignments.json');
      if (existsSync(store))
        findings.push(...scanForLeaks(readFileSync(store, 'utf8'), `${name} assignments.json`));
    }
    // What the runtimes were started with: their environment and command line.
    const pids = [...fakeRuntimeProcesses(ref(V1)), ...fakeRuntimeProcesses(ref(V2))];
    expect(pids.length).to.be.greaterThan(0);
    for (const pid of pids) {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
        .split('\0')
        .filter((a) => a !== '');
      const environment = readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .filter((a) => a !== '');
      // argv[0] and argv[1] are the node's own: its node binary and the fake runtime installed with its agent
      // (here, this checkout). What the controller sent, the runtime record's rendered arguments, follows.
      expect(argv[1] ?? '').to.match(/fake-runtime/);
      findings.push(...scanForLeaks(argv.slice(2).join('\n'), `runtime ${pid} argv`));
      for (const variable of environment) {
        const name = variable.slice(0, variable.indexOf('='));
        // The node's own PATH, HOME, LANG and TZ, which the agent passes to binary runtimes by design
        // (apps/agent runtimes/launch.ts BINARY_BASE_ENV): the node's paths, not the controller's.
        if (NODE_OWN_ENV.includes(name)) continue;
        findings.push(...scanForLeaks(variable, `runtime ${pid} environment ${name}`));
      }
      // Nothing of the controller's configuration reached the runtime.
      expect(
        environment.filter((v) => /^(DATABASE_URL|TEMPORAL_|LUNANEXA_(?!FAKE_|RUNTIME_))/.test(v)),
      ).to.deep.equal([]);
    }
    expect(findings.map(formatLeakFinding)).to.deep.equal([]);
    expect(readdirSync(SCREENSHOT_DIR).filter((f) => f.startsWith('release-')).length).to.be.greaterThan(10);
  });
});
