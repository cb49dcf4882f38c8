import type { Command } from 'commander';
import {
  ErrorCode,
  GATEWAY_KEY_MAX_ALIASES,
  GATEWAY_KEY_MAX_LIFETIME_DAYS,
  GATEWAY_KEY_NAME_MAX_LENGTH,
  QUOTA_BOUNDS,
  QUOTA_FIELDS,
  TENANT_DISPLAY_NAME_MAX_LENGTH,
  isOpaqueId,
  type QuotaField,
} from '@lunanexa/contracts';
import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { z } from 'zod';
import { collect, parseName, parseWholeNumber } from '../arguments';
import type { CommandContext } from '../context';
import type { CommandRegistrars } from './registration';
import { CliError, ExitCode, usageError } from '../errors';
import { UNKNOWN, formatFields, formatInstant, formatTable, writeJson } from '../output';

/** The CLI's tenancy operations (libs/sdk/graphql/cli/tenancy.graphql, validated against apps/api/schema.gql by `npm run sdk:generate`). */
export const TENANCY_DOCUMENTS = {
  tenants: Operations.TenantsDocument.document,
  tenant: Operations.TenantDocument.document,
  createTenant: Operations.CreateTenantDocument.document,
  updateTenant: Operations.UpdateTenantDocument.document,
  gatewayKeys: Operations.GatewayKeysDocument.document,
  createGatewayKey: Operations.CreateGatewayKeyDocument.document,
  revokeGatewayKey: Operations.RevokeGatewayKeyDocument.document,
} as const;

export type TenantView = z.infer<typeof Results.TenantsQuerySchema>['tenants'][number];
export type GatewayKeyView = z.infer<typeof Results.GatewayKeysQuerySchema>['gatewayKeys'][number];

/** The quota flags, as commander names their options. */
const QUOTA_FLAGS: Readonly<
  Record<QuotaField, { readonly flag: string; readonly option: keyof QuotaOptions }>
> = {
  requestsPerMinute: { flag: '--requests-per-minute', option: 'requestsPerMinute' },
  tokensPerMinute: { flag: '--tokens-per-minute', option: 'tokensPerMinute' },
  maxConcurrentRequests: { flag: '--max-concurrent', option: 'maxConcurrent' },
};

export interface QuotaOptions {
  readonly requestsPerMinute?: string;
  readonly tokensPerMinute?: string;
  readonly maxConcurrent?: string;
}

export interface TenantOptions extends QuotaOptions {
  /** A name, or false from `--no-display-name` (update only): remove it. */
  readonly displayName?: string | false;
}

/** `unlimited` (null) or a whole number within the quota's bounds. */
export function parseQuota(raw: string, field: QuotaField): number | null {
  if (raw === 'unlimited') return null;
  const { min, max } = QUOTA_BOUNDS[field];
  return parseWholeNumber(raw, `${QUOTA_FLAGS[field].flag} (or unlimited)`, min, max);
}

export function parseTenantId(raw: string, what = 'tenant'): string {
  if (!isOpaqueId(raw))
    throw usageError(
      `${what} ${JSON.stringify(raw)} must be an opaque id: 1-128 of letters, digits and . _ : - starting with a letter or digit`,
    );
  return raw;
}

function parseDisplayName(raw: string): string {
  if (raw.length < 1 || raw.length > TENANT_DISPLAY_NAME_MAX_LENGTH || /\p{Cc}/u.test(raw))
    throw usageError(
      `--display-name must be 1-${TENANT_DISPLAY_NAME_MAX_LENGTH} characters without control characters`,
    );
  return raw;
}

/** The quota fields given on the command line; fields not given are left out. */
function quotaInput(options: QuotaOptions): Partial<Record<QuotaField, number | null>> {
  const input: Partial<Record<QuotaField, number | null>> = {};
  for (const field of QUOTA_FIELDS) {
    const raw = options[QUOTA_FLAGS[field].option];
    if (raw !== undefined) input[field] = parseQuota(raw, field);
  }
  return input;
}

/** CreateTenantInput: quotas not given are unlimited. */
export function createTenantInput(id: string, options: TenantOptions): Record<string, unknown> {
  return {
    id: parseTenantId(id),
    ...(typeof options.displayName === 'string'
      ? { displayName: parseDisplayName(options.displayName) }
      : {}),
    ...quotaInput(options),
  };
}

/**
 * UpdateTenantInput: only what was given is sent, so an unmentioned quota
 * keeps its value; `unlimited` sends null. Nothing to change is a usage error.
 */
export function updateTenantInput(id: string, options: TenantOptions): Record<string, unknown> {
  const input: Record<string, unknown> = { id: parseTenantId(id), ...quotaInput(options) };
  if (options.displayName === false) input['displayName'] = null;
  else if (options.displayName !== undefined) input['displayName'] = parseDisplayName(options.displayName);
  if (Object.keys(input).length === 1)
    throw usageError(
      'nothing to change: give --display-name, --no-display-name, --requests-per-minute, --tokens-per-minute or --max-concurrent',
    );
  return input;
}

const DURATION_UNITS: Readonly<Record<string, number>> = { d: 86_400_000, h: 3_600_000, m: 60_000 };

/** `30d`, `12h`, `90m` → the instant that long after `now` (at most the key lifetime limit). */
export function parseExpiresIn(raw: string, now: Date): string {
  const match = /^(\d{1,7})([dhm])$/.exec(raw);
  const amount = match ? Number(match[1]) : 0;
  const ms = amount * (DURATION_UNITS[match?.[2] ?? ''] ?? 0);
  if (!match || ms <= 0 || ms > GATEWAY_KEY_MAX_LIFETIME_DAYS * 86_400_000)
    throw usageError(
      `--expires-in must be a duration such as 30d, 12h or 90m, at most ${GATEWAY_KEY_MAX_LIFETIME_DAYS}d, not ${JSON.stringify(raw)}`,
    );
  return new Date(now.getTime() + ms).toISOString();
}

export interface GatewayKeyCreateOptions {
  readonly tenant?: string;
  readonly name?: string;
  readonly alias?: readonly string[];
  readonly expiresIn?: string;
}

export function createGatewayKeyInput(options: GatewayKeyCreateOptions, now: Date): Record<string, unknown> {
  if (options.tenant === undefined) throw usageError('--tenant <id> is required');
  if (options.name === undefined) throw usageError('--name <text> is required');
  if (
    options.name.length < 1 ||
    options.name.length > GATEWAY_KEY_NAME_MAX_LENGTH ||
    /\p{Cc}/u.test(options.name)
  )
    throw usageError(`--name must be 1-${GATEWAY_KEY_NAME_MAX_LENGTH} characters without control characters`);
  const aliases = (options.alias ?? []).map((alias) => parseName(alias, '--alias'));
  if (aliases.length === 0)
    throw usageError('at least one --alias is required: a key may call only its aliases');
  if (aliases.length > GATEWAY_KEY_MAX_ALIASES)
    throw usageError(`at most ${GATEWAY_KEY_MAX_ALIASES} --alias options`);
  const repeated = aliases.find((alias, i) => aliases.indexOf(alias) !== i);
  if (repeated !== undefined) throw usageError(`--alias ${repeated} is given twice`);
  return {
    tenantId: parseTenantId(options.tenant, '--tenant'),
    name: options.name,
    aliases,
    ...(options.expiresIn === undefined ? {} : { expiresAt: parseExpiresIn(options.expiresIn, now) }),
  };
}

function quotaText(value: number | null): string {
  return value === null ? 'unlimited' : value.toLocaleString('en-US');
}

export function renderTenant(tenant: TenantView, keys: readonly GatewayKeyView[], now: Date): string {
  return (
    formatFields([
      ['tenant', tenant.id],
      ['display name', tenant.displayName ?? UNKNOWN],
      ['requests/min', quotaText(tenant.quota.requestsPerMinute)],
      ['tokens/min', quotaText(tenant.quota.tokensPerMinute)],
      ['max concurrent', quotaText(tenant.quota.maxConcurrentRequests)],
      ['keys', `${tenant.activeKeyCount} active of ${tenant.keyCount}`],
      ['created', `${tenant.createdAt} by ${tenant.createdBy}`],
      ['updated', `${tenant.updatedAt} by ${tenant.updatedBy}`],
    ]) + (keys.length === 0 ? '\nNo gateway keys.\n' : `\nGateway keys:\n${renderKeyList(keys, now)}`)
  );
}

export function renderTenantList(tenants: readonly TenantView[]): string {
  if (tenants.length === 0) return 'No tenants. Create one: lunanexa tenant create <id>\n';
  return formatTable(
    ['TENANT', 'NAME', 'REQUESTS/MIN', 'TOKENS/MIN', 'MAX CONCURRENT', 'KEYS'],
    tenants.map((t) => [
      t.id,
      t.displayName ?? UNKNOWN,
      quotaText(t.quota.requestsPerMinute),
      quotaText(t.quota.tokensPerMinute),
      quotaText(t.quota.maxConcurrentRequests),
      `${t.activeKeyCount}/${t.keyCount}`,
    ]),
  );
}

export function renderKeyList(keys: readonly GatewayKeyView[], now: Date): string {
  if (keys.length === 0) return 'No gateway keys. Create one: lunanexa gateway-key create --tenant <id> …\n';
  return formatTable(
    ['ID', 'PREFIX', 'NAME', 'STATE', 'ALIASES', 'EXPIRES', 'LAST USED', 'CREATED BY'],
    keys.map((key) => [
      key.id,
      key.prefix,
      key.name,
      key.state,
      key.aliases.join(','),
      key.expiresAt === null ? 'never' : formatInstant(key.expiresAt, now),
      key.lastUsedAt === null ? 'never' : formatInstant(key.lastUsedAt, now),
      key.createdBy,
    ]),
  );
}

/** Printed on stderr beside a new key, so a script capturing stdout gets the key alone. */
export const SHOWN_ONCE_WARNING =
  'warning: this gateway key is shown once and will not be shown again: store it now ' +
  '(LunaNexa keeps only its sha256; lose it and you create another).\n';

export async function tenantListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(TENANCY_DOCUMENTS.tenants, undefined, Results.TenantsQuerySchema);
  if (ctx.json) writeJson(ctx.io.stdout, data.tenants);
  else ctx.io.stdout(renderTenantList(data.tenants));
  return ExitCode.OK;
}

export async function tenantShowCommand(ctx: CommandContext, id: string): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    TENANCY_DOCUMENTS.tenant,
    { id: parseTenantId(id) },
    Results.TenantQuerySchema,
  );
  // The API answers NOT_FOUND for the keys of an unknown tenant; null is the same answer, for a script too.
  if (data.tenant === null)
    throw new CliError({ code: ErrorCode.NOT_FOUND, message: `tenant ${id} does not exist` }, requestId);
  if (ctx.json) writeJson(ctx.io.stdout, { ...data.tenant, gatewayKeys: data.gatewayKeys });
  else ctx.io.stdout(renderTenant(data.tenant, data.gatewayKeys, new Date()));
  return ExitCode.OK;
}

export async function tenantCreateCommand(
  ctx: CommandContext,
  id: string,
  options: TenantOptions,
): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    TENANCY_DOCUMENTS.createTenant,
    { input: createTenantInput(id, options) },
    Results.CreateTenantMutationSchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, { ...data.createTenant, requestId });
  else ctx.io.stdout(renderTenant(data.createTenant, [], new Date()));
  return ExitCode.OK;
}

export async function tenantUpdateCommand(
  ctx: CommandContext,
  id: string,
  options: TenantOptions,
): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    TENANCY_DOCUMENTS.updateTenant,
    { input: updateTenantInput(id, options) },
    Results.UpdateTenantMutationSchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, { ...data.updateTenant, requestId });
  else ctx.io.stdout(renderTenant(data.updateTenant, [], new Date()).replace('\nNo gateway keys.\n', ''));
  return ExitCode.OK;
}

export async function gatewayKeyListCommand(
  ctx: CommandContext,
  options: { tenant?: string; includeRevoked?: boolean },
): Promise<ExitCode> {
  if (options.tenant === undefined) throw usageError('--tenant <id> is required');
  const { data } = await ctx.api.graphql(
    TENANCY_DOCUMENTS.gatewayKeys,
    { tenantId: parseTenantId(options.tenant, '--tenant'), includeRevoked: options.includeRevoked === true },
    Results.GatewayKeysQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.gatewayKeys);
  else ctx.io.stdout(renderKeyList(data.gatewayKeys, new Date()));
  return ExitCode.OK;
}

/**
 * The secret goes to stdout alone (`KEY=$(lunanexa gateway-key create …)`),
 * the "shown once" warning and the key's details to stderr. With --json,
 * stdout gets `{secret, key, requestId}` and stderr still the warning.
 */
export async function gatewayKeyCreateCommand(
  ctx: CommandContext,
  options: GatewayKeyCreateOptions,
): Promise<ExitCode> {
  const now = new Date();
  const { data, requestId } = await ctx.api.graphql(
    TENANCY_DOCUMENTS.createGatewayKey,
    { input: createGatewayKeyInput(options, now) },
    Results.CreateGatewayKeyMutationSchema,
  );
  const { secret, key } = data.createGatewayKey;
  ctx.io.stderr(SHOWN_ONCE_WARNING);
  if (ctx.json) {
    writeJson(ctx.io.stdout, { secret, key, requestId });
    return ExitCode.OK;
  }
  ctx.io.stdout(`${secret}\n`);
  ctx.io.stderr(
    formatFields([
      ['id', key.id],
      ['prefix', key.prefix],
      ['tenant', key.tenantId],
      ['name', key.name],
      ['aliases', key.aliases.join(', ')],
      ['expires', key.expiresAt === null ? 'never' : formatInstant(key.expiresAt, now)],
    ]),
  );
  return ExitCode.OK;
}

export async function gatewayKeyRevokeCommand(ctx: CommandContext, id: string): Promise<ExitCode> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
    throw usageError(`gateway key id ${JSON.stringify(id)} must be a UUID (see lunanexa gateway-key list)`);
  const { data, requestId } = await ctx.api.graphql(
    TENANCY_DOCUMENTS.revokeGatewayKey,
    { id },
    Results.RevokeGatewayKeyMutationSchema,
  );
  const key = data.revokeGatewayKey;
  if (ctx.json) writeJson(ctx.io.stdout, { ...key, requestId });
  else
    ctx.io.stdout(
      formatFields([
        ['id', key.id],
        ['prefix', key.prefix],
        ['tenant', key.tenantId],
        ['state', key.state],
        ['revoked', `${key.revokedAt ?? UNKNOWN} by ${key.revokedBy ?? UNKNOWN}`],
      ]),
    );
  return ExitCode.OK;
}

const QUOTA_HELP = {
  requestsPerMinute: `requests per minute, ${QUOTA_BOUNDS.requestsPerMinute.min}-${QUOTA_BOUNDS.requestsPerMinute.max}, or unlimited`,
  tokensPerMinute: `prompt + completion tokens per minute, ${QUOTA_BOUNDS.tokensPerMinute.min}-${QUOTA_BOUNDS.tokensPerMinute.max}, or unlimited`,
  maxConcurrent: `requests in flight at once, ${QUOTA_BOUNDS.maxConcurrentRequests.min}-${QUOTA_BOUNDS.maxConcurrentRequests.max}, or unlimited`,
};

function withQuotaOptions(command: Command, when: string): Command {
  return command
    .option('--requests-per-minute <n|unlimited>', `${QUOTA_HELP.requestsPerMinute}${when}`)
    .option('--tokens-per-minute <n|unlimited>', `${QUOTA_HELP.tokensPerMinute}${when}`)
    .option('--max-concurrent <n|unlimited>', `${QUOTA_HELP.maxConcurrent}${when}`);
}

export function registerTenancyCommands(program: Command, { group, leaf, run }: CommandRegistrars): void {
  const tenant = group(
    program,
    'tenant',
    'tenants: who calls the gateway, and their quotas (changes: admin)',
  );
  leaf(tenant, 'list')
    .description('list tenants with their quotas and key counts (active/total)')
    .action(run((ctx) => tenantListCommand(ctx)));
  leaf(tenant, 'show <id>')
    .description("show a tenant's quotas and every gateway key it was issued (never a secret)")
    .action(run((ctx, id: string) => tenantShowCommand(ctx, id)));
  withQuotaOptions(
    leaf(tenant, 'create <id>')
      .description('create a tenant (admin); the id is what requests carry, an opaque id')
      .option('--display-name <text>', 'a name for people'),
    ' (default unlimited)',
  ).action(run((ctx, id: string, options: TenantOptions) => tenantCreateCommand(ctx, id, options)));
  withQuotaOptions(
    leaf(tenant, 'update <id>')
      .description("change a tenant's display name or quotas (admin); what you leave out stays as it is")
      .option('--display-name <text>', 'a name for people')
      .option('--no-display-name', 'remove the display name'),
    '',
  ).action(run((ctx, id: string, options: TenantOptions) => tenantUpdateCommand(ctx, id, options)));

  const key = group(
    program,
    'gateway-key',
    "tenants' gateway keys: the bearer credential of /v1 calls (changes: admin)",
  );
  leaf(key, 'list')
    .description("list a tenant's gateway keys, newest first (never the secret)")
    .option('--tenant <id>', 'the tenant (required)')
    .option('--include-revoked', 'also list revoked keys')
    .action(
      run((ctx, options: { tenant?: string; includeRevoked?: boolean }) =>
        gatewayKeyListCommand(ctx, options),
      ),
    );
  leaf(key, 'create')
    .description(
      'issue a gateway key (admin); prints the key ONCE on stdout, with a warning and its details on stderr',
    )
    .option('--tenant <id>', 'the tenant it belongs to (required)')
    .option('--name <text>', 'what it is for (required)')
    .option('--alias <name>', 'an alias the key may call (repeatable, at least one)', collect)
    .option(
      '--expires-in <duration>',
      `e.g. 30d, 12h or 90m; at most ${GATEWAY_KEY_MAX_LIFETIME_DAYS}d (default: never)`,
    )
    .addHelpText(
      'after',
      '\nExample:\n  lunanexa gateway-key create --tenant acme --name app --alias chat --alias summarize --expires-in 30d\n',
    )
    .action(run((ctx, options: GatewayKeyCreateOptions) => gatewayKeyCreateCommand(ctx, options)));
  leaf(key, 'revoke <id>')
    .description('revoke a gateway key (admin); gateways refuse it at once. Revoking twice changes nothing')
    .action(run((ctx, id: string) => gatewayKeyRevokeCommand(ctx, id)));
}
