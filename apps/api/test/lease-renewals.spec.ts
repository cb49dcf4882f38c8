import { expect } from 'chai';
import { renewNodeLeasesStatement, type LeaseRenewal, type Queryable } from '@lunanexa/persistence';
import { LeaseRenewalBatcher } from '../src/agent-channel/lease-renewals';

/** A heartbeat connection that records each named statement and the node ids it was given. */
function recordingConnection(): { db: Queryable; runs: { name: string; nodeIds: string[] }[] } {
  const runs: { name: string; nodeIds: string[] }[] = [];
  const db: Queryable = {
    query: () => Promise.reject(new Error('the batch goes as a named statement')),
    queryPrepared: <T>(name: string, _sql: string, parameters: unknown[]): Promise<T> => {
      const input = JSON.parse(parameters[0] as string) as { i: number; node_id: string }[];
      runs.push({ name, nodeIds: parameters[2] as string[] });
      return Promise.resolve(
        input.map((row) => ({
          i: row.i,
          id: row.node_id,
          name: row.node_id,
          lifecycle: 'Active',
          cordoned: false,
          credential: null,
          credential_serial: null,
          rotation_requested_at: null,
          next_key_id: null,
          bootstrap_token_id: null,
          crashes: '0',
          workflow_ids: [],
        })) as T,
      );
    },
  };
  return { db, runs };
}

function renewal(nodeId: string, sequence: number): LeaseRenewal {
  const at = new Date();
  return {
    nodeId,
    keyId: 'key-1',
    sequence,
    at,
    leaseExpiresAt: new Date(at.getTime() + 15_000),
    inventory: null,
    observed: { observedAssignments: [], runtimes: [] },
    gpuTelemetry: [],
    conditions: { conditions: [], pending: {} } as unknown as LeaseRenewal['conditions'],
    previousConditions: null,
    agentCredentialSerial: null,
    endpoint: null,
    observedAssignments: [],
  };
}

describe('LeaseRenewalBatcher (group commit of the common heartbeat)', () => {
  it('prepares the statement again each time the fleet it has renewed doubles, and names each batch’s nodes', async () => {
    const { db, runs } = recordingConnection();
    const batcher = new LeaseRenewalBatcher(db, () => undefined);
    const renewed = await batcher.renew(renewal('node-1', 1));
    expect(renewed?.id).to.equal('node-1');
    // Three more nodes in one turn of the event loop: one statement, named for a fleet of four.
    await Promise.all(['node-2', 'node-3', 'node-4'].map((id) => batcher.renew(renewal(id, 1))));
    // The same four again: the fleet has not grown, so the name stays.
    await Promise.all(['node-1', 'node-2'].map((id) => batcher.renew(renewal(id, 2))));
    // A fifth node: past four, a new name (planned afresh for the larger table).
    await batcher.renew(renewal('node-5', 1));
    expect(runs).to.deep.equal([
      { name: renewNodeLeasesStatement(1), nodeIds: ['node-1'] },
      { name: renewNodeLeasesStatement(4), nodeIds: ['node-2', 'node-3', 'node-4'] },
      { name: renewNodeLeasesStatement(4), nodeIds: ['node-1', 'node-2'] },
      { name: renewNodeLeasesStatement(5), nodeIds: ['node-5'] },
    ]);
    expect(new Set(runs.map((run) => run.name)).size).to.equal(3);
  });
});
