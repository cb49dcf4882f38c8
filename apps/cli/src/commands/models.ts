import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { parseModelVersionRef, parseWholeNumber } from '../arguments';
import type { CommandContext } from '../context';
import { ExitCode } from '../errors';
import { FLEET_DOCUMENTS } from '../fleet-api';
import { formatFields, writeJson } from '../output';

export interface ModelRegisterOptions {
  readonly ttftMs?: string;
  readonly tokensPerSecond?: string;
}

/** The only runtime this release registers: the deterministic fake. */
export const MODEL_RUNTIME = 'fake';

/** Upper bounds stay with the API (exit 65 with its message), so the two cannot drift apart. */
export function modelRegisterInput(
  raw: string,
  options: ModelRegisterOptions,
): { model: string; version: string; runtime: string; ttftMs?: number; tokensPerSecond?: number } {
  const { model, version } = parseModelVersionRef(raw);
  return {
    model,
    version,
    runtime: MODEL_RUNTIME,
    ...(options.ttftMs === undefined ? {} : { ttftMs: parseWholeNumber(options.ttftMs, '--ttft-ms', 1) }),
    ...(options.tokensPerSecond === undefined
      ? {}
      : { tokensPerSecond: parseWholeNumber(options.tokensPerSecond, '--tokens-per-second', 1) }),
  };
}

export async function modelRegisterCommand(
  ctx: CommandContext,
  ref: string,
  options: ModelRegisterOptions,
): Promise<ExitCode> {
  const input = modelRegisterInput(ref, options);
  const { data, requestId } = await ctx.api.graphql(
    FLEET_DOCUMENTS.registerModelVersion,
    { input },
    Results.RegisterModelVersionMutationSchema,
  );
  const version = data.registerModelVersion;
  if (ctx.json) {
    writeJson(ctx.io.stdout, { ...version, requestId });
    return ExitCode.OK;
  }
  ctx.io.stdout(
    formatFields([
      ['registered', version.ref],
      ['id', version.id],
      ['runtime', version.runtimeKind],
      ['digest', version.artifactDigest],
      ['created by', version.createdBy],
    ]),
  );
  return ExitCode.OK;
}
