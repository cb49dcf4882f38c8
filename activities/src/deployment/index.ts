import { recordActivities } from './record';
import { observeActivities } from './observe';
import { placeActivities } from './place';
import type { DeploymentActivityPorts } from './ports';
import { pushActivities } from './push';
import { restartActivities } from './restart';
import { stopActivities } from './stop';

export { assignmentIdFor } from './assignment-spec';
export type { DeploymentActivityPorts, DeploymentObservation, DeploymentStepInput } from './ports';

/** The deployment workflow's steps: record, place, push, observe, stop, restart a replica, finish. */
export function createDeploymentActivities(ports: DeploymentActivityPorts) {
  return {
    ...recordActivities(ports),
    ...placeActivities(ports),
    ...pushActivities(ports),
    ...observeActivities(ports),
    ...stopActivities(ports),
    ...restartActivities(ports),
  };
}

export type DeploymentActivities = ReturnType<typeof createDeploymentActivities>;
