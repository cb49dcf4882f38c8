import { expect } from 'chai';
import { NODE_LIFECYCLE_STATES, type NodeLifecycleState } from '@lunanexa/contracts';
import { NODE_ACTIONS, type NodeAction, nodeActionRefusal, nodeActions } from '../src/node-actions';

const node = (lifecycle: NodeLifecycleState) => ({ name: 'dgx-2', lifecycle });
const allowedIn = (action: NodeAction) =>
  NODE_LIFECYCLE_STATES.filter((lifecycle) => nodeActionRefusal(node(lifecycle), action) === null);

describe('node actions per lifecycle state', () => {
  it('approves and rejects only Pending nodes', () => {
    expect(allowedIn('approve')).to.deep.equal(['Pending']);
    expect(allowedIn('reject')).to.deep.equal(['Pending']);
    expect(nodeActionRefusal(node('Active'), 'approve')).to.equal(
      'node dgx-2 is Active; only Pending nodes are approved',
    );
    expect(nodeActionRefusal(node('Rejected'), 'reject')).to.equal(
      'node dgx-2 is Rejected; only Pending nodes are rejected',
    );
  });

  it('cordons and edits labels and taints of every node but a Rejected or Revoked one', () => {
    const live = NODE_LIFECYCLE_STATES.filter((state) => state !== 'Rejected' && state !== 'Revoked');
    for (const action of ['cordon', 'setLabels', 'setTaints'] as const) {
      expect(allowedIn(action), action).to.deep.equal(live);
      expect(nodeActionRefusal(node('Revoked'), action)).to.equal('node dgx-2 is Revoked');
    }
  });

  it('uncordons neither a terminal node nor a Draining one, whose drain keeps it cordoned', () => {
    expect(allowedIn('uncordon')).to.deep.equal(['Pending', 'Approved', 'Active', 'Drained']);
    expect(nodeActionRefusal(node('Draining'), 'uncordon')).to.equal(
      'node dgx-2 is Draining; a drain keeps it cordoned',
    );
    expect(nodeActionRefusal(node('Rejected'), 'uncordon')).to.equal('node dgx-2 is Rejected');
  });

  it('drains and rotates the credential of enrolled nodes only (Active, Draining, Drained)', () => {
    expect(allowedIn('drain')).to.deep.equal(['Active', 'Draining', 'Drained']);
    expect(allowedIn('rotateCredential')).to.deep.equal(['Active', 'Draining', 'Drained']);
    expect(nodeActionRefusal(node('Approved'), 'drain')).to.equal(
      'node dgx-2 is Approved; only Active nodes drain',
    );
    expect(nodeActionRefusal(node('Pending'), 'rotateCredential')).to.equal(
      'node dgx-2 is Pending; only enrolled nodes rotate credentials',
    );
  });

  it('lists every action once, in order, with a reason exactly when it is refused', () => {
    for (const lifecycle of NODE_LIFECYCLE_STATES) {
      const actions = nodeActions(node(lifecycle));
      expect(actions.map((entry) => entry.action)).to.deep.equal([...NODE_ACTIONS]);
      for (const entry of actions) {
        expect(entry.allowed, `${lifecycle} ${entry.action}`).to.equal(entry.reason === null);
      }
    }
    expect(nodeActions(node('Revoked')).filter((entry) => entry.allowed)).to.deep.equal([]);
  });
});
