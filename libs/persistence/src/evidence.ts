import type { ChainedAuditEvent } from '@lunanexa/audit';
import type { Queryable } from './fleet';

/**
 * The audit reads of an evidence bundle (libs/audit evidence-bundle.ts):
 * which events concern a release, and contiguous runs of the chain around
 * them that a verifier can hash again offline.
 */

/** Evidence keys under which audit events name the things a release is made of. */
export const RELEASE_EVIDENCE_KEYS = [
  'aliasId',
  'alias',
  'modelVersionId',
  'modelVersion',
  'ref',
  'modelRef',
  'licenseId',
  'license',
  'deploymentId',
  'deployment',
  'rolloutId',
  'evaluationRunId',
  'runId',
] as const;

export interface ReleaseAuditSubjects {
  /** Workflows of the release (rollouts, deployments, evaluations): every event they wrote. */
  readonly workflowIds: readonly string[];
  /** Ids, names and refs an event's evidence may name under RELEASE_EVIDENCE_KEYS. */
  readonly values: readonly string[];
}

/** The seqs of the audit events about a release, oldest first, at most `limit` (the newest kept). */
export async function auditSeqsOfRelease(
  q: Queryable,
  subjects: ReleaseAuditSubjects,
  limit: number,
): Promise<number[]> {
  const rows = await q.query<{ seq: string }[]>(
    `SELECT seq FROM (
       SELECT seq FROM audit_events
        WHERE workflow_id = ANY($1::text[])
           OR EXISTS (SELECT 1 FROM jsonb_each_text(
                         CASE WHEN jsonb_typeof(evidence) = 'object' THEN evidence ELSE '{}'::jsonb END)
                         AS e(key, value)
                       WHERE e.key = ANY($2::text[]) AND e.value = ANY($3::text[]))
        ORDER BY seq DESC LIMIT $4) AS newest
     ORDER BY seq`,
    [[...subjects.workflowIds], [...RELEASE_EVIDENCE_KEYS], [...subjects.values], limit],
  );
  return rows.map((row) => Number(row.seq));
}

type Raw = Record<string, unknown>;

function chainedFromRow(row: Raw): ChainedAuditEvent {
  const occurredAt = row['occurred_at'];
  return {
    seq: Number(row['seq']),
    id: row['id'] as string,
    occurredAt: (occurredAt instanceof Date ? occurredAt : new Date(occurredAt as string)).toISOString(),
    actor: row['actor'] as string,
    action: row['action'] as string,
    decision: row['decision'] as ChainedAuditEvent['decision'],
    evidence: row['evidence'] as Record<string, unknown>,
    result: row['result'] as ChainedAuditEvent['result'],
    correlationId: row['correlation_id'] as string,
    workflowId: (row['workflow_id'] as string | null) ?? null,
    prevHash: row['prev_hash'] as string,
    hash: row['hash'] as string,
  };
}

/** The chain from seq `from` to `to`, both included, in order. */
export async function auditEventsBetween(
  q: Queryable,
  from: number,
  to: number,
): Promise<ChainedAuditEvent[]> {
  const rows = await q.query<Raw[]>(
    `SELECT seq, id, occurred_at, actor, action, decision, evidence, result, correlation_id, workflow_id,
            prev_hash, hash
       FROM audit_events WHERE seq BETWEEN $1 AND $2 ORDER BY seq`,
    [from, to],
  );
  return rows.map(chainedFromRow);
}

/** The last event's place in the chain (null when the chain is empty). */
export async function auditChainHead(q: Queryable): Promise<{ seq: number; hash: string } | null> {
  const rows = await q.query<{ seq: string; hash: string }[]>(
    `SELECT seq, hash FROM audit_events ORDER BY seq DESC LIMIT 1`,
  );
  const head = rows[0];
  return head ? { seq: Number(head.seq), hash: head.hash } : null;
}
