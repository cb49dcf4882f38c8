import { isDeepStrictEqual } from 'node:util';
import { createHash, randomUUID, verify, type KeyObject } from 'node:crypto';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import {
  DEFAULT_MAX_SKEW_MS,
  ENVELOPE_SCHEMAS,
  EnvelopeHeaderSchema,
  ReplayGuard,
  createEnvelope,
  ed25519KeyId,
  MAC_ALGORITHM,
  macEnvelope,
  openSshPublicKey,
  parseEd25519PublicKey,
  rotationProofInput,
  signEnvelope,
  verifyEnvelope,
  violationsOf,
  type EnrollRequestBody,
  type ControllerKeysResponse,
  type Envelope,
  type EnvelopeHeader,
  type HeartbeatBody,
  type HeartbeatMacKeys,
} from '@lunanexa/agent-protocol';
import {
  DEFAULT_HEARTBEAT_INTERVAL_SECONDS,
  DEPLOYMENT_SIGNALS,
  ErrorCode,
  LunaNexaError,
  WORKFLOW_TYPES,
  type EnrollNodeWorkflowInput,
  type NodeLifecycleState,
} from '@lunanexa/contracts';
import {
  agentProtocolOf,
  heartbeatObservation,
  nextNodeConditions,
  nodeConditionTransitions,
  nodeKeyTrust,
  takesControllerKeyNotice,
  takesInventoryDigest,
  type NodeKeyTrust,
} from '@lunanexa/domain';
import type { Logger, RequestIds } from '@lunanexa/observability';
import {
  bootstrapTokenAutoApproves,
  findBootstrapTokenByHash,
  insertPendingNode,
  markBootstrapTokenUsed,
  recordNodeHeartbeat,
  findNode,
  findNodeKeys,
  type HeartbeatAckNode,
  type NodeKeysRow,
  recordAssignmentObservations,
  type NodeRow,
  withPreparedStatements,
} from '@lunanexa/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import { DeploymentSignals } from './deployment-signals';
import { GpuSampleWriter } from './gpu-sample-writer';
import {
  digestOf,
  inventoryToRecord,
  withRecordedInventory,
  type HeartbeatEnvelopeWithInventory,
} from './heartbeat-inventory';
import { HeartbeatMacKeyCache } from './heartbeat-mac-keys';
import { LeaseRenewalBatcher } from './lease-renewals';
import { NodeChangeAnnouncer } from './node-change-announcer';
import { AuditWriter, CONTROLLER_KEY, Denied, type ControllerKeyRing, type HeldRingKey } from '../auth';
import { API_CONFIG, DEFAULT_AGENT_REPLAY_CAPACITY, API_LOGGER, type ApiConfig } from '../config';
import { HEARTBEAT_DB } from '../infrastructure/infrastructure.module';
import { WorkflowRunner } from '../infrastructure/workflow-runner';

/** A heartbeat whose signature or MAC checked out, with the node key behind it. */
interface VerifiedHeartbeat {
  readonly envelope: Envelope & { type: 'heartbeat' };
  readonly nodeKeyId: string;
  /** The MAC keys it was authenticated with; null when it was signed. */
  readonly macKeys: HeartbeatMacKeys | null;
}

/** How long a Pending node waits for an operator before EnrollNode rejects it. */
export const APPROVAL_TIMEOUT_SECONDS = 7 * 24 * 3600;

export function hashBootstrapToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function enrollWorkflowId(nodeId: string): string {
  return `enroll-node/${nodeId}`;
}

/** The first characters of a presented token, safe for audit evidence (never the whole secret). */
function tokenPrefixOf(token: unknown): string | null {
  return typeof token === 'string' && token.startsWith('lnxb_') ? token.slice(0, 13) : null;
}

function peekBody(raw: unknown): Record<string, unknown> {
  const body = (raw as { body?: unknown } | null)?.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}

/**
 * The agent → controller half of the southbound channel (DESIGN.md):
 * `POST /agent/v1/enroll` and `POST /agent/v1/heartbeat`. Agents authenticate
 * by signature, not by operator credentials: enrollment with the key it
 * presents (proof of possession) plus a single-use bootstrap token,
 * heartbeats with the enrolled node key. Every refusal is typed, audited, and
 * changes nothing.
 */
@Injectable()
export class AgentChannelService implements OnApplicationShutdown {
  private readonly replayGuard: ReplayGuard;
  /** Nodes whose EnrollNode workflow this process has seen started; saves a Temporal call per heartbeat. */
  private readonly enrollWorkflowsKnown = new Set<string>();
  /**
   * Each node's keys, lifecycle and conditions as this process last wrote or read them: the common heartbeat
   * needs no read first. Never trusted on its own: the renewal applies only where the row still matches
   * (key, no rotation, conditions, not Rejected or Revoked), and a mismatch re-reads the node.
   */
  private readonly nodeKeysSeen = new Map<string, NodeKeysRow>();
  /** Parsed public keys by their text: importing a key costs more than verifying a signature with it. */
  private readonly publicKeys = new Map<string, KeyObject>();
  private readonly renewals: LeaseRenewalBatcher;
  private readonly deploymentSignals: DeploymentSignals;
  private readonly gpuSamples: GpuSampleWriter;
  private readonly macKeys: HeartbeatMacKeyCache;

  constructor(
    /** Heartbeat ingest's own pool: lease renewals never queue behind audited writes. */
    @Inject(HEARTBEAT_DB) private readonly db: DataSource,
    private readonly audit: AuditWriter,
    private readonly workflows: WorkflowRunner,
    private readonly announcer: NodeChangeAnnouncer,
    @Inject(CONTROLLER_KEY) private readonly ring: ControllerKeyRing,
    @Inject(API_LOGGER) private readonly logger: Logger,
    @Inject(API_CONFIG)
    private readonly config: Pick<ApiConfig, 'LUNANEXA_NODE_LEASE_SECONDS'> &
      Partial<Pick<ApiConfig, 'LUNANEXA_AGENT_REPLAY_CAPACITY'>>,
  ) {
    // Every envelope nonce is kept for the skew window: at 1 s heartbeats that is 120 per node, so the guard is
    // sized to the fleet, not to the library's default.
    this.replayGuard = new ReplayGuard({
      windowMs: DEFAULT_MAX_SKEW_MS,
      capacity: config.LUNANEXA_AGENT_REPLAY_CAPACITY ?? DEFAULT_AGENT_REPLAY_CAPACITY,
    });
    this.gpuSamples = new GpuSampleWriter(db, logger);
    this.deploymentSignals = new DeploymentSignals((workflowId) => this.signalDeployment(workflowId));
    this.renewals = new LeaseRenewalBatcher(withPreparedStatements(db), (workflowIds) =>
      this.tellDeployments(workflowIds),
    );
    this.macKeys = new HeartbeatMacKeyCache(ring, (text) => this.publicKey(text));
  }

  /** GPU samples still gathering go out before the pools close. */
  async onApplicationShutdown(): Promise<void> {
    await this.gpuSamples.flush();
  }

  private publicKey(text: string): KeyObject {
    let key = this.publicKeys.get(text);
    if (key === undefined) {
      key = parseEd25519PublicKey(text);
      // Bounded: rotated-away keys are never asked for again.
      if (this.publicKeys.size >= 100_000) this.publicKeys.clear();
      this.publicKeys.set(text, key);
    }
    return key;
  }

  private sign<T extends 'enroll.response' | 'heartbeat.ack'>(
    type: T,
    nodeId: string,
    body: Envelope extends infer E ? (E extends { type: T; body: infer B } ? B : never) : never,
    signer: HeldRingKey = this.ring.current(),
  ): Envelope {
    return signEnvelope(signer.privateKey, signer.keyId, createEnvelope(type, { nodeId, body } as never));
  }

  private refuse(
    action: string,
    ids: RequestIds,
    actor: string,
    evidence: Record<string, unknown>,
    error: LunaNexaError,
  ): Promise<never> {
    return this.audit.refusal({ actor, action, ids }, { ...evidence, errorCode: error.code }).then(() => {
      throw error;
    });
  }

  // ---------------------------------------------------------------------------
  // Enrollment

  async enroll(raw: unknown, ids: RequestIds, remoteAddress: string): Promise<Envelope> {
    const claimedName =
      typeof (raw as { nodeId?: unknown } | null)?.nodeId === 'string'
        ? String((raw as { nodeId: string }).nodeId).slice(0, 64)
        : null;
    const evidence = {
      nodeName: claimedName,
      tokenPrefix: tokenPrefixOf(peekBody(raw)['bootstrapToken']),
      remoteAddress,
    };
    const actor = claimedName ? `node:${claimedName}` : 'node:unknown';
    let request: { envelope: Envelope & { type: 'enroll.request' }; body: EnrollRequestBody };
    try {
      request = this.verifyEnrollRequest(raw);
    } catch (error) {
      if (error instanceof LunaNexaError) return this.refuse('node.enroll', ids, actor, evidence, error);
      throw error;
    }
    const { body, envelope } = request;
    const nodeId = `node-${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const now = new Date();
    const enrolled = await this.audit.change(
      { actor, action: 'node.enroll', ids },
      {
        ...evidence,
        nodeId,
        keyId: envelope.signature.keyId,
        hostKeyFingerprint: body.ssh.hostKeyFingerprint,
      },
      async (manager) => {
        const found = await findBootstrapTokenByHash(manager, hashBootstrapToken(body.bootstrapToken), {
          forUpdate: true,
        });
        const deny = (code: ErrorCode, message: string): Denied =>
          new Denied(new LunaNexaError(code, message));
        if (!found || found.revokedAt !== null) {
          throw deny(ErrorCode.TOKEN_UNKNOWN, 'the bootstrap token is not known here (or was revoked)');
        }
        if (found.usedAt !== null) {
          // The same agent asking again (its first answer was lost) gets the same enrollment; anyone else is refused.
          const holder = found.usedByNodeId === null ? null : await findNode(manager, found.usedByNodeId);
          if (holder && holder.name === body.nodeName && holder.publicKey === body.publicKey) {
            return {
              value: { autoApprove: found.autoApprove, nodeId: holder.id, lifecycle: holder.lifecycle },
              evidence: { tokenId: found.id, nodeId: holder.id, repeated: true },
            };
          }
          throw deny(ErrorCode.TOKEN_REUSED, 'the bootstrap token was already used; create a new one');
        }
        if (found.expiresAt.getTime() <= now.getTime()) {
          throw deny(
            ErrorCode.TOKEN_EXPIRED,
            `the bootstrap token expired at ${found.expiresAt.toISOString()}`,
          );
        }
        if (found.nodeName !== null && found.nodeName !== body.nodeName) {
          throw deny(ErrorCode.VALIDATION_FAILED, `the bootstrap token is for node ${found.nodeName}`);
        }
        if (await findNode(manager, body.nodeName)) {
          throw deny(ErrorCode.CONFLICT, `a node named ${body.nodeName} is already enrolled`);
        }
        await markBootstrapTokenUsed(manager, found.id, now, nodeId);
        await insertPendingNode(manager, {
          id: nodeId,
          name: body.nodeName,
          labels: { ...body.labels, ...found.labels },
          address: body.address,
          sshPort: body.ssh.port,
          hostKeyFingerprint: body.ssh.hostKeyFingerprint,
          keyId: envelope.signature.keyId,
          publicKey: body.publicKey,
          inventory: body.inventory,
          enrollWorkflowId: enrollWorkflowId(nodeId),
          bootstrapTokenId: found.id,
          enrolledAt: now,
        });
        const lifecycle: NodeLifecycleState = 'Pending';
        return {
          value: { autoApprove: found.autoApprove, nodeId, lifecycle },
          evidence: { tokenId: found.id, autoApprove: found.autoApprove },
        };
      },
    );
    // The node is committed; if starting the workflow fails here, the next heartbeat starts it.
    await this.ensureEnrollWorkflow(enrolled.nodeId, enrolled.autoApprove, actor, ids).catch(
      (error: unknown) => {
        this.logger.warn(
          { err: error, nodeId: enrolled.nodeId },
          'EnrollNode not started yet; the next heartbeat retries',
        );
      },
    );
    return this.sign('enroll.response', enrolled.nodeId, {
      inReplyTo: envelope.id,
      nodeId: enrolled.nodeId,
      nodeName: body.nodeName,
      lifecycle: enrolled.lifecycle,
      workflowId: enrollWorkflowId(enrolled.nodeId),
      controllerKeyId: this.ring.current().keyId,
      controllerPublicKey: openSshPublicKey(this.ring.current().publicKey),
      heartbeatIntervalSeconds: DEFAULT_HEARTBEAT_INTERVAL_SECONDS,
      leaseDurationSeconds: this.config.LUNANEXA_NODE_LEASE_SECONDS,
    });
  }

  private verifyEnrollRequest(raw: unknown): {
    envelope: Envelope & { type: 'enroll.request' };
    body: EnrollRequestBody;
  } {
    const parsed = ENVELOPE_SCHEMAS['enroll.request'].safeParse(raw);
    if (!parsed.success) {
      throw new LunaNexaError(
        ErrorCode.VALIDATION_FAILED,
        'not an enroll.request envelope',
        violationsOf(parsed.error),
      );
    }
    const publicKey = parseEd25519PublicKey(parsed.data.body.publicKey);
    const keyId = ed25519KeyId(publicKey);
    if (parsed.data.signature.keyId !== keyId) {
      throw new LunaNexaError(
        ErrorCode.SIGNATURE_INVALID,
        'the request is not signed by the key it presents',
      );
    }
    const envelope = verifyEnvelope(new Map([[keyId, publicKey]]), raw, {
      now: new Date(),
      replayGuard: this.replayGuard,
      types: ['enroll.request'],
    }) as Envelope & { type: 'enroll.request' };
    return { envelope, body: envelope.body };
  }

  /** Starts EnrollNode for a node (idempotent: the workflow id is the node's). */
  async ensureEnrollWorkflow(
    nodeId: string,
    autoApprove: boolean,
    actor: string,
    ids: RequestIds,
  ): Promise<void> {
    if (this.enrollWorkflowsKnown.has(nodeId)) return;
    const input: EnrollNodeWorkflowInput = {
      nodeId,
      autoApprove,
      approvalTimeoutSeconds: APPROVAL_TIMEOUT_SECONDS,
      actor,
      correlationId: ids.correlationId,
      requestId: ids.requestId,
    };
    await this.workflows.start(WORKFLOW_TYPES.enrollNode, {
      workflowId: enrollWorkflowId(nodeId),
      args: [input],
      correlationId: ids.correlationId,
      actor,
      nodeId,
    });
    this.enrollWorkflowsKnown.add(nodeId);
  }

  // ---------------------------------------------------------------------------
  // Heartbeats

  /**
   * `receivedAt` is when the request reached this process (the route takes it before reading the body): the
   * clock-skew sample compares it with the heartbeat's `sentAt`, so time the request then spent queued here
   * (a busy event loop, a batch being written) is not mistaken for the node's clock being behind.
   */
  async heartbeat(
    raw: unknown,
    ids: RequestIds,
    remoteAddress: string,
    receivedAt: Date = new Date(),
  ): Promise<Envelope> {
    const header = EnvelopeHeaderSchema.safeParse(raw);
    const claimedNode = header.success ? header.data.nodeId : null;
    const evidence = {
      nodeId: claimedNode,
      keyId: header.success ? header.data.signature.keyId : null,
      remoteAddress,
    };
    const actor = claimedNode ? `node:${claimedNode}` : 'node:unknown';
    if (!header.success || header.data.type !== 'heartbeat') {
      const error = new LunaNexaError(
        ErrorCode.VALIDATION_FAILED,
        'not a heartbeat envelope',
        header.success ? [{ path: 'type', message: 'must be heartbeat' }] : violationsOf(header.error),
      );
      return this.refuse('node.heartbeat', ids, actor, evidence, error);
    }
    const seen = this.nodeKeysSeen.get(header.data.nodeId);
    let node = seen ?? (await findNodeKeys(this.db, header.data.nodeId));
    // An unknown node and a wrong key look the same from outside: nothing here trusts the sender.
    const unknown = (): Promise<never> =>
      this.refuse(
        'node.heartbeat',
        ids,
        actor,
        evidence,
        new LunaNexaError(ErrorCode.SIGNATURE_INVALID, 'no enrolled node key matches this heartbeat'),
      );
    const forbidden = (n: NodeKeysRow): Promise<never> =>
      this.refuse(
        'node.heartbeat',
        ids,
        `node:${n.name}`,
        evidence,
        new LunaNexaError(ErrorCode.FORBIDDEN, `node ${n.name} is ${n.lifecycle}`),
      );
    if (!node) return unknown();
    if (node.lifecycle === 'Rejected' || node.lifecycle === 'Revoked') return forbidden(node);
    let verified: VerifiedHeartbeat;
    try {
      try {
        verified = this.verifyHeartbeat(node, raw, header.data);
      } catch (error) {
        // What this process remembered may be stale (the node's key rotated through another api replica): read it.
        if (
          !(error instanceof LunaNexaError) ||
          error.code !== ErrorCode.SIGNATURE_INVALID ||
          seen === undefined
        )
          throw error;
        this.nodeKeysSeen.delete(node.id);
        node = await findNodeKeys(this.db, node.id);
        if (!node) return unknown();
        if (node.lifecycle === 'Rejected' || node.lifecycle === 'Revoked') return forbidden(node);
        verified = this.verifyHeartbeat(node, raw, header.data);
      }
    } catch (error) {
      if (error instanceof LunaNexaError)
        return this.refuse('node.heartbeat', ids, `node:${node.name}`, evidence, error);
      throw error;
    }
    const { nodeKeyId, macKeys } = verified;
    let withInventory = withRecordedInventory(node.inventory, verified.envelope);
    if (withInventory === null && seen !== undefined) {
      // What this process remembered may be stale (an inventory recorded through another api replica): read it.
      this.nodeKeysSeen.delete(node.id);
      node = await findNodeKeys(this.db, node.id);
      if (!node) return unknown();
      withInventory = withRecordedInventory(node.inventory, verified.envelope);
    }
    if (withInventory === null) {
      // The agent sends its inventory again after any refusal: one heartbeat later the controller has it.
      return this.refuse(
        'node.heartbeat',
        ids,
        `node:${node.name}`,
        evidence,
        new LunaNexaError(
          ErrorCode.CONFLICT,
          `the controller holds no inventory with digest ${verified.envelope.body.heartbeat.inventoryDigest ?? ''} for node ${node.name}: send the inventory`,
        ),
      );
    }
    const envelope = withInventory;
    let outcome: {
      node: HeartbeatAckNode;
      refusalsRecorded: number;
      leaseExpiresAt: Date;
      changedDeploymentWorkflowIds: readonly string[];
    };
    try {
      let renewed = await this.renewLease(node, envelope, nodeKeyId, receivedAt);
      if (renewed === null && seen !== undefined) {
        // What this process remembered may be stale (another api replica, an operator, the worker): read it.
        this.nodeKeysSeen.delete(node.id);
        node = await findNodeKeys(this.db, node.id);
        if (!node) return unknown();
        if (node.lifecycle === 'Rejected' || node.lifecycle === 'Revoked') return forbidden(node);
        // A key id names exactly one key (its hash), so the signature checked above holds for this row's key of that id.
        if (nodeKeyId !== node.keyId && nodeKeyId !== node.nextKeyId) {
          return this.refuse(
            'node.heartbeat',
            ids,
            `node:${node.name}`,
            evidence,
            new LunaNexaError(ErrorCode.SIGNATURE_INVALID, `key ${nodeKeyId} is not trusted here`),
          );
        }
        renewed = await this.renewLease(node, envelope, nodeKeyId, receivedAt);
      }
      if (renewed === null) this.nodeKeysSeen.delete(node.id);
      const nodeId = node.id;
      outcome =
        renewed ??
        (await this.db.transaction((manager) =>
          this.applyHeartbeat(manager, nodeId, envelope, nodeKeyId, ids, receivedAt),
        ));
    } catch (error) {
      if (error instanceof LunaNexaError)
        return this.refuse('node.heartbeat', ids, `node:${node?.name ?? 'unknown'}`, evidence, error);
      throw error;
    }
    const current = outcome.node;
    this.announcer.changed(current.id);
    this.tellDeployments(outcome.changedDeploymentWorkflowIds);
    // The console's GPU charts: at most one sample per node per 15 s, written in batches; the ack does not wait.
    this.gpuSamples.add({
      nodeId: current.id,
      at: new Date(),
      telemetry: envelope.body.heartbeat.gpuTelemetry,
    });
    if (
      (current.lifecycle === 'Pending' || current.lifecycle === 'Approved') &&
      !this.enrollWorkflowsKnown.has(current.id)
    ) {
      await this.ensureEnrollWorkflow(
        current.id,
        await bootstrapTokenAutoApproves(this.db, current.bootstrapTokenId),
        `node:${current.name}`,
        ids,
      ).catch((error: unknown) =>
        this.logger.warn({ err: error, nodeId: current.id }, 'EnrollNode start retried later'),
      );
    }
    const { body } = envelope;
    const credential =
      current.credential !== null && current.credentialSerial > (body.credentialSerial ?? 0)
        ? current.credential
        : null;
    // During a controller key overlap a node that has not added the new key yet is answered with the previous
    // one, whose notice names the new key: it catches up instead of being cut off.
    const signer = this.ring.forNode(body.controllerKeyIds);
    // Agents older than a member refuse an ack carrying it, and their leases would lapse (version skew).
    const protocol = agentProtocolOf(body.heartbeat.inventory);
    const ack = {
      inReplyTo: envelope.id,
      sequence: body.heartbeat.sequence,
      lifecycle: current.lifecycle,
      cordoned: current.cordoned,
      leaseExpiresAt: outcome.leaseExpiresAt.toISOString(),
      credential: credential as never,
      rotateKey: current.rotationRequestedAt !== null && current.nextKeyId === null,
      refusalsRecorded: outcome.refusalsRecorded,
      ...(takesControllerKeyNotice(protocol) ? { controllerKeys: this.ring.notice(signer) } : {}),
      // What the node's next heartbeats may send instead of this inventory while it has not changed.
      ...(takesInventoryDigest(protocol) ? { inventoryDigest: digestOf(body.heartbeat.inventory) } : {}),
    };
    // A MAC'd heartbeat is answered with the same keys while they were agreed with the key that would sign for
    // this node; otherwise the ack is signed, and the agent agrees new keys with its signer.
    if (macKeys !== null && envelope.signature.keyId === signer.keyId) {
      return macEnvelope(
        macKeys.controllerToAgent,
        signer.keyId,
        createEnvelope('heartbeat.ack', { nodeId: current.id, body: ack }),
      );
    }
    return this.sign('heartbeat.ack', current.id, ack, signer);
  }

  /**
   * Checks a heartbeat's signature by the node's current or next key, or its
   * MAC by the keys agreed between the node's current key and a controller
   * key this process holds (HeartbeatMacKeyCache). `nodeKeyId` is the node
   * key that authenticated it either way.
   */
  private verifyHeartbeat(node: NodeKeysRow, raw: unknown, header: EnvelopeHeader): VerifiedHeartbeat {
    const keys = new Map([[node.keyId, this.publicKey(node.publicKey)]]);
    if (node.nextKeyId !== null && node.nextPublicKey !== null) {
      keys.set(node.nextKeyId, this.publicKey(node.nextPublicKey));
    }
    const agreed: { keys: HeartbeatMacKeys | undefined } = { keys: undefined };
    const envelope = verifyEnvelope(keys, raw, {
      now: new Date(),
      nodeId: node.id,
      types: ['heartbeat'],
      replayGuard: this.replayGuard,
      header,
      macKey: (controllerKeyId) => {
        agreed.keys = this.macKeys.of(node, controllerKeyId);
        return agreed.keys?.agentToController;
      },
    }) as Envelope & { type: 'heartbeat' };
    if (envelope.signature.alg !== MAC_ALGORITHM)
      return { envelope, nodeKeyId: envelope.signature.keyId, macKeys: null };
    return { envelope, nodeKeyId: node.keyId, macKeys: agreed.keys ?? null };
  }

  /** The controller keys a node may still trust, for `GET /agent/v1/controller-keys`. */
  controllerKeys(): ControllerKeysResponse {
    return {
      keys: this.ring.records().flatMap((key) =>
        key.state === 'retired'
          ? []
          : [
              {
                keyId: key.keyId,
                publicKey: key.publicKey,
                sshFingerprint: key.sshFingerprint,
                state: key.state,
              },
            ],
      ),
    };
  }

  /** Whether the node can verify what the controller signs for it, from the key ids its heartbeat reported. */
  private keyTrust(body: HeartbeatBody): NodeKeyTrust {
    return nodeKeyTrust(this.ring.records(), body.controllerKeyIds);
  }

  /**
   * The common heartbeat — current key, no rotation, same endpoint, no
   * refusals to record — as one statement (persistence renewNodeLease); null
   * sends it down the full path (applyHeartbeat), which also explains any
   * refusal (a replayed sequence, say).
   */
  private async renewLease(
    node: NodeKeysRow,
    envelope: HeartbeatEnvelopeWithInventory,
    nodeKeyId: string,
    receivedAt: Date,
  ): Promise<{
    node: HeartbeatAckNode;
    refusalsRecorded: number;
    leaseExpiresAt: Date;
    changedDeploymentWorkflowIds: readonly string[];
  } | null> {
    const { heartbeat, refusals, nextKey, endpoint } = envelope.body;
    if (nodeKeyId !== node.keyId || node.nextKeyId !== null) return null;
    // Refusals and orphan reports are audited, which needs the full path's transaction.
    if (
      refusals.length > 0 ||
      (envelope.body.orphanReports ?? []).length > 0 ||
      (nextKey !== null && nextKey !== undefined && nextKey.keyId !== node.keyId)
    )
      return null;
    const now = new Date();
    const leaseExpiresAt = new Date(now.getTime() + this.config.LUNANEXA_NODE_LEASE_SECONDS * 1000);
    const conditions = nextNodeConditions(
      node.conditionsState,
      heartbeatObservation(heartbeat, receivedAt, node.gpuUuids, this.keyTrust(envelope.body)),
    );
    // A condition changing status is audited, which needs the full path's transaction.
    if (nodeConditionTransitions(node.conditionsState, conditions).length > 0) return null;
    const renewed = await this.renewals.renew({
      nodeId: node.id,
      keyId: node.keyId,
      sequence: heartbeat.sequence,
      at: now,
      leaseExpiresAt,
      inventory: inventoryToRecord(heartbeat),
      observed: { observedAssignments: heartbeat.observedAssignments, runtimes: heartbeat.runtimes },
      gpuTelemetry: heartbeat.gpuTelemetry,
      conditions,
      previousConditions: node.conditionsState,
      agentCredentialSerial: envelope.body.credentialSerial,
      endpoint: endpoint ?? null,
      observedAssignments: heartbeat.observedAssignments,
    });
    if (renewed === null) return null;
    this.nodeKeysSeen.set(node.id, {
      ...node,
      lifecycle: renewed.lifecycle,
      conditionsState: conditions,
      // What findNodeKeys would read now: the inventory this heartbeat just recorded.
      gpuUuids: heartbeat.inventory.gpus.map((gpu) => gpu.uuid),
      inventory: heartbeat.inventory,
    });
    // The batch signals the deployments it changed, once for all its heartbeats.
    return { node: renewed, refusalsRecorded: 0, leaseExpiresAt, changedDeploymentWorkflowIds: [] };
  }

  /**
   * Wakes the workflows of deployments whose replicas just reported something new, once it is committed:
   * they wait for this instead of re-reading the tables. Coalesced per workflow (DeploymentSignals). A lost
   * signal costs only speed (each workflow also re-reads on a slow timer), so a failure is logged, never
   * retried here.
   */
  private tellDeployments(workflowIds: readonly string[]): void {
    this.deploymentSignals.tell(workflowIds);
  }

  private signalDeployment(workflowId: string): Promise<void> {
    return this.workflows
      .signal(workflowId, DEPLOYMENT_SIGNALS.replicaObserved, {})
      .catch((error: unknown) => {
        // A finished workflow (a stopped deployment) has nothing left to wait for.
        if (error instanceof LunaNexaError && error.code === ErrorCode.NOT_FOUND) return;
        this.logger.warn(
          { err: error, workflowId },
          'replica observation not signalled; the workflow re-reads later',
        );
      });
  }

  private async applyHeartbeat(
    manager: EntityManager,
    nodeId: string,
    envelope: HeartbeatEnvelopeWithInventory,
    /** The node key that signed it, or that its MAC keys were agreed with. */
    nodeKeyId: string,
    ids: RequestIds,
    receivedAt: Date,
  ): Promise<{
    node: NodeRow;
    refusalsRecorded: number;
    leaseExpiresAt: Date;
    changedDeploymentWorkflowIds: readonly string[];
  }> {
    const locked = await findNode(manager, nodeId, { forUpdate: true });
    if (!locked)
      throw new LunaNexaError(ErrorCode.SIGNATURE_INVALID, 'no enrolled node key matches this heartbeat');
    // The key may have rotated since the heartbeat was checked against what this process read before.
    if (nodeKeyId !== locked.keyId && nodeKeyId !== locked.nextKeyId)
      throw new LunaNexaError(ErrorCode.SIGNATURE_INVALID, `key ${nodeKeyId} is not trusted here`);
    const { heartbeat, refusals, nextKey } = envelope.body;
    // Sequence is per node and persisted by the agent: a replay from another API replica (which has its own nonce memory) still fails here.
    if (locked.lastHeartbeatSequence !== null && heartbeat.sequence <= locked.lastHeartbeatSequence) {
      throw new LunaNexaError(
        ErrorCode.REPLAY_DETECTED,
        `heartbeat sequence ${heartbeat.sequence} is not after ${locked.lastHeartbeatSequence}`,
      );
    }
    const now = new Date();
    const leaseExpiresAt = new Date(now.getTime() + this.config.LUNANEXA_NODE_LEASE_SECONDS * 1000);
    const actor = `node:${locked.name}`;
    let keyId = locked.keyId;
    let publicKey = locked.publicKey;
    let nextKeyId = locked.nextKeyId;
    let nextPublicKey = locked.nextPublicKey;
    let rotationRequestedAt = locked.rotationRequestedAt;
    if (nodeKeyId === locked.nextKeyId && locked.nextPublicKey !== null) {
      // The first heartbeat signed by the next key retires the old one: the rotation is done on the node's side.
      keyId = locked.nextKeyId;
      publicKey = locked.nextPublicKey;
      nextKeyId = null;
      nextPublicKey = null;
      rotationRequestedAt = null;
      await this.audit.appendIn(
        manager,
        { actor, action: 'node.key.rotated', ids },
        {
          nodeId: locked.id,
          previousKeyId: locked.keyId,
          keyId,
        },
      );
    } else if (nextKey !== null && nextKey.keyId !== locked.keyId) {
      // An ack means "registered": acking a key we did not take would make the agent switch to a key we refuse.
      if (locked.rotationRequestedAt === null) {
        throw new LunaNexaError(ErrorCode.CONFLICT, 'no key rotation was requested for this node');
      }
      const next = parseEd25519PublicKey(nextKey.publicKey);
      const proofValid =
        ed25519KeyId(next) === nextKey.keyId &&
        verify(
          null,
          rotationProofInput(locked.id, locked.keyId, nextKey.keyId),
          next,
          Buffer.from(nextKey.proof, 'base64url'),
        );
      if (!proofValid) {
        throw new LunaNexaError(ErrorCode.SIGNATURE_INVALID, 'the next key does not prove possession');
      }
      if (locked.nextKeyId !== nextKey.keyId) {
        nextKeyId = nextKey.keyId;
        nextPublicKey = nextKey.publicKey;
        await this.audit.appendIn(
          manager,
          { actor, action: 'node.key.next', ids },
          {
            nodeId: locked.id,
            keyId: locked.keyId,
            nextKeyId,
          },
        );
      }
    }
    // The agent came back elsewhere (a new address or SSH port): dial it there from now on.
    const { endpoint } = envelope.body;
    let address = locked.address;
    let sshPort = locked.sshPort;
    if (endpoint !== undefined && (endpoint.address !== address || endpoint.sshPort !== sshPort)) {
      await this.audit.appendIn(
        manager,
        { actor, action: 'node.endpoint.changed', ids },
        {
          nodeId: locked.id,
          previous: { address, sshPort },
          current: { address: endpoint.address, sshPort: endpoint.sshPort },
        },
      );
      address = endpoint.address;
      sshPort = endpoint.sshPort;
    }
    const conditions = nextNodeConditions(
      locked.conditionsState,
      heartbeatObservation(
        heartbeat,
        receivedAt,
        locked.inventory.gpus.map((gpu) => gpu.uuid),
        this.keyTrust(envelope.body),
      ),
    );
    for (const transition of nodeConditionTransitions(locked.conditionsState, conditions)) {
      await this.audit.appendIn(
        manager,
        { actor, action: 'node.condition.changed', ids },
        { nodeId: locked.id, ...transition },
      );
    }
    const sent = inventoryToRecord(heartbeat);
    const inventoryJson = sent === null ? null : JSON.stringify(sent);
    await recordNodeHeartbeat(manager, {
      nodeId: locked.id,
      sequence: heartbeat.sequence,
      receivedAt: now,
      leaseExpiresAt,
      // Unchanged (nearly always): not rewritten, so PostgreSQL neither parses nor re-toasts it each beat.
      inventoryJson:
        inventoryJson === null || isDeepStrictEqual(JSON.parse(inventoryJson), locked.inventory)
          ? null
          : inventoryJson,
      observed: { observedAssignments: heartbeat.observedAssignments, runtimes: heartbeat.runtimes },
      gpuTelemetry: heartbeat.gpuTelemetry,
      conditions,
      agentCredentialSerial: envelope.body.credentialSerial,
      keyId,
      publicKey,
      nextKeyId,
      nextPublicKey,
      rotationRequestedAt,
      address,
      sshPort,
    });
    const observations = await recordAssignmentObservations(
      manager,
      locked.id,
      heartbeat.observedAssignments,
      now,
    );
    for (const refusal of refusals) {
      await this.audit.appendIn(
        manager,
        { actor, action: 'agent.refusal', ids },
        { nodeId: locked.id, ...refusal },
        { decision: 'denied', result: 'refused' },
      );
    }
    for (const report of envelope.body.orphanReports ?? []) {
      await this.audit.appendIn(
        manager,
        { actor, action: 'node.orphans.reconciled', ids },
        { nodeId: locked.id, ...report },
        { decision: 'allowed', result: report.failed.length > 0 ? 'failed' : 'succeeded' },
      );
    }
    // What the ack reads, as just written: no second read (the row lock is held; only this transaction changed it).
    const node: NodeRow = {
      ...locked,
      lastHeartbeatSequence: heartbeat.sequence,
      gpuTelemetry: heartbeat.gpuTelemetry,
      conditionsState: conditions,
      conditions: conditions.conditions,
      leaseRenewedAt: now,
      leaseExpiresAt,
      keyId,
      publicKey,
      nextKeyId,
      nextPublicKey,
      rotationRequestedAt,
      address,
      sshPort,
    };
    return {
      node,
      refusalsRecorded: refusals.length,
      leaseExpiresAt,
      changedDeploymentWorkflowIds: observations.changedDeploymentWorkflowIds,
    };
  }
}
