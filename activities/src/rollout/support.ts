import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { isRolloutInFlight, nextRolloutState, type RolloutEvent } from '@lunanexa/domain';
import { findRollout, writeRolloutState, type RolloutRow } from '@lunanexa/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../clock';

export interface RolloutActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
}

export interface RolloutStepInput {
  readonly rolloutId: string;
  readonly actor: string;
  readonly correlationId: string;
}

export async function lockedRollout(manager: EntityManager, id: string): Promise<RolloutRow> {
  const rollout = await findRollout(manager, id, { forUpdate: true });
  if (!rollout) throw new LunaNexaError(ErrorCode.NOT_FOUND, `rollout ${id} does not exist`);
  return rollout;
}

/** Moves the locked rollout by `event` (INVALID_TRANSITION when the lifecycle refuses it) and writes the new state. */
export async function moveRollout(
  manager: EntityManager,
  rollout: RolloutRow,
  event: RolloutEvent,
  change: { reason: string | null; refusalCode?: string | null; at: Date },
): Promise<void> {
  const state = nextRolloutState(rollout.state, event);
  await writeRolloutState(manager, rollout, { ...change, state, finished: !isRolloutInFlight(state) });
}
