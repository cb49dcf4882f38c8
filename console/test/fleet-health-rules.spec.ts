import './support/contract-modules';

import { expect } from 'chai';

import {
  canRunFleetRepairs,
  healingScope,
  reconcileScope,
} from '../src/app/pages/fleet-health/fleet-health-rules';
import { canAs } from './support/roles';

describe('console fleet health rules', () => {
  const action = (kind: string, target: string) => ({
    rule: 'r',
    kind,
    target,
    nodeId: 'n',
    deploymentId: null,
    reason: 'why',
    outcome: null,
    receiptHash: null,
  });
  const driftItem = (repair: string | null) => ({
    kind: 'GenerationBehindNode',
    target: 't',
    deploymentId: 'd',
    nodeId: 'n',
    desired: 'generation 3',
    observed: 'generation 2',
    note: 'note',
    repair,
  });

  it('lets operators and admins run repairs; viewers read', () => {
    expect(canRunFleetRepairs(canAs('operator'))).to.equal(true);
    expect(canRunFleetRepairs(canAs('admin'))).to.equal(true);
    expect(canRunFleetRepairs(canAs('viewer'))).to.equal(false);
  });

  it('states what a healing run would do, from the dry run', () => {
    expect(healingScope({ actions: [] })).to.match(/^The dry run found nothing to do/);
    expect(
      healingScope({
        actions: [action('CordonNode', 'a'), action('RestartReplica', 'b'), action('CordonNode', 'c')],
      }),
    ).to.equal(
      'Runs one healing pass now: the dry run lists 2 CordonNode, 1 RestartReplica. The pass decides again when it runs.',
    );
  });

  it('states how much of the drift the controller repairs', () => {
    expect(reconcileScope({ inSync: true, drift: [] })).to.match(/^No drift was found/);
    expect(
      reconcileScope({ inSync: false, drift: [driftItem('AdvanceGeneration'), driftItem(null)] }),
    ).to.equal(
      "Repairs the drift found: 2 items, 1 of them the controller's to repair (the others are listed with why not).",
    );
  });
});
