import { Context } from '@temporalio/activity';
import type { PayloadDeletionBatch } from '@lunanexa/contracts';
import {
  GPU_SAMPLE_RETENTION_HOURS,
  deleteGpuSamplesBefore,
  deletePayloadCaptureBatch,
  firstWorkflowReceipt,
  lockWorkflowStep,
} from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import type { Clock } from '../clock';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed } from '../fleet-support';

export interface RetentionActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
}

export interface DeletePayloadBatchInput {
  readonly mode: 'expired' | 'purge';
  readonly tenantId?: string;
  readonly batchSize: number;
  /** Pass and batch number within this workflow run: with the run id they name the receipt. */
  readonly pass: number;
  readonly batch: number;
  readonly actor: string;
  readonly correlationId: string;
}

/** What every `payload.delete` receipt is stored under. */
export const PAYLOAD_DELETE_ACTION = 'payload.delete';

export function createRetentionActivities({ db, clock }: RetentionActivityPorts) {
  return {
    /**
     * Deletes one bounded batch of payload captures and appends its
     * `payload.delete` receipt in the same transaction, so no capture is ever
     * deleted without a receipt and no receipt outlives a rolled-back delete.
     * The receipt names the rows by the sha256 of their ids, with counts,
     * tenants and purposes — never what they contained.
     *
     * Idempotent per (run, pass, batch): an attempt whose commit was
     * acknowledged late finds its receipt and deletes nothing more; the
     * advisory lock keeps a retry that overlaps a slow first attempt from
     * deleting a second batch under the same receipt.
     */
    async deletePayloadCaptureBatch(input: DeletePayloadBatchInput): Promise<PayloadDeletionBatch> {
      const workflowId = currentWorkflowId();
      const runId = Context.current().info.workflowExecution?.runId ?? 'unknown-run';
      const step = `${runId}/pass-${input.pass}/batch-${input.batch}`;
      return typed(async () => {
        const batch = await receiptedTransaction(db, async (manager) => {
          await lockWorkflowStep(manager, `${workflowId}/${step}`);
          const done = await firstWorkflowReceipt(manager, workflowId, PAYLOAD_DELETE_ACTION, step);
          if (done)
            return { deleted: Number(done.evidence['count'] ?? 0), receiptHash: done.hash, receipt: null };
          const deleted = await deletePayloadCaptureBatch(manager, {
            mode: input.mode,
            limit: input.batchSize,
            ...(input.tenantId === undefined ? {} : { tenantId: input.tenantId }),
          });
          // An empty expiry pass changed nothing and is not worth a chain entry every interval;
          // a purge always answers its operator with a receipt, even when there was nothing to delete.
          if (deleted.count === 0 && !(input.mode === 'purge' && input.batch === 0))
            return { deleted: 0, receiptHash: null, receipt: null };
          const receipt = await receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: PAYLOAD_DELETE_ACTION,
            step,
            correlationId: input.correlationId,
            occurredAt: clock.now(),
            evidence: {
              mode: input.mode,
              ...(input.tenantId === undefined ? {} : { tenantId: input.tenantId }),
              count: deleted.count,
              tenantIds: deleted.tenantIds,
              purposes: deleted.purposes,
              captureIdSha256: deleted.idSha256,
            },
          });
          return { deleted: deleted.count, receiptHash: null, receipt };
        });
        return { deleted: batch.deleted, receiptHash: batch.receipt?.hash ?? batch.receiptHash };
      });
    },

    /**
     * Deletes one bounded batch of GPU samples older than
     * GPU_SAMPLE_RETENTION_HOURS. No receipt: the samples are the fleet's own
     * figures for charts, not anyone's data, and deleting what is past the
     * window twice deletes nothing more.
     */
    async deleteExpiredGpuSamples(input: { readonly batchSize: number }): Promise<{ deleted: number }> {
      return typed(async () => {
        const before = new Date(clock.now().getTime() - GPU_SAMPLE_RETENTION_HOURS * 3_600_000);
        return { deleted: await deleteGpuSamplesBefore(db, before, input.batchSize) };
      });
    },
  };
}
