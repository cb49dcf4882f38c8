import { setTimeout as sleep } from 'node:timers/promises';
import {
  DATA_CLASSES,
  ErrorCode,
  ROLLOUT_SIGNAL_ACTIONS,
  type RolloutSignalAction,
} from '@lunanexa/contracts';
import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { z } from 'zod';
import { parseIdempotencyKey, parseModelVersionRef, parseName, parseWholeNumber } from '../arguments';
import { waitingTimeoutMs, type CommandContext } from '../context';
import { CliError, CliErrorCode, ExitCode, usageError } from '../errors';
import { formatFields, formatTable, writeJson } from '../output';
import { WORKFLOW_REQUEST_TIMEOUT_MS } from './nodes';

/** The CLI's alias and rollout operations (libs/sdk/graphql/cli/rollouts.graphql, validated against apps/api/schema.gql by `npm run sdk:generate`). */
export const ROLLOUT_DOCUMENTS = {
  aliases: Operations.AliasesDocument.document,
  alias: Operations.AliasDocument.document,
  createAlias: Operations.CreateAliasDocument.document,
  rollouts: Operations.RolloutsDocument.document,
  rollout: Operations.RolloutDocument.document,
  startRollout: Operations.StartRolloutDocument.document,
  signalRollout: Operations.SignalRolloutDocument.document,
} as const;

export type Alias = z.infer<typeof Results.AliasesQuerySchema>['aliases'][number];
export type Rollout = z.infer<typeof Results.RolloutsQuerySchema>['rollouts'][number];

const FINISHED_STATES: ReadonlySet<string> = new Set([
  'Promoted',
  'RolledBack',
  'Aborted',
  'Refused',
  'Failed',
]);

export function renderAlias(alias: Alias): string {
  const fields = formatFields([
    ['name', alias.name],
    ['data class', alias.dataClass],
    [
      'serving',
      alias.current
        ? `revision ${alias.current.revision}: ${alias.current.modelRef} (${alias.current.deploymentName ?? alias.current.deploymentId})`
        : 'nothing yet (no rollout has promoted)',
    ],
    [
      'rollout',
      alias.activeRollout
        ? `${alias.activeRollout.id} ${alias.activeRollout.state}, canary ${alias.activeRollout.currentWeight} %`
        : 'none',
    ],
  ]);
  const history =
    alias.revisions.length === 0
      ? ''
      : `\n${formatTable(
          ['REVISION', 'MODEL', 'DEPLOYMENT', 'REASON', 'BY', 'AT'],
          alias.revisions.map((r) => [
            String(r.revision),
            r.modelRef,
            r.deploymentName ?? r.deploymentId,
            r.restoredFrom === null ? r.reason : `${r.reason} (restores ${r.restoredFrom})`,
            r.createdBy,
            r.createdAt,
          ]),
        )}`;
  return `${fields}${history}`;
}

export function renderRollout(rollout: Rollout): string {
  const track = rollout.steps
    .map((weight, i) =>
      i === rollout.currentStep && !FINISHED_STATES.has(rollout.state) ? `[${weight} %]` : `${weight} %`,
    )
    .join(' → ');
  const fields = formatFields([
    ['rollout', rollout.id],
    ['alias', `${rollout.alias} (base revision ${rollout.baseRevision})`],
    ['model', rollout.modelRef],
    ['state', rollout.stateReason ? `${rollout.state} (${rollout.stateReason})` : rollout.state],
    ...(rollout.refusalCode ? ([['refusal', rollout.refusalCode]] as [string, string][]) : []),
    ['steps', track],
    ['canary weight', `${rollout.currentWeight} %`],
    ['workflow', rollout.workflowId],
    ['temporal ui', rollout.temporalUiUrl],
  ]);
  const analyses =
    rollout.analyses.length === 0
      ? ''
      : `\n${formatTable(
          ['STEP', 'WEIGHT', 'WINDOW', 'VERDICT', 'CANARY', 'STABLE', 'REASONS'],
          rollout.analyses.map((a) => [
            String(a.step),
            `${a.weight} %`,
            String(a.window),
            a.verdict,
            `${a.canaryErrors}/${a.canaryRequests} errors, p95 ${a.canaryP95Ms === null ? '-' : a.canaryP95Ms.toFixed(1)} ms`,
            a.stableRequests === null
              ? '-'
              : `${(100 * (a.stableErrorRate ?? 0)).toFixed(1)} % errors of ${a.stableRequests}, p95 ${a.stableP95Ms === null ? '-' : a.stableP95Ms.toFixed(1)} ms`,
            a.reasons.join('; '),
          ]),
        )}`;
  const receipts = `\n${formatTable(
    ['SEQ', 'RECEIPT', 'RESULT', 'HASH'],
    rollout.receipts.map((r) => [String(r.seq), r.action, r.result, r.hash.slice(0, 16)]),
  )}`;
  return `${fields}${analyses}${receipts}`;
}

function parseDataClass(value: string): string {
  if (!(DATA_CLASSES as readonly string[]).includes(value)) {
    throw usageError(`--data-class must be one of ${DATA_CLASSES.join(', ')}`);
  }
  return value;
}

export interface AliasCreateOptions {
  readonly dataClass?: string;
  readonly description?: string;
}

export async function aliasCreateCommand(ctx: CommandContext, name: string, options: AliasCreateOptions) {
  const input = {
    name: parseName(name, 'alias name'),
    dataClass: parseDataClass(options.dataClass ?? 'internal'),
    ...(options.description === undefined ? {} : { description: options.description }),
  };
  const { data } = await ctx.api.graphql(
    ROLLOUT_DOCUMENTS.createAlias,
    { input },
    Results.CreateAliasMutationSchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.createAlias);
  else ctx.io.stdout(renderAlias(data.createAlias));
  return ExitCode.OK;
}

export async function aliasListCommand(ctx: CommandContext) {
  const { data } = await ctx.api.graphql(ROLLOUT_DOCUMENTS.aliases, undefined, Results.AliasesQuerySchema);
  if (ctx.json) writeJson(ctx.io.stdout, data.aliases);
  else if (data.aliases.length === 0)
    ctx.io.stdout('No aliases. Create one: lunanexa alias create <name> --data-class internal\n');
  else
    ctx.io.stdout(
      formatTable(
        ['NAME', 'DATA CLASS', 'REVISION', 'SERVING', 'CANARY'],
        data.aliases.map((a) => [
          a.name,
          a.dataClass,
          String(a.currentRevision),
          a.current?.modelRef ?? '-',
          a.activeRollout ? `${a.activeRollout.currentWeight} % (${a.activeRollout.state})` : '-',
        ]),
      ),
    );
  return ExitCode.OK;
}

export async function aliasGetCommand(ctx: CommandContext, name: string) {
  const { data, requestId } = await ctx.api.graphql(
    ROLLOUT_DOCUMENTS.alias,
    { alias: name },
    Results.AliasQuerySchema,
  );
  if (data.alias === null) {
    throw new CliError({ code: ErrorCode.NOT_FOUND, message: `alias ${name} does not exist` }, requestId);
  }
  if (ctx.json) writeJson(ctx.io.stdout, data.alias);
  else ctx.io.stdout(renderAlias(data.alias));
  return ExitCode.OK;
}

export interface RolloutStartOptions {
  readonly steps?: string;
  readonly window?: string;
  readonly samples?: string;
  readonly bake?: string;
  readonly replicas?: string;
  readonly key?: string;
  readonly wait?: boolean;
  readonly waitTimeout?: string;
}

export function rolloutStartInput(
  alias: string,
  ref: string,
  options: RolloutStartOptions,
): Record<string, unknown> {
  const steps =
    options.steps === undefined
      ? undefined
      : options.steps.split(',').map((step) => parseWholeNumber(step.trim(), '--steps', 1));
  return {
    alias: parseName(alias, 'alias'),
    modelVersion: parseModelVersionRef(ref, 'model version').ref,
    ...(steps === undefined ? {} : { steps }),
    ...(options.window === undefined
      ? {}
      : { analysisWindowSeconds: parseWholeNumber(options.window, '--window', 1) }),
    ...(options.samples === undefined
      ? {}
      : { samplesPerStep: parseWholeNumber(options.samples, '--samples', 1) }),
    ...(options.bake === undefined ? {} : { bakeSeconds: parseWholeNumber(options.bake, '--bake', 0) }),
    ...(options.replicas === undefined
      ? {}
      : { replicas: parseWholeNumber(options.replicas, '--replicas', 1) }),
    ...(options.key === undefined ? {} : { idempotencyKey: parseIdempotencyKey(options.key) }),
  };
}

async function waitForEnd(ctx: CommandContext, id: string, timeoutSeconds: number): Promise<Rollout> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let lastState = '';
  for (;;) {
    const { data, requestId } = await ctx.api.graphql(
      ROLLOUT_DOCUMENTS.rollout,
      { id },
      Results.RolloutQuerySchema,
    );
    const rollout = data.rollout;
    // The rollout was started by this command, so the API answering null for it is a broken answer.
    if (rollout === null) {
      throw new CliError(
        { code: CliErrorCode.BAD_RESPONSE, message: `GraphQL data has an unexpected shape (rollout: null)` },
        requestId,
      );
    }
    const progress = `${rollout.state}, canary ${rollout.currentWeight} %`;
    if (progress !== lastState && !ctx.json) ctx.io.stderr(`rollout ${id}: ${progress}\n`);
    lastState = progress;
    if (FINISHED_STATES.has(rollout.state)) return rollout;
    if (Date.now() >= deadline) {
      throw new CliError({
        code: ErrorCode.DEADLINE_EXCEEDED,
        message: `rollout ${id} still ${progress} after ${timeoutSeconds} s`,
      });
    }
    await sleep(1000);
  }
}

export async function rolloutStartCommand(
  ctx: CommandContext,
  alias: string,
  ref: string,
  options: RolloutStartOptions,
) {
  const input = rolloutStartInput(alias, ref, options);
  const { data } = await ctx.api.graphql(
    ROLLOUT_DOCUMENTS.startRollout,
    { input },
    Results.StartRolloutMutationSchema,
    { timeoutMs: waitingTimeoutMs(ctx, WORKFLOW_REQUEST_TIMEOUT_MS) },
  );
  let rollout = data.startRollout.rollout;
  if (options.wait) {
    const timeout =
      options.waitTimeout === undefined ? 1800 : parseWholeNumber(options.waitTimeout, '--wait-timeout', 1);
    rollout = await waitForEnd(ctx, rollout.id, timeout);
  }
  if (ctx.json) writeJson(ctx.io.stdout, rollout);
  else ctx.io.stdout(renderRollout(rollout));
  return options.wait && rollout.state !== 'Promoted' ? ExitCode.FAILURE : ExitCode.OK;
}

export async function rolloutGetCommand(ctx: CommandContext, id: string) {
  const { data, requestId } = await ctx.api.graphql(
    ROLLOUT_DOCUMENTS.rollout,
    { id },
    Results.RolloutQuerySchema,
  );
  if (data.rollout === null) {
    throw new CliError({ code: ErrorCode.NOT_FOUND, message: `rollout ${id} does not exist` }, requestId);
  }
  if (ctx.json) writeJson(ctx.io.stdout, data.rollout);
  else ctx.io.stdout(renderRollout(data.rollout));
  return ExitCode.OK;
}

export async function rolloutListCommand(ctx: CommandContext, options: { readonly alias?: string }) {
  const { data } = await ctx.api.graphql(
    ROLLOUT_DOCUMENTS.rollouts,
    { alias: options.alias ?? null, limit: 50 },
    Results.RolloutsQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.rollouts);
  else if (data.rollouts.length === 0) ctx.io.stdout('No rollouts.\n');
  else
    ctx.io.stdout(
      formatTable(
        ['ROLLOUT', 'ALIAS', 'MODEL', 'STATE', 'STEP', 'CREATED'],
        data.rollouts.map((r) => [
          r.id,
          r.alias,
          r.modelRef,
          r.refusalCode ? `${r.state} (${r.refusalCode})` : r.state,
          r.currentStep < 0 ? '-' : `${r.currentStep + 1}/${r.steps.length}`,
          r.createdAt,
        ]),
      ),
    );
  return ExitCode.OK;
}

export function parseRolloutAction(action: string): RolloutSignalAction {
  if (!(ROLLOUT_SIGNAL_ACTIONS as readonly string[]).includes(action)) {
    throw usageError(`action must be one of ${ROLLOUT_SIGNAL_ACTIONS.join(', ')}`);
  }
  return action as RolloutSignalAction;
}

export async function rolloutSignalCommand(
  ctx: CommandContext,
  action: RolloutSignalAction,
  id: string,
  options: { readonly reason?: string },
) {
  const { data } = await ctx.api.graphql(
    ROLLOUT_DOCUMENTS.signalRollout,
    { rollout: id, action: action.toUpperCase(), reason: options.reason ?? null },
    Results.SignalRolloutMutationSchema,
    { timeoutMs: waitingTimeoutMs(ctx, WORKFLOW_REQUEST_TIMEOUT_MS) },
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.signalRollout);
  else ctx.io.stdout(renderRollout(data.signalRollout));
  return ExitCode.OK;
}
