import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { ed25519KeyId, openSshPublicKey, sshFingerprint } from '@lunanexa/agent-protocol';
import {
  BOOTSTRAP_TOKEN_PREFIX,
  DEFAULT_BOOTSTRAP_TOKEN_TTL_SECONDS,
  ENROLL_NODE_UPDATES,
  ErrorCode,
  LabelKeySchema,
  LabelValueSchema,
  LunaNexaError,
  MAX_BOOTSTRAP_TOKEN_TTL_SECONDS,
  MAX_NODE_LABELS,
  MIN_BOOTSTRAP_TOKEN_TTL_SECONDS,
  NameSchema,
  TaintSchema,
  WORKFLOW_TYPES,
  type DrainNodeWorkflowInput,
  type DrainNodeWorkflowResult,
  type EnrollNodeWorkflowResult,
  type FieldViolation,
  type NodeLabels,
  type RotateNodeCredentialWorkflowInput,
  type RotateNodeCredentialWorkflowResult,
  type Taint as TaintRecord,
} from '@lunanexa/contracts';
import { decideDrain, nodeActionRefusal, nodeLifecycle, planDrain, transition } from '@lunanexa/domain';
import {
  changeNodeSettings,
  findBootstrapToken,
  insertBootstrapToken,
  revokeBootstrapToken,
  type NodeSettingsChange,
  findNode,
  GPU_SAMPLE_RETENTION_HOURS,
  listGpuSamples,
  listAssignments,
  listBootstrapTokens,
  listNodes,
  listNodeReplicasToMove,
  loadPlacementNodes,
  type NodeRow,
} from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { AuditWriter, CONTROLLER_KEY, Denied, type ControllerKeyRing } from '../auth';
import type { Caller } from '../common/caller';
import { validateIdempotencyKey } from '../common/idempotency-key';
import { API_CONFIG, type ApiConfig } from '../config';
import { derivedKey } from '../common/idempotency-keys';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import { hashBootstrapToken } from '../agent-channel';
import type {
  BootstrapToken,
  ControllerIdentity,
  CreateBootstrapTokenInput,
  CreatedBootstrapToken,
  DrainResult,
  FleetNode,
  GpuSeries,
  LabelInput,
  NodeOperation,
  TaintInput,
} from './nodes.types';
import { bootstrapTokenView, gpuSeriesView, nodeView } from './views';

/** What Node.gpuSeries answers without `minutes`: the last hour. */
export const DEFAULT_GPU_SERIES_MINUTES = 60;
/** The longest window: as long as samples are kept. */
export const MAX_GPU_SERIES_MINUTES = GPU_SAMPLE_RETENTION_HOURS * 60;

function invalid(path: string, message: string): LunaNexaError {
  return new LunaNexaError(ErrorCode.VALIDATION_FAILED, `${path} ${message}`, [{ path, message }]);
}

export function validateLabels(input: readonly LabelInput[] | null | undefined, path = 'labels'): NodeLabels {
  const labels: Record<string, string> = {};
  const violations: FieldViolation[] = [];
  (input ?? []).forEach((label, i) => {
    const key = LabelKeySchema.safeParse(label.key);
    const value = LabelValueSchema.safeParse(label.value);
    if (!key.success)
      violations.push({ path: `${path}.${i}.key`, message: key.error.issues[0]?.message ?? 'invalid' });
    if (!value.success)
      violations.push({ path: `${path}.${i}.value`, message: value.error.issues[0]?.message ?? 'invalid' });
    if (label.key in labels) violations.push({ path: `${path}.${i}.key`, message: 'is repeated' });
    labels[label.key] = label.value;
  });
  if (Object.keys(labels).length > MAX_NODE_LABELS) {
    violations.push({ path, message: `at most ${MAX_NODE_LABELS} labels` });
  }
  if (violations.length > 0)
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'invalid labels', violations);
  return labels;
}

export function validateTaints(input: readonly TaintInput[]): TaintRecord[] {
  const violations: FieldViolation[] = [];
  const taints: TaintRecord[] = [];
  input.forEach((taint, i) => {
    const parsed = TaintSchema.safeParse({ key: taint.key, value: taint.value, effect: taint.effect });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        violations.push({ path: `taints.${i}.${issue.path.join('.')}`, message: issue.message });
      }
    } else taints.push(parsed.data);
  });
  if (input.length > 32) violations.push({ path: 'taints', message: 'at most 32 taints' });
  if (violations.length > 0)
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'invalid taints', violations);
  return taints;
}

/**
 * The node lifecycle for operators: bootstrap tokens, node views, approval,
 * labels and taints, cordon, drain and credential rotation. Multi-step
 * operations are workflows (EnrollNode, DrainNode, RotateNodeCredential);
 * single-row changes (labels, taints, cordon) are one transaction holding the
 * change and its audit event, like account administration.
 */
@Injectable()
export class NodesService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
    private readonly workflows: WorkflowRunner,
    @Inject(CONTROLLER_KEY) private readonly ring: ControllerKeyRing,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  controllerUrl(): string {
    return (
      this.config.LUNANEXA_API_PUBLIC_URL ??
      `http://${this.config.LUNANEXA_API_HOST}:${this.config.LUNANEXA_API_PORT}`
    );
  }

  controllerKeyFingerprint(): string {
    return sshFingerprint(this.ring.current().publicKey);
  }

  controllerIdentity(): ControllerIdentity {
    return {
      keyId: ed25519KeyId(this.ring.current().publicKey),
      sshFingerprint: this.controllerKeyFingerprint(),
      publicKey: openSshPublicKey(this.ring.current().publicKey),
      controllerUrl: this.controllerUrl(),
    };
  }

  async view(node: NodeRow): Promise<FleetNode> {
    const assignments = await listAssignments(this.db, { nodeId: node.id });
    return nodeView(node, assignments, this.workflows.link(node.enrollWorkflowId));
  }

  async nodes(): Promise<FleetNode[]> {
    const rows = await listNodes(this.db);
    return Promise.all(rows.map((row) => this.view(row)));
  }

  async node(idOrName: string): Promise<FleetNode | null> {
    const row = await findNode(this.db, idOrName);
    return row ? this.view(row) : null;
  }

  /**
   * The node's GPU samples of the last `minutes` (default DEFAULT_GPU_SERIES_MINUTES), per GPU. A window longer
   * than the samples are kept is refused rather than answered with a silently shorter one.
   */
  async gpuSeries(
    node: FleetNode,
    minutes: number | null | undefined,
    now = new Date(),
  ): Promise<GpuSeries[]> {
    const window = minutes ?? DEFAULT_GPU_SERIES_MINUTES;
    if (!Number.isInteger(window) || window < 1 || window > MAX_GPU_SERIES_MINUTES) {
      throw invalid(
        'minutes',
        `must be a whole number from 1 to ${MAX_GPU_SERIES_MINUTES} (samples are kept ${GPU_SAMPLE_RETENTION_HOURS} h)`,
      );
    }
    const samples = await listGpuSamples(this.db, node.id, new Date(now.getTime() - window * 60_000));
    return gpuSeriesView(samples);
  }

  private async requireNode(idOrName: string): Promise<NodeRow> {
    const row = await findNode(this.db, idOrName);
    if (!row) throw new LunaNexaError(ErrorCode.NOT_FOUND, `node ${idOrName} does not exist`);
    return row;
  }

  async bootstrapTokens(): Promise<BootstrapToken[]> {
    return (await listBootstrapTokens(this.db)).map(bootstrapTokenView);
  }

  async createBootstrapToken(
    input: CreateBootstrapTokenInput,
    caller: Caller,
  ): Promise<CreatedBootstrapToken> {
    const ttl = input.ttlSeconds ?? DEFAULT_BOOTSTRAP_TOKEN_TTL_SECONDS;
    if (
      !Number.isInteger(ttl) ||
      ttl < MIN_BOOTSTRAP_TOKEN_TTL_SECONDS ||
      ttl > MAX_BOOTSTRAP_TOKEN_TTL_SECONDS
    ) {
      throw invalid(
        'ttlSeconds',
        `must be ${MIN_BOOTSTRAP_TOKEN_TTL_SECONDS}-${MAX_BOOTSTRAP_TOKEN_TTL_SECONDS}`,
      );
    }
    if (
      input.nodeName !== null &&
      input.nodeName !== undefined &&
      !NameSchema.safeParse(input.nodeName).success
    ) {
      throw invalid('nodeName', 'must be a lower-case DNS label');
    }
    const labels = validateLabels(input.labels);
    const token = `${BOOTSTRAP_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
    const id = randomUUID();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + ttl * 1000);
    const prefix = token.slice(0, BOOTSTRAP_TOKEN_PREFIX.length + 8);
    await this.audit.change(
      { actor: caller.actor, action: 'bootstrap-token.create', ids: caller.ids },
      {
        tokenId: id,
        prefix,
        nodeName: input.nodeName ?? null,
        autoApprove: input.autoApprove,
        ttlSeconds: ttl,
      },
      async (manager) => {
        await insertBootstrapToken(manager, {
          id,
          tokenHash: hashBootstrapToken(token),
          prefix,
          nodeName: input.nodeName ?? null,
          labels,
          autoApprove: input.autoApprove,
          createdBy: caller.actor,
          createdAt: now,
          expiresAt,
        });
        return { value: undefined };
      },
    );
    const row = await findBootstrapToken(this.db, id);
    if (!row) throw new LunaNexaError(ErrorCode.INTERNAL, 'the token was not stored');
    const controllerUrl = this.controllerUrl();
    const fingerprint = this.controllerKeyFingerprint();
    return {
      token,
      bootstrapToken: bootstrapTokenView(row),
      controllerUrl,
      controllerKeyFingerprint: fingerprint,
      agentInvocation:
        `lunanexa-agent --config /etc/lunanexa/agent.yaml --bootstrap-token ${token}` +
        `   # agent.yaml sets controllerUrl: ${controllerUrl} and controllerKeyFingerprint: ${fingerprint}`,
    };
  }

  async revokeBootstrapToken(id: string, caller: Caller): Promise<BootstrapToken> {
    await this.audit.change(
      { actor: caller.actor, action: 'bootstrap-token.revoke', ids: caller.ids },
      { tokenId: id },
      async (manager) => {
        if (!(await revokeBootstrapToken(manager, id)))
          throw new Denied(new LunaNexaError(ErrorCode.NOT_FOUND, `no bootstrap token ${id}`));
        return { value: undefined };
      },
    );
    const row = await findBootstrapToken(this.db, id);
    if (!row) throw new LunaNexaError(ErrorCode.NOT_FOUND, `no bootstrap token ${id}`);
    return bootstrapTokenView(row);
  }

  /** Signals EnrollNode and waits for it to finish (credential issued, SSH reachable, Active). */
  async approveNode(
    idOrName: string,
    caller: Caller,
    idempotencyKey: string | null = null,
  ): Promise<NodeOperation> {
    if (idempotencyKey !== null) validateIdempotencyKey(idempotencyKey);
    const node = await this.requireNode(idOrName);
    const refusal = nodeActionRefusal(node, 'approve');
    if (refusal !== null) {
      const error = new LunaNexaError(ErrorCode.INVALID_TRANSITION, refusal);
      await this.audit.refusal(
        { actor: caller.actor, action: 'node.approve', ids: caller.ids },
        {
          nodeId: node.id,
          errorCode: error.code,
        },
      );
      throw error;
    }
    // Answers once EnrollNode has finished (Active); a node is approved once, so its id is the key.
    const result = await this.workflows.ask<EnrollNodeWorkflowResult>(
      node.enrollWorkflowId,
      ENROLL_NODE_UPDATES.approve,
      { actor: caller.actor, correlationId: caller.ids.correlationId, requestId: caller.ids.requestId },
      idempotencyKey ?? derivedKey('node.approve', node.id),
    );
    return this.operation(node.id, node.enrollWorkflowId, caller, result.receiptHash);
  }

  async rejectNode(
    idOrName: string,
    reason: string,
    caller: Caller,
    idempotencyKey: string | null = null,
  ): Promise<NodeOperation> {
    if (idempotencyKey !== null) validateIdempotencyKey(idempotencyKey);
    const node = await this.requireNode(idOrName);
    const refusal = nodeActionRefusal(node, 'reject');
    if (refusal !== null) {
      const error = new LunaNexaError(ErrorCode.INVALID_TRANSITION, refusal);
      await this.audit.refusal(
        { actor: caller.actor, action: 'node.reject', ids: caller.ids },
        {
          nodeId: node.id,
          errorCode: error.code,
        },
      );
      throw error;
    }
    if (reason.length < 1 || reason.length > 1024) throw invalid('reason', 'must be 1-1024 characters');
    const result = await this.workflows.ask<EnrollNodeWorkflowResult>(
      node.enrollWorkflowId,
      ENROLL_NODE_UPDATES.reject,
      {
        actor: caller.actor,
        correlationId: caller.ids.correlationId,
        requestId: caller.ids.requestId,
        reason,
      },
      idempotencyKey ?? derivedKey('node.reject', node.id),
    );
    return this.operation(node.id, node.enrollWorkflowId, caller, result.receiptHash);
  }

  private async operation(
    nodeId: string,
    workflowId: string,
    caller: Caller,
    receiptHash: string | null,
  ): Promise<NodeOperation> {
    return {
      node: await this.view(await this.requireNode(nodeId)),
      workflowId,
      temporalUiUrl: this.workflows.link(workflowId),
      correlationId: caller.ids.correlationId,
      receiptHash,
    };
  }

  /** A single-row change to a node with its audit event, in one transaction. */
  private async changeNode(
    idOrName: string,
    action: string,
    evidence: Record<string, unknown>,
    caller: Caller,
    apply: (node: NodeRow) => NodeSettingsChange | LunaNexaError,
  ): Promise<FleetNode> {
    const node = await this.requireNode(idOrName);
    await this.audit.change(
      { actor: caller.actor, action, ids: caller.ids },
      { nodeId: node.id, nodeName: node.name, ...evidence },
      async (manager) => {
        const locked = await findNode(manager, node.id, { forUpdate: true });
        if (!locked)
          throw new Denied(new LunaNexaError(ErrorCode.NOT_FOUND, `node ${idOrName} does not exist`));
        const change = apply(locked);
        if (change instanceof LunaNexaError) throw new Denied(change);
        await changeNodeSettings(manager, locked.id, change);
        return { value: undefined };
      },
    );
    return this.view(await this.requireNode(node.id));
  }

  setLabels(idOrName: string, input: readonly LabelInput[], caller: Caller): Promise<FleetNode> {
    const labels = validateLabels(input);
    return this.changeNode(idOrName, 'node.labels.set', { labels }, caller, (node) => {
      const refusal = nodeActionRefusal(node, 'setLabels');
      return refusal === null ? { labels } : new LunaNexaError(ErrorCode.INVALID_TRANSITION, refusal);
    });
  }

  setTaints(idOrName: string, input: readonly TaintInput[], caller: Caller): Promise<FleetNode> {
    const taints = validateTaints(input);
    return this.changeNode(idOrName, 'node.taints.set', { taints }, caller, (node) => {
      const refusal = nodeActionRefusal(node, 'setTaints');
      return refusal === null ? { taints } : new LunaNexaError(ErrorCode.INVALID_TRANSITION, refusal);
    });
  }

  /**
   * Cordon / uncordon. Uncordoning a Drained node also returns it to service
   * (Drained → Active): after maintenance that is the one thing an operator
   * means by it.
   */
  setCordoned(idOrName: string, cordoned: boolean, caller: Caller): Promise<FleetNode> {
    return this.changeNode(idOrName, cordoned ? 'node.cordon' : 'node.uncordon', {}, caller, (node) => {
      const refusal = nodeActionRefusal(node, cordoned ? 'cordon' : 'uncordon');
      if (refusal !== null) return new LunaNexaError(ErrorCode.INVALID_TRANSITION, refusal);
      const lifecycle =
        !cordoned && node.lifecycle === 'Drained'
          ? transition(nodeLifecycle, node.lifecycle, 'activate')
          : node.lifecycle;
      return { cordoned, lifecycle };
    });
  }

  /**
   * Starts DrainNode. First the replicas on the node are placed, on paper,
   * onto the other nodes with the scheduler's own plan (libs/domain
   * `planDrain`); when one has nowhere to go the drain is refused with
   * DRAIN_WOULD_STRAND_REPLICAS and nothing changes, unless `force` comes
   * with a `reason`, which the drain's start receipt records with the
   * deployments it strands. A refusal is audited and starts nothing.
   */
  async drainNode(
    idOrName: string,
    timeoutSeconds: number,
    idempotencyKey: string | null | undefined,
    caller: Caller,
    override: { readonly force: boolean; readonly reason: string | null } = { force: false, reason: null },
  ): Promise<DrainResult> {
    if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 0 || timeoutSeconds > 86_400) {
      throw invalid('timeoutSeconds', 'must be 0-86400');
    }
    if (override.reason !== null && override.reason.length > 1000)
      throw invalid('reason', 'at most 1000 characters');
    const key = validateIdempotencyKey(idempotencyKey);
    const node = await this.requireNode(idOrName);
    const refuse = async (error: LunaNexaError): Promise<never> => {
      await this.audit.refusal(
        { actor: caller.actor, action: 'node.drain', ids: caller.ids },
        {
          nodeId: node.id,
          errorCode: error.code,
          ...(error.violations.length > 0 ? { fields: error.violations.map((v) => v.path) } : {}),
        },
      );
      throw error;
    };
    const refusal = nodeActionRefusal(node, 'drain');
    if (refusal !== null) return refuse(new LunaNexaError(ErrorCode.INVALID_TRANSITION, refusal));
    const plan = planDrain(
      await loadPlacementNodes(this.db),
      node.id,
      (await listNodeReplicasToMove(this.db, node.id)).map((replica) => ({
        deploymentId: replica.deploymentId,
        deploymentName: replica.deploymentName,
        nodeSelector: replica.nodeSelector,
        requestedNodeId: replica.requestedNodeId,
        runningOn: new Set(replica.runningOn),
        requirements: replica.requirements,
        runtimeSupported: replica.runtime.supportedHardware,
        strategy: replica.placementStrategy,
      })),
      new Date(),
    );
    const decision = decideDrain(plan, override);
    if (!decision.allowed) return refuse(decision.error);
    const workflowId = `drain-node/${node.id}/${key}`;
    const input: DrainNodeWorkflowInput = {
      nodeId: node.id,
      timeoutSeconds,
      actor: caller.actor,
      correlationId: caller.ids.correlationId,
      requestId: caller.ids.requestId,
      ...(decision.forced
        ? {
            forced: {
              reason: (override.reason ?? '').trim(),
              strandedDeployments: decision.stranded.map((replica) => replica.deploymentName),
            },
          }
        : {}),
    };
    await this.workflows.start(WORKFLOW_TYPES.drainNode, {
      workflowId,
      args: [input],
      correlationId: caller.ids.correlationId,
      actor: caller.actor,
      nodeId: node.id,
    });
    const result = await this.workflows.result<DrainNodeWorkflowResult>(workflowId);
    return {
      node: await this.view(await this.requireNode(node.id)),
      workflowId,
      temporalUiUrl: this.workflows.link(workflowId),
      correlationId: caller.ids.correlationId,
      replicasAtStart: result.replicasAtStart,
      inFlightAtStart: result.inFlightAtStart,
      inFlightAtTimeout: result.inFlightAtTimeout,
      receiptHash: result.receiptHash,
    };
  }

  async rotateNodeCredential(
    idOrName: string,
    idempotencyKey: string | null | undefined,
    caller: Caller,
  ): Promise<NodeOperation> {
    const key = validateIdempotencyKey(idempotencyKey);
    const node = await this.requireNode(idOrName);
    const workflowId = `rotate-node-credential/${node.id}/${key}`;
    const input: RotateNodeCredentialWorkflowInput = {
      nodeId: node.id,
      timeoutSeconds: 120,
      actor: caller.actor,
      correlationId: caller.ids.correlationId,
      requestId: caller.ids.requestId,
    };
    await this.workflows.start(WORKFLOW_TYPES.rotateNodeCredential, {
      workflowId,
      args: [input],
      correlationId: caller.ids.correlationId,
      actor: caller.actor,
      nodeId: node.id,
    });
    const result = await this.workflows.result<RotateNodeCredentialWorkflowResult>(workflowId);
    return this.operation(node.id, workflowId, caller, result.receiptHash);
  }
}
