import { expect } from 'chai';
import { ACTIVE_ROLLOUT_STATES, ErrorCode, LunaNexaError, ROLLOUT_STATES } from '@lunanexa/contracts';
import {
  isRolloutInFlight,
  nextRolloutState,
  ROLLOUT_EVENTS,
  rolloutEndEvent,
  rolloutLifecycle,
} from '../src/rollout-lifecycle';
import { allowedEvents, canTransition, reachableStates, transition } from '../src/state-machine';

/** Written out a second time on purpose: a change to the table must be made here too. */
const ALLOWED = [
  'Verifying --deploy--> Deploying',
  'Verifying --refuse--> Refused',
  'Verifying --abort--> Aborted',
  'Verifying --fail--> Failed',
  'Deploying --step--> Canary',
  'Deploying --pause--> Paused',
  'Deploying --promote--> Promoted',
  'Deploying --rollback--> RolledBack',
  'Deploying --abort--> Aborted',
  'Deploying --fail--> Failed',
  'Canary --step--> Canary',
  'Canary --pause--> Paused',
  'Canary --promote--> Promoted',
  'Canary --rollback--> RolledBack',
  'Canary --abort--> Aborted',
  'Canary --fail--> Failed',
  'Paused --step--> Paused',
  'Paused --resume--> Canary',
  'Paused --promote--> Promoted',
  'Paused --rollback--> RolledBack',
  'Paused --abort--> Aborted',
  'Paused --fail--> Failed',
  'Promoted --rollback--> RolledBack',
];
const TERMINAL = ['RolledBack', 'Aborted', 'Refused', 'Failed'];

describe('rollout lifecycle', () => {
  it('uses exactly the contract state names, in contract order', () => {
    expect(rolloutLifecycle.states).to.deep.equal(ROLLOUT_STATES);
    expect(rolloutLifecycle.events).to.deep.equal(ROLLOUT_EVENTS);
    expect(rolloutLifecycle.initial).to.equal('Verifying');
    expect([...rolloutLifecycle.terminal].sort()).to.deep.equal([...TERMINAL].sort());
  });

  it('has the documented table and nothing more', () => {
    const actual = rolloutLifecycle.transitions.map(({ from, event, to }) => `${from} --${event}--> ${to}`);
    expect([...actual].sort()).to.deep.equal([...ALLOWED].sort());
  });

  it('refuses every other (state, event) pair with INVALID_TRANSITION', () => {
    let refused = 0;
    for (const state of rolloutLifecycle.states) {
      for (const event of rolloutLifecycle.events) {
        if (ALLOWED.some((line) => line.startsWith(`${state} --${event}--> `))) continue;
        expect(canTransition(rolloutLifecycle, state, event), `${state} --${event}-->`).to.equal(false);
        expect(() => nextRolloutState(state, event))
          .to.throw(LunaNexaError)
          .with.property('code', ErrorCode.INVALID_TRANSITION);
        refused += 1;
      }
    }
    expect(refused).to.equal(ROLLOUT_STATES.length * ROLLOUT_EVENTS.length - ALLOWED.length);
  });

  it('reaches every state from Verifying, and an end from every state', () => {
    expect([...reachableStates(rolloutLifecycle, 'Verifying')].sort()).to.deep.equal(
      [...ROLLOUT_STATES].sort(),
    );
    for (const state of ROLLOUT_STATES) {
      const reachable = reachableStates(rolloutLifecycle, state);
      expect(
        TERMINAL.some((end) => reachable.has(end as never)),
        state,
      ).to.equal(true);
    }
    for (const state of TERMINAL) expect(allowedEvents(rolloutLifecycle, state as never)).to.deep.equal([]);
  });

  it('names the event for each way of ending without the canary', () => {
    expect(transition(rolloutLifecycle, 'Canary', rolloutEndEvent('RolledBack'))).to.equal('RolledBack');
    expect(transition(rolloutLifecycle, 'Paused', rolloutEndEvent('Aborted'))).to.equal('Aborted');
    expect(transition(rolloutLifecycle, 'Deploying', rolloutEndEvent('Failed'))).to.equal('Failed');
  });

  it('frees the alias once promoted, yet lets the bake roll the promotion back', () => {
    expect(ROLLOUT_STATES.filter(isRolloutInFlight)).to.deep.equal(ACTIVE_ROLLOUT_STATES);
    expect(isRolloutInFlight('Promoted')).to.equal(false);
    expect(nextRolloutState('Promoted', 'rollback')).to.equal('RolledBack');
    expect(canTransition(rolloutLifecycle, 'Promoted', 'abort')).to.equal(false);
  });

  it('keeps a paused rollout paused while its step advances', () => {
    expect(nextRolloutState('Paused', 'step')).to.equal('Paused');
    expect(nextRolloutState('Deploying', 'step')).to.equal('Canary');
  });
});
