import { readFileSync } from 'node:fs';
import { GraphqlOperations as Operations } from '@lunanexa/sdk';
import * as Results from '@lunanexa/sdk/graphql-result-schemas';
import { z } from 'zod';
import { parseControlPlaneDigestFile, type RecordedControlPlaneDigest } from '@lunanexa/contracts';
import type { CommandContext } from '../context';
import { ExitCode, usageError } from '../errors';
import { formatTable, writeJson } from '../output';

/** libs/sdk/graphql/cli/digest.graphql, validated against apps/api/schema.gql by `npm run sdk:generate` */
export const DIGEST_DOCUMENTS = {
  digest: Operations.ControlPlaneDigestDocument.document,
  auditEvent: Operations.AuditEventHashDocument.document,
} as const;

export type ControlPlaneDigestView = z.infer<
  typeof Results.ControlPlaneDigestQuerySchema
>['controlPlaneDigest'];

export type RecordedDigest = RecordedControlPlaneDigest;

/** Parses a `.digest` file; anything else is a usage error naming the file. */
export function parseRecordedDigest(text: string, path: string): RecordedDigest {
  try {
    return parseControlPlaneDigestFile(text);
  } catch (error) {
    throw usageError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The live digest in the lines backup.sh writes, so the two can be diffed by eye or by `diff`. */
export function renderDigest(digest: ControlPlaneDigestView): string {
  return (
    `registry=${digest.registry}\n` +
    `desired_state=${digest.desiredState}\n` +
    `audit_events=${digest.auditChain.events}\n` +
    `audit_head_hash=${digest.auditChain.headHash ?? ''}\n` +
    `audit_chain_valid=${digest.auditChain.valid}\n`
  );
}

export interface DigestCheck {
  readonly check: 'registry' | 'desired state' | 'audit chain';
  readonly same: boolean;
  readonly detail: string;
}

/**
 * Compares the running controller with a backup's digest: the registry and
 * the desired state must be the same; the audit chain must verify and hold
 * the backup's events (its event at the backup's length has the backup's
 * head hash), with any number appended since.
 */
export function compareDigests(
  recorded: RecordedDigest,
  live: ControlPlaneDigestView,
  liveHashAtBackupLength: string | null,
): DigestCheck[] {
  const short = (hash: string | null) => (hash === null ? 'none' : hash.slice(0, 12));
  const same = (check: 'registry' | 'desired state', backup: string, now: string): DigestCheck => ({
    check,
    same: backup === now,
    detail: backup === now ? short(now) : `backup ${short(backup)}, now ${short(now)}`,
  });
  const appended = live.auditChain.events - recorded.auditEvents;
  const audit: DigestCheck = !live.auditChain.valid
    ? { check: 'audit chain', same: false, detail: 'does not verify (see auditChainStatus)' }
    : appended < 0
      ? {
          check: 'audit chain',
          same: false,
          detail: `${live.auditChain.events} events, fewer than the backup's ${recorded.auditEvents}`,
        }
      : recorded.auditEvents > 0 && liveHashAtBackupLength !== recorded.auditHeadHash
        ? {
            check: 'audit chain',
            same: false,
            detail: `event ${recorded.auditEvents} is ${short(liveHashAtBackupLength)}, the backup's head ${short(recorded.auditHeadHash)}`,
          }
        : {
            check: 'audit chain',
            same: true,
            detail: `holds the backup's ${recorded.auditEvents} events, ${appended} appended since`,
          };
  return [
    same('registry', recorded.registry, live.registry),
    same('desired state', recorded.desiredState, live.desiredState),
    audit,
  ];
}

export interface DigestOptions {
  readonly compare?: string;
}

/**
 * `digest`: hashes of the registry, the desired state and the audit chain,
 * computed as backup.sh records them beside each dump. With `--compare
 * <dump>.digest`, checks the running controller against that backup — after a
 * restore, before Reconcile writes — and exits 1 when anything differs.
 * Without it, exits 1 when the audit chain does not verify.
 */
export async function digestCommand(ctx: CommandContext, options: DigestOptions): Promise<ExitCode> {
  let recorded: RecordedDigest | undefined;
  if (options.compare !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.compare, 'utf8');
    } catch (error) {
      throw usageError(
        `cannot read ${options.compare}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    recorded = parseRecordedDigest(text, options.compare);
  }
  const { data } = await ctx.api.graphql(DIGEST_DOCUMENTS.digest, {}, Results.ControlPlaneDigestQuerySchema);
  const live = data.controlPlaneDigest;
  if (recorded === undefined) {
    if (ctx.json) writeJson(ctx.io.stdout, live);
    else ctx.io.stdout(renderDigest(live));
    return live.auditChain.valid ? ExitCode.OK : ExitCode.FAILURE;
  }
  let hashAtBackupLength: string | null = null;
  if (recorded.auditEvents > 0 && live.auditChain.events >= recorded.auditEvents) {
    const event = await ctx.api.graphql(
      DIGEST_DOCUMENTS.auditEvent,
      { seq: recorded.auditEvents },
      Results.AuditEventHashQuerySchema,
    );
    hashAtBackupLength = event.data.auditEvent?.hash ?? null;
  }
  const checks = compareDigests(recorded, live, hashAtBackupLength);
  const allSame = checks.every((check) => check.same);
  if (ctx.json) writeJson(ctx.io.stdout, { same: allSame, checks, live });
  else
    ctx.io.stdout(
      formatTable(
        ['CHECK', 'RESULT', 'DETAIL'],
        checks.map((check) => [check.check, check.same ? 'same' : 'DIFFERS', check.detail]),
      ) +
        (allSame
          ? 'the controller holds what the backup did\n'
          : 'the controller does not hold what the backup did\n'),
    );
  return allSame ? ExitCode.OK : ExitCode.FAILURE;
}
