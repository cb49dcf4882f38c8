import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { nodeActionRefusal } from '@lunanexa/domain';
import { firstWorkflowReceipt, requestNodeKeyRotation } from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed, type Receipt } from '../fleet-support';
import { existingNode, lockedNode } from './node-row';
import type { NodeActivityPorts, NodeStepInput } from './ports';

const ROTATION_REQUEST = 'node.credential.rotate.request';

/** The key rotation workflow's steps: ask the agent for a new key, then watch for it. */
export function rotateActivities({ db, clock }: NodeActivityPorts) {
  return {
    /** Asks the agent (through its next heartbeat acks) for a new key; returns the key being replaced. */
    async requestKeyRotation(input: NodeStepInput): Promise<{ keyId: string; receipt: Receipt }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const node = await lockedNode(manager, input.nodeId);
          const refusal = nodeActionRefusal(node, 'rotateCredential');
          if (refusal !== null) throw new LunaNexaError(ErrorCode.INVALID_TRANSITION, refusal);
          const now = clock.now();
          // A retry names the key its first attempt replaced, even if the agent has rotated since.
          const requested = await firstWorkflowReceipt(manager, workflowId, ROTATION_REQUEST);
          const previousKeyId = (requested?.evidence['previousKeyId'] as string | undefined) ?? node.keyId;
          if (node.keyId === previousKeyId && node.rotationRequestedAt === null) {
            await requestNodeKeyRotation(manager, node.id, now);
          }
          const receipt = await receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: ROTATION_REQUEST,
            step: 'request',
            evidence: { nodeId: node.id, nodeName: node.name, previousKeyId },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return { keyId: previousKeyId, receipt };
        }),
      );
    },

    /** The node's current key id (it changes when a heartbeat signed by the next key arrives). */
    async readNodeKey(input: { readonly nodeId: string }): Promise<{ keyId: string; pending: boolean }> {
      return typed(async () => {
        const node = await existingNode(db, input.nodeId);
        return { keyId: node.keyId, pending: node.nextKeyId !== null };
      });
    },
  };
}
