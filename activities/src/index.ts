import type { DataSource } from 'typeorm';
import { systemClock, type Clock } from './clock';
import { createDeploymentActivities } from './deployment-activities';
import type { SouthboundPort } from './fleet-support';
import { createNodeActivities, type ControllerSigningIdentity } from './node-activities';
import { createSystemActivities } from './system-activities';

export * from './clock';
export { createSystemActivities } from './system-activities';
export { createNodeActivities, type ControllerSigningIdentity, type Receipt } from './node-activities';
export {
  createDeploymentActivities,
  assignmentIdFor,
  type DeploymentObservation,
} from './deployment-activities';
export * from './southbound';
export {
  asActivityFailure,
  southboundTarget,
  type SouthboundPort,
  type SouthboundTarget,
} from './fleet-support';

export interface ActivityPorts {
  readonly db: DataSource;
  readonly clock?: Clock;
  /** The controller key: signs node credentials and (through `southbound`) assignments. */
  readonly controller: ControllerSigningIdentity;
  /** The SSH client to agents, signing with the same controller key. */
  readonly southbound: SouthboundPort;
}

/** Every activity the worker registers, built over its ports. */
export function createActivities(ports: ActivityPorts) {
  const clock = ports.clock ?? systemClock;
  return {
    ...createSystemActivities({ db: ports.db, clock }),
    ...createNodeActivities({
      db: ports.db,
      clock,
      controller: ports.controller,
      southbound: ports.southbound,
    }),
    ...createDeploymentActivities({ db: ports.db, clock, southbound: ports.southbound }),
  };
}

/** Workflows import this type only (`import type`), never the implementations. */
export type Activities = ReturnType<typeof createActivities>;
