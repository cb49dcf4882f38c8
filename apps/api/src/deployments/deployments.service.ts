import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DEPLOYMENT_PURPOSES,
  DEPLOYMENT_UPDATES,
  DeploymentPurposeSchema,
  ErrorCode,
  PLACEMENT_STRATEGIES,
  PlacementStrategySchema,
  ROUTING_POLICIES,
  RoutingPolicySchema,
  type CompatibleHardware,
  type PlacementStrategy,
  type Runtime,
  LunaNexaError,
  NameSchema,
  WORKFLOW_TYPES,
  type DeploymentPurpose,
  type DeploymentWorkflowInput,
  type DeploymentWorkflowResult,
  type DeploymentWorkflowStatus,
} from '@lunanexa/contracts';
import { decideDeployPolicy, planPlacement } from '@lunanexa/domain';
import {
  findDeployment,
  findModelVersion,
  findNode,
  listAssignments,
  listDeployments,
  listNodeNames,
  loadDeployPolicyFacts,
  loadPlacementNodes,
  setDeploymentRoutingPolicy,
  type DeploymentRow,
} from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { AuditWriter } from '../auth';
import { API_CONFIG, type ApiConfig } from '../config';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import type { Caller } from '../common/caller';
import { validateIdempotencyKey } from '../common/idempotency-key';
import type {
  CreateDeploymentInput,
  Deployment,
  DeploymentOperation,
  PlacementPlanInput,
  PlacementPlanView,
} from './deployments.types';
import { deploymentView } from './views';
import { stopIdempotencyKey } from '../common/idempotency-keys';

function invalid(path: string, message: string): LunaNexaError {
  return new LunaNexaError(ErrorCode.VALIDATION_FAILED, `${path} ${message}`, [{ path, message }]);
}

function parseStrategy(value: string): PlacementStrategy {
  const parsed = PlacementStrategySchema.safeParse(value);
  if (!parsed.success) throw invalid('placementStrategy', `must be ${PLACEMENT_STRATEGIES.join(' or ')}`);
  return parsed.data;
}

/**
 * Deployments. A deployment's whole life is its `deploymentWorkflow`; this
 * service validates requests, starts or signals that workflow and reads
 * PostgreSQL.
 */
@Injectable()
export class DeploymentsService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
    private readonly workflows: WorkflowRunner,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  private async view(row: DeploymentRow): Promise<Deployment> {
    const assignments = await listAssignments(this.db, { deploymentId: row.id });
    const names = await listNodeNames(
      this.db,
      assignments.map((assignment) => assignment.nodeId),
    );
    return deploymentView(row, assignments, names, this.workflows.link(row.workflowId));
  }

  async deployments(): Promise<Deployment[]> {
    return Promise.all((await listDeployments(this.db)).map((row) => this.view(row)));
  }

  async deployment(idOrName: string): Promise<Deployment | null> {
    const row = await findDeployment(this.db, idOrName);
    return row ? this.view(row) : null;
  }

  /**
   * Validates the request, passes the deploy gate for its purpose and starts
   * the deployment's workflow; the workflow writes the record (so an
   * accepted request lives in Temporal from the first moment) and places,
   * pushes and watches it. Answers once the record exists.
   *
   * The gate is the rollout's: the same facts (libs/persistence
   * `loadDeployPolicyFacts`) and decision (libs/domain `decideDeployPolicy`),
   * so a version `startRollout` refuses is refused here with the same code.
   * A refusal is audited and starts nothing.
   */
  /**
   * The scheduler's decision for `input` on the fleet as it is now, without
   * acting on it: the same loader and the same libs/domain planPlacement the
   * deployment workflow uses. Reads only; nothing is written or audited.
   */
  async placementPlan(input: PlacementPlanInput): Promise<PlacementPlanView> {
    if (!Number.isInteger(input.replicas) || input.replicas < 1 || input.replicas > 64) {
      throw invalid('replicas', 'must be 1-64');
    }
    const strategy = parseStrategy(input.placementStrategy);
    const version = await findModelVersion(this.db, input.model);
    if (!version) {
      throw new LunaNexaError(ErrorCode.MODEL_NOT_FOUND, `model version ${input.model} is not registered`);
    }
    let requestedNodeId: string | null = null;
    if (input.node) {
      const node = await findNode(this.db, input.node);
      if (!node) throw new LunaNexaError(ErrorCode.NOT_FOUND, `node ${input.node} does not exist`);
      requestedNodeId = node.id;
    }
    const runningOn = new Set<string>();
    let nodeSelector = {};
    if (input.deployment) {
      const deployment = await findDeployment(this.db, input.deployment);
      if (!deployment) {
        throw new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${input.deployment} does not exist`);
      }
      nodeSelector = deployment.nodeSelector;
      for (const row of await listAssignments(this.db, { deploymentId: deployment.id }))
        if (row.intent === 'Run') runningOn.add(row.nodeId);
    }
    const plan = planPlacement(await loadPlacementNodes(this.db), {
      missingReplicas: input.replicas,
      nodeSelector,
      requestedNodeId,
      excludedNodeIds: new Set(),
      runningOn,
      requirements: version.requirements as CompatibleHardware,
      runtimeSupported: (version.runtime as Runtime).supportedHardware,
      now: new Date(),
      strategy,
    });
    return {
      strategy,
      replicas: input.replicas,
      chosen: plan.chosen.map(({ node, reason }) => ({ node, reason })),
      rejected: plan.rejected.map(({ node, reasons }) => ({ node, reasons: [...reasons] })),
      unplaced: plan.unplaced,
    };
  }

  async createDeployment(input: CreateDeploymentInput, caller: Caller): Promise<DeploymentOperation> {
    if (!NameSchema.safeParse(input.name).success) throw invalid('name', 'must be a lower-case DNS label');
    if (!Number.isInteger(input.replicas) || input.replicas < 1 || input.replicas > 64) {
      throw invalid('replicas', 'must be 1-64');
    }
    const parsedPurpose = DeploymentPurposeSchema.safeParse(input.purpose);
    if (!parsedPurpose.success) throw invalid('purpose', `must be ${DEPLOYMENT_PURPOSES.join(' or ')}`);
    const purpose: DeploymentPurpose = parsedPurpose.data;
    const placementStrategy = parseStrategy(input.placementStrategy);
    const key = validateIdempotencyKey(input.idempotencyKey ?? `name:${input.name}`);
    const refuse = async (error: LunaNexaError): Promise<never> => {
      await this.audit.refusal(
        { actor: caller.actor, action: 'deployment.create', ids: caller.ids },
        {
          name: input.name,
          model: input.model,
          purpose,
          errorCode: error.code,
          reason: error.message,
        },
      );
      throw error;
    };
    const version = await findModelVersion(this.db, input.model);
    if (!version)
      return refuse(
        new LunaNexaError(ErrorCode.MODEL_NOT_FOUND, `model version ${input.model} is not registered`),
      );
    // No data class applies yet: the deployment serves whatever requests name it, each checked by the gateway.
    const facts = await loadDeployPolicyFacts(this.db, version, { dataClass: null });
    const decision = decideDeployPolicy(facts, purpose);
    if (!decision.allowed) {
      // Refused only for evaluation or approval: say how to get it evaluated.
      const hint =
        purpose === 'Serving' && decideDeployPolicy(facts, 'Candidate').allowed
          ? '; to evaluate it, deploy it with purpose Candidate'
          : '';
      return refuse(new LunaNexaError(decision.code, `${decision.reason}${hint}`));
    }
    let requestedNodeId: string | null = null;
    if (input.node) {
      const node = await findNode(this.db, input.node);
      if (!node) return refuse(new LunaNexaError(ErrorCode.NOT_FOUND, `node ${input.node} does not exist`));
      requestedNodeId = node.id;
    }
    const deploymentId = `dep-${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
    const existing = await findDeployment(this.db, input.name);
    if (existing && existing.id !== deploymentId) {
      return refuse(new LunaNexaError(ErrorCode.CONFLICT, `a deployment named ${input.name} already exists`));
    }
    const workflowId = `deployment/${deploymentId}`;
    const workflowInput: DeploymentWorkflowInput = {
      request: {
        deploymentId,
        name: input.name,
        modelVersionId: version.id,
        modelRef: version.ref,
        desiredReplicas: input.replicas,
        requestedNodeId,
        purpose,
        placementStrategy,
      },
      leaseSeconds: this.config.LUNANEXA_ASSIGNMENT_LEASE_SECONDS,
      actor: caller.actor,
      correlationId: caller.ids.correlationId,
      requestId: caller.ids.requestId,
    };
    // Answers once the workflow has written the deployment row (a retry with the same key gets the same run).
    const started = await this.workflows.startAndAsk<DeploymentWorkflowStatus>(
      WORKFLOW_TYPES.deployment,
      DEPLOYMENT_UPDATES.recorded,
      {
        workflowId,
        args: [workflowInput],
        correlationId: caller.ids.correlationId,
        actor: caller.actor,
        ...(requestedNodeId ? { nodeId: requestedNodeId } : {}),
      },
    );
    const row = await findDeployment(this.db, deploymentId);
    return {
      deployment: row ? await this.view(row) : null,
      deploymentId,
      workflowId,
      temporalUiUrl: started.ref.temporalUiUrl,
      correlationId: caller.ids.correlationId,
    };
  }

  /**
   * Sets how the gateways pick among the deployment's replicas. A single-row
   * change, committed with its audit event (before/after policy) in one
   * transaction, not a workflow: nothing else moves. Gateways apply it at
   * their next route refresh. An unknown policy is VALIDATION_FAILED and an
   * unknown deployment NOT_FOUND; both are audited as refusals and change nothing.
   */
  async setRoutingPolicy(idOrName: string, policy: string, caller: Caller): Promise<Deployment> {
    const context = { actor: caller.actor, action: 'deployment.setRoutingPolicy', ids: caller.ids };
    const mentioned = { deployment: typeof idOrName === 'string' ? idOrName.slice(0, 128) : null };
    const parsed = await this.audit.parsedOrRefused(context, mentioned, () => {
      const result = RoutingPolicySchema.safeParse(policy);
      if (!result.success) throw invalid('routingPolicy', `must be one of ${ROUTING_POLICIES.join(', ')}`);
      return result.data;
    });
    const row = await findDeployment(this.db, idOrName);
    if (!row) {
      const error = new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${idOrName} does not exist`);
      await this.audit.refusal(context, { ...mentioned, errorCode: error.code });
      throw error;
    }
    await this.audit.change(context, { deploymentId: row.id }, async (manager) => {
      const before = await setDeploymentRoutingPolicy(manager, row.id, parsed);
      if (before === null)
        throw new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${idOrName} does not exist`);
      return {
        value: undefined,
        evidence: { before: { routingPolicy: before }, after: { routingPolicy: parsed } },
      };
    });
    const after = await findDeployment(this.db, row.id);
    return this.view(after ?? row);
  }

  /** Signals the deployment's workflow to stop and waits for it to finish (replicas stopped). */
  async stopDeployment(
    idOrName: string,
    caller: Caller,
    idempotencyKey: string | null = null,
  ): Promise<DeploymentOperation> {
    if (idempotencyKey !== null) validateIdempotencyKey(idempotencyKey);
    const row = await findDeployment(this.db, idOrName);
    if (!row) throw new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${idOrName} does not exist`);
    if (row.state !== 'Stopped') {
      // Answers once the replicas are stopped; a deployment is stopped once, so its id is the key.
      await this.workflows.ask<DeploymentWorkflowResult>(
        row.workflowId,
        DEPLOYMENT_UPDATES.stop,
        { actor: caller.actor, correlationId: caller.ids.correlationId, requestId: caller.ids.requestId },
        idempotencyKey ?? stopIdempotencyKey(row.id),
      );
    }
    const after = await findDeployment(this.db, row.id);
    return {
      deployment: after ? await this.view(after) : null,
      deploymentId: row.id,
      workflowId: row.workflowId,
      temporalUiUrl: this.workflows.link(row.workflowId),
      correlationId: caller.ids.correlationId,
    };
  }
}
