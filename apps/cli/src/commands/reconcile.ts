import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { z } from 'zod';
import { reconcileRepairMade } from '@lunanexa/contracts';
import { parseIdempotencyKey } from '../arguments';
import { waitingTimeoutMs, type CommandContext } from '../context';
import { ExitCode } from '../errors';
import { formatTable, writeJson } from '../output';
import { WORKFLOW_REQUEST_TIMEOUT_MS } from './nodes';

/** libs/sdk/graphql/cli/reconcile.graphql, validated against apps/api/schema.gql by `npm run sdk:generate` */
export const RECONCILE_DOCUMENTS = {
  reconcile: Operations.ReconcileDocument.document,
} as const;

export type ReconcileRunView = z.infer<typeof Results.ReconcileMutationSchema>['reconcileFleet'];

export interface ReconcileOptions {
  readonly dryRun?: boolean;
  readonly key?: string;
}

export function renderReconcile(run: ReconcileRunView): string {
  const head = run.dryRun
    ? `dry run: ${run.drift.length} drift(s), ${run.repairs.length} repair(s) a pass would take (nothing changed)\n`
    : `reconcile pass ${run.workflowId}: ${run.drift.length} drift(s), ${run.repairs.length} repair(s)` +
      (run.receiptSeq === null ? '' : `, receipt #${run.receiptSeq} ${run.receiptHash ?? ''}`) +
      `\n  ${run.temporalUiUrl}\n`;
  if (run.inSync) return `${head}in sync: the desired state and what runs agree\n`;
  const drift = formatTable(
    ['DRIFT', 'TARGET', 'OBSERVED', 'REPAIR'],
    run.drift.map((item) => [item.kind, item.target, item.observed, item.repair ?? `none: ${item.note}`]),
  );
  const repairs =
    run.repairs.length === 0
      ? ''
      : '\n' +
        formatTable(
          ['REPAIR', 'TARGET', 'OUTCOME'],
          run.repairs.map((repair) => [
            repair.kind +
              (repair.fromGeneration === null ? '' : ` ${repair.fromGeneration}→${repair.toGeneration}`) +
              (repair.stop ? ' (with stop)' : ''),
            repair.target,
            repair.outcome,
          ]),
        );
  return head + drift + repairs;
}

/**
 * `reconcile`: one Reconcile pass (a workflow with a fleet.reconcile
 * receipt) — the first thing to run after a restore — or with --dry-run the
 * drift and the repairs it would take, changing nothing. Exit 1 when a
 * repair could not be made; a dry run exits 1 when there is drift, so a
 * script can wait for `in sync`.
 */
export async function reconcileCommand(ctx: CommandContext, options: ReconcileOptions): Promise<ExitCode> {
  const input = {
    dryRun: options.dryRun === true,
    ...(options.key === undefined ? {} : { idempotencyKey: parseIdempotencyKey(options.key) }),
  };
  const { data } = await ctx.api.graphql(
    RECONCILE_DOCUMENTS.reconcile,
    { input },
    Results.ReconcileMutationSchema,
    { timeoutMs: waitingTimeoutMs(ctx, WORKFLOW_REQUEST_TIMEOUT_MS) },
  );
  const run = data.reconcileFleet;
  if (ctx.json) writeJson(ctx.io.stdout, run);
  else ctx.io.stdout(renderReconcile(run));
  if (run.dryRun) return run.inSync ? ExitCode.OK : ExitCode.FAILURE;
  return run.repairs.every((repair) => reconcileRepairMade(repair.outcome)) ? ExitCode.OK : ExitCode.FAILURE;
}
