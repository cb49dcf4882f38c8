import {
  DEFAULT_BOOTSTRAP_TOKEN_TTL_SECONDS,
  MAX_BOOTSTRAP_TOKEN_TTL_SECONDS,
  MIN_BOOTSTRAP_TOKEN_TTL_SECONDS,
} from '@lunanexa/contracts';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { parseLabels, parseName, parseWholeNumber } from '../arguments';
import type { CommandContext } from '../context';
import { ExitCode } from '../errors';
import { FLEET_DOCUMENTS, type BootstrapToken, type CreatedBootstrapToken } from '../fleet-api';
import { UNKNOWN, formatFields, formatInstant, formatTable, writeJson, yesNo } from '../output';
import { formatLabels } from './nodes';

export interface TokenCreateOptions {
  readonly nodeName?: string;
  readonly label?: readonly string[];
  /** Seconds, as typed. */
  readonly ttl?: string;
  readonly autoApprove?: boolean;
}

export function tokenCreateInput(options: TokenCreateOptions): {
  autoApprove: boolean;
  ttlSeconds: number;
  labels: { key: string; value: string }[];
  nodeName?: string;
} {
  return {
    autoApprove: options.autoApprove === true,
    ttlSeconds:
      options.ttl === undefined
        ? DEFAULT_BOOTSTRAP_TOKEN_TTL_SECONDS
        : parseWholeNumber(
            options.ttl,
            '--ttl',
            MIN_BOOTSTRAP_TOKEN_TTL_SECONDS,
            MAX_BOOTSTRAP_TOKEN_TTL_SECONDS,
          ),
    labels: parseLabels(options.label ?? [], '--label'),
    ...(options.nodeName === undefined ? {} : { nodeName: parseName(options.nodeName, '--node-name') }),
  };
}

/** Where a token stands, in the order an operator asks: can it still enroll a node? */
export function tokenState(token: BootstrapToken, now: Date): string {
  if (token.revokedAt !== null) return 'revoked';
  if (token.usedAt !== null) return token.usedByNodeId === null ? 'used' : `used by ${token.usedByNodeId}`;
  if (Date.parse(token.expiresAt) <= now.getTime()) return 'expired';
  return 'usable';
}

/**
 * The secret comes first and is labelled as shown once: the API keeps only
 * its hash, so an operator who scrolls past it has to create another.
 */
export function renderCreatedToken(created: CreatedBootstrapToken, now: Date = new Date()): string {
  const token = created.bootstrapToken;
  return (
    'Bootstrap token (shown once, store it now; it enrolls one node):\n' +
    `  ${created.token}\n\n` +
    formatFields([
      ['id', token.id],
      ['prefix', token.prefix],
      ['expires', formatInstant(token.expiresAt, now)],
      ['node name', token.nodeName ?? '(any)'],
      ['labels', formatLabels(token.labels)],
      ['auto-approve', yesNo(token.autoApprove)],
      ['controller url', created.controllerUrl],
      ['controller key', created.controllerKeyFingerprint],
    ]) +
    '\nOn the node, run:\n' +
    `  ${created.agentInvocation}\n`
  );
}

export function renderTokenList(tokens: readonly BootstrapToken[], now: Date = new Date()): string {
  if (tokens.length === 0) return 'No bootstrap tokens. Create one: lunanexa node token create\n';
  return formatTable(
    ['ID', 'PREFIX', 'STATE', 'EXPIRES', 'NODE NAME', 'AUTO-APPROVE', 'LABELS', 'CREATED BY'],
    tokens.map((token) => [
      token.id,
      token.prefix,
      tokenState(token, now),
      token.expiresAt,
      token.nodeName ?? UNKNOWN,
      yesNo(token.autoApprove),
      formatLabels(token.labels),
      token.createdBy,
    ]),
  );
}

export async function tokenCreateCommand(
  ctx: CommandContext,
  options: TokenCreateOptions,
): Promise<ExitCode> {
  const input = tokenCreateInput(options);
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.createBootstrapToken,
    { input },
    Results.CreateBootstrapTokenMutationSchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, { ...data.createBootstrapToken, requestId });
  else ctx.io.stdout(renderCreatedToken(data.createBootstrapToken));
  return ExitCode.OK;
}

export async function tokenListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(
    FLEET_DOCUMENTS.bootstrapTokens,
    undefined,
    Results.BootstrapTokensQuerySchema,
  );
  if (ctx.json) writeJson(ctx.io.stdout, data.bootstrapTokens);
  else ctx.io.stdout(renderTokenList(data.bootstrapTokens));
  return ExitCode.OK;
}

export async function tokenRevokeCommand(ctx: CommandContext, id: string): Promise<ExitCode> {
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.revokeBootstrapToken,
    { id },
    Results.RevokeBootstrapTokenMutationSchema,
  );
  const token = data.revokeBootstrapToken;
  if (ctx.json) writeJson(ctx.io.stdout, { ...token, requestId });
  else
    ctx.io.stdout(
      `bootstrap token ${token.prefix}… (${token.id}) revoked at ${token.revokedAt ?? UNKNOWN}\n`,
    );
  return ExitCode.OK;
}
