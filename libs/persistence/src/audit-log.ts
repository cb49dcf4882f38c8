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
  const { last: _last, ...result } = await verifyAuditChainAfter(manager, null, pageSize);
  return result;
}

/** A position of the chain: an event's seq and the hash it had when verified. */
export interface AuditChainPosition {
  readonly seq: number;
  readonly hash: string;
}

/**
 * Walks the chain after `anchor` (from the start when null), trusting the
 * anchor; returns the first break, if any, and the last event verified.
 */
export async function verifyAuditChainAfter(
  manager: EntityManager,
  anchor: AuditChainPosition | null,
  pageSize = 1000,
): Promise<ChainVerification & { last: AuditChainPosition | null }> {
  let previous: AuditChainPosition | null = anchor;
  let checked = 0;
  for (;;) {
    const page = await readAuditEvents(manager, { afterSeq: previous?.seq ?? 0, limit: pageSize });
    if (page.length === 0) return { valid: true, checked, last: previous };
    const result = verifyChain(page, previous);
    if (!result.valid) return { ...result, checked: checked + result.checked, last: null };
    checked += result.checked;
    const end = page[page.length - 1];
    previous = end ? { seq: end.seq, hash: end.hash } : previous;
  }
}

/** The latest position the chain was verified up to, or null before the first verification. */
export async function latestAuditChainCheckpoint(q: Queryable): Promise<AuditChainPosition | null> {
  const rows = await q.query<{ seq: string; hash: string }[]>(
    `SELECT seq, hash FROM audit_chain_checkpoints ORDER BY seq DESC LIMIT 1`,
  );
  const row = rows[0];
  return row ? { seq: Number(row.seq), hash: row.hash } : null;
}

/** Records that the chain verified up to `position` (a second record of the same position is a no-op). */
export async function recordAuditChainCheckpoint(
  q: Queryable,
  position: AuditChainPosition,
  verifiedAt: Date,
): Promise<void> {
  await q.query(
    `INSERT INTO audit_chain_checkpoints (seq, hash, verified_at) VALUES ($1, $2, $3) ON CONFLICT (seq) DO NOTHING`,
    [position.seq, position.hash, verifiedAt],
  );
}

/** The event at `seq` as stored, or null when there is none. */
export async function readAuditEventAt(
  manager: EntityManager,
  seq: number,
): Promise<ChainedAuditEvent | null> {
  const row = await manager.getRepository(AuditEventEntity).findOne({ where: { seq } });
  return row ? toChained(row) : null;
}

/**
 * INCREMENTAL trusts the chain up to its last checkpoint and walks only what
 * was appended since; FULL walks all of it and is the only mode that finds an
 * event changed before the checkpoint (which takes the database owner: the
 * table is append-only by trigger and by privilege).
 */
export type AuditChainCheckMode = 'INCREMENTAL' | 'FULL';

export interface AuditChainCheck {
  readonly mode: AuditChainCheckMode;
  readonly valid: boolean;
  /** Events verified in this run (before the first break). */
  readonly checked: number;
  /** The checkpoint this run started after; null for FULL or before the first verification. */
  readonly checkpointSeq: number | null;
  readonly brokenAt?: {
    readonly seq: number;
    readonly reason: NonNullable<ChainVerification['brokenAt']>['reason'] | 'checkpoint-mismatch';
  };
}

/**
 * Verifies the chain from its last checkpoint (INCREMENTAL) or its first
 * event (FULL). An incremental run first checks that the checkpointed event
 * still has the hash it was verified with and that its content still hashes
 * to it. A valid run records a checkpoint at the last event it verified.
 */
export async function checkAuditChain(
  manager: EntityManager,
  mode: AuditChainCheckMode,
  now: Date = new Date(),
): Promise<AuditChainCheck> {
  const checkpoint = mode === 'INCREMENTAL' ? await latestAuditChainCheckpoint(manager) : null;
  const checkpointSeq = checkpoint?.seq ?? null;
  if (checkpoint) {
    const event = await readAuditEventAt(manager, checkpoint.seq);
    if (!event || event.hash !== checkpoint.hash)
      return {
        mode,
        valid: false,
        checked: 0,
        checkpointSeq,
        brokenAt: { seq: checkpoint.seq, reason: 'checkpoint-mismatch' },
      };
    const own = verifyChain([event], { seq: event.seq - 1, hash: event.prevHash });
    if (!own.valid && own.brokenAt)
      return { mode, valid: false, checked: 0, checkpointSeq, brokenAt: own.brokenAt };
  }
  const { last, ...result } = await verifyAuditChainAfter(manager, checkpoint);
  if (result.valid && last && last.seq > (checkpoint?.seq ?? 0))
    await recordAuditChainCheckpoint(manager, last, now);
  return { mode, checkpointSeq, ...result };
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
