import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import type { Logger, RequestIds } from '@lunanexa/observability';
import { appendAuditEvent } from '@lunanexa/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import { API_LOGGER } from '../config';

export type Evidence = Record<string, unknown>;

export interface AuditContext {
  readonly actor: string;
  readonly action: string;
  readonly ids: RequestIds;
}

/** The code a failure is recorded under: ours when typed, INTERNAL otherwise (no detail leaves). */
function codeOf(error: unknown): string {
  return error instanceof LunaNexaError ? error.code : 'INTERNAL';
}

/**
 * Audit events for identity and access, written to the same hash chain as
 * every workflow receipt (`appendAuditEvent`).
 *
 * Account and token administration, login and logout are single-step changes
 * to two tables, so they run as one PostgreSQL transaction that holds both the
 * change and its audit event, instead of a Temporal workflow (DESIGN.md
 * invariant 4 asks for workflows for multi-step operations; a single
 * transaction already commits all-or-nothing, and the receipt rolls back with
 * the change). Request ids stand in for the workflow id in the evidence.
 */
@Injectable()
export class AuditWriter {
  constructor(
    private readonly db: DataSource,
    @Inject(API_LOGGER) private readonly logger: Logger,
  ) {}

  private draft(
    context: AuditContext,
    decision: 'allowed' | 'denied',
    result: 'succeeded' | 'failed' | 'refused',
    evidence: Evidence,
  ) {
    return {
      id: randomUUID(),
      occurredAt: new Date().toISOString(),
      actor: context.actor,
      action: context.action,
      decision,
      evidence: { ...evidence, requestId: context.ids.requestId },
      result,
      correlationId: context.ids.correlationId,
      workflowId: null,
    };
  }

  /**
   * Runs `work` in a transaction and appends the `allowed`/`succeeded` event
   * in that same transaction. If `work` fails, the change rolls back and a
   * `failed` event (with the error code) is appended in a transaction of its
   * own; a `denied` LunaNexaError thrown by `work` (see `Denied`) is recorded
   * as `denied`/`refused`.
   */
  async change<T>(
    context: AuditContext,
    evidence: Evidence,
    work: (manager: EntityManager) => Promise<{ value: T; evidence?: Evidence }>,
  ): Promise<T> {
    try {
      return await this.db.transaction(async (manager) => {
        const done = await work(manager);
        await appendAuditEvent(
          manager,
          this.draft(context, 'allowed', 'succeeded', { ...evidence, ...done.evidence }),
        );
        return done.value;
      });
    } catch (error) {
      if (error instanceof Denied) {
        await this.refusal(context, { ...evidence, ...error.evidence, errorCode: error.error.code });
        throw error.error;
      }
      await this.bestEffort(context, 'allowed', 'failed', { ...evidence, errorCode: codeOf(error) });
      throw error;
    }
  }

  /** Appends an event inside a transaction the caller holds (it commits or rolls back with the change). */
  async appendIn(
    manager: EntityManager,
    context: AuditContext,
    evidence: Evidence,
    outcome: { decision?: 'allowed' | 'denied'; result?: 'succeeded' | 'failed' | 'refused' } = {},
  ): Promise<void> {
    await appendAuditEvent(
      manager,
      this.draft(context, outcome.decision ?? 'allowed', outcome.result ?? 'succeeded', evidence),
    );
  }

  /** An event with no change beside it (a successful login). Throws if it cannot be written. */
  async record(context: AuditContext, evidence: Evidence): Promise<void> {
    await this.db.transaction(async (manager) => {
      await appendAuditEvent(manager, this.draft(context, 'allowed', 'succeeded', evidence));
    });
  }

  /**
   * A refused request (`denied`/`refused`). The refusal stands whether or not
   * the event can be written; a write failure is logged, never swallowed
   * silently, and never turns a refusal into a success.
   */
  async refusal(context: AuditContext, evidence: Evidence): Promise<void> {
    await this.bestEffort(context, 'denied', 'refused', evidence);
  }

  /** Runs a parser or check; a refusal is audited (codes and field paths only, never values) and rethrown. */
  async parsedOrRefused<T>(context: AuditContext, evidence: Evidence, parse: () => T): Promise<T> {
    try {
      return parse();
    } catch (error) {
      const typed = error instanceof LunaNexaError ? error : null;
      await this.refusal(context, {
        ...evidence,
        errorCode: typed?.code ?? ErrorCode.INTERNAL,
        ...(typed && typed.violations.length > 0 ? { fields: typed.violations.map((v) => v.path) } : {}),
      });
      throw error;
    }
  }

  private async bestEffort(
    context: AuditContext,
    decision: 'allowed' | 'denied',
    result: 'failed' | 'refused',
    evidence: Evidence,
  ): Promise<void> {
    try {
      await this.db.transaction(async (manager) => {
        await appendAuditEvent(manager, this.draft(context, decision, result, evidence));
      });
    } catch (auditError) {
      this.logger.error(
        { err: auditError, action: context.action, actor: context.actor, requestId: context.ids.requestId },
        'could not write audit event',
      );
    }
  }
}

/** Thrown inside `AuditWriter.change` work to refuse (decision `denied`) rather than fail. */
export class Denied extends Error {
  constructor(
    readonly error: LunaNexaError,
    readonly evidence: Evidence = {},
  ) {
    super(error.message);
    this.name = 'Denied';
  }
}
