import { ErrorCode, LunaNexaError, type CreateDeploymentRequest } from '@lunanexa/contracts';
import { findDeployment, insertDeployment } from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed, type Receipt } from '../fleet-support';
import type { DeploymentActivityPorts, DeploymentStepInput } from './ports';

export function recordActivities({ db, clock }: DeploymentActivityPorts) {
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
            await insertDeployment(manager, {
              id: request.deploymentId,
              name: request.name,
              modelVersionId: request.modelVersionId,
              modelRef: request.modelRef,
              desiredReplicas: request.desiredReplicas,
              requestedNodeId: request.requestedNodeId,
              workflowId,
              createdBy: input.actor,
              createdAt: now,
              purpose: request.purpose ?? 'Candidate',
              rolloutId: request.rolloutId ?? null,
              placementStrategy: request.placementStrategy ?? 'Spread',
            });
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
  };
}
