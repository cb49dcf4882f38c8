import type { DeploymentState } from '@lunanexa/contracts';
import type { DataSource } from 'typeorm';
import type { Clock } from '../clock';
import type { SouthboundPort } from '../fleet-support';

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

export interface DeploymentObservation {
  readonly state: DeploymentState;
  readonly generation: number;
  readonly readyReplicas: number;
  readonly desiredReplicas: number;
  readonly placedReplicas: number;
  /** Replicas stopped (or on unreachable nodes) among those meant to stop. */
  readonly stopped: boolean;
}
