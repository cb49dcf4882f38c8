import { signNodeCredential } from '@lunanexa/agent-protocol';
import { DEFAULT_NODE_CREDENTIAL_TTL_SECONDS, ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { controllerKeyRefusalIsTransient, nodeLifecycle, transition } from '@lunanexa/domain';
import { storeNodeCredential } from '@lunanexa/persistence';
import {
  currentWorkflowId,
  receiptedTransaction,
  receiptOnce,
  southboundTarget,
  typed,
  type Receipt,
} from '../fleet-support';
import { ControllerKeyRefusedError } from '../southbound';
import { applyNodeEvent, existingNode, lockedNode } from './node-row';
import type { NodeActivityPorts, NodeStepInput } from './ports';

/** The enrollment workflow's steps: approve or reject, credential, first contact, activation. */
export function enrollActivities({ db, clock, controller, southbound }: NodeActivityPorts) {
  return {
    /** Pending → Approved; a node already past Pending (a retry) is left alone. */
    async approveNode(input: NodeStepInput & { readonly auto: boolean }): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const node = await lockedNode(manager, input.nodeId);
          const now = clock.now();
          if (node.lifecycle === 'Pending') await applyNodeEvent(manager, node, 'approve', now);
          else if (!['Approved', 'Active'].includes(node.lifecycle)) {
            transition(nodeLifecycle, node.lifecycle, 'approve');
          }
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'node.approve',
            step: 'approve',
            evidence: { nodeId: node.id, nodeName: node.name, auto: input.auto, keyId: node.keyId },
            correlationId: input.correlationId,
            occurredAt: now,
          });
        }),
      );
    },

    async rejectNode(input: NodeStepInput & { readonly reason: string }): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const node = await lockedNode(manager, input.nodeId);
          const now = clock.now();
          if (node.lifecycle !== 'Rejected') await applyNodeEvent(manager, node, 'reject', now);
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'node.reject',
            step: 'reject',
            evidence: { nodeId: node.id, nodeName: node.name, reason: input.reason },
            correlationId: input.correlationId,
            occurredAt: now,
          });
        }),
      );
    },

    /**
     * Signs a credential for the node's current key. One per key: a retry,
     * or a second workflow for the same key, gets the credential already
     * issued; a rotated key gets the next serial.
     */
    async issueNodeCredential(
      input: NodeStepInput,
    ): Promise<{ serial: number; keyId: string; receipt: Receipt }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const node = await lockedNode(manager, input.nodeId);
          if (!['Approved', 'Active', 'Draining', 'Drained'].includes(node.lifecycle)) {
            throw new LunaNexaError(
              ErrorCode.INVALID_TRANSITION,
              `node ${node.name} is ${node.lifecycle}; credentials are issued to approved nodes only`,
            );
          }
          const now = clock.now();
          const held = node.credential as { document?: { keyId?: string; serial?: number } } | null;
          let serial = node.credentialSerial;
          if (held?.document?.keyId !== node.keyId) {
            serial = node.credentialSerial + 1;
            const credential = signNodeCredential(controller.privateKey, {
              nodeId: node.id,
              nodeName: node.name,
              keyId: node.keyId,
              serial,
              issuedAt: now.toISOString(),
              expiresAt: new Date(now.getTime() + DEFAULT_NODE_CREDENTIAL_TTL_SECONDS * 1000).toISOString(),
              issuer: controller.keyId,
            });
            await storeNodeCredential(manager, {
              nodeId: node.id,
              credential,
              serial,
              expiresAt: credential.document.expiresAt,
              at: now,
            });
          }
          const receipt = await receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'node.credential.issue',
            step: `serial-${serial}`,
            evidence: { nodeId: node.id, nodeName: node.name, keyId: node.keyId, serial },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return { serial, keyId: node.keyId, receipt };
        }),
      );
    },

    /**
     * The controller reaches the agent over SSH: the host key must be the one
     * pinned at enrollment, the agent must accept the controller key, and its
     * status report must verify with the node key. Retried while the agent is
     * not answering (DEPENDENCY_UNAVAILABLE), and while an Approved node's
     * agent refuses the controller key because its enrollment answer was lost
     * and it is still asking for it; a host-key mismatch is final.
     */
    async checkNodeReachable(input: NodeStepInput): Promise<{ assignments: number }> {
      return typed(async () => {
        const node = await existingNode(db, input.nodeId);
        try {
          const report = await southbound.status(southboundTarget(node));
          return { assignments: report.assignments.length };
        } catch (error: unknown) {
          if (error instanceof ControllerKeyRefusedError && controllerKeyRefusalIsTransient(node.lifecycle)) {
            throw new LunaNexaError(
              ErrorCode.DEPENDENCY_UNAVAILABLE,
              `${error.message}; node ${node.name} is ${node.lifecycle} and its agent learns the controller key ` +
                'from its enrollment answer, which has not reached it yet (it retries enrolling): asking again',
            );
          }
          throw error;
        }
      });
    },

    /** Approved (or Drained) → Active, with the receipt that closes enrollment. */
    async activateNode(input: NodeStepInput & { readonly step: string }): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const node = await lockedNode(manager, input.nodeId);
          const now = clock.now();
          if (node.lifecycle !== 'Active') await applyNodeEvent(manager, node, 'activate', now);
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'node.activate',
            step: input.step,
            evidence: {
              nodeId: node.id,
              nodeName: node.name,
              address: node.address,
              hostKeyFingerprint: node.hostKeyFingerprint,
              gpus: node.inventory.gpus.length,
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
        }),
      );
    },

    async recordNodeEvent(
      input: NodeStepInput & {
        readonly action: string;
        readonly step: string;
        readonly evidence: Record<string, unknown>;
      },
    ): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) =>
          receiptOnce(manager, currentWorkflowId(), {
            actor: input.actor,
            action: input.action,
            step: input.step,
            evidence: { nodeId: input.nodeId, ...input.evidence },
            correlationId: input.correlationId,
            occurredAt: clock.now(),
          }),
        ),
      );
    },
  };
}
