import { DATA_CLASSES, MAX_RETENTION_DAYS } from '@lunanexa/contracts';
import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { z } from 'zod';
import { parseWholeNumber } from '../arguments';
import type { CommandContext } from '../context';
import { ExitCode, usageError } from '../errors';
import { formatFields, formatTable, writeJson } from '../output';

/** The CLI's data policy operations (libs/sdk/graphql/cli/data-policy.graphql, validated against apps/api/schema.gql by `npm run sdk:generate`). */
export const DATA_POLICY_DOCUMENTS = {
  dataPolicies: Operations.DataPoliciesDocument.document,
  dataPolicy: Operations.DataPolicyDocument.document,
  setDataPolicy: Operations.SetDataPolicyDocument.document,
} as const;

export type DataPolicyView = z.infer<typeof Results.SetDataPolicyMutationSchema>['setDataPolicy'];

export interface DataPolicySetOptions {
  readonly dataClass?: string;
  /** `none`, `<N>` or `<N>d`. */
  readonly retention?: string;
  /** commander's `--evaluation-capture` / `--no-evaluation-capture`. */
  readonly evaluationCapture?: boolean;
}

/** `none` or a number of days (`30`, `30d`). */
export function parseRetention(raw: string): {
  retentionMode: 'none' | 'days';
  retentionDays: number | null;
} {
  if (raw === 'none') return { retentionMode: 'none', retentionDays: null };
  const days = raw.endsWith('d') ? raw.slice(0, -1) : raw;
  return {
    retentionMode: 'days',
    retentionDays: parseWholeNumber(days, '--retention (days, or none)', 1, MAX_RETENTION_DAYS),
  };
}

/**
 * `set` replaces the whole policy, so an option left out takes the
 * default's value (data class internal, retention none, no consent) — the
 * same rule as the API, and no silent carry-over of a consent flag.
 */
export function dataPolicyInput(tenantId: string, options: DataPolicySetOptions): Record<string, unknown> {
  const dataClass = options.dataClass ?? 'internal';
  if (!(DATA_CLASSES as readonly string[]).includes(dataClass))
    throw usageError(
      `--data-class must be one of ${DATA_CLASSES.join(', ')}, not ${JSON.stringify(dataClass)}`,
    );
  return {
    tenantId,
    dataClass,
    ...parseRetention(options.retention ?? 'none'),
    evaluationCaptureConsent: options.evaluationCapture ?? false,
  };
}

function retentionText(policy: DataPolicyView): string {
  return policy.retentionMode === 'days' ? `${policy.retentionDays ?? '?'} days` : 'none';
}

export function renderDataPolicy(policy: DataPolicyView): string {
  return formatFields([
    ['tenant', policy.tenantId],
    ['data class', policy.dataClass],
    ['retention', retentionText(policy)],
    ['evaluation capture', policy.evaluationCaptureConsent ? 'consented' : 'off'],
    ['configured', policy.configured ? 'yes' : 'no (the default applies)'],
    ['updated by', policy.updatedBy],
    ['updated at', policy.updatedAt],
  ]);
}

export function renderDataPolicyList(policies: readonly DataPolicyView[]): string {
  if (policies.length === 0)
    return 'No tenant data policies: every tenant gets the default (internal, retention none, no capture).\n';
  return formatTable(
    ['TENANT', 'DATA CLASS', 'RETENTION', 'EVAL CAPTURE', 'UPDATED BY', 'UPDATED AT'],
    policies.map((p) => [
      p.tenantId,
      p.dataClass,
      retentionText(p),
      p.evaluationCaptureConsent ? 'consented' : 'off',
      p.updatedBy,
      p.updatedAt,
    ]),
  );
}

export async function dataPolicyGetCommand(ctx: CommandContext, tenantId: string): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(
    DATA_POLICY_DOCUMENTS.dataPolicy,
    { tenantId },
    Results.DataPolicyQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.dataPolicy);
  else ctx.io.stdout(renderDataPolicy(data.dataPolicy));
  return ExitCode.OK;
}

export async function dataPolicySetCommand(
  ctx: CommandContext,
  tenantId: string,
  options: DataPolicySetOptions,
): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    DATA_POLICY_DOCUMENTS.setDataPolicy,
    { input: dataPolicyInput(tenantId, options) },
    Results.SetDataPolicyMutationSchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, { ...data.setDataPolicy, requestId });
  else ctx.io.stdout(renderDataPolicy(data.setDataPolicy));
  return ExitCode.OK;
}

export async function dataPolicyListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(
    DATA_POLICY_DOCUMENTS.dataPolicies,
    undefined,
    Results.DataPoliciesQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.dataPolicies);
  else ctx.io.stdout(renderDataPolicyList(data.dataPolicies));
  return ExitCode.OK;
}
