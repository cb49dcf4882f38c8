import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { deploymentStateAfter, type DeploymentEvent } from '@lunanexa/domain';
import {
  findDeployment,
  findModelVersion,
  writeDeploymentState,
  type DeploymentRow,
  type ModelVersionRow,
  type Queryable,
} from '@lunanexa/persistence';
import type { EntityManager } from 'typeorm';

export async function lockedDeployment(manager: EntityManager, id: string): Promise<DeploymentRow> {
  const deployment = await findDeployment(manager, id, { forUpdate: true });
  if (!deployment) throw new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${id} does not exist`);
  return deployment;
}

export async function modelVersionOf(q: Queryable, deployment: DeploymentRow): Promise<ModelVersionRow> {
  const version = await findModelVersion(q, deployment.modelVersionId);
  if (!version) throw new LunaNexaError(ErrorCode.NOT_FOUND, `model version of ${deployment.name} is gone`);
  return version;
}

/**
 * Writes the state `event` leads to. A move the deployment lifecycle does
 * not allow is refused (INVALID_TRANSITION) before anything is written.
 */
export async function moveDeployment(
  manager: EntityManager,
  deployment: DeploymentRow,
  event: DeploymentEvent,
  reason: string | null,
  now: Date,
): Promise<void> {
  const state = deploymentStateAfter(deployment.state, event);
  await writeDeploymentState(manager, { deploymentId: deployment.id, state, reason, at: now });
}
