import {
  AssignmentSchema,
  ErrorCode,
  LunaNexaError,
  type Assignment,
  type AssignmentIntent,
  type CompatibleHardware,
  type CreateDeploymentRequest,
  type DeploymentPlacement,
  type DeploymentState,
  type Runtime,
  type TrustedSigningKeyRef,
} from '@lunanexa/contracts';
import {
  agentProtocolOf,
  describeRejections,
  planPlacement,
  refusedTrustedSigningKeys,
} from '@lunanexa/domain';
import {
  findAssignment,
  findDeployment,
  findModelVersion,
  findNode,
  listAssignments,
  listTrustedSigningKeys,
  loadPlacementNodes,
  signedArtifactOf,
  type AssignmentRow,
  type DeploymentRow,
  type ModelVersionRow,
  type NodeRow,
} from '@lunanexa/persistence';
import type { AssignmentAckBody } from '@lunanexa/agent-protocol';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from './clock';
import {
  asActivityFailure,
  currentWorkflowId,
  receiptedTransaction,
  receiptOnce,
  southboundTarget,
  typed,
  type SouthboundPort,
} from './fleet-support';
import type { Receipt } from './node-activities';

export interface DeploymentActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
  readonly southbound: SouthboundPort;
}

export interface DeploymentStepInput {
  readonly deploymentId: string;
  readonly actor: string;
  readonly correlationId: string;
}

/** Assignment ids are derived, so a retried placement finds the row it created. */
export function assignmentIdFor(deploymentId: string, nodeId: string): string {
  return `asg-${deploymentId}-${nodeId}`.slice(0, 128);
}

export function buildAssignment(
  id: string,
  deployment: DeploymentRow,
  version: ModelVersionRow,
  node: NodeRow,
  intent: AssignmentIntent,
  generation: number,
  leaseExpiresAt: Date,
  signingKeys: readonly TrustedSigningKeyRef[],
): Assignment {
  const runtime = version.runtime as Runtime;
  // The one key the artifact's signature names, if it is trusted and not revoked: the agent verifies against it.
  const { signature } = signedArtifactOf(version.artifact);
  const signingKey =
    signature === null ? undefined : signingKeys.find((key) => key.keyId === signature.keyId);
  return AssignmentSchema.parse({
    id,
    deploymentId: deployment.id,
    nodeId: node.id,
    generation,
    intent,
    leaseExpiresAt: leaseExpiresAt.toISOString(),
    modelVersion: version.ref,
    artifact: version.artifact,
    runtime: { id: runtime.id, kind: runtime.kind, packaging: runtime.packaging, launch: runtime.launch },
    gpuUuids:
      runtime.supportedHardware.gpusPerReplica > 0
        ? node.inventory.gpus.slice(0, runtime.supportedHardware.gpusPerReplica).map((gpu) => gpu.uuid)
        : [],
    env: version.runtimeEnv,
    ...(signature === null
      ? {}
      : {
          trustedSigningKeys: signingKey
            ? [{ keyId: signingKey.keyId, publicKey: signingKey.publicKey }]
            : [],
        }),
  });
}

/**
 * Pushes an assignment; an agent from before signature verification, which
 * refuses the `trustedSigningKeys` field, gets it again without the field
 * (docs/UPGRADING.md, version skew). Returns what the agent accepted.
 */
export async function pushAcceptedBy(
  southbound: Pick<SouthboundPort, 'pushAssignment'>,
  node: NodeRow,
  assignment: Assignment,
): Promise<{ ack: AssignmentAckBody; sent: Assignment }> {
  try {
    return { ack: await southbound.pushAssignment(southboundTarget(node), assignment), sent: assignment };
  } catch (error) {
    if (
      assignment.trustedSigningKeys === undefined ||
      !(error instanceof LunaNexaError) ||
      !refusedTrustedSigningKeys(agentProtocolOf(node.inventory), error)
    )
      throw error;
    const { trustedSigningKeys: _refused, ...older } = assignment;
    return { ack: await southbound.pushAssignment(southboundTarget(node), older), sent: older };
  }
}

/** The trusted keys an assignment may carry: registered and not revoked. */
async function unrevokedSigningKeys(q: DataSource | EntityManager): Promise<TrustedSigningKeyRef[]> {
  return (await listTrustedSigningKeys(q))
    .filter((key) => key.revokedAt === null)
    .map((key) => ({ keyId: key.keyId, publicKey: key.publicKey }));
}

async function lockedDeployment(manager: EntityManager, id: string): Promise<DeploymentRow> {
  const deployment = await findDeployment(manager, id, { forUpdate: true });
  if (!deployment) throw new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${id} does not exist`);
  return deployment;
}

async function setState(
  manager: EntityManager,
  deployment: DeploymentRow,
  state: DeploymentState,
  reason: string | null,
  now: Date,
  observedGeneration?: number,
): Promise<void> {
  await manager.query(
    `UPDATE deployments SET state = $2, state_reason = $3, updated_at = $4,
            observed_generation = COALESCE($5, observed_generation) WHERE id = $1`,
    [deployment.id, state, reason, now, observedGeneration ?? null],
  );
}

export interface DeploymentObservation {
  readonly state: DeploymentState;
  readonly generation: number;
  readonly readyReplicas: number;
  readonly desiredReplicas: number;
  readonly placedReplicas: number;
  /** Replicas stopped (or on unreachable nodes) among those meant to stop. */
  readonly stopped: boolean;
}

export function createDeploymentActivities({ db, clock, southbound }: DeploymentActivityPorts) {
  /** Re-signs and pushes every assignment row of the deployment with a fresh lease. */
  async function pushAll(
    deploymentId: string,
    leaseSeconds: number,
  ): Promise<{ pushed: number; unreachable: string[] }> {
    const deployment = await findDeployment(db, deploymentId);
    if (!deployment)
      throw new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${deploymentId} does not exist`);
    const version = await findModelVersion(db, deployment.modelVersionId);
    if (!version) throw new LunaNexaError(ErrorCode.NOT_FOUND, `model version of ${deployment.name} is gone`);
    const rows = await listAssignments(db, { deploymentId });
    let pushed = 0;
    const unreachable: string[] = [];
    for (const row of rows) {
      const node = await findNode(db, row.nodeId);
      if (!node) continue;
      // A stopped replica whose stop the agent has acknowledged needs no more pushes.
      if (row.intent === 'Stop' && row.ackedGeneration === row.generation && row.observedState === 'Stopped')
        continue;
      const leaseExpiresAt = new Date(clock.now().getTime() + leaseSeconds * 1000);
      const assignment = buildAssignment(
        row.id,
        deployment,
        version,
        node,
        row.intent,
        row.generation,
        leaseExpiresAt,
        // A lease renewal re-sends the generation's content as stored: the keys it was built with.
        (row.spec as Partial<Assignment> | null)?.trustedSigningKeys ?? (await unrevokedSigningKeys(db)),
      );
      try {
        const { ack, sent } = await pushAcceptedBy(southbound, node, assignment);
        // Recorded only once the agent holds it, so the row never claims a lease the node does not have.
        await db.query(
          `UPDATE assignments SET spec = $2::jsonb, lease_expires_at = $3, updated_at = $4,
                  acked_generation = GREATEST(COALESCE(acked_generation, 0), $5), acked_at = $4
            WHERE id = $1 AND generation = $6`,
          [row.id, JSON.stringify(sent), leaseExpiresAt, clock.now(), ack.generation, row.generation],
        );
        pushed += 1;
      } catch (error) {
        if (error instanceof LunaNexaError && error.code === ErrorCode.DEPENDENCY_UNAVAILABLE) {
          unreachable.push(node.name);
          continue;
        }
        throw error;
      }
    }
    return { pushed, unreachable };
  }

  return {
    /** Writes the deployment row from the request the API accepted (once: the id is the key). */
    async createDeploymentRecord(
      input: DeploymentStepInput & { readonly request: CreateDeploymentRequest },
    ): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const now = clock.now();
          const { request } = input;
          const existing = await findDeployment(manager, request.deploymentId);
          if (!existing) {
            const clash = await findDeployment(manager, request.name);
            if (clash) {
              throw new LunaNexaError(
                ErrorCode.CONFLICT,
                `a deployment named ${request.name} already exists`,
              );
            }
            await manager.query(
              `INSERT INTO deployments (id, name, model_version_id, model_ref, state, state_reason, generation,
                 observed_generation, desired_replicas, node_selector, requested_node_id, workflow_id, created_by,
                 created_at, updated_at, purpose, rollout_id, placement_strategy)
               VALUES ($1, $2, $3, $4, 'Pending', NULL, 1, 0, $5, '{}'::jsonb, $6, $7, $8, $9, $9, $10, $11, $12)`,
              [
                request.deploymentId,
                request.name,
                request.modelVersionId,
                request.modelRef,
                request.desiredReplicas,
                request.requestedNodeId,
                workflowId,
                input.actor,
                now,
                request.purpose ?? 'Candidate',
                request.rolloutId ?? null,
                request.placementStrategy ?? 'Spread',
              ],
            );
          }
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'deployment.create',
            step: 'create',
            evidence: {
              deploymentId: request.deploymentId,
              name: request.name,
              modelRef: request.modelRef,
              desiredReplicas: request.desiredReplicas,
              requestedNodeId: request.requestedNodeId,
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
        }),
      );
    },

    /**
     * Ensures `desiredReplicas` Run assignments on placeable nodes. Existing
     * ones are kept (placement never moves a running replica); missing ones
     * go to the requested node, or to eligible nodes by name. Returns the
     * placement and, when short, why.
     */
    async placeDeployment(
      input: DeploymentStepInput & {
        readonly excludeNodeIds?: readonly string[];
        readonly leaseSeconds: number;
      },
    ): Promise<{ placed: string[]; created: number; missing: number; reason: string | null }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const deployment = await lockedDeployment(manager, input.deploymentId);
          const version = await findModelVersion(manager, deployment.modelVersionId);
          if (!version)
            throw new LunaNexaError(ErrorCode.NOT_FOUND, `model version of ${deployment.name} is gone`);
          const now = clock.now();
          const excluded = new Set(input.excludeNodeIds ?? []);
          const rows = await listAssignments(manager, { deploymentId: deployment.id });
          const running = rows.filter((row) => row.intent === 'Run' && !excluded.has(row.nodeId));
          const missing = deployment.desiredReplicas - running.length;
          if (missing <= 0) {
            return { placed: running.map((row) => row.nodeId), created: 0, missing: 0, reason: null };
          }
          const nodes = await loadPlacementNodes(manager);
          const plan = planPlacement(nodes, {
            missingReplicas: missing,
            nodeSelector: deployment.nodeSelector,
            requestedNodeId: deployment.requestedNodeId,
            excludedNodeIds: excluded,
            runningOn: new Set(running.map((row) => row.nodeId)),
            requirements: version.requirements as CompatibleHardware,
            runtimeSupported: (version.runtime as Runtime).supportedHardware,
            now,
            strategy: deployment.placementStrategy,
          });
          const byId = new Map(nodes.map((node) => [node.id, node]));
          const chosen = plan.chosen
            .map((choice) => byId.get(choice.nodeId))
            .filter((node) => node !== undefined);
          const generation = deployment.generation;
          const keys = await unrevokedSigningKeys(manager);
          for (const node of chosen) {
            const id = assignmentIdFor(deployment.id, node.id);
            const lease = new Date(now.getTime() + input.leaseSeconds * 1000);
            const spec = buildAssignment(id, deployment, version, node, 'Run', generation, lease, keys);
            const previous = rows.find((row) => row.id === id);
            if (previous) {
              // The node held a stopped replica of this deployment: running it again is a new generation.
              const next = deployment.generation + 1;
              await manager.query(`UPDATE deployments SET generation = $2, updated_at = $3 WHERE id = $1`, [
                deployment.id,
                next,
                now,
              ]);
              const respec = buildAssignment(id, deployment, version, node, 'Run', next, lease, keys);
              await manager.query(
                `UPDATE assignments SET intent = 'Run', generation = $2, spec = $3::jsonb, lease_expires_at = $4,
                        updated_at = $5 WHERE id = $1`,
                [id, next, JSON.stringify(respec), lease, now],
              );
            } else {
              await manager.query(
                `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec,
                   created_at, updated_at)
                 VALUES ($1, $2, $3, $4, 'Run', $5, $6::jsonb, $7, $7)`,
                [id, deployment.id, node.id, generation, lease, JSON.stringify(spec), now],
              );
            }
          }
          const short = plan.unplaced;
          const reason =
            short > 0
              ? `NoEligibleNode: ${short} replica(s) unplaced — ${describeRejections(plan.rejected)}`.slice(
                  0,
                  2000,
                )
              : null;
          const placement: DeploymentPlacement = {
            decidedAt: now.toISOString(),
            chosen: plan.chosen.map(({ node, reason: why }) => ({ node, reason: why })),
            rejected: plan.rejected.map(({ node, reasons }) => ({ node, reasons: [...reasons] })),
            unplaced: short,
          };
          await manager.query(`UPDATE deployments SET placement = $2::jsonb WHERE id = $1`, [
            deployment.id,
            JSON.stringify(placement),
          ]);
          if (chosen.length > 0 || reason !== null) {
            await setState(manager, deployment, chosen.length > 0 ? 'Assigned' : 'Pending', reason, now);
          }
          if (chosen.length > 0) {
            await receiptOnce(manager, workflowId, {
              actor: input.actor,
              action: 'deployment.place',
              step: `place-g${deployment.generation}-${chosen.map((node) => node.id).join(',')}`,
              evidence: {
                deploymentId: deployment.id,
                nodes: chosen.map((node) => node.name),
                reason: plan.chosen.map((choice) => `${choice.node}: ${choice.reason}`).join(' | '),
                passedOver: placement.rejected,
              },
              correlationId: input.correlationId,
              occurredAt: now,
            });
          }
          return {
            placed: [...running.map((row) => row.nodeId), ...chosen.map((node) => node.id)],
            created: chosen.length,
            missing: short,
            reason,
          };
        }),
      );
    },

    async pushDeploymentAssignments(input: {
      readonly deploymentId: string;
      readonly leaseSeconds: number;
    }): Promise<{ pushed: number; unreachable: string[] }> {
      try {
        return await pushAll(input.deploymentId, input.leaseSeconds);
      } catch (error) {
        throw asActivityFailure(error);
      }
    },

    /** Folds the agents' reports into the deployment's state; a receipt on reaching Ready or Stopped. */
    async observeDeployment(input: DeploymentStepInput): Promise<DeploymentObservation> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const deployment = await lockedDeployment(manager, input.deploymentId);
          const rows = await listAssignments(manager, { deploymentId: deployment.id });
          const now = clock.now();
          const nodes = new Map<string, NodeRow>();
          for (const row of rows) {
            const node = await findNode(manager, row.nodeId);
            if (node) nodes.set(row.nodeId, node);
          }
          const reachable = (row: AssignmentRow): boolean => {
            const lease = nodes.get(row.nodeId)?.leaseExpiresAt;
            return lease !== null && lease !== undefined && lease.getTime() > now.getTime();
          };
          const current = (row: AssignmentRow): boolean => row.observedGeneration === row.generation;
          const running = rows.filter((row) => row.intent === 'Run');
          const ready = running.filter(
            (row) => current(row) && row.observedState === 'Ready' && reachable(row),
          );
          const stopping = rows.filter((row) => row.intent === 'Stop');
          const stopped = stopping.every(
            (row) =>
              (current(row) && ['Stopped', 'Failed'].includes(row.observedState ?? '')) || !reachable(row),
          );
          let state: DeploymentState = deployment.state;
          let reason = deployment.stateReason;
          if (deployment.state === 'Stopping' || deployment.state === 'Stopped') {
            state = stopped ? 'Stopped' : 'Stopping';
          } else if (ready.length >= deployment.desiredReplicas && deployment.desiredReplicas > 0) {
            state = 'Ready';
            reason = null;
          } else if (running.some((row) => current(row) && row.observedState === 'Failed')) {
            state = ready.length > 0 ? 'Degraded' : 'Failed';
            reason =
              running.find((row) => row.observedState === 'Failed')?.observedMessage ?? 'replica failed';
          } else if (deployment.state === 'Ready' && ready.length < deployment.desiredReplicas) {
            state = 'Degraded';
            reason = `${ready.length}/${deployment.desiredReplicas} replicas ready`;
          } else if (running.some((row) => row.ackedGeneration === row.generation)) {
            state = 'Starting';
          }
          const observedGeneration =
            rows.length > 0 && rows.every(current) ? deployment.generation : undefined;
          if (
            state !== deployment.state ||
            reason !== deployment.stateReason ||
            observedGeneration !== undefined
          ) {
            await setState(manager, deployment, state, reason, now, observedGeneration);
          }
          if (state !== deployment.state && ['Ready', 'Stopped', 'Failed', 'Degraded'].includes(state)) {
            await receiptOnce(manager, workflowId, {
              actor: input.actor,
              action: `deployment.${state.toLowerCase()}`,
              step: `${state}-g${deployment.generation}`,
              evidence: {
                deploymentId: deployment.id,
                name: deployment.name,
                generation: deployment.generation,
                readyReplicas: ready.length,
                nodes: running.map((row) => nodes.get(row.nodeId)?.name ?? row.nodeId),
                reason,
              },
              correlationId: input.correlationId,
              occurredAt: now,
            });
          }
          return {
            state,
            generation: deployment.generation,
            readyReplicas: ready.length,
            desiredReplicas: deployment.desiredReplicas,
            placedReplicas: running.length,
            stopped,
          };
        }),
      );
    },

    /**
     * A new generation in which the replicas on `nodeIds` (all, when null)
     * stop. The deployment goes Stopping when everything stops.
     */
    async stopReplicas(
      input: DeploymentStepInput & {
        readonly nodeIds: readonly string[] | null;
        readonly leaseSeconds: number;
        /** Names the receipt's step when one run stops the same node more than once (healing restarts). */
        readonly step?: string;
      },
    ): Promise<{ generation: number; stopped: number; receipt: Receipt }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const deployment = await lockedDeployment(manager, input.deploymentId);
          const version = await findModelVersion(manager, deployment.modelVersionId);
          if (!version)
            throw new LunaNexaError(ErrorCode.NOT_FOUND, `model version of ${deployment.name} is gone`);
          const now = clock.now();
          const rows = await listAssignments(manager, { deploymentId: deployment.id });
          const targets = rows.filter(
            (row) => row.intent === 'Run' && (input.nodeIds === null || input.nodeIds.includes(row.nodeId)),
          );
          const step =
            input.step ??
            (input.nodeIds === null ? 'stop-all' : `evacuate-${[...input.nodeIds].sort().join(',')}`);
          let generation = deployment.generation;
          if (targets.length > 0) {
            generation = deployment.generation + 1;
            await manager.query(`UPDATE deployments SET generation = $2, updated_at = $3 WHERE id = $1`, [
              deployment.id,
              generation,
              now,
            ]);
            for (const row of targets) {
              const node = await findNode(manager, row.nodeId);
              if (!node) continue;
              const lease = new Date(now.getTime() + input.leaseSeconds * 1000);
              const spec = buildAssignment(
                row.id,
                deployment,
                version,
                node,
                'Stop',
                generation,
                lease,
                await unrevokedSigningKeys(manager),
              );
              await manager.query(
                `UPDATE assignments SET intent = 'Stop', generation = $2, spec = $3::jsonb, lease_expires_at = $4,
                        updated_at = $5 WHERE id = $1`,
                [row.id, generation, JSON.stringify(spec), lease, now],
              );
            }
          }
          if (input.nodeIds === null && deployment.state !== 'Stopped') {
            await setState(manager, { ...deployment }, 'Stopping', null, now);
          }
          const receipt = await receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: input.nodeIds === null ? 'deployment.stop' : 'deployment.evacuate',
            step,
            evidence: {
              deploymentId: deployment.id,
              name: deployment.name,
              generation,
              assignments: targets.map((row) => row.id),
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return { generation, stopped: targets.length, receipt };
        }),
      );
    },

    /** Where a replica stands: its intent and generation, and what its agent last reported. */
    async replicaObservation(input: { readonly assignmentId: string }): Promise<{
      intent: string;
      generation: number;
      observedGeneration: number | null;
      observedState: string | null;
    } | null> {
      return typed(async () => {
        const row = await findAssignment(db, input.assignmentId);
        if (!row) return null;
        return {
          intent: row.intent,
          generation: row.generation,
          observedGeneration: row.observedGeneration,
          observedState: row.observedState,
        };
      });
    },

    /**
     * The second half of a healing restart: the replica stopped at one
     * generation runs again on the same node at the next (a fresh process;
     * the agent fences the stale one by generation). Idempotent: a replica
     * already meant to run is left as it is.
     */
    async runReplicaAgain(
      input: DeploymentStepInput & { readonly assignmentId: string; readonly leaseSeconds: number },
    ): Promise<{ generation: number; receipt: Receipt | null }> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const deployment = await lockedDeployment(manager, input.deploymentId);
          const row = await findAssignment(manager, input.assignmentId, { forUpdate: true });
          if (!row || row.deploymentId !== deployment.id)
            throw new LunaNexaError(
              ErrorCode.NOT_FOUND,
              `assignment ${input.assignmentId} is not in ${deployment.name}`,
            );
          if (row.intent === 'Run') return { generation: row.generation, receipt: null };
          const version = await findModelVersion(manager, deployment.modelVersionId);
          if (!version)
            throw new LunaNexaError(ErrorCode.NOT_FOUND, `model version of ${deployment.name} is gone`);
          const node = await findNode(manager, row.nodeId);
          if (!node) throw new LunaNexaError(ErrorCode.NOT_FOUND, `node ${row.nodeId} is gone`);
          const now = clock.now();
          const generation = deployment.generation + 1;
          await manager.query(`UPDATE deployments SET generation = $2, updated_at = $3 WHERE id = $1`, [
            deployment.id,
            generation,
            now,
          ]);
          const lease = new Date(now.getTime() + input.leaseSeconds * 1000);
          const spec = buildAssignment(
            row.id,
            deployment,
            version,
            node,
            'Run',
            generation,
            lease,
            await unrevokedSigningKeys(manager),
          );
          await manager.query(
            `UPDATE assignments SET intent = 'Run', generation = $2, spec = $3::jsonb, lease_expires_at = $4,
                    updated_at = $5 WHERE id = $1`,
            [row.id, generation, JSON.stringify(spec), lease, now],
          );
          const receipt = await receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'deployment.replica.restart',
            step: `restart-${row.id}-g${generation}`,
            evidence: {
              deploymentId: deployment.id,
              name: deployment.name,
              assignmentId: row.id,
              nodeId: node.id,
              generation,
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return { generation, receipt };
        }),
      );
    },

    /** The receipt that closes a deployment's workflow. */
    async finishDeployment(
      input: DeploymentStepInput & { readonly state: 'Stopped' | 'Failed' },
    ): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const deployment = await lockedDeployment(manager, input.deploymentId);
          const now = clock.now();
          if (deployment.state !== input.state) await setState(manager, deployment, input.state, null, now);
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'deployment.finish',
            step: 'finish',
            evidence: { deploymentId: deployment.id, name: deployment.name, state: input.state },
            correlationId: input.correlationId,
            occurredAt: now,
          });
        }),
      );
    },
  };
}

export type DeploymentActivities = ReturnType<typeof createDeploymentActivities>;
