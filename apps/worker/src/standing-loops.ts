import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import {
  HEALING_LOOP_WORKFLOW_ID,
  NODE_LEASE_WATCH_WORKFLOW_ID,
  RETENTION_EXPIRY_BATCH_SIZE,
  RETENTION_EXPIRY_WORKFLOW_ID,
  WORKFLOW_TYPES,
  type HealingLoopWorkflowInput,
  type HealingRuleSettings,
  type NodeLeaseWatchWorkflowInput,
  type RetentionExpiryWorkflowInput,
} from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';

/** How long to wait before asking Temporal again when the start failed (Temporal restarting). */
const RETRY_MS = 30_000;

export interface TemporalTarget {
  readonly address: string;
  readonly namespace: string;
  readonly taskQueue: string;
  readonly logger: Logger;
}

/** A workflow the worker keeps running forever under one fixed id. */
export interface StandingLoop {
  readonly name: string;
  readonly workflowType: string;
  readonly workflowId: string;
  readonly input: unknown;
}

export function retentionExpiryLoop(intervalSeconds: number): StandingLoop {
  const input: RetentionExpiryWorkflowInput = {
    mode: 'expired',
    intervalSeconds,
    batchSize: RETENTION_EXPIRY_BATCH_SIZE,
    actor: 'system:retention-expiry',
    correlationId: 'retention-expiry',
    requestId: 'retention-expiry',
  };
  return {
    name: 'retention expiry',
    workflowType: WORKFLOW_TYPES.retentionExpiry,
    workflowId: RETENTION_EXPIRY_WORKFLOW_ID,
    input,
  };
}

export function nodeLeaseWatchLoop(settings: {
  readonly graceSeconds: number;
  readonly intervalSeconds: number;
  readonly replacementTimeoutSeconds: number;
}): StandingLoop {
  const input: NodeLeaseWatchWorkflowInput = {
    ...settings,
    actor: 'system:node-recovery',
    correlationId: 'node-lease-watch',
    requestId: 'node-lease-watch',
  };
  return {
    name: 'node lease watch',
    workflowType: WORKFLOW_TYPES.nodeLeaseWatch,
    workflowId: NODE_LEASE_WATCH_WORKFLOW_ID,
    input,
  };
}

/** The healing loop: one Healing pass per interval with the rules' settings it was started with. */
export function healingLoop(intervalSeconds: number, settings: HealingRuleSettings): StandingLoop {
  const input: HealingLoopWorkflowInput = {
    intervalSeconds,
    settings,
    actor: 'system:healing',
    correlationId: 'healing-loop',
    requestId: 'healing-loop',
  };
  return {
    name: 'healing',
    workflowType: WORKFLOW_TYPES.healingLoop,
    workflowId: HEALING_LOOP_WORKFLOW_ID,
    input,
  };
}

/**
 * Makes sure the loop runs: starts it under its fixed workflow id unless a
 * run is already open (conflict policy USE_EXISTING), so every worker
 * replica can call this at boot and exactly one loop exists. A running loop
 * keeps the settings it was started with; a change applies once it is
 * restarted.
 */
export async function ensureStandingLoop(target: TemporalTarget, loop: StandingLoop): Promise<string> {
  const connection = await Connection.connect({ address: target.address });
  try {
    const client = new Client({ connection, namespace: target.namespace });
    try {
      const handle = await client.workflow.start(loop.workflowType, {
        workflowId: loop.workflowId,
        taskQueue: target.taskQueue,
        args: [loop.input],
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
export function keepStandingLoopRunning(target: TemporalTarget, loop: StandingLoop): void {
  const attempt = (): void => {
    ensureStandingLoop(target, loop).then(
      (runId) => target.logger.info({ workflow_id: loop.workflowId, runId }, `${loop.name} loop running`),
      (error: unknown) => {
        target.logger.warn(
          { err: error, workflow_id: loop.workflowId, retryMs: RETRY_MS },
          `${loop.name} loop not started yet`,
        );
        setTimeout(attempt, RETRY_MS).unref();
      },
    );
  };
  attempt();
}
