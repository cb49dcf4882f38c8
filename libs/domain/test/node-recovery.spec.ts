import { expect } from 'chai';
import { nodeRecoveryWorkflowId, recoveryComplete, watchNodeLeases, type NodeLeaseView } from '../src';

const NOW = new Date('2026-12-05T12:00:00.000Z');
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);

function node(overrides: Partial<NodeLeaseView> & { nodeId: string }): NodeLeaseView {
  return { lifecycle: 'Active', leaseExpiresAt: ago(30), runningReplicas: 1, ...overrides };
}

describe('node recovery decisions', () => {
  const live = node({
    nodeId: 'n-live',
    leaseExpiresAt: new Date(NOW.getTime() + 60_000),
    runningReplicas: 0,
  });

  it('a node is lost once the watch has seen its lease expired for the grace period, with replicas still there', () => {
    const nodes = [
      live,
      node({ nodeId: 'n-expired-long-ago' }),
      node({ nodeId: 'n-just-expired', leaseExpiresAt: ago(3) }),
      node({ nodeId: 'n-empty', runningReplicas: 0 }),
      node({ nodeId: 'n-never-beat', leaseExpiresAt: null }),
      node({ nodeId: 'n-pending', lifecycle: 'Pending' }),
      node({ nodeId: 'n-revoked', lifecycle: 'Revoked' }),
      node({ nodeId: 'n-draining', lifecycle: 'Draining' }),
    ];
    // First sight: suspected, not yet lost — the watch itself must have seen the silence for the grace period.
    const first = watchNodeLeases(nodes, NOW, 10_000, {});
    expect(first.lost).to.deep.equal([]);
    expect(Object.keys(first.suspects)).to.deep.equal(['n-draining', 'n-expired-long-ago', 'n-just-expired']);
    const later = new Date(NOW.getTime() + 10_000);
    const second = watchNodeLeases(nodes, later, 10_000, first.suspects);
    expect(second.lost.map((n) => n.nodeId)).to.deep.equal([
      'n-draining',
      'n-expired-long-ago',
      'n-just-expired',
    ]);
    expect(second.lost[1]?.leaseExpiredAt).to.deep.equal(ago(30));
    // A suspect that heartbeats again is forgotten.
    const renewed = nodes.map((n) =>
      n.nodeId === 'n-just-expired' ? { ...n, leaseExpiresAt: new Date(later.getTime() + 20_000) } : n,
    );
    expect(Object.keys(watchNodeLeases(renewed, later, 10_000, first.suspects).suspects)).not.to.include(
      'n-just-expired',
    );
  });

  it('declares nothing while no node at all holds a live lease (a controller that heard nobody), and forgets suspicions', () => {
    const silent = [node({ nodeId: 'n-a' }), node({ nodeId: 'n-b', runningReplicas: 0 })];
    const suspects = { 'n-a': ago(60).toISOString() };
    expect(watchNodeLeases(silent, NOW, 10_000, suspects)).to.deep.equal({ lost: [], suspects: {} });
    // Back from an outage: the first node to heartbeat makes the others suspects, not lost.
    const back = [{ ...silent[1], leaseExpiresAt: new Date(NOW.getTime() + 20_000) }, silent[0]];
    const pass = watchNodeLeases(back, NOW, 10_000, {});
    expect(pass.lost).to.deep.equal([]);
    expect(pass.suspects).to.deep.equal({ 'n-a': NOW.toISOString() });
  });

  it('one recovery per loss: the same expired lease gives the same workflow id, a later loss another', () => {
    const first = nodeRecoveryWorkflowId('node-a', ago(30));
    expect(nodeRecoveryWorkflowId('node-a', ago(30))).to.equal(first);
    expect(nodeRecoveryWorkflowId('node-a', ago(5))).not.to.equal(first);
    expect(nodeRecoveryWorkflowId('node-b', ago(30))).not.to.equal(first);
    expect(first).to.equal(`nodeRecovery/node-a/${ago(30).getTime()}`);
  });

  it('recovery is complete when every deployment has its desired replicas Ready elsewhere, or stopped wanting them', () => {
    const whole = { deploymentId: 'd1', desiredReplicas: 2, readyElsewhere: 2, finished: false };
    const short = { deploymentId: 'd2', desiredReplicas: 2, readyElsewhere: 1, finished: false };
    expect(recoveryComplete([whole])).to.equal(true);
    expect(recoveryComplete([whole, short])).to.equal(false);
    expect(recoveryComplete([whole, { ...short, finished: true }])).to.equal(true);
    expect(recoveryComplete([])).to.equal(true);
  });
});
