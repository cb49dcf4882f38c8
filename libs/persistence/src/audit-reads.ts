import type { EntityManager } from 'typeorm';
import { AuditEventEntity } from './entities/audit-event.entity';
import { likePrefix } from './search';

/** Filters of the console's audit list; `action` ending in `*` is a prefix. */
export interface AuditEventQuery {
  /** Only events older than this seq (keyset paging, newest first). */
  readonly beforeSeq: number | null;
  readonly action?: string | null;
  readonly actor?: string | null;
  readonly decision?: string | null;
  readonly correlationId?: string | null;
  readonly workflowId?: string | null;
  /** A node or deployment id the evidence names. */
  readonly subject?: string | null;
  readonly limit: number;
}

/** Audit events newest first. */
export async function listAuditEvents(
  db: Pick<EntityManager, 'getRepository'>,
  filter: AuditEventQuery,
): Promise<AuditEventEntity[]> {
  const query = db.getRepository(AuditEventEntity).createQueryBuilder('e');
  if (filter.beforeSeq !== null) query.andWhere('e.seq < :before', { before: filter.beforeSeq });
  const action = filter.action;
  if (action) {
    if (action.endsWith('*')) {
      query.andWhere(`e.action LIKE :actionPrefix ESCAPE '\\'`, {
        actionPrefix: likePrefix(action.slice(0, -1)),
      });
    } else {
      query.andWhere('e.action = :action', { action });
    }
  }
  if (filter.actor) query.andWhere('e.actor = :actor', { actor: filter.actor });
  if (filter.decision) query.andWhere('e.decision = :decision', { decision: filter.decision });
  if (filter.correlationId) {
    query.andWhere('e.correlation_id = :correlationId', { correlationId: filter.correlationId });
  }
  if (filter.workflowId) query.andWhere('e.workflow_id = :workflowId', { workflowId: filter.workflowId });
  if (filter.subject) {
    query.andWhere(`(e.evidence->>'nodeId' = :subject OR e.evidence->>'deploymentId' = :subject)`, {
      subject: filter.subject,
    });
  }
  return query.orderBy('e.seq', 'DESC').limit(filter.limit).getMany();
}

/** The event with this seq and the one before it (what its chain link is checked against), oldest first. */
export async function auditEventWithPrevious(
  db: Pick<EntityManager, 'getRepository'>,
  seq: number,
): Promise<AuditEventEntity[]> {
  return db
    .getRepository(AuditEventEntity)
    .createQueryBuilder('e')
    .where('e.seq IN (:seq, :previous)', { seq, previous: seq - 1 })
    .orderBy('e.seq', 'ASC')
    .getMany();
}
