import { expect } from 'chai';
import { DEPLOYMENT_STATES, ErrorCode, LunaNexaError, type DeploymentState } from '@lunanexa/contracts';
import {
  DEPLOYMENT_EVENTS,
  deploymentLifecycle,
  deploymentStateAfter,
  foldDeploymentObservation,
  UNWRITTEN_DEPLOYMENT_STATES,
  type DeploymentFoldInput,
  type ReplicaObservation,
} from '../src';

function replica(overrides: Partial<ReplicaObservation> = {}): ReplicaObservation {
  return {
    intent: 'Run',
    generation: 1,
    ackedGeneration: 1,
    observedGeneration: 1,
    observedState: 'Ready',
    observedMessage: null,
    nodeReachable: true,
    ...overrides,
  };
}

function fold(
  state: DeploymentState,
  replicas: ReplicaObservation[],
  overrides: Partial<DeploymentFoldInput> = {},
) {
  return foldDeploymentObservation({ state, stateReason: null, desiredReplicas: 2, replicas, ...overrides });
}

function refusal(work: () => unknown): LunaNexaError {
  try {
    work();
  } catch (error: unknown) {
    if (error instanceof LunaNexaError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('deployment lifecycle: checked state writes', () => {
  it('keeps Placing and Updating in the contract vocabulary but never writes them', () => {
    for (const state of UNWRITTEN_DEPLOYMENT_STATES) {
      expect(DEPLOYMENT_STATES).to.include(state);
      expect(deploymentLifecycle.states).to.not.include(state);
      for (const event of DEPLOYMENT_EVENTS) {
        for (const from of deploymentLifecycle.states) {
          if (from === 'Stopped') continue;
          try {
            expect(deploymentStateAfter(from, event)).to.not.equal(state);
          } catch (error: unknown) {
            expect((error as LunaNexaError).code).to.equal(ErrorCode.INVALID_TRANSITION);
          }
        }
      }
    }
  });

  it('treats arriving where the event leads as no move (a retried step)', () => {
    expect(deploymentStateAfter('Assigned', 'place')).to.equal('Assigned');
    expect(deploymentStateAfter('Stopping', 'stop')).to.equal('Stopping');
    expect(deploymentStateAfter('Stopped', 'stopped')).to.equal('Stopped');
  });

  it('moves a placed deployment to Assigned and an unplaceable one back to Pending', () => {
    expect(deploymentStateAfter('Pending', 'place')).to.equal('Assigned');
    expect(deploymentStateAfter('Ready', 'place')).to.equal('Assigned');
    expect(deploymentStateAfter('Degraded', 'placementFailed')).to.equal('Pending');
  });

  it('refuses to write anything out of Stopped, and anything but Stopped out of Stopping', () => {
    for (const event of DEPLOYMENT_EVENTS.filter((e) => e !== 'stopped')) {
      expect(refusal(() => deploymentStateAfter('Stopped', event)).code).to.equal(
        ErrorCode.INVALID_TRANSITION,
      );
      if (event === 'stop') continue;
      expect(refusal(() => deploymentStateAfter('Stopping', event)).code).to.equal(
        ErrorCode.INVALID_TRANSITION,
      );
    }
    expect(refusal(() => deploymentStateAfter('Ready', 'stopped')).code).to.equal(
      ErrorCode.INVALID_TRANSITION,
    );
  });
});

describe('foldDeploymentObservation', () => {
  it('is Ready when every desired replica reports Ready on its current generation, and clears the reason', () => {
    const result = fold('Starting', [replica(), replica()], { stateReason: 'was starting' });
    expect(result).to.include({
      state: 'Ready',
      event: 'ready',
      reason: null,
      stopped: true,
      generationObserved: true,
    });
    expect(result.ready).to.deep.equal([0, 1]);
    expect(result.running).to.deep.equal([0, 1]);
  });

  it('does not count a replica on an unreachable node, or one reporting an older generation', () => {
    const result = fold('Starting', [replica({ nodeReachable: false }), replica({ observedGeneration: 0 })]);
    expect(result.ready).to.deep.equal([]);
    expect(result.state).to.equal('Starting');
    expect(result.event).to.equal(null);
    expect(result.generationObserved).to.equal(false);
  });

  it('is Starting once an agent acknowledged the current generation', () => {
    const result = fold('Assigned', [
      replica({ observedGeneration: null, observedState: null }),
      replica({ ackedGeneration: 0, observedGeneration: null, observedState: null }),
    ]);
    expect(result).to.include({ state: 'Starting', event: 'start' });
  });

  it('stays Assigned while no agent has acknowledged', () => {
    const result = fold('Assigned', [
      replica({ ackedGeneration: null, observedGeneration: null, observedState: null }),
    ]);
    expect(result).to.include({ state: 'Assigned', event: null });
  });

  it('is Failed when a replica failed and nothing serves, Degraded when another still serves', () => {
    const failed = replica({ observedState: 'Failed', observedMessage: 'digest mismatch' });
    expect(fold('Starting', [failed, replica({ observedState: 'Starting' })])).to.include({
      state: 'Failed',
      event: 'fail',
      reason: 'digest mismatch',
    });
    expect(fold('Starting', [failed, replica()])).to.include({
      state: 'Degraded',
      event: 'degrade',
      reason: 'digest mismatch',
    });
  });

  it('degrades a Ready deployment that lost a replica and names how many serve', () => {
    const result = fold('Ready', [replica(), replica({ nodeReachable: false })]);
    expect(result).to.include({ state: 'Degraded', event: 'degrade', reason: '1/2 replicas ready' });
  });

  it('recovers a Degraded or Failed deployment when every replica is Ready again', () => {
    expect(fold('Degraded', [replica(), replica()], { stateReason: '1/2 replicas ready' })).to.include({
      state: 'Ready',
      reason: null,
    });
    expect(fold('Failed', [replica(), replica()])).to.include({ state: 'Ready', event: 'ready' });
  });

  it('keeps a stopping deployment Stopping until every replica meant to stop has stopped', () => {
    const stopping = replica({
      intent: 'Stop',
      generation: 2,
      observedGeneration: 1,
      observedState: 'Ready',
    });
    expect(fold('Stopping', [stopping])).to.include({ state: 'Stopping', event: null, stopped: false });
    const done = replica({ intent: 'Stop', generation: 2, observedGeneration: 2, observedState: 'Stopped' });
    expect(fold('Stopping', [done])).to.include({ state: 'Stopped', event: 'stopped', stopped: true });
  });

  it('counts a replica on an unreachable node as stopped', () => {
    const lost = replica({ intent: 'Stop', generation: 2, observedGeneration: 1, nodeReachable: false });
    expect(fold('Stopping', [lost])).to.include({ state: 'Stopped', stopped: true });
  });

  it('never moves a Stopped deployment again, whatever arrives late', () => {
    const late = replica({ intent: 'Stop', generation: 2, observedGeneration: 1 });
    expect(fold('Stopped', [late, replica()])).to.include({ state: 'Stopped', event: null, stopped: false });
  });

  it('never declares a deployment with no desired replicas Ready', () => {
    expect(fold('Pending', [], { desiredReplicas: 0 })).to.include({
      state: 'Pending',
      event: null,
      generationObserved: false,
    });
  });
});
