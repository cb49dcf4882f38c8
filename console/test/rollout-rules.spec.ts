import './support/contract-modules';

import { expect } from 'chai';

import {
  isBaking,
  isRolloutActive,
  isRolloutMoving,
  millisecondsText,
  parseSteps,
  percentText,
  revisionText,
  rolloutActions,
  rolloutSteps,
  scoreText,
  signalEffectText,
} from '../src/app/pages/deployments/rollout-rules';
import { canAs } from './support/roles';

type Analysis = Parameters<typeof rolloutSteps>[0]['analyses'][number];
type Receipt = Parameters<typeof isBaking>[0]['receipts'][number];

const analysis = (step: number, window: number, verdict: string): Analysis =>
  ({ step, window, verdict, weight: 10, reasons: [] }) as unknown as Analysis;
const receipt = (action: string): Receipt => ({ action }) as unknown as Receipt;

const REVISIONS = [
  { revision: 1, modelRef: 'chat@1' },
  { revision: 2, modelRef: 'chat@2' },
];

const rollout = (state: string, extra: { bakeSeconds?: number; receipts?: readonly Receipt[] } = {}) => ({
  state,
  bakeSeconds: extra.bakeSeconds ?? 0,
  receipts: extra.receipts ?? [],
});

describe('console rollout rules', () => {
  it('is active from Verifying to Paused, and moving while it bakes after promotion', () => {
    for (const state of ['Verifying', 'Deploying', 'Canary', 'Paused']) {
      expect(isRolloutActive({ state }), state).to.equal(true);
    }
    for (const state of ['Promoted', 'RolledBack', 'Aborted', 'Failed']) {
      expect(isRolloutActive({ state }), state).to.equal(false);
    }
    expect(isBaking(rollout('Promoted', { bakeSeconds: 300 }))).to.equal(true);
    expect(
      isBaking(rollout('Promoted', { bakeSeconds: 300, receipts: [receipt('rollout.complete')] })),
    ).to.equal(false);
    expect(isBaking(rollout('Promoted'))).to.equal(false);
    expect(isBaking(rollout('Canary', { bakeSeconds: 300 }))).to.equal(false);
    expect(isRolloutMoving(rollout('Promoted', { bakeSeconds: 60 }))).to.equal(true);
    expect(isRolloutMoving(rollout('Aborted'))).to.equal(false);
  });

  describe('plan steps', () => {
    it('reads increasing percentages that end at 100', () => {
      expect(parseSteps('10, 50, 100')).to.deep.equal([10, 50, 100]);
      expect(parseSteps(' 100 ')).to.deep.equal([100]);
    });

    it('says why any other text is not a plan', () => {
      expect(parseSteps('')).to.match(/^Enter 1 to 10/);
      expect(parseSteps('10;100')).to.match(/^Enter 1 to 10/);
      expect(parseSteps('1,2,3,4,5,6,7,8,9,10,100')).to.match(/^Enter 1 to 10/);
      expect(parseSteps('0, 100')).to.equal('Each weight is a percentage from 1 to 100.');
      expect(parseSteps('10, 500')).to.equal('Each weight is a percentage from 1 to 100.');
      expect(parseSteps('50, 50, 100')).to.equal('Weights must increase from step to step.');
      expect(parseSteps('10, 50')).to.match(/^The last step must be 100/);
    });
  });

  describe('steps', () => {
    it('marks done, current and pending steps while it runs, with each step’s newest verdict', () => {
      const steps = rolloutSteps({
        steps: [10, 50, 100],
        currentStep: 1,
        state: 'Canary',
        analyses: [analysis(0, 1, 'fail'), analysis(0, 2, 'pass'), analysis(1, 1, 'inconclusive')],
      });
      expect(steps.map((step) => step.status)).to.deep.equal(['done', 'current', 'pending']);
      expect(steps[0]?.analysis?.window).to.equal(2);
      expect(steps[1]?.analysis?.verdict).to.equal('inconclusive');
      expect(steps[2]?.analysis).to.equal(undefined);
    });

    it('marks where an ended rollout stopped and the steps it never reached; all done once promoted', () => {
      const ended = rolloutSteps({ steps: [10, 50, 100], currentStep: 1, state: 'RolledBack', analyses: [] });
      expect(ended.map((step) => step.status)).to.deep.equal(['done', 'stopped', 'unreached']);
      const promoted = rolloutSteps({ steps: [10, 100], currentStep: 0, state: 'Promoted', analyses: [] });
      expect(promoted.map((step) => step.status)).to.deep.equal(['done', 'done']);
    });
  });

  it('names a revision with its model, or says there was none before the first rollout', () => {
    expect(revisionText(2, REVISIONS)).to.equal('revision 2: chat@2');
    expect(revisionText(7, REVISIONS)).to.equal('revision 7');
    expect(revisionText(0, REVISIONS)).to.match(/^no revision/);
  });

  describe('signals', () => {
    type Availability = Parameters<typeof rolloutActions>[0]['actions'][number];
    const answer = (action: Availability['action'], reason: string | null = null): Availability =>
      ({ action, allowed: reason === null, reason }) as Availability;
    // The API's `actions` for a Canary, a Deploying and a baking Promoted rollout (libs/domain decides them).
    const CANARY = [
      answer('PROMOTE'),
      answer('ROLLBACK'),
      answer('PAUSE'),
      answer('RESUME', 'the rollout is not paused'),
      answer('ABORT'),
    ];
    const DEPLOYING = [
      answer('PROMOTE', 'promote applies once the canary is serving'),
      answer('ROLLBACK'),
      answer('PAUSE', 'the rollout is Deploying'),
      answer('RESUME', 'the rollout is not paused'),
      answer('ABORT'),
    ];
    const BAKING = [
      answer('PROMOTE', 'the rollout is Promoted'),
      answer('ROLLBACK'),
      answer('PAUSE', 'the rollout is Promoted'),
      answer('RESUME', 'the rollout is not paused'),
      answer('ABORT', 'the rollout is Promoted'),
    ];
    const enabled = (actions: readonly Availability[]) =>
      rolloutActions({ actions: [...actions] }, canAs('operator'))
        .filter((action) => action.enabled)
        .map((action) => action.action);

    it('enables the signals the API allows, in the panel order with their labels', () => {
      expect(enabled(CANARY)).to.deep.equal(['PROMOTE', 'ROLLBACK', 'PAUSE', 'ABORT']);
      expect(enabled(DEPLOYING)).to.deep.equal(['ROLLBACK', 'ABORT']);
      expect(enabled(BAKING)).to.deep.equal(['ROLLBACK']);
      expect(enabled([...CANARY].reverse())).to.deep.equal(['PROMOTE', 'ROLLBACK', 'PAUSE', 'ABORT']);
      expect(enabled([])).to.deep.equal([]);
      const views = rolloutActions({ actions: CANARY }, canAs('operator'));
      expect(views.map((view) => [view.label, view.destructive])).to.deep.equal([
        ['Promote', true],
        ['Roll back', true],
        ['Pause', false],
        ['Resume', false],
        ['Abort', true],
      ]);
    });

    it('says why a signal is disabled and offers none to a viewer', () => {
      const reasons = Object.fromEntries(
        rolloutActions({ actions: DEPLOYING }, canAs('operator')).map((action) => [
          action.action,
          action.reason,
        ]),
      );
      expect(reasons).to.deep.equal({
        PROMOTE: 'promote applies once the canary is serving',
        ROLLBACK: undefined,
        PAUSE: 'the rollout is Deploying',
        RESUME: 'the rollout is not paused',
        ABORT: undefined,
      });
      expect(rolloutActions({ actions: [] }, canAs('admin'))[0]?.reason).to.be.a('string');
      expect(rolloutActions({ actions: CANARY }, canAs('viewer')).some((action) => action.offered)).to.equal(
        false,
      );
    });

    it('states which revision serves the alias after each signal', () => {
      const canary = {
        alias: 'chat',
        modelRef: 'chat@2',
        baseRevision: 1,
        state: 'Canary',
        currentStep: 0,
        steps: [10, 100],
        currentWeight: 10,
      };
      expect(signalEffectText('ROLLBACK', canary, REVISIONS)).to.equal(
        'Traffic returns to revision 1: chat@1. The canary chat@2 (now 10 %) gets no more traffic and its deployment stops.',
      );
      expect(signalEffectText('ROLLBACK', { ...canary, state: 'Promoted' }, REVISIONS)).to.match(
        /restoring it, and chat@2 stops serving\.$/,
      );
      expect(signalEffectText('ABORT', { ...canary, baseRevision: 0 }, REVISIONS)).to.match(
        /^Ends the rollout without promoting: no revision/,
      );
      expect(signalEffectText('RESUME', canary, REVISIONS)).to.equal(
        'Resumes the rollout at step 1 of 2: the analysis window runs again.',
      );
      expect(signalEffectText('PAUSE', canary, REVISIONS)).to.match(/^Holds the rollout at 10 %/);
      expect(signalEffectText('PROMOTE', canary, REVISIONS)).to.match(/^Promotes chat@2 now: alias chat/);
    });
  });

  it('prints figures with a dash when there are none', () => {
    expect(percentText(0.04)).to.equal('4.0 %');
    expect(percentText(null)).to.equal('—');
    expect(millisecondsText(119.6)).to.equal('120 ms');
    expect(millisecondsText(undefined)).to.equal('—');
    expect(scoreText(0.916)).to.equal('0.92');
    expect(scoreText(null)).to.equal('—');
  });
});
