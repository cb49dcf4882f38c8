import { Inject, Injectable } from '@nestjs/common';
import { verifyChain } from '@lunanexa/audit';
import {
  auditEventWithPrevious,
  listAuditEvents,
  toChained,
  checkAuditChain,
  type AuditEventEntity,
} from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { API_CONFIG, type ApiConfig } from '../config';
import { temporalWorkflowUrl } from '../common/temporal-links';
import type {
  AuditChainLink,
  AuditChainStatus,
  AuditChainVerificationMode,
  AuditEvent,
  AuditEventFilter,
  AuditEventPage,
} from './audit.types';

@Injectable()
export class AuditService {
  constructor(
    private readonly db: DataSource,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  async list(
    filter: AuditEventFilter | null | undefined,
    first: number,
    before: number | null,
  ): Promise<AuditEventPage> {
    // One extra row tells whether an older page exists without a second COUNT query.
    const rows = await listAuditEvents(this.db, {
      beforeSeq: before,
      action: filter?.action ?? null,
      actor: filter?.actor ?? null,
      decision: filter?.decision ?? null,
      correlationId: filter?.correlationId ?? null,
      workflowId: filter?.workflowId ?? null,
      subject: filter?.subject ?? null,
      limit: first + 1,
    });
    const page = rows.slice(0, first);
    const last = page[page.length - 1];
    return {
      events: page.map((row) => this.toView(row)),
      nextBefore: rows.length > first && last ? last.seq : null,
    };
  }

  async get(seq: number): Promise<AuditEvent | null> {
    const rows = await auditEventWithPrevious(this.db, seq);
    const row = rows.find((r) => r.seq === seq);
    if (!row) return null;
    const previous = rows.find((r) => r.seq === seq - 1) ?? null;
    return { ...this.toView(row), chain: this.verifyLink(previous, row) };
  }

  /** See checkAuditChain: from the last checkpoint (INCREMENTAL) or from the first event (FULL). */
  async chainStatus(mode: AuditChainVerificationMode): Promise<AuditChainStatus> {
    const result = await checkAuditChain(this.db.manager, mode);
    return {
      mode,
      valid: result.valid,
      checked: result.checked,
      checkpointSeq: result.checkpointSeq,
      firstBrokenSeq: result.brokenAt?.seq ?? null,
      reason: result.brokenAt?.reason ?? null,
    };
  }

  /**
   * Seq 1 links to the genesis hash; any later event needs its predecessor, and
   * a missing one is a sequence gap (rows are never deleted, so it means tampering).
   */
  private verifyLink(previous: AuditEventEntity | null, row: AuditEventEntity): AuditChainLink {
    if (row.seq > 1 && !previous) return { verified: false, reason: 'sequence-gap' };
    const anchor = previous ? { seq: previous.seq, hash: previous.hash } : null;
    const result = verifyChain([toChained(row)], anchor);
    return { verified: result.valid, reason: result.brokenAt?.reason ?? null };
  }

  private toView(row: AuditEventEntity): AuditEvent {
    return {
      seq: row.seq,
      id: row.id,
      occurredAt: row.occurredAt,
      actor: row.actor,
      action: row.action,
      decision: row.decision,
      result: row.result,
      correlationId: row.correlationId,
      workflowId: row.workflowId,
      temporalUiUrl: row.workflowId
        ? temporalWorkflowUrl(
            this.config.LUNANEXA_TEMPORAL_UI_URL,
            this.config.TEMPORAL_NAMESPACE,
            row.workflowId,
          )
        : null,
      evidenceJson: JSON.stringify(row.evidence),
      hash: row.hash,
      prevHash: row.prevHash,
      chain: null,
    };
  }
}
