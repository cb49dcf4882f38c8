import { expect } from 'chai';
import type { LeaseRenewal, Queryable } from '@lunanexa/persistence';
import { LeaseRenewalBatcher, MAX_BATCHES_IN_FLIGHT } from '../src/agent-channel/lease-renewals';

function renewal(nodeId: string, sequence: number): LeaseRenewal {
  const at = new Date();
  return {
    nodeId,
    keyId: 'k',
    sequence,
    at,
    leaseExpiresAt: new Date(at.getTime() + 15_000),
    inventory: {},
    observed: {},
    gpuTelemetry: [],
    conditions: { conditions: [], streaks: {} } as never,
    previousConditions: null,
    agentCredentialSerial: null,
    endpoint: null,
    observedAssignments: [],
  };
}

/**
 * PostgreSQL's side of renewNodeLeases as the batcher sees it: each statement
 * waits until the test commits it, then answers every renewal's node row.
 */
class GatedDb implements Queryable {
  readonly statements: { nodes: string[]; commit: () => void }[] = [];
  open = 0;
  maxOpen = 0;

  query<T>(_sql: string, parameters?: unknown[]): Promise<T> {
    const input = JSON.parse(String(parameters?.[0])) as { i: number; node_id: string }[];
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    return new Promise<T>((resolve) => {
      this.statements.push({
        nodes: input.map((r) => r.node_id),
        commit: () => {
          this.open--;
          resolve(
            input.map((r) => ({
              i: r.i,
              id: r.node_id,
              name: r.node_id,
              lifecycle: 'Active',
              cordoned: false,
              credential: null,
              credential_serial: 0,
              rotation_requested_at: null,
              next_key_id: null,
              bootstrap_token_id: 't',
              workflow_ids: [],
            })) as T,
          );
        },
      });
    });
  }
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('LeaseRenewalBatcher (group commit of lease renewals)', () => {
  it('keeps up to MAX_BATCHES_IN_FLIGHT statements open, never one node in two, and acks only after its commit', async () => {
    const db = new GatedDb();
    const batcher = new LeaseRenewalBatcher(db, () => undefined);
    const acked: string[] = [];
    const renew = (nodeId: string, sequence: number) =>
      void batcher.renew(renewal(nodeId, sequence)).then((node) => acked.push(`${node?.id}#${sequence}`));
    renew('a', 1);
    renew('b', 1);
    await turn();
    expect(db.statements.map((s) => s.nodes)).to.deep.equal([['a', 'b']]);
    renew('a', 2); // a is in the open statement: waits for it
    renew('c', 1);
    await turn();
    expect(db.statements.map((s) => s.nodes)).to.deep.equal([['a', 'b'], ['c']]);
    renew('d', 1); // both slots taken
    await turn();
    expect(db.statements).to.have.length(MAX_BATCHES_IN_FLIGHT);
    expect(acked).to.deep.equal([]);
    db.statements[0]?.commit();
    await turn();
    await turn();
    expect(acked).to.have.members(['a#1', 'b#1']);
    expect(db.statements[2]?.nodes).to.deep.equal(['a', 'd']);
    db.statements[1]?.commit();
    db.statements[2]?.commit();
    await turn();
    await turn();
    expect(acked).to.have.members(['a#1', 'b#1', 'c#1', 'a#2', 'd#1']);
    expect(db.maxOpen).to.equal(MAX_BATCHES_IN_FLIGHT);
  });
});
