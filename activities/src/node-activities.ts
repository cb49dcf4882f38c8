import type { KeyObject } from 'node:crypto';
import { signNodeCredential } from '@lunanexa/agent-protocol';
import {
  DEFAULT_NODE_CREDENTIAL_TTL_SECONDS,
  ErrorCode,
  LunaNexaError,
  type NodeLifecycleState,
} from '@lunanexa/contracts';
import {
  controllerKeyRefusalIsTransient,
  nodeActionRefusal,
  nodeLifecycle,
  transition,
  type NodeEvent,
} from '@lunanexa/domain';
import { findNode, listAssignments, type NodeRow } from '@lunanexa/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from './clock';
import { ControllerKeyRefusedError } from './southbound';
import {
  currentWorkflowId,
  receiptedTransaction,
  receiptOnce,
  southboundTarget,
  typed,
  type SouthboundPort,
} from './fleet-support';

export interface ControllerSigningIdentity {
  readonly privateKey: KeyObject;
  /** ed25519KeyId of the controller public key: what agents trust it under. */
  readonly keyId: string;
}

export interface NodeActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
  readonly controller: ControllerSigningIdentity;
  readonly southbound: SouthboundPort;
}

export interface NodeStepInput {
  readonly nodeId: string;
  readonly actor: string;
  readonly correlationId: string;
}

export interface Receipt {
  readonly seq: number;
  readonly hash: string;
}

async function lockedNode(manager: EntityManager, nodeId: string): Promise<NodeRow> {
  const node = await findNode(manager, nodeId, { forUpdate: true });
  if (!node) throw new LunaNexaError(ErrorCode.NOT_FOUND, `node ${nodeId} does not exist`);
  return node;
}

/**
 * Applies a lifecycle event unless the node is already where it leads (a
 * retried activity, or two workflows racing to the same end). Returns the
 * state before and after.
 */
async function applyNodeEvent(
  manager: EntityManager,
  node: NodeRow,
  event: NodeEvent,
  now: Date,
): Promise<{ from: NodeLifecycleState; to: NodeLifecycleState; changed: boolean }> {
  const to = transition(nodeLifecycle, node.lifecycle, event);
  await manager.query(`UPDATE nodes SET lifecycle = $2, updated_at = $3 WHERE id = $1`, [node.id, to, now]);
  return { from: node.lifecycle, to, changed: true };
}

export function createNodeActivities({ db, clock, controller, southbound }: NodeActivityPorts) {
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
            await manager.query(
              `UPDATE nodes SET credential = $2::jsonb, credential_serial = $3, credential_expires_at = $4,
                                updated_at = $5 WHERE id = $1`,
              [node.id, JSON.stringify(credential), serial, credential.document.expiresAt, now],
            );
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
        const node = await findNode(db, input.nodeId);
        if (!node) throw new LunaNexaError(ErrorCode.NOT_FOUND, `node ${input.nodeId} does not exist`);
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

    /** Asks the agent (through its next heartbeat acks) for a new key; returns the key being replaced. */
    async requestKeyRotation(input: NodeStepInput): Promise<{ keyId: string; receipt: Receipt }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const node = await lockedNode(manager, input.nodeId);
          const refusal = nodeActionRefusal(node, 'rotateCredential');
          if (refusal !== null) throw new LunaNexaError(ErrorCode.INVALID_TRANSITION, refusal);
          const now = clock.now();
          const existing = await manager.query<{ evidence: { previousKeyId: string } }[]>(
            `SELECT evidence FROM audit_events WHERE workflow_id = $1 AND action = 'node.credential.rotate.request' LIMIT 1`,
            [workflowId],
          );
          const previousKeyId = existing[0]?.evidence.previousKeyId ?? node.keyId;
          if (node.keyId === previousKeyId && node.rotationRequestedAt === null) {
            await manager.query(
              `UPDATE nodes SET rotation_requested_at = $2, updated_at = $2 WHERE id = $1`,
              [node.id, now],
            );
          }
          const receipt = await receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'node.credential.rotate.request',
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
        const node = await findNode(db, input.nodeId);
        if (!node) throw new LunaNexaError(ErrorCode.NOT_FOUND, `node ${input.nodeId} does not exist`);
        return { keyId: node.keyId, pending: node.nextKeyId !== null };
      });
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

    /** Cordons and moves Active → Draining; the gateway stops routing to the node at its next refresh. */
    async beginDrain(input: NodeStepInput): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const node = await lockedNode(manager, input.nodeId);
          const now = clock.now();
          if (node.lifecycle === 'Active') await applyNodeEvent(manager, node, 'drain', now);
          else if (node.lifecycle !== 'Draining' && node.lifecycle !== 'Drained') {
            transition(nodeLifecycle, node.lifecycle, 'drain');
          }
          await manager.query(`UPDATE nodes SET cordoned = true, updated_at = $2 WHERE id = $1`, [
            node.id,
            now,
          ]);
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'node.drain.start',
            step: 'start',
            evidence: { nodeId: node.id, nodeName: node.name, from: node.lifecycle },
            correlationId: input.correlationId,
            occurredAt: now,
          });
        }),
      );
    },

    /**
     * What the node is serving, as its agent last reported: replicas intended
     * to run there, their in-flight requests, and the deployments they belong
     * to (whose workflows own stopping them).
     */
    async nodeWorkload(input: { readonly nodeId: string }): Promise<{
      replicas: number;
      inFlight: number;
      runningDeploymentIds: string[];
      stillRunning: number;
      reachable: boolean;
    }> {
      return typed(async () => {
        const node = await findNode(db, input.nodeId);
        if (!node) throw new LunaNexaError(ErrorCode.NOT_FOUND, `node ${input.nodeId} does not exist`);
        const assignments = await listAssignments(db, { nodeId: node.id });
        const running = assignments.filter((a) => a.intent === 'Run');
        const stillRunning = assignments.filter(
          (a) => a.observedState !== null && !['Stopped', 'Failed'].includes(a.observedState),
        ).length;
        return {
          replicas: running.length,
          inFlight: running.reduce((sum, a) => sum + (a.inFlight ?? 0), 0),
          runningDeploymentIds: [...new Set(running.map((a) => a.deploymentId))].sort(),
          stillRunning,
          reachable: node.leaseExpiresAt !== null && node.leaseExpiresAt.getTime() > clock.now().getTime(),
        };
      });
    },

    async completeDrain(
      input: NodeStepInput & { readonly evidence: Record<string, unknown> },
    ): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const node = await lockedNode(manager, input.nodeId);
          const now = clock.now();
          if (node.lifecycle === 'Draining') await applyNodeEvent(manager, node, 'completeDrain', now);
          else if (node.lifecycle !== 'Drained') transition(nodeLifecycle, node.lifecycle, 'completeDrain');
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'node.drain.complete',
            step: 'complete',
            evidence: { nodeId: node.id, nodeName: node.name, ...input.evidence },
            correlationId: input.correlationId,
            occurredAt: now,
          });
        }),
      );
    },
  };
}

export type NodeActivities = ReturnType<typeof createNodeActivities>;
