import { ErrorCode, LunaNexaError, type NodeLifecycleState } from '@lunanexa/contracts';
import { nodeLifecycle, transition, type NodeEvent } from '@lunanexa/domain';
import { findNode, writeNodeLifecycle, type NodeRow, type Queryable } from '@lunanexa/persistence';
import type { EntityManager } from 'typeorm';

export async function lockedNode(manager: EntityManager, nodeId: string): Promise<NodeRow> {
  const node = await findNode(manager, nodeId, { forUpdate: true });
  if (!node) throw new LunaNexaError(ErrorCode.NOT_FOUND, `node ${nodeId} does not exist`);
  return node;
}

export async function existingNode(q: Queryable, nodeId: string): Promise<NodeRow> {
  const node = await findNode(q, nodeId);
  if (!node) throw new LunaNexaError(ErrorCode.NOT_FOUND, `node ${nodeId} does not exist`);
  return node;
}

/** Writes the state `event` leads to; a move the node lifecycle does not allow is refused first. */
export async function applyNodeEvent(
  manager: EntityManager,
  node: NodeRow,
  event: NodeEvent,
  now: Date,
): Promise<NodeLifecycleState> {
  const to = transition(nodeLifecycle, node.lifecycle, event);
  await writeNodeLifecycle(manager, node.id, to, now);
  return to;
}
