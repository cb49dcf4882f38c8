import { randomUUID } from 'node:crypto';
import { PING_MESSAGE_MAX_LENGTH } from '@lunanexa/contracts';
import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { parseIdempotencyKey } from '../arguments';
import type { CommandContext } from '../context';
import { ExitCode, usageError } from '../errors';
import { formatFields, writeJson } from '../output';

/** libs/sdk/graphql/cli/status.graphql */
export const PING_MUTATION = Operations.PingDocument.document;

export interface PingOptions {
  readonly key?: string;
  readonly message?: string;
}

/**
 * Checked here as well as by the API so a typo costs no round trip and exits
 * 64 (usage) rather than 65 (the API rejected the data).
 */
export function pingInput(
  options: PingOptions,
  newKey: () => string = () => `cli-${randomUUID()}`,
): { idempotencyKey: string; message?: string } {
  const idempotencyKey = parseIdempotencyKey(options.key ?? newKey());
  if (options.message === undefined) return { idempotencyKey };
  if (options.message.length < 1 || options.message.length > PING_MESSAGE_MAX_LENGTH) {
    throw usageError(`--message must be 1-${PING_MESSAGE_MAX_LENGTH} characters`);
  }
  return { idempotencyKey, message: options.message };
}

/**
 * `lunanexa ping`: runs the ping system check. Re-running with the same --key
 * returns the same workflow run, so the key is printed for retries.
 */
export async function pingCommand(ctx: CommandContext, options: PingOptions): Promise<ExitCode> {
  const input = pingInput(options);
  const { data, requestId } = await ctx.api.graphql(PING_MUTATION, { input }, Results.PingMutationSchema);
  const result = { idempotencyKey: input.idempotencyKey, requestId, ...data.ping };
  if (ctx.json) {
    writeJson(ctx.io.stdout, result);
    return ExitCode.OK;
  }
  ctx.io.stdout(
    formatFields([
      ['workflow', result.workflowId],
      ['run', result.runId],
      ['temporal ui', result.temporalUiUrl],
      ['message', result.message],
      ['ping id', result.pingId],
      ['receipt', result.receiptHash],
      ['idempotency key', result.idempotencyKey],
      ['correlation id', result.correlationId],
      ['request id', result.requestId],
    ]),
  );
  return ExitCode.OK;
}
