import { ACTIVE_ROLLOUT_STATES, ROLLOUT_STATES, type RolloutState } from '@lunanexa/contracts';
import { defineStateMachine, transition } from './state-machine';

/**
 * Rollout lifecycle: an alias moving to a new model version through canary
 * steps (workflows/src/rollout.ts drives it, the rollout activities write it).
 *
 * - Verifying: recorded, the alias claimed; the deploy policy and the
 *   artifact digest are checked. `refuse` ends it before anything deployed.
 * - Deploying: the canary deployment was named and started.
 * - Canary: a step's weight is set on the gateway; `step` again moves to the
 *   next weight (a Paused rollout stays Paused while its step advances).
 * - Paused: an operator holds the rollout; `resume` goes back to Canary.
 * - Promoted: a new alias revision names the canary. It is finished for the
 *   alias (the next rollout may start), yet during the bake an operator may
 *   still `rollback`, which restores the base revision.
 * - RolledBack, Aborted, Failed: ended without the canary; Refused: ended
 *   before deploying. These four are terminal.
 */
export const ROLLOUT_EVENTS = [
  'deploy',
  'refuse',
  'step',
  'pause',
  'resume',
  'promote',
  'rollback',
  'abort',
  'fail',
] as const;
export type RolloutEvent = (typeof ROLLOUT_EVENTS)[number];

export const rolloutLifecycle = defineStateMachine<RolloutState, RolloutEvent>({
  name: 'rollout',
  states: ROLLOUT_STATES,
  events: ROLLOUT_EVENTS,
  initial: 'Verifying',
  terminal: ['RolledBack', 'Aborted', 'Refused', 'Failed'],
  transitions: [
    { from: 'Verifying', event: 'deploy', to: 'Deploying' },
    { from: 'Verifying', event: 'refuse', to: 'Refused' },
    { from: 'Verifying', event: 'abort', to: 'Aborted' },
    { from: 'Verifying', event: 'fail', to: 'Failed' },
    { from: 'Deploying', event: 'step', to: 'Canary' },
    { from: 'Deploying', event: 'pause', to: 'Paused' },
    { from: 'Deploying', event: 'promote', to: 'Promoted' },
    { from: 'Deploying', event: 'rollback', to: 'RolledBack' },
    { from: 'Deploying', event: 'abort', to: 'Aborted' },
    { from: 'Deploying', event: 'fail', to: 'Failed' },
    { from: 'Canary', event: 'step', to: 'Canary' },
    { from: 'Canary', event: 'pause', to: 'Paused' },
    { from: 'Canary', event: 'promote', to: 'Promoted' },
    { from: 'Canary', event: 'rollback', to: 'RolledBack' },
    { from: 'Canary', event: 'abort', to: 'Aborted' },
    { from: 'Canary', event: 'fail', to: 'Failed' },
    { from: 'Paused', event: 'step', to: 'Paused' },
    { from: 'Paused', event: 'resume', to: 'Canary' },
    { from: 'Paused', event: 'promote', to: 'Promoted' },
    { from: 'Paused', event: 'rollback', to: 'RolledBack' },
    { from: 'Paused', event: 'abort', to: 'Aborted' },
    { from: 'Paused', event: 'fail', to: 'Failed' },
    { from: 'Promoted', event: 'rollback', to: 'RolledBack' },
  ],
});

/** How a rollout ends without its canary, as the workflow names the outcome. */
export type RolloutEndOutcome = Extract<RolloutState, 'RolledBack' | 'Aborted' | 'Failed'>;

const END_EVENT: Readonly<Record<RolloutEndOutcome, RolloutEvent>> = {
  RolledBack: 'rollback',
  Aborted: 'abort',
  Failed: 'fail',
};

export function rolloutEndEvent(outcome: RolloutEndOutcome): RolloutEvent {
  return END_EVENT[outcome];
}

/**
 * Still holding its alias: Verifying, Deploying, Canary or Paused. Promoted
 * is finished here although the bake may still roll it back.
 */
export function isRolloutInFlight(state: RolloutState): boolean {
  return ACTIVE_ROLLOUT_STATES.includes(state);
}

/** The state after `event`, or INVALID_TRANSITION naming what is allowed instead. */
export function nextRolloutState(state: RolloutState, event: RolloutEvent): RolloutState {
  return transition(rolloutLifecycle, state, event);
}
