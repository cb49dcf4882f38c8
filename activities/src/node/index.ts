import { drainActivities } from './drain';
import { enrollActivities } from './enroll';
import type { NodeActivityPorts } from './ports';
import { rotateActivities } from './rotate';

export type { ControllerSigningIdentity, NodeActivityPorts, NodeStepInput } from './ports';

/** The node workflows' steps: enrollment, key rotation, drain. */
export function createNodeActivities(ports: NodeActivityPorts) {
  return {
    ...enrollActivities(ports),
    ...rotateActivities(ports),
    ...drainActivities(ports),
  };
}

export type NodeActivities = ReturnType<typeof createNodeActivities>;
