import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { AGENT_PROTOCOL_VERSION, type NodeInventory } from '@lunanexa/contracts';
import { findRepoRoot } from '@lunanexa/observability';
import type { DeploymentRow, ModelVersionRow, NodeRow } from '@lunanexa/persistence';
import { buildAssignment } from '../src/deployment-activities';

/**
 * Version skew (docs/UPGRADING.md): a controller ahead of its agents leaves
 * out what an older agent's strict assignment schema refuses, so a node whose
 * agent is not upgraded yet keeps taking assignments.
 */

const fixture = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(findRepoRoot(), 'libs/contracts/fixtures/v1', name), 'utf8')) as Record<
    string,
    unknown
  >;

const KEY = { keyId: `ed25519:${'0'.repeat(32)}`, publicKey: `${'A'.repeat(43)}=` };
const fixtureArtifact = fixture('assignment.json')['artifact'] as { provenance: { signature: object } };
const signedArtifact = {
  ...fixtureArtifact,
  provenance: {
    ...fixtureArtifact.provenance,
    signature: { ...fixtureArtifact.provenance.signature, keyId: KEY.keyId },
  },
};

function assignmentTo(inventory: NodeInventory) {
  const deployment = { id: 'dep-skew' } as DeploymentRow;
  const version = {
    ref: 'llama-3-1-8b-instruct@2024-07-23',
    artifact: signedArtifact,
    runtime: fixture('runtime.fake-binary.json'),
    runtimeEnv: {},
  } as unknown as ModelVersionRow;
  const node = { id: 'node-skew', inventory } as NodeRow;
  return buildAssignment('asg-skew', deployment, version, node, 'Run', 1, new Date('2026-01-01T00:00:00Z'), [
    KEY,
  ]);
}

describe('assignments across agent versions', () => {
  const inventory = fixture('node-inventory.gb10-unified.json') as unknown as NodeInventory;

  it('an agent at the current protocol gets the trusted key the signature names', () => {
    const assignment = assignmentTo({ ...inventory, agentProtocol: AGENT_PROTOCOL_VERSION });
    expect(assignment.trustedSigningKeys).to.deep.equal([KEY]);
  });

  it('an agent that does not report a protocol (releases up to 0.1.0) gets the assignment without trustedSigningKeys', () => {
    const { agentProtocol, ...older } = { ...inventory, agentProtocol: undefined };
    expect(agentProtocol).to.equal(undefined);
    const assignment = assignmentTo(older);
    expect(Object.keys(assignment)).to.not.include('trustedSigningKeys');
    expect(assignment.artifact).to.deep.equal(signedArtifact);
  });
});
