import { randomUUID } from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { ErrorCode, LunaNexaError, type NodeInventory } from '@lunanexa/contracts';
import { agentProtocolOf } from '@lunanexa/domain';
import { appendAuditEvent, chainedAuditEvents, firstWorkflowReceipt } from '@lunanexa/persistence';
import type { DataSource, EntityManager } from 'typeorm';

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
 * A receipt written in a transaction that has not committed: the audit chain
 * places it at commit (libs/persistence appendAuditEvent), so its seq and hash
 * exist only after. `receiptedTransaction` swaps it for them.
 */
export class ReceiptRef {
  /** Nominal: an object that merely has an eventId (a spread of a ReceiptRef) is not one. */
  readonly pendingUntilCommit = true as const;
  constructor(readonly eventId: string) {}
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
): Promise<ReceiptRef> {
  const first = await firstWorkflowReceipt(manager, workflowId, draft.action, draft.step);
  if (first) return new ReceiptRef(first.id);
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
  return new ReceiptRef(event.id);
}

/** A receipt's place in the audit chain, as workflows and operators see it. */
export interface ChainedReceipt {
  readonly seq: number;
  readonly hash: string;
}

/** What an activity hands its workflow for a step it recorded. */
export type Receipt = ChainedReceipt;

/** `T` with every ReceiptRef (the value itself, or one of its properties) replaced by its chained receipt. */
export type Receipted<T> = T extends ReceiptRef
  ? ChainedReceipt
  : T extends object
    ? { [K in keyof T]: T[K] extends ReceiptRef ? ChainedReceipt : T[K] }
    : T;

/** `{ receipt, ...rest }` → `{ seq, hash, ...rest }`: the result of an activity that is its receipt plus more. */
export function spreadReceipt<T extends { receipt: ChainedReceipt }>({
  receipt,
  ...rest
}: T): ChainedReceipt & Omit<T, 'receipt'> {
  return { ...receipt, ...rest };
}

/**
 * Runs `work` in one transaction, then replaces the receipts it returned
 * (the value, or its direct properties) by their seq and hash in the chain,
 * which they got at commit.
 */
export async function receiptedTransaction<T>(
  db: DataSource,
  work: (manager: EntityManager) => Promise<T>,
): Promise<Receipted<T>> {
  const value = await db.transaction(work);
  const refs: ReceiptRef[] = [];
  if (value instanceof ReceiptRef) refs.push(value);
  else if (value !== null && typeof value === 'object') {
    for (const property of Object.values(value)) if (property instanceof ReceiptRef) refs.push(property);
  }
  if (refs.length === 0) return value as Receipted<T>;
  const chained = await chainedAuditEvents(
    db,
    refs.map((ref) => ref.eventId),
  );
  const resolve = (ref: ReceiptRef): ChainedReceipt => {
    const found = chained.get(ref.eventId);
    if (!found) throw new Error(`receipt ${ref.eventId} is not in the audit chain after commit`);
    return found;
  };
  if (value instanceof ReceiptRef) return resolve(value) as Receipted<T>;
  return Object.fromEntries(
    Object.entries(value as object).map(([key, property]) => [
      key,
      property instanceof ReceiptRef ? resolve(property) : property,
    ]),
  ) as Receipted<T>;
}

/** How the controller reaches a node over SSH (structurally the southbound client's node). */
export interface SouthboundTarget {
  readonly id: string;
  readonly address: string;
  readonly sshPort: number;
  readonly hostKeyFingerprint: string;
  readonly keyIds: readonly string[];
  readonly publicKeys: readonly string[];
  readonly agentProtocol: number;
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
  inventory: Pick<NodeInventory, 'agentProtocol'>;
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
    agentProtocol: agentProtocolOf(node.inventory),
  };
}
