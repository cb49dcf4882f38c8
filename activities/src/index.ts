import type { DataSource } from 'typeorm';
import { systemClock, type Clock } from './clock';
import { createDeploymentActivities } from './deployment-activities';
import type { SouthboundPort } from './fleet-support';
import { createNodeActivities, type ControllerSigningIdentity } from './node-activities';
import { createSystemActivities } from './system-activities';
import { createRolloutActivities } from './rollout';
import { createEvaluationActivities } from './evaluation';
import { createRetentionActivities } from './retention-activities';
import { createNodeRecoveryActivities } from './node-recovery-activities';
import { createHealingActivities } from './healing-activities';
import { createReconcileActivities, type FleetWorkflowsPort } from './reconcile-activities';
import { createArtifactActivities, EMPTY_ARTIFACT_STORE_CONFIG, type ArtifactStoreConfig } from './artifact';

export * from './clock';
export type { FleetWorkflowsPort } from './reconcile-activities';
export * from './artifact';
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
  /** Where artifacts are read for digest verification; default: no store (only synthetic artifacts verify). */
  readonly artifactStore?: ArtifactStoreConfig;
  /** Temporal as Reconcile needs it (which workflows run, resuming a deployment's); the worker wires its client. */
  readonly workflows?: FleetWorkflowsPort;
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
    ...createRolloutActivities({ db: ports.db, clock }),
    ...createEvaluationActivities({ db: ports.db, clock }),
    ...createRetentionActivities({ db: ports.db, clock }),
    ...createNodeRecoveryActivities({ db: ports.db, clock }),
    ...createHealingActivities({ db: ports.db, clock }),
    ...createReconcileActivities({
      db: ports.db,
      clock,
      ...(ports.workflows ? { workflows: ports.workflows } : {}),
    }),
    ...createArtifactActivities({
      db: ports.db,
      clock,
      artifactStore: ports.artifactStore ?? EMPTY_ARTIFACT_STORE_CONFIG,
    }),
  };
}

/** Workflows import this type only (`import type`), never the implementations. */
export type Activities = ReturnType<typeof createActivities>;
