import { ROLLOUT_SIGNAL_ACTIONS, type RolloutSignalAction, type RolloutState } from '@lunanexa/contracts';
import { canTransition } from './state-machine';
import { isRolloutInFlight, rolloutLifecycle } from './rollout-lifecycle';

/**
 * What an operator can signal to a rollout, and which states allow each.
 * Two answers, as for nodes: the API refuses a signal only when the workflow
 * can no longer take it (the rollout ended, or its bake is over), while the
 * console offers only the signals that change something now (the
 * `Rollout.actions` field), so it need not work them out again.
 */
export const ROLLOUT_ACTIONS = ROLLOUT_SIGNAL_ACTIONS;
export type RolloutAction = RolloutSignalAction;

/** The signals a Promoted rollout still takes while its bake period runs: it keeps the previous stable until then. */
export const ROLLOUT_BAKE_ACTIONS: readonly RolloutAction[] = ['rollback', 'abort'];

export interface RolloutActionSubject {
  readonly id: string;
  readonly state: RolloutState;
}

export interface RolloutActionAvailability {
  readonly action: RolloutAction;
  readonly allowed: boolean;
  /** Why the rollout's state refuses the action; null when it is allowed. */
  readonly reason: string | null;
}

/**
 * Finished for its alias yet still taking a rollback (Promoted): only the
 * workflow knows whether its bake period still runs.
 */
export function mayRolloutBake(state: RolloutState): boolean {
  return !isRolloutInFlight(state) && canTransition(rolloutLifecycle, state, 'rollback');
}

/**
 * Why the API refuses to pass `action` to the rollout's workflow, or null when
 * the workflow still listens: while in flight, and for a rollback or abort
 * while a Promoted rollout is `baking` (the workflow says which).
 */
export function rolloutActionRefusal(
  rollout: RolloutActionSubject,
  action: RolloutAction,
  baking: boolean,
): string | null {
  if (isRolloutInFlight(rollout.state)) return null;
  const promoted = mayRolloutBake(rollout.state);
  if (promoted && baking && ROLLOUT_BAKE_ACTIONS.includes(action)) return null;
  return `rollout ${rollout.id} is ${rollout.state}${promoted ? ' and its bake period is over' : ''}; ${action} does not apply`;
}

function rolloutEndedText(state: RolloutState, bakeOver = false): string {
  return `the rollout is ${state}${bakeOver ? ' and its bake period is over' : ''}`;
}

/** Why the console should not offer `action` now (it would change nothing, or no longer applies); null when it should. */
function actionUnavailable(state: RolloutState, action: RolloutAction, baking: boolean): string | null {
  const inFlight = isRolloutInFlight(state);
  switch (action) {
    case 'promote':
      // Deploying may be promoted by the workflow, but there is no canary serving to judge yet.
      if (state === 'Canary' || state === 'Paused') return null;
      return inFlight ? 'promote applies once the canary is serving' : rolloutEndedText(state);
    case 'rollback':
      if (inFlight) return null;
      if (!mayRolloutBake(state)) return rolloutEndedText(state);
      return baking ? null : rolloutEndedText(state, true);
    case 'pause':
      if (state === 'Canary') return null;
      if (canTransition(rolloutLifecycle, state, 'resume')) return 'already paused';
      return rolloutEndedText(state);
    case 'resume':
      return canTransition(rolloutLifecycle, state, 'resume') ? null : 'the rollout is not paused';
    case 'abort':
      // The API passes an abort during the bake on, and the workflow takes it as a rollback: offer that instead.
      return inFlight ? null : rolloutEndedText(state);
  }
}

/**
 * Every operator action in {@link ROLLOUT_ACTIONS} order, with whether the
 * console offers it in `state` and why not. `baking`: a Promoted rollout's
 * workflow still keeps the previous stable, so a rollback restores it.
 */
export function rolloutActions(state: RolloutState, baking: boolean): RolloutActionAvailability[] {
  return ROLLOUT_ACTIONS.map((action) => {
    const reason = actionUnavailable(state, action, baking);
    return { action, allowed: reason === null, reason };
  });
}
