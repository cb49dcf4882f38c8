import { createRolloutAnalysisActivities } from './analysis';
import { createRolloutCanaryActivities } from './canary';
import { createRolloutPromoteActivities } from './promote';
import { createRolloutRollbackActivities } from './rollback';
import { createRolloutStartActivities } from './start';
import type { RolloutActivityPorts } from './support';

export type { RolloutActivityPorts, RolloutStepInput } from './support';

/** Every step of the rollout workflow, one file per operation. */
export function createRolloutActivities(ports: RolloutActivityPorts) {
  return {
    ...createRolloutStartActivities(ports),
    ...createRolloutCanaryActivities(ports),
    ...createRolloutAnalysisActivities(ports),
    ...createRolloutPromoteActivities(ports),
    ...createRolloutRollbackActivities(ports),
  };
}
