import type { CompatibleHardware, DeploymentPlacement, Runtime } from '@lunanexa/contracts';
import { describeRejections, planPlacement } from '@lunanexa/domain';
import {
  advanceDeploymentGeneration,
  insertRunAssignment,
  listAssignments,
  loadPlacementNodes,
  reassignReplica,
  recordDeploymentPlacement,
} from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed } from '../fleet-support';
import { assignmentIdFor, buildAssignment, leaseUntil, unrevokedSigningKeys } from './assignment-spec';
import { lockedDeployment, modelVersionOf, moveDeployment } from './deployment-row';
import type { DeploymentActivityPorts, DeploymentStepInput } from './ports';

export function placeActivities({ db, clock }: DeploymentActivityPorts) {
  return {
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
          const version = await modelVersionOf(manager, deployment);
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
          const keys = await unrevokedSigningKeys(manager);
          for (const node of chosen) {
            const id = assignmentIdFor(deployment.id, node.id);
            const lease = leaseUntil(now, input.leaseSeconds);
            if (rows.some((row) => row.id === id)) {
              // The node held a stopped replica of this deployment: running it again is a new generation.
              const next = deployment.generation + 1;
              await advanceDeploymentGeneration(manager, deployment.id, next, now);
              const spec = buildAssignment(id, deployment, version, node, 'Run', next, lease, keys);
              await reassignReplica(manager, { spec, leaseExpiresAt: lease, at: now });
            } else {
              const spec = buildAssignment(
                id,
                deployment,
                version,
                node,
                'Run',
                deployment.generation,
                lease,
                keys,
              );
              await insertRunAssignment(manager, { spec, leaseExpiresAt: lease, at: now });
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
          await recordDeploymentPlacement(manager, deployment.id, placement);
          if (chosen.length > 0 || reason !== null) {
            await moveDeployment(
              manager,
              deployment,
              chosen.length > 0 ? 'place' : 'placementFailed',
              reason,
              now,
            );
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
  };
}
