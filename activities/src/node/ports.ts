import type { KeyObject } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { Clock } from '../clock';
import type { SouthboundPort } from '../fleet-support';

export interface ControllerSigningIdentity {
  readonly privateKey: KeyObject;
  /** ed25519KeyId of the controller public key: what agents trust it under. */
  readonly keyId: string;
}

export interface NodeActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
  readonly controller: ControllerSigningIdentity;
  readonly southbound: SouthboundPort;
}

export interface NodeStepInput {
  readonly nodeId: string;
  readonly actor: string;
  readonly correlationId: string;
}
