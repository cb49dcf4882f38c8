import { expect } from 'chai';
import { ROLLOUT_STATES, type RolloutState } from '@lunanexa/contracts';
import {
  ROLLOUT_ACTIONS,
  mayRolloutBake,
  rolloutActionRefusal,
  rolloutActions,
} from '../src/rollout-actions';

const offered = (state: RolloutState, baking = false) =>
  rolloutActions(state, baking)
    .filter((availability) => availability.allowed)
    .map((availability) => availability.action);
const reasons = (state: RolloutState, baking = false) =>
  Object.fromEntries(rolloutActions(state, baking).map((a) => [a.action, a.reason]));

describe('rollout actions per state', () => {
  it('lists every action in order, with a reason exactly when it is not allowed', () => {
    for (const state of ROLLOUT_STATES) {
      const actions = rolloutActions(state, false);
      expect(actions.map((a) => a.action)).to.deep.equal([...ROLLOUT_ACTIONS]);
      for (const a of actions) expect(a.allowed, `${state} ${a.action}`).to.equal(a.reason === null);
    }
  });

  it('offers each signal only where it changes something', () => {
    expect(offered('Verifying')).to.deep.equal(['rollback', 'abort']);
    expect(offered('Deploying')).to.deep.equal(['rollback', 'abort']);
    expect(offered('Canary')).to.deep.equal(['promote', 'rollback', 'pause', 'abort']);
    expect(offered('Paused')).to.deep.equal(['promote', 'rollback', 'resume', 'abort']);
    expect(offered('Promoted', true)).to.deep.equal(['rollback']);
    expect(offered('Promoted')).to.deep.equal([]);
    for (const state of ['RolledBack', 'Aborted', 'Refused', 'Failed'] as const) {
      expect(offered(state, true), state).to.deep.equal([]);
    }
  });

  it('says why a signal is not offered', () => {
    expect(reasons('Deploying')).to.deep.include({
      promote: 'promote applies once the canary is serving',
      pause: 'the rollout is Deploying',
      resume: 'the rollout is not paused',
    });
    expect(reasons('Paused')['pause']).to.equal('already paused');
    expect(reasons('Promoted')).to.deep.equal({
      promote: 'the rollout is Promoted',
      rollback: 'the rollout is Promoted and its bake period is over',
      pause: 'the rollout is Promoted',
      resume: 'the rollout is not paused',
      abort: 'the rollout is Promoted',
    });
    expect(reasons('Aborted', true)['rollback']).to.equal('the rollout is Aborted');
  });

  it('only a Promoted rollout may still be baking', () => {
    expect(ROLLOUT_STATES.filter((state) => mayRolloutBake(state))).to.deep.equal(['Promoted']);
  });

  it('lets the workflow judge every signal while in flight, and a rollback or abort during the bake', () => {
    const ro = (state: RolloutState) => ({ id: 'ro-1', state });
    for (const state of ['Verifying', 'Deploying', 'Canary', 'Paused'] as const) {
      for (const action of ROLLOUT_ACTIONS)
        expect(rolloutActionRefusal(ro(state), action, false)).to.equal(null);
    }
    expect(rolloutActionRefusal(ro('Promoted'), 'rollback', true)).to.equal(null);
    expect(rolloutActionRefusal(ro('Promoted'), 'abort', true)).to.equal(null);
    expect(rolloutActionRefusal(ro('Promoted'), 'pause', true)).to.equal(
      'rollout ro-1 is Promoted and its bake period is over; pause does not apply',
    );
    expect(rolloutActionRefusal(ro('Promoted'), 'rollback', false)).to.equal(
      'rollout ro-1 is Promoted and its bake period is over; rollback does not apply',
    );
    expect(rolloutActionRefusal(ro('Aborted'), 'abort', true)).to.equal(
      'rollout ro-1 is Aborted; abort does not apply',
    );
  });
});
