import { randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { appendAuditEvent } from '@lunanexa/persistence';
import type { EntityManager } from 'typeorm';

/** The workflow an activity runs for; every receipt names it. */
export function currentWorkflowId(): string {
  const id = Context.current().info.workflowExecution?.workflowId;
  if (!id) throw new Error('fleet activities run only inside a workflow');
  return id;
}

/**
 * Typed failures cross into Temporal as ApplicationFailure with the code as
 * its type. Only DEPENDENCY_UNAVAILABLE (an agent or PostgreSQL not
 * answering) is worth retrying; every other code is a decision that another
 * attempt would repeat.
 */
export function asActivityFailure(error: unknown): unknown {
  if (error instanceof LunaNexaError) {
    return ApplicationFailure.create({
      type: error.code,
      message: error.message,
      nonRetryable: error.code !== ErrorCode.DEPENDENCY_UNAVAILABLE,
    });
  }
  return error;
}

export async function typed<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asActivityFailure(error);
  }
}

export interface ReceiptDraft {
  readonly actor: string;
  readonly action: string;
  /** Unique per workflow and action: a retried activity finds the receipt it already wrote. */
  readonly step: string;
  readonly evidence: Record<string, unknown>;
  readonly correlationId: string;
  readonly decision?: 'allowed' | 'denied';
  readonly result?: 'succeeded' | 'failed' | 'refused';
  readonly occurredAt: Date;
}

/**
 * Appends a receipt once per (workflow, action, step). An activity whose
 * transaction committed but whose completion was lost runs again; it must
 * find its receipt instead of chaining a second one.
 */
export async function receiptOnce(
  manager: EntityManager,
  workflowId: string,
  draft: ReceiptDraft,
): Promise<{ seq: number; hash: string }> {
  const existing = await manager.query<{ seq: string; hash: string }[]>(
    `SELECT seq, hash FROM audit_events
      WHERE workflow_id = $1 AND action = $2 AND evidence->>'step' = $3
      ORDER BY seq LIMIT 1`,
    [workflowId, draft.action, draft.step],
  );
  const first = existing[0];
  if (first) return { seq: Number(first.seq), hash: first.hash };
  const event = await appendAuditEvent(manager, {
    id: randomUUID(),
    occurredAt: draft.occurredAt.toISOString(),
    actor: draft.actor,
    action: draft.action,
    decision: draft.decision ?? 'allowed',
    evidence: { ...draft.evidence, step: draft.step },
    result: draft.result ?? 'succeeded',
    correlationId: draft.correlationId,
    workflowId,
  });
  return { seq: event.seq, hash: event.hash };
}

/** How the controller reaches a node over SSH (structurally the southbound client's node). */
export interface SouthboundTarget {
  readonly id: string;
  readonly address: string;
  readonly sshPort: number;
  readonly hostKeyFingerprint: string;
  readonly keyIds: readonly string[];
  readonly publicKeys: readonly string[];
}

export interface SouthboundPort {
  pushAssignment(
    node: SouthboundTarget,
    assignment: import('@lunanexa/contracts').Assignment,
  ): Promise<import('@lunanexa/agent-protocol').AssignmentAckBody>;
  status(node: SouthboundTarget): Promise<import('@lunanexa/agent-protocol').StatusReportBody>;
}

export function southboundTarget(node: {
  id: string;
  address: string;
  sshPort: number;
  hostKeyFingerprint: string;
  keyId: string;
  publicKey: string;
  nextKeyId: string | null;
  nextPublicKey: string | null;
}): SouthboundTarget {
  const keyIds = [node.keyId];
  const publicKeys = [node.publicKey];
  if (node.nextKeyId !== null && node.nextPublicKey !== null) {
    keyIds.push(node.nextKeyId);
    publicKeys.push(node.nextPublicKey);
  }
  return {
    id: node.id,
    address: node.address,
    sshPort: node.sshPort,
    hostKeyFingerprint: node.hostKeyFingerprint,
    keyIds,
    publicKeys,
  };
}
