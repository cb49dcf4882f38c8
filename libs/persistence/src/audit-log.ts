import {
  chainEvent,
  verifyChain,
  type AuditEventDraft,
  type ChainedAuditEvent,
  type ChainVerification,
} from '@lunanexa/audit';
import type { EntityManager } from 'typeorm';
import { AuditEventEntity } from './entities/audit-event.entity';

/** Any constant works; it only has to be the same for every appender. */
const AUDIT_CHAIN_LOCK_KEY = 0x4c4e5841; // "LNXA"

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

/**
 * Appends one event to the chain inside the caller's transaction. The
 * transaction-scoped advisory lock serialises appenders across every process,
 * so the chain stays linear; the lock is released at commit or rollback, and a
 * rolled-back business change takes its audit event with it.
 */
export async function appendAuditEvent(
  manager: EntityManager,
  draft: AuditEventDraft,
): Promise<ChainedAuditEvent> {
  if (!manager.queryRunner?.isTransactionActive) {
    throw new Error('appendAuditEvent must run inside a transaction');
  }
  await manager.query('SELECT pg_advisory_xact_lock($1)', [AUDIT_CHAIN_LOCK_KEY]);
  const last = await manager.getRepository(AuditEventEntity).find({ order: { seq: 'DESC' }, take: 1 });
  const previous = last[0] ? { seq: last[0].seq, hash: last[0].hash } : null;
  const event = chainEvent(previous, draft);
  await manager.query(
    `INSERT INTO audit_events
       (seq, id, occurred_at, actor, action, decision, evidence, result, correlation_id, workflow_id, prev_hash, hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $11, $12)`,
    [
      event.seq,
      event.id,
      event.occurredAt,
      event.actor,
      event.action,
      event.decision,
      JSON.stringify(event.evidence),
      event.result,
      event.correlationId,
      event.workflowId,
      event.prevHash,
      event.hash,
    ],
  );
  // Delivered to listeners only when the transaction commits: a rolled-back change announces nothing.
  await manager.query(`SELECT pg_notify($1, $2)`, [LIVE_EVENTS_CHANNEL, JSON.stringify(auditNotice(event))]);
  return event;
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

export type LiveNotice = AuditNotice | NodeNotice;

function auditNotice(event: ChainedAuditEvent): AuditNotice {
  const evidence = event.evidence as Record<string, unknown>;
  const subject = [evidence['nodeId'], evidence['deploymentId']].find((value) => typeof value === 'string');
  return {
    kind: 'audit',
    seq: event.seq,
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

/** Announces a node's new observed state to live subscribers (delivered at commit). */
export async function notifyNodeChanged(
  manager: { query: (sql: string, params: unknown[]) => Promise<unknown> },
  nodeId: string,
): Promise<void> {
  const notice: NodeNotice = { kind: 'node', nodeId, occurredAt: new Date().toISOString() };
  await manager.query(`SELECT pg_notify($1, $2)`, [LIVE_EVENTS_CHANNEL, JSON.stringify(notice)]);
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
