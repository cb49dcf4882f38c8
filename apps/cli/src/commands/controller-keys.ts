import type { Command } from 'commander';
import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import type { CommandContext } from '../context';
import type { CommandRegistrars } from './registration';
import { ExitCode, usageError } from '../errors';
import { formatFields, formatTable, writeJson } from '../output';

/**
 * `lunanexa controller-keys …`: the controller's key ring and its rotation
 * (docs/OPERATIONS.md "Rotating the controller key"). `list` is what an
 * operator compares a node's fingerprint with before pinning it.
 */
export const CONTROLLER_KEY_DOCUMENTS = {
  controllerKeyRing: Operations.ControllerKeyRingDocument.document,
  rotateControllerKey: Operations.RotateControllerKeyDocument.document,
} as const;

export async function controllerKeysListCommand(ctx: CommandContext): Promise<ExitCode> {
  const { data } = await ctx.api.graphql(
    CONTROLLER_KEY_DOCUMENTS.controllerKeyRing,
    {},
    Results.ControllerKeyRingQuerySchema,
  );
  const ring = data.controllerKeyRing;
  if (ctx.json) {
    writeJson(ctx.io.stdout, ring);
    return ExitCode.OK;
  }
  ctx.io.stdout(
    formatTable(
      ['STATE', 'SSH FINGERPRINT', 'KEY ID', 'ACCEPTED UNTIL', 'SINCE'],
      ring.keys.map((key) => [
        key.state,
        key.sshFingerprint,
        key.keyId,
        key.acceptUntil ?? '',
        key.stateChangedAt ?? '',
      ]),
    ),
  );
  ctx.io.stdout(
    `phase ${ring.phase}${ring.rotationWorkflowId === null ? '' : `; rotation ${ring.rotationWorkflowId} (${ring.temporalUiUrl ?? ''})`}\n`,
  );
  return ExitCode.OK;
}

function seconds(value: string | undefined, flag: string): number | null {
  if (value === undefined) return null;
  if (!/^[0-9]+$/.test(value)) throw usageError(`${flag} must be a whole number of seconds`);
  return Number(value);
}

export async function controllerKeysRotateCommand(
  ctx: CommandContext,
  options: { reason?: string; announceSeconds?: string; overlapSeconds?: string },
): Promise<ExitCode> {
  if (options.reason === undefined) throw usageError('--reason <text> is required (it is audited)');
  const { data, requestId } = await ctx.api.graphql(
    CONTROLLER_KEY_DOCUMENTS.rotateControllerKey,
    {
      input: {
        reason: options.reason,
        announceSeconds: seconds(options.announceSeconds, '--announce-seconds'),
        overlapSeconds: seconds(options.overlapSeconds, '--overlap-seconds'),
      },
    },
    Results.RotateControllerKeyMutationSchema,
  );
  const rotation = data.rotateControllerKey;
  if (ctx.json) writeJson(ctx.io.stdout, { ...rotation, requestId });
  else
    ctx.io.stdout(
      formatFields([
        ['rotation', rotation.rotationId],
        ['next key', `${rotation.nextKey.sshFingerprint} (${rotation.nextKey.keyId})`],
        ['switches at', rotation.switchAt],
        ['old key retired at', rotation.retireAt],
        ['workflow', `${rotation.workflowId} ${rotation.temporalUiUrl}`],
      ]),
    );
  return ExitCode.OK;
}

export function registerControllerKeyCommands(
  program: Command,
  { group, leaf, run }: CommandRegistrars,
): void {
  const keys = group(
    program,
    'controller-keys',
    "the controller's signing keys: list them (compare a node's fingerprint), rotate (admin)",
  );
  leaf(keys, 'list')
    .description('the key ring: each key with its state and SSH fingerprint, and the rotation in progress')
    .action(run((ctx) => controllerKeysListCommand(ctx)));
  leaf(keys, 'rotate')
    .description(
      'announce a new controller key, switch to it after --announce-seconds, retire the old one after --overlap-seconds (admin); no node is re-enrolled',
    )
    .option('--reason <text>', 'why (audited)')
    .option('--announce-seconds <n>', 'default 86400')
    .option('--overlap-seconds <n>', 'default 604800')
    .action(
      run((ctx, options: { reason?: string; announceSeconds?: string; overlapSeconds?: string }) =>
        controllerKeysRotateCommand(ctx, options),
      ),
    );
}
