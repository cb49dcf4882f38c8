import type { Queryable } from './fleet';

/**
 * What one workflow wrote to the audit log, read back by the API to show a
 * run's receipts. How a run is doing is asked of the workflow itself (its
 * updates and queries), never counted from these rows.
 */

export interface WorkflowAuditEventRow {
  seq: string;
  action: string;
  decision: string;
  result: string;
  evidence: unknown;
  hash: string;
  occurred_at: Date;
  actor: string;
}

/** The workflow's audit events whose action starts with `actionPrefix` (e.g. `rollout.`), oldest first. */
export async function workflowAuditEvents(
  q: Queryable,
  workflowId: string,
  actionPrefix: string,
): Promise<WorkflowAuditEventRow[]> {
  return q.query<WorkflowAuditEventRow[]>(
    `SELECT seq, action, decision, result, evidence, hash, occurred_at, actor FROM audit_events
      WHERE workflow_id = $1 AND starts_with(action, $2) ORDER BY seq`,
    [workflowId, actionPrefix],
  );
}
