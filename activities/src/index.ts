import type { DataSource } from 'typeorm';
import { systemClock, type Clock } from './clock';
import { createDeploymentActivities } from './deployment';
import type { SouthboundPort } from './fleet-support';
import { createNodeActivities, type ControllerSigningIdentity } from './node';
import { createSystemActivities } from './system';
import { createRolloutActivities } from './rollout';
import { createEvaluationActivities } from './evaluation';
import { createBenchmarkActivities } from './benchmark';
import { createRetentionActivities } from './retention';
import { createNodeRecoveryActivities } from './node-recovery';
import { createHealingActivities } from './healing';
import { createReconcileActivities, type FleetWorkflowsPort } from './reconcile';
import { createControllerKeyActivities, type WorkerControllerKeyRing } from './controller-key';
import { createArtifactActivities, EMPTY_ARTIFACT_STORE_CONFIG, type ArtifactStoreConfig } from './artifact';

export * from './clock';
export type { ControllerKeyStepContext, WorkerControllerKeyRing } from './controller-key';
export type { FleetWorkflowsPort } from './reconcile';
export * from './artifact';
export { createSystemActivities } from './system';
export { createNodeActivities, type ControllerSigningIdentity } from './node';
export { createDeploymentActivities, assignmentIdFor, type DeploymentObservation } from './deployment';
export * from './southbound';
export {
  asActivityFailure,
  southboundTarget,
  type Receipt,
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
  /** The worker's controller key ring: the rotation's switch waits until this worker holds the new key. */
  readonly controllerKeyRing?: WorkerControllerKeyRing;
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
    ...createBenchmarkActivities({ db: ports.db, clock }),
    ...createRetentionActivities({ db: ports.db, clock }),
    ...createNodeRecoveryActivities({ db: ports.db, clock }),
    ...createHealingActivities({ db: ports.db, clock }),
    ...createReconcileActivities({
      db: ports.db,
      clock,
      ...(ports.workflows ? { workflows: ports.workflows } : {}),
    }),
    ...createControllerKeyActivities({
      db: ports.db,
      clock,
      ...(ports.controllerKeyRing ? { ring: ports.controllerKeyRing } : {}),
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
