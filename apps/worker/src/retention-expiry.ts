import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import {
  RETENTION_EXPIRY_BATCH_SIZE,
  RETENTION_EXPIRY_WORKFLOW_ID,
  WORKFLOW_TYPES,
  type RetentionExpiryWorkflowInput,
} from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';

/** How long to wait before asking Temporal again when the start failed (Temporal restarting). */
const RETRY_MS = 30_000;

export interface RetentionExpiryStarter {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly intervalSeconds: number;
  readonly logger: Logger;
}

/**
 * Makes sure the one RetentionExpiry loop runs: starts it under its fixed
 * workflow id unless a run is already open (conflict policy USE_EXISTING),
 * so every worker replica can call this at boot and exactly one loop exists.
 * A running loop keeps the interval it was started with; a change of
 * LUNANEXA_RETENTION_EXPIRY_INTERVAL_SECONDS applies once it is restarted.
 */
export async function ensureRetentionExpiryRunning(options: RetentionExpiryStarter): Promise<string> {
  const connection = await Connection.connect({ address: options.address });
  try {
    const client = new Client({ connection, namespace: options.namespace });
    const input: RetentionExpiryWorkflowInput = {
      mode: 'expired',
      intervalSeconds: options.intervalSeconds,
      batchSize: RETENTION_EXPIRY_BATCH_SIZE,
      actor: 'system:retention-expiry',
      correlationId: 'retention-expiry',
      requestId: 'retention-expiry',
    };
    try {
      const handle = await client.workflow.start(WORKFLOW_TYPES.retentionExpiry, {
        workflowId: RETENTION_EXPIRY_WORKFLOW_ID,
        taskQueue: options.taskQueue,
        args: [input],
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
      return handle.firstExecutionRunId;
    } catch (error) {
      // Servers without conflict policies answer "already started" for a running id: the loop exists.
      if (error instanceof WorkflowExecutionAlreadyStartedError) return 'already-running';
      throw error;
    }
  } finally {
    await connection.close();
  }
}

/** Keeps trying in the background until the loop is known to run; never blocks or fails the worker. */
export function keepRetentionExpiryRunning(options: RetentionExpiryStarter): void {
  const attempt = (): void => {
    ensureRetentionExpiryRunning(options).then(
      (runId) =>
        options.logger.info(
          { workflow_id: RETENTION_EXPIRY_WORKFLOW_ID, runId, intervalSeconds: options.intervalSeconds },
          'retention expiry loop running',
        ),
      (error: unknown) => {
        options.logger.warn(
          { err: error, workflow_id: RETENTION_EXPIRY_WORKFLOW_ID, retryMs: RETRY_MS },
          'retention expiry loop not started yet',
        );
        setTimeout(attempt, RETRY_MS).unref();
      },
    );
  };
  attempt();
}
