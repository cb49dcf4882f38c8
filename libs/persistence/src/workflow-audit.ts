import type { Queryable } from './fleet';

/**
 * What one workflow wrote to the audit log, read back by the API to show a
 * run's receipts or tell how it ended.
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

/** How many audit events the workflow wrote with one of these actions. */
export async function countWorkflowAuditEvents(
  q: Queryable,
  workflowId: string,
  actions: readonly string[],
): Promise<number> {
  const rows = await q.query<{ n: string }[]>(
    `SELECT count(*) AS n FROM audit_events WHERE workflow_id = $1 AND action = ANY($2::text[])`,
    [workflowId, actions],
  );
  return Number(rows[0]?.n ?? 0);
}

/** The evidence of the workflow's first audit event with this action; undefined when it wrote none. */
export async function firstWorkflowAuditEvidence<T>(
  q: Queryable,
  workflowId: string,
  action: string,
): Promise<T | undefined> {
  const rows = await q.query<{ evidence: T }[]>(
    `SELECT evidence FROM audit_events WHERE workflow_id = $1 AND action = $2 ORDER BY seq LIMIT 1`,
    [workflowId, action],
  );
  return rows[0]?.evidence;
}
