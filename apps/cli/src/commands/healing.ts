import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { z } from 'zod';
import { parseIdempotencyKey, parseWholeNumber } from '../arguments';
import { waitingTimeoutMs, type CommandContext } from '../context';
import { ExitCode } from '../errors';
import { formatTable, writeJson } from '../output';
import { WORKFLOW_REQUEST_TIMEOUT_MS } from './nodes';

/** The CLI's healing operation (libs/sdk/graphql/cli/healing.graphql, validated against apps/api/schema.gql by `npm run sdk:generate`). */
export const HEALING_DOCUMENTS = {
  heal: Operations.HealDocument.document,
} as const;

export type HealingRunView = z.infer<typeof Results.HealMutationSchema>['heal'];

export interface HealOptions {
  readonly dryRun?: boolean;
  readonly maxActions?: string;
  readonly key?: string;
}

export function renderHealing(run: HealingRunView): string {
  const { plan } = run;
  const head = plan.dryRun
    ? `dry run: ${plan.actions.length} action(s) would be taken, ${plan.skipped.length} held back (nothing changed)\n`
    : `healing pass ${run.workflowId}: ${plan.actions.length} action(s), ${plan.skipped.length} held back\n  ${run.temporalUiUrl}\n`;
  const rows = [
    ...plan.actions.map((action) => [
      action.rule,
      action.target,
      plan.dryRun ? 'would act' : (action.outcome ?? ''),
      `${action.reason} ${action.evidenceJson}`,
    ]),
    ...plan.skipped.map((skip) => [skip.rule, skip.target, 'held back', skip.reason]),
  ];
  return head + (rows.length > 0 ? formatTable(['RULE', 'TARGET', 'OUTCOME', 'WHY'], rows) : '');
}

/**
 * `heal`: one pass of the healing rules (a Healing workflow; every action
 * receipted), or with --dry-run the actions it would take and why, changing
 * nothing. Exit 1 when an action could not be applied.
 */
export async function healCommand(ctx: CommandContext, options: HealOptions): Promise<ExitCode> {
  const input = {
    dryRun: options.dryRun === true,
    ...(options.maxActions === undefined
      ? {}
      : { rules: { maxActionsPerPass: parseWholeNumber(options.maxActions, '--max-actions', 0, 100) } }),
    ...(options.key === undefined ? {} : { idempotencyKey: parseIdempotencyKey(options.key) }),
  };
  const { data } = await ctx.api.graphql(HEALING_DOCUMENTS.heal, { input }, Results.HealMutationSchema, {
    timeoutMs: waitingTimeoutMs(ctx, WORKFLOW_REQUEST_TIMEOUT_MS),
  });
  if (ctx.json) writeJson(ctx.io.stdout, data.heal);
  else ctx.io.stdout(renderHealing(data.heal));
  const failed = data.heal.plan.actions.some(
    (action) =>
      action.outcome !== null && action.outcome !== 'applied' && action.outcome !== 'already cordoned',
  );
  return failed ? ExitCode.FAILURE : ExitCode.OK;
}
