import {
  chainMaterialParts,
  verifyChain,
  type AuditEventDraft,
  type ChainedAuditEvent,
  type ChainVerification,
} from '@lunanexa/audit';
import type { EntityManager } from 'typeorm';
import type { Queryable } from './fleet';
import { AuditEventEntity } from './entities/audit-event.entity';

/** An audit_events row as the chain functions (libs/audit) take it. */
export function toChained(row: AuditEventEntity): ChainedAuditEvent {
  return {
    seq: row.seq,
    id: row.id,
    occurredAt: row.occurredAt.toISOString(),
    actor: row.actor,
    action: row.action,
    decision: row.decision as ChainedAuditEvent['decision'],
    evidence: row.evidence,
    result: row.result as ChainedAuditEvent['result'],
    correlationId: row.correlationId,
    workflowId: row.workflowId,
    prevHash: row.prevHash,
    hash: row.hash,
  };
}

/** An event appended in a transaction that has not committed yet: its place in the chain is decided at commit. */
export interface PendingAuditEvent {
  readonly id: string;
}

/**
 * Appends one event inside the caller's transaction. The event is linked into
 * the chain when the transaction commits, by PostgreSQL itself (the deferred
 * trigger of audit_pending, migration AuditChainAtCommit): the chain lock is
 * held only while COMMIT runs, never across the caller's round trips. A
 * rolled-back change takes its event with it; a committed one is chained
 * before COMMIT returns, so `chainedAuditEvent` finds it right after.
 */
export async function appendAuditEvent(
  manager: EntityManager,
  draft: AuditEventDraft,
): Promise<PendingAuditEvent> {
  if (!manager.queryRunner?.isTransactionActive) {
    throw new Error('appendAuditEvent must run inside a transaction');
  }
  const parts = chainMaterialParts(draft);
  await manager.query(
    `INSERT INTO audit_pending
       (id, occurred_at, actor, action, decision, evidence, result, correlation_id, workflow_id,
        hash_head, hash_middle, hash_tail, notice)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11, $12, $13::jsonb)`,
    [
      draft.id,
      draft.occurredAt,
      draft.actor,
      draft.action,
      draft.decision,
      JSON.stringify(draft.evidence),
      draft.result,
      draft.correlationId,
      draft.workflowId,
      parts.head,
      parts.middle,
      parts.tail,
      // Delivered by the trigger with the seq it assigns, only when the transaction commits.
      JSON.stringify(auditNotice(draft)),
    ],
  );
  return { id: draft.id };
}

/** Where committed events sit in the chain, by event id (an id not committed is absent). */
export async function chainedAuditEvents(
  q: { query: (sql: string, params: unknown[]) => Promise<unknown> },
  ids: readonly string[],
): Promise<Map<string, { seq: number; hash: string }>> {
  if (ids.length === 0) return new Map();
  const rows = (await q.query(`SELECT id, seq, hash FROM audit_events WHERE id = ANY($1::uuid[])`, [
    ids,
  ])) as { id: string; seq: string; hash: string }[];
  return new Map(rows.map((row) => [row.id, { seq: Number(row.seq), hash: row.hash }]));
}

/** The chain position of one committed event; throws when it is not in the chain. */
export async function chainedAuditEvent(
  q: { query: (sql: string, params: unknown[]) => Promise<unknown> },
  event: PendingAuditEvent,
): Promise<{ seq: number; hash: string }> {
  const found = (await chainedAuditEvents(q, [event.id])).get(event.id);
  if (!found) throw new Error(`audit event ${event.id} is not in the chain: its transaction did not commit`);
  return found;
}

/** The PostgreSQL NOTIFY channel the API's live subscriptions listen on. */
export const LIVE_EVENTS_CHANNEL = 'lunanexa_events';

/** What a live subscriber learns about a new audit event: enough to refresh a view, never the evidence. */
export interface AuditNotice {
  readonly kind: 'audit';
  readonly seq: number;
  readonly action: string;
  readonly actor: string;
  readonly decision: string;
  readonly result: string;
  readonly correlationId: string;
  readonly workflowId: string | null;
  readonly occurredAt: string;
  /** The node or deployment the event is about, when its evidence names one. */
  readonly subject: string | null;
}

/** A node's observed state changed (an accepted heartbeat). */
export interface NodeNotice {
  readonly kind: 'node';
  readonly nodeId: string;
  readonly occurredAt: string;
}

/**
 * Several nodes' heartbeats, announced together: what goes over NOTIFY. A
 * transaction that NOTIFYs takes PostgreSQL's cluster-wide notify lock for
 * its commit (WAL flush included), so one NOTIFY per heartbeat serialised
 * every heartbeat commit at fleet scale; listeners fan it out as NodeNotices.
 */
export interface NodesNotice {
  readonly kind: 'nodes';
  readonly nodeIds: readonly string[];
  readonly occurredAt: string;
}

export type LiveNotice = AuditNotice | NodeNotice;

/** What a NOTIFY on LIVE_EVENTS_CHANNEL carries. */
export type LiveNoticePayload = AuditNotice | NodesNotice;

/** NOTIFY payloads must stay under 8,000 bytes. */
const NOTIFY_PAYLOAD_BUDGET = 7_000;

/** The notice without its seq, which the chain assigns at commit. */
function auditNotice(event: AuditEventDraft): Omit<AuditNotice, 'seq'> {
  const evidence = event.evidence as Record<string, unknown>;
  const subject = [evidence['nodeId'], evidence['deploymentId']].find((value) => typeof value === 'string');
  return {
    kind: 'audit',
    action: event.action,
    actor: event.actor,
    decision: event.decision,
    result: event.result,
    correlationId: event.correlationId,
    workflowId: event.workflowId,
    occurredAt: event.occurredAt,
    subject: typeof subject === 'string' ? subject : null,
  };
}

/**
 * Announces nodes whose heartbeats committed, in as few NOTIFYs as the
 * payload limit allows (run on its own, after the heartbeats' commits).
 */
export async function notifyNodesChanged(
  q: { query: (sql: string, params: unknown[]) => Promise<unknown> },
  nodeIds: readonly string[],
  at: Date,
): Promise<void> {
  const occurredAt = at.toISOString();
  let batch: string[] = [];
  let size = 0;
  const send = async () => {
    if (batch.length === 0) return;
    const notice: NodesNotice = { kind: 'nodes', nodeIds: batch, occurredAt };
    await q.query(`SELECT pg_notify($1, $2)`, [LIVE_EVENTS_CHANNEL, JSON.stringify(notice)]);
    batch = [];
    size = 0;
  };
  for (const id of nodeIds) {
    if (size + id.length + 3 > NOTIFY_PAYLOAD_BUDGET) await send();
    batch.push(id);
    size += id.length + 3;
  }
  await send();
}

export async function readAuditEvents(
  manager: EntityManager,
  options: { afterSeq?: number; limit?: number } = {},
): Promise<ChainedAuditEvent[]> {
  const rows = await manager
    .getRepository(AuditEventEntity)
    .createQueryBuilder('e')
    .where('e.seq > :after', { after: options.afterSeq ?? 0 })
    .orderBy('e.seq', 'ASC')
    .limit(options.limit ?? 1000)
    .getMany();
  return rows.map(toChained);
}

/** Walks the whole chain in pages; returns the first break, if any. */
export async function verifyAuditChain(manager: EntityManager, pageSize = 1000): Promise<ChainVerification> {
  let anchor: ChainedAuditEvent | null = null;
  let checked = 0;
  for (;;) {
    const page = await readAuditEvents(manager, { afterSeq: anchor?.seq ?? 0, limit: pageSize });
    if (page.length === 0) return { valid: true, checked };
    const result = verifyChain(page, anchor);
    if (!result.valid) return { ...result, checked: checked + result.checked };
    checked += result.checked;
    anchor = page[page.length - 1] ?? null;
  }
}

/** A workflow's receipt for one step, as an activity that may be running again looks for it. */
export interface WorkflowReceipt {
  readonly id: string;
  readonly seq: number;
  readonly hash: string;
  readonly evidence: Record<string, unknown>;
}

/**
 * The first receipt a workflow wrote for `action` (and `step`, when given):
 * an activity whose transaction committed but whose completion was lost runs
 * again and must find it instead of chaining a second one.
 */
export async function firstWorkflowReceipt(
  q: Queryable,
  workflowId: string,
  action: string,
  step?: string,
): Promise<WorkflowReceipt | null> {
  const rows = await q.query<{ id: string; seq: string; hash: string; evidence: Record<string, unknown> }[]>(
    `SELECT id, seq, hash, evidence FROM audit_events
      WHERE workflow_id = $1 AND action = $2 AND ($3::text IS NULL OR evidence->>'step' = $3)
      ORDER BY seq LIMIT 1`,
    [workflowId, action, step ?? null],
  );
  const first = rows[0];
  return first ? { id: first.id, seq: Number(first.seq), hash: first.hash, evidence: first.evidence } : null;
}

/**
 * Holds `key` until the transaction ends, so a retried step that overlaps a
 * slow first attempt waits for it and then finds its receipt.
 */
export async function lockWorkflowStep(q: Queryable, key: string): Promise<void> {
  await q.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [key]);
}
