import { randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ErrorCode, type PingWorkflowInput, type PingWorkflowResult } from '@lunanexa/contracts';
import {
  appendAuditEvent,
  chainedAuditEvent,
  findPingRecord,
  firstWorkflowReceipt,
  insertPingRecord,
} from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import type { Clock } from '../clock';

export interface SystemActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
}

export function createSystemActivities({ db, clock }: SystemActivityPorts) {
  return {
    /**
     * Writes the ping row and its audit receipt in one transaction. Keyed by
     * the workflow id, so a retry after a lost acknowledgement returns the
     * first result instead of writing a second row or a second receipt.
     */
    async recordPing(input: PingWorkflowInput): Promise<PingWorkflowResult> {
      const workflowId = Context.current().info.workflowExecution?.workflowId;
      if (!workflowId) throw new Error('recordPing runs only as a workflow activity');
      const recorded = await db.transaction(async (manager) => {
        const existing = await findPingRecord(manager, workflowId);
        if (existing) {
          if (existing.message !== input.message) {
            throw ApplicationFailure.create({
              type: ErrorCode.IDEMPOTENCY_KEY_REUSED,
              message: `idempotency key ${input.idempotencyKey} was already used with a different message`,
              nonRetryable: true,
            });
          }
          const first = await firstWorkflowReceipt(manager, workflowId, 'system.ping');
          if (!first) throw new Error(`ping ${workflowId} has a row but no receipt`);
          return {
            pingId: existing.id,
            workflowId,
            message: existing.message,
            recordedAt: existing.createdAt.toISOString(),
            receipt: { seq: first.seq, hash: first.hash },
          };
        }
        const now = clock.now();
        const pingId = randomUUID();
        await insertPingRecord(manager, {
          id: pingId,
          workflowId,
          idempotencyKey: input.idempotencyKey,
          message: input.message,
          actor: input.actor,
          correlationId: input.correlationId,
          createdAt: now,
        });
        const event = await appendAuditEvent(manager, {
          id: randomUUID(),
          occurredAt: now.toISOString(),
          actor: input.actor,
          action: 'system.ping',
          decision: 'allowed',
          evidence: { pingId, idempotencyKey: input.idempotencyKey, requestId: input.requestId },
          result: 'succeeded',
          correlationId: input.correlationId,
          workflowId,
        });
        return {
          pingId,
          workflowId,
          message: input.message,
          recordedAt: now.toISOString(),
          receipt: event,
        };
      });
      const { receipt, ...ping } = recorded;
      return { ...ping, receipt: 'id' in receipt ? await chainedAuditEvent(db, receipt) : receipt };
    },
  };
}
