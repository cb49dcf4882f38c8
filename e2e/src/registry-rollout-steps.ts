import { expect } from 'chai';
import type { Locator, Page } from 'playwright-core';
import { expectVisible, openedDialog } from './console-page';
import { waitUntil } from './fleet-harness';

/*
 * Operator steps of the registry and rollout views, in the browser, as the
 * registry-and-rollout console test and the release scenario both take them:
 * evaluate and approve a version, create an alias, start and watch a rollout,
 * promote it through its confirmation. Each step waits for the console's own
 * answer (a heading, a status) before it returns.
 */

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Chooses `option` in the mat-select labelled `label` inside `scope`. */
export async function chooseOption(
  page: Page,
  scope: Locator,
  label: string,
  option: string | RegExp,
): Promise<void> {
  const wanted = page.getByRole('option', { name: option }).first();
  // A select whose options have not loaded yet does not open: try again until the option is offered. The arrow,
  // because an empty outlined field's label may lie over the middle of a narrow select.
  await waitUntil(
    `option ${String(option)} in ${label}`,
    async () => {
      await scope.getByLabel(label, { exact: true }).locator('.mat-mdc-select-arrow-wrapper').click();
      if (await wanted.isVisible()) return true;
      await wanted.waitFor({ state: 'visible', timeout: 1_000 }).catch(() => undefined);
      if (await wanted.isVisible()) return true;
      // Close an open panel that lacks the option; never Escape a closed select: that would close its dialog.
      if (await page.getByRole('listbox').first().isVisible()) await page.keyboard.press('Escape');
      return false;
    },
    30_000,
  );
  await wanted.click();
}

/** The rollout panel's state line on an alias page. */
export function rolloutState(page: Page): Locator {
  return page.getByRole('status', { name: 'Rollout state' });
}

/** The current-revision line of the alias page, e.g. "revision 1: chat@1". */
export function currentRevision(page: Page): Locator {
  return page.getByRole('region', { name: 'Alias' }).locator('.revision-now');
}

export interface EvaluationChoice {
  /** The version, e.g. chat@1; its page is open and it is Verified. */
  readonly modelRef: string;
  /** The Candidate deployment of it the evaluation runs against. */
  readonly candidate: string;
  readonly suite: string;
  readonly profile: string;
}

/**
 * On a Verified version's page: Approve is offered but not yet possible;
 * evaluate the version against its candidate deployment from the Evaluate
 * dialog until it passes, then approve it through the confirmation.
 */
export async function evaluateAndApprove(page: Page, choice: EvaluationChoice): Promise<void> {
  const { modelRef } = choice;
  const state = page.getByRole('status', { name: 'Version state' });
  await expectVisible(page, state.getByText('Verified', { exact: true }));
  // The lifecycle needs a passed evaluation first.
  expect(await page.getByRole('button', { name: 'Approve' }).isDisabled()).to.equal(true);

  await page.getByRole('button', { name: 'Evaluate' }).click();
  const evaluate = await openedDialog(page);
  await expectVisible(page, evaluate.getByRole('heading', { name: `Evaluate ${modelRef}` }));
  await chooseOption(page, evaluate, 'Deployment', new RegExp(escaped(choice.candidate)));
  await chooseOption(page, evaluate, 'Evaluation suite', new RegExp(escaped(choice.suite)));
  await chooseOption(page, evaluate, 'Benchmark profile (optional)', new RegExp(escaped(choice.profile)));
  await evaluate.getByRole('button', { name: 'Start evaluation' }).click();
  await expectVisible(
    page,
    evaluate.getByRole('heading', { name: `Evaluation of ${modelRef} started` }),
    60_000,
  );
  await expectVisible(
    page,
    evaluate.getByRole('status', { name: 'Evaluation state' }).getByText('Passed', { exact: true }),
    180_000,
  );
  await expectVisible(page, evaluate.getByRole('link', { name: /^evaluate\/.*opens the Temporal UI/ }));
  await evaluate.getByRole('button', { name: 'Done' }).click();
  await expectVisible(page, state.getByText('Evaluated', { exact: true }));

  await page.getByRole('button', { name: 'Approve' }).click();
  const approve = await openedDialog(page);
  await expectVisible(page, approve.getByText(`Approves ${modelRef} for rollouts`, { exact: false }));
  await approve.getByRole('button', { name: 'Confirm approve' }).click();
  await expectVisible(page, approve.getByRole('status').getByText('Approved', { exact: true }), 60_000);
  await approve.getByRole('button', { name: 'Done' }).click();
  await expectVisible(page, state.getByText('Approved', { exact: true }));
  await expectVisible(page, page.getByRole('region', { name: 'Evaluations' }).getByText('Passed').first());
}

/** Creates `alias` from the Deployments view's Create alias dialog. */
export async function createAlias(page: Page, apiUrl: string, alias: string): Promise<void> {
  await page.goto(`${apiUrl}/deployments`);
  await page.getByRole('button', { name: 'Create alias' }).click();
  const create = await openedDialog(page);
  await create.getByLabel('Alias name').fill(alias);
  await create.getByRole('button', { name: 'Create alias' }).click();
  await expectVisible(page, create.getByRole('heading', { name: `Alias ${alias} created` }));
  await create.getByRole('button', { name: 'Done' }).click();
}

/** The Start rollout dialog's canary plan, as typed into its fields. */
export interface CanaryPlanFields {
  /** "10, 50, 100" */
  readonly steps: string;
  readonly analysisWindowSeconds: number;
  readonly requestsPerStep: number;
  readonly p95SlackMs: number;
  readonly bakeSeconds: number;
}

export interface RolloutChoice {
  readonly alias: string;
  readonly modelRef: string;
  /** Whether the dialog asks for the alias (opened from the Deployments view, not from the alias's page). */
  readonly chooseAlias?: boolean;
  /** Fields changed from the dialog's defaults. */
  readonly plan?: CanaryPlanFields;
}

/**
 * From the page's Start rollout button: rolls `modelRef` out to `alias`, waits
 * for the workflow's receipt (started heading and Temporal UI link), then
 * follows "Watch the rollout" to the alias page.
 */
export async function startRolloutAndWatch(page: Page, rollout: RolloutChoice): Promise<void> {
  await page.getByRole('button', { name: 'Start rollout' }).click();
  const start = await openedDialog(page);
  if (rollout.chooseAlias === true) {
    await chooseOption(page, start, 'Alias', new RegExp(escaped(rollout.alias)));
  }
  await chooseOption(page, start, 'Model version', new RegExp(escaped(rollout.modelRef)));
  const plan = rollout.plan;
  if (plan !== undefined) {
    await start.getByLabel('Canary steps (%)').fill(plan.steps);
    await start.getByLabel('Analysis window (s)').fill(String(plan.analysisWindowSeconds));
    await start.getByLabel('Canary requests per step').fill(String(plan.requestsPerStep));
    await start.getByLabel('p95 latency slack (ms)').fill(String(plan.p95SlackMs));
    await start.getByLabel('Bake after promotion (s)').fill(String(plan.bakeSeconds));
  }
  await start.getByRole('button', { name: 'Start rollout' }).click();
  await expectVisible(
    page,
    start.getByRole('heading', { name: `Rollout of ${rollout.modelRef} to ${rollout.alias} started` }),
    60_000,
  );
  await expectVisible(page, start.getByRole('link', { name: /^rollout\/.*opens the Temporal UI/ }));
  await start.getByRole('button', { name: 'Watch the rollout' }).click();
  await expectVisible(page, page.getByRole('heading', { name: rollout.alias, level: 1 }));
}

/**
 * Promotes the alias page's running rollout of `modelRef` through its
 * confirmation, which names the version; `whileConfirming` runs with the
 * confirmation open (a screenshot of it). Returns once the workflow has the signal.
 */
export async function promoteRollout(
  page: Page,
  modelRef: string,
  whileConfirming?: (dialog: Locator) => Promise<void>,
): Promise<void> {
  await page.getByRole('button', { name: 'Promote', exact: true }).click();
  const promote = await openedDialog(page);
  await expectVisible(page, promote.getByText(`Promotes ${modelRef} now`, { exact: false }));
  await whileConfirming?.(promote);
  await promote.getByRole('button', { name: 'Confirm promote' }).click();
  await expectVisible(page, promote.getByText('The rollout workflow has the promote signal.'), 60_000);
  await promote.getByRole('button', { name: 'Done' }).click();
}
