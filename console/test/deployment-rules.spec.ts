import './support/contract-modules';

import { expect } from 'chai';

import {
  DEPLOYMENT_NAME_PATTERN,
  VERSION_LABEL_PATTERN,
  canCreateDeployment,
  isBehind,
  isSettled,
  placementNodes,
  purposeHint,
  replicaText,
  stopActionState,
  stopScope,
  stopScopeText,
} from '../src/app/pages/deployments/deployment-rules';
import { canAs } from './support/roles';

type Assignment = Parameters<typeof stopScope>[0]['assignments'][number];
type PlacementNode = Parameters<typeof placementNodes>[0][number];

const assignment = (nodeName: string, intent: string, inFlight: number | null): Assignment => ({
  id: `${nodeName}-${intent}`,
  nodeId: `id-${nodeName}`,
  nodeName,
  generation: 2,
  intent,
  leaseExpiresAt: '2026-12-06T00:00:00Z',
  ackedGeneration: 2,
  observedState: 'Ready',
  observedGeneration: 2,
  inFlight,
  message: null,
  observedAt: null,
});

const node = (name: string, lifecycle: string, cordoned = false): PlacementNode => ({
  id: `id-${name}`,
  name,
  lifecycle,
  readiness: 'Ready',
  cordoned,
});

describe('console deployment rules', () => {
  it('accepts DNS-label deployment names and version labels as the contracts do', () => {
    for (const name of ['chat', 'chat-a1', 'a', 'x'.repeat(63)]) {
      expect(DEPLOYMENT_NAME_PATTERN.test(name), name).to.equal(true);
    }
    for (const name of ['', 'Chat', '-chat', 'chat-', 'x'.repeat(64), 'chat_a']) {
      expect(DEPLOYMENT_NAME_PATTERN.test(name), name).to.equal(false);
    }
    expect(VERSION_LABEL_PATTERN.test('1.2.0-rc_1')).to.equal(true);
    expect(VERSION_LABEL_PATTERN.test('.1')).to.equal(false);
    expect(VERSION_LABEL_PATTERN.test('v'.repeat(65))).to.equal(false);
  });

  describe('purpose hints', () => {
    it('refuses deprecated and retired versions for either purpose', () => {
      for (const purpose of ['Serving', 'Candidate'] as const) {
        expect(purposeHint(purpose, { ref: 'chat@1', state: 'Retired' })).to.equal(
          'chat@1 is Retired: it is not deployed again, not even as a candidate.',
        );
      }
      expect(purposeHint('Serving', { ref: 'chat@1', state: 'Deprecated' })).to.match(
        /^chat@1 is Deprecated/,
      );
    });

    it('wants a candidate verified and a serving version approved', () => {
      expect(purposeHint('Candidate', { ref: 'chat@2', state: 'Registered' })).to.equal(
        'chat@2 is Registered: a candidate must be verified first.',
      );
      expect(purposeHint('Candidate', { ref: 'chat@2', state: 'Verified' })).to.match(
        /^To evaluate a version/,
      );
      expect(purposeHint('Serving', { ref: 'chat@2', state: 'Evaluated' })).to.equal(
        'chat@2 is Evaluated: only Approved versions serve. Choose Candidate to evaluate it.',
      );
      expect(purposeHint('Serving', { ref: 'chat@2', state: 'Approved' })).to.match(/^To serve traffic/);
      expect(purposeHint('Serving', undefined)).to.match(/^To serve traffic/);
    });
  });

  it('is settled only at rest with every agent on the newest generation', () => {
    expect(isSettled({ state: 'Ready', generation: 3, observedGeneration: 3 })).to.equal(true);
    expect(isSettled({ state: 'Ready', generation: 3, observedGeneration: 2 })).to.equal(false);
    expect(isSettled({ state: 'Deploying', generation: 3, observedGeneration: 3 })).to.equal(false);
    expect(isSettled({ state: 'Failed', generation: 1, observedGeneration: 4 })).to.equal(true);
  });

  it('is behind while the agents observed no or an older generation', () => {
    expect(isBehind({ generation: 2, observedGeneration: null })).to.equal(true);
    expect(isBehind({ generation: 2, observedGeneration: 1 })).to.equal(true);
    expect(isBehind({ generation: 2, observedGeneration: 2 })).to.equal(false);
  });

  describe('stop', () => {
    const deployment = {
      name: 'chat-a',
      assignments: [
        assignment('dgx-2', 'Run', 2),
        assignment('dgx-1', 'Run', null),
        assignment('dgx-2', 'Run', 1),
        assignment('dgx-3', 'Stop', 5),
      ],
    };

    it('counts running replicas on distinct, sorted nodes', () => {
      expect(stopScope(deployment)).to.deep.equal({
        replicas: 3,
        nodes: ['dgx-1', 'dgx-2'],
        inFlight: 3,
        unreported: 1,
      });
      expect(stopScopeText(deployment)).to.equal(
        'Stops deployment chat-a: 3 replicas on dgx-1, dgx-2, 3 in-flight requests ' +
          '(1 replica has not reported in-flight requests)',
      );
      expect(stopScopeText({ name: 'idle', assignments: [] })).to.equal(
        'Stops deployment idle: 0 replicas, 0 in-flight requests',
      );
    });

    it('is offered to operators and disabled once stopped', () => {
      expect(stopActionState({ name: 'chat-a', state: 'Ready' }, canAs('operator'))).to.deep.equal({
        offered: true,
        enabled: true,
      });
      expect(stopActionState({ name: 'chat-a', state: 'Stopped' }, canAs('admin'))).to.deep.equal({
        offered: true,
        enabled: false,
        reason: 'chat-a is already stopped',
      });
      expect(stopActionState({ name: 'chat-a', state: 'Ready' }, canAs('viewer')).offered).to.equal(false);
      expect(canCreateDeployment(canAs('viewer'))).to.equal(false);
      expect(canCreateDeployment(canAs('operator'))).to.equal(true);
    });
  });

  it('offers Active nodes only, by name, cordoned ones included', () => {
    const nodes = [node('dgx-3', 'Active'), node('dgx-1', 'Pending'), node('dgx-2', 'Active', true)];
    expect(placementNodes(nodes).map((n) => n.name)).to.deep.equal(['dgx-2', 'dgx-3']);
    expect(placementNodes([])).to.deep.equal([]);
  });

  it('shows ready against desired replicas', () => {
    expect(replicaText({ readyReplicas: 1, desiredReplicas: 2 })).to.equal('1 of 2');
  });
});
