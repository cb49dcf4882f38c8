import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { AssignmentAckBody } from '@lunanexa/agent-protocol';
import {
  AGENT_PROTOCOL_VERSION,
  AssignmentSchema,
  ErrorCode,
  LunaNexaError,
  type Assignment,
  type NodeInventory,
} from '@lunanexa/contracts';
import { findRepoRoot } from '@lunanexa/observability';
import type { DeploymentRow, ModelVersionRow, NodeRow } from '@lunanexa/persistence';
import { buildAssignment } from '../src/deployment/assignment-spec';
import { pushAcceptedBy } from '../src/deployment/push';

/**
 * Version skew (docs/UPGRADING.md): a controller ahead of its agents keeps
 * deploying to a node whose agent predates signature verification, which
 * refuses an assignment carrying `trustedSigningKeys` (strict schema).
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
const inventory = fixture('node-inventory.gb10-unified.json') as unknown as NodeInventory;

function nodeWith(agentInventory: NodeInventory): NodeRow {
  return {
    id: 'node-skew',
    address: '127.0.0.1',
    sshPort: 2222,
    hostKeyFingerprint: `SHA256:${'A'.repeat(43)}`,
    keyId: 'ed25519:1111111111111111',
    publicKey: 'AAAA',
    nextKeyId: null,
    nextPublicKey: null,
    inventory: agentInventory,
  } as NodeRow;
}

function assignmentTo(node: NodeRow): Assignment {
  const deployment = { id: 'dep-skew' } as DeploymentRow;
  const version = {
    ref: 'llama-3-1-8b-instruct@2024-07-23',
    artifact: signedArtifact,
    runtime: fixture('runtime.fake-binary.json'),
    runtimeEnv: {},
  } as unknown as ModelVersionRow;
  return buildAssignment('asg-skew', deployment, version, node, 'Run', 1, new Date('2026-01-01T00:00:00Z'), [
    KEY,
  ]);
}

/**
 * An agent's southbound as far as an assignment goes: it parses what it gets
 * with its own schema, as the agent does, and acks or refuses the way the
 * agent's protocol channel does (VALIDATION_FAILED with zod's violations).
 */
function agentAccepting(schema: { safeParse(value: unknown): { success: boolean; error?: unknown } }) {
  const received: Assignment[] = [];
  return {
    received,
    pushAssignment(_node: unknown, assignment: Assignment): Promise<AssignmentAckBody> {
      received.push(assignment);
      const parsed = schema.safeParse(assignment);
      if (!parsed.success) {
        const issues = (parsed.error as { issues: { path: PropertyKey[]; message: string }[] }).issues;
        return Promise.reject(
          new LunaNexaError(
            ErrorCode.VALIDATION_FAILED,
            'invalid assignment.put envelope',
            issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message })),
          ),
        );
      }
      return Promise.resolve({
        assignmentId: assignment.id,
        generation: assignment.generation,
      } as AssignmentAckBody);
    },
  };
}

/** The assignment schema of agents before signature verification: the same, without the field. */
const preSignatureSchema = {
  safeParse(value: unknown) {
    const current = AssignmentSchema.safeParse(value);
    if (!current.success) return current;
    if ('trustedSigningKeys' in (value as object))
      return {
        success: false,
        error: { issues: [{ path: [], message: 'Unrecognized key: "trustedSigningKeys"' }] },
      };
    return current;
  },
};

describe('assignments across agent versions', () => {
  it('an agent at the current protocol gets the trusted key the signature names, in one push', async () => {
    const node = nodeWith({ ...inventory, agentProtocol: AGENT_PROTOCOL_VERSION });
    const agent = agentAccepting(AssignmentSchema);
    const { sent } = await pushAcceptedBy(agent, node, assignmentTo(node));
    expect(sent.trustedSigningKeys).to.deep.equal([KEY]);
    expect(agent.received).to.have.length(1);
  });

  it('an agent at 0.1.0 (no protocol reported) that verifies signatures gets the key, in one push', async () => {
    const node = nodeWith(inventory);
    const agent = agentAccepting(AssignmentSchema);
    const { sent } = await pushAcceptedBy(agent, node, assignmentTo(node));
    expect(sent.trustedSigningKeys).to.deep.equal([KEY]);
    expect(agent.received).to.have.length(1);
  });

  it('an agent from before signature verification refuses the field and gets the assignment again without it', async () => {
    const node = nodeWith(inventory);
    const agent = agentAccepting(preSignatureSchema);
    const { sent } = await pushAcceptedBy(agent, node, assignmentTo(node));
    expect(Object.keys(sent)).to.not.include('trustedSigningKeys');
    expect(sent.artifact).to.deep.equal(signedArtifact);
    expect(agent.received.map((a) => 'trustedSigningKeys' in a)).to.deep.equal([true, false]);
  });

  it('an agent reporting the current protocol is never sent an assignment without the keys', async () => {
    const node = nodeWith({ ...inventory, agentProtocol: AGENT_PROTOCOL_VERSION });
    const agent = agentAccepting(preSignatureSchema);
    let refusal: unknown;
    await pushAcceptedBy(agent, node, assignmentTo(node)).catch((error: unknown) => (refusal = error));
    expect(refusal).to.be.instanceOf(LunaNexaError);
    expect(agent.received).to.have.length(1);
  });
});
