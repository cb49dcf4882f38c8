import { expect } from 'chai';
import { replicaStanding, servingReplicas, type RouteCandidate } from '../src/route-standing';

type Replica = RouteCandidate & { readonly node: string };

const replica = (deploymentId: string, node: string, overrides: Partial<RouteCandidate> = {}): Replica => ({
  deploymentId,
  node,
  nodeDraining: false,
  nodeLeaseLive: true,
  generationCurrent: true,
  ...overrides,
});

const names = (replicas: readonly Replica[]) => replicas.map((r) => `${r.deploymentId}@${r.node}`);

describe('replicaStanding: how fresh the evidence is that a Ready replica serves', () => {
  it('is serving with a live lease and the current generation, draining on a Draining node', () => {
    expect(replicaStanding(replica('d1', 'a'))).to.equal('serving');
    expect(replicaStanding(replica('d1', 'a', { nodeDraining: true }))).to.equal('draining');
  });

  it('is unconfirmed when the node lease lapsed or the generation moved on, draining or not', () => {
    expect(replicaStanding(replica('d1', 'a', { nodeLeaseLive: false }))).to.equal('unconfirmed');
    expect(replicaStanding(replica('d1', 'a', { generationCurrent: false }))).to.equal('unconfirmed');
    expect(replicaStanding(replica('d1', 'a', { nodeDraining: true, nodeLeaseLive: false }))).to.equal(
      'unconfirmed',
    );
  });
});

describe('servingReplicas: per deployment, only the best standing it has takes requests', () => {
  it('keeps the last replica of a deployment on a draining node serving (make-before-break)', () => {
    const rows = [replica('d1', 'a', { nodeDraining: true })];
    expect(servingReplicas(rows)).to.deep.equal(rows);
  });

  it('sends new requests only to the replicas elsewhere once there is one, per deployment', () => {
    const rows = [
      replica('d1', 'a', { nodeDraining: true }),
      replica('d1', 'b'),
      replica('d2', 'a', { nodeDraining: true }),
      replica('d3', 'c'),
    ];
    expect(names(servingReplicas(rows))).to.deep.equal(['d1@b', 'd2@a', 'd3@c']);
  });

  it('keeps every replica when all of a deployment’s nodes drain at once, and passes nothing through from nothing', () => {
    const rows = [replica('d1', 'a', { nodeDraining: true }), replica('d1', 'b', { nodeDraining: true })];
    expect(servingReplicas(rows)).to.deep.equal(rows);
    expect(servingReplicas([])).to.deep.equal([]);
  });

  it('never routes an unconfirmed replica beside a confirmed one, draining or not', () => {
    const rows = [
      replica('d1', 'a', { nodeLeaseLive: false }),
      replica('d1', 'b'),
      replica('d2', 'a', { generationCurrent: false }),
      replica('d2', 'c', { nodeDraining: true }),
    ];
    expect(names(servingReplicas(rows))).to.deep.equal(['d1@b', 'd2@c']);
  });

  it('keeps a deployment routed to its unconfirmed replicas while it has nothing better, in the given order', () => {
    const rows = [
      replica('d1', 'b', { nodeLeaseLive: false }),
      replica('d2', 'c'),
      replica('d1', 'a', { generationCurrent: false }),
    ];
    expect(names(servingReplicas(rows))).to.deep.equal(['d1@b', 'd2@c', 'd1@a']);
  });
});
