import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { rmSync } from 'node:fs';
import type { Assignment } from '@lunanexa/contracts';
import { artifactSigningStatement, signingKeyFingerprint } from '@lunanexa/credentials';
import { expect } from 'chai';
import type { ReplicaHealth } from '../src/reconcile/reconciler';
import { eventually } from './controller-support';
import {
  fakeAssignment,
  fakeRuntimePids,
  FAST_RECONCILE,
  killFakeRuntimes,
  uniqueModelVersion,
} from './reconcile-support';
import {
  connectAs,
  makeControllerKey,
  openProtocol,
  signedPut,
  startSshAgent,
  tempDataDir,
  verifyReply,
  type SshTestAgent,
} from './ssh-support';

/**
 * The agent verifies a signed artifact itself before it starts a runtime:
 * the assignment (signed by the controller's envelope) carries the
 * provenance signature and the trusted key it names; a signature that does
 * not verify against it — forged, over other bytes, or with no trusted key
 * sent — is refused with SIGNATURE_INVALID in the replica's state, and no
 * runtime process is ever started.
 */

const controller = makeControllerKey('controller-1');

function ed25519(): { privateKey: KeyObject; ref: { keyId: string; publicKey: string } } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  return { privateKey, ref: { keyId: signingKeyFingerprint(raw), publicKey: raw.toString('base64') } };
}

describe('agent: artifact signature verified before start', function () {
  this.timeout(60_000);
  const modelVersion = uniqueModelVersion();
  const trusted = ed25519();
  const forger = ed25519();
  let dataDir: string;
  let agent: SshTestAgent;
  let serial = 0;

  /** A signed fake-runtime assignment for its own deployment. */
  function signedAssignment(
    signer: KeyObject,
    keys: Assignment['trustedSigningKeys'],
    tamper: (assignment: Assignment) => Assignment = (a) => a,
  ): Assignment {
    serial += 1;
    const base = fakeAssignment({ modelVersion, id: `asg-sig-${serial}`, deploymentId: `dep-sig-${serial}` });
    const value = sign(
      null,
      artifactSigningStatement({ digest: base.artifact.digest, sizeBytes: base.artifact.sizeBytes }),
      signer,
    ).toString('base64');
    return tamper({
      ...base,
      artifact: {
        ...base.artifact,
        provenance: {
          ...base.artifact.provenance,
          signature: { algorithm: 'ed25519', keyId: trusted.ref.keyId, value },
        },
      },
      ...(keys === undefined ? {} : { trustedSigningKeys: keys }),
    });
  }

  async function push(assignment: Assignment): Promise<void> {
    const client = await connectAs(agent, controller);
    try {
      const stream = await openProtocol(client);
      stream.send(signedPut(controller, assignment));
      verifyReply(agent, await stream.next(), 'assignment.ack');
    } finally {
      client.end();
    }
  }

  function replicaIn(assignmentId: string, state: ReplicaHealth['state']): Promise<ReplicaHealth> {
    return eventually(
      () => agent.health().replicas.find((r) => r.assignmentId === assignmentId && r.state === state),
      20_000,
      `${assignmentId} ${state}`,
    );
  }

  async function expectRefused(assignment: Assignment, why: RegExp): Promise<void> {
    await push(assignment);
    const failed = await replicaIn(assignment.id, 'Failed');
    expect(failed.message).to.match(/^SIGNATURE_INVALID: /);
    expect(failed.message).to.match(why);
    expect(failed.pid).to.equal(null);
    const observed = agent.reconciler
      .observedAssignments()
      .find((entry) => entry.assignmentId === assignment.id);
    expect(observed?.message).to.match(/^SIGNATURE_INVALID: /);
    // Retried with backoff and refused each time: nothing ever ran.
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([]);
  }

  before(async () => {
    dataDir = tempDataDir();
    agent = await startSshAgent(dataDir, [controller], { reconcile: FAST_RECONCILE });
  });
  after(async () => {
    await agent.close({ stopRuntimes: true });
    killFakeRuntimes(modelVersion);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a forged signature (another key under the trusted key id) with SIGNATURE_INVALID; no runtime starts', async () => {
    await expectRefused(signedAssignment(forger.privateKey, [trusted.ref]), /does not verify/);
  });

  it('refuses a signature over other bytes (size changed after signing) with SIGNATURE_INVALID', async () => {
    await expectRefused(
      signedAssignment(trusted.privateKey, [trusted.ref], (a) => ({
        ...a,
        artifact: { ...a.artifact, sizeBytes: a.artifact.sizeBytes + 1 },
      })),
      /does not verify/,
    );
  });

  it('refuses a signed artifact whose key the controller did not send (unknown or revoked there)', async () => {
    await expectRefused(signedAssignment(trusted.privateKey, []), /not a trusted key/);
    await expectRefused(signedAssignment(trusted.privateKey, undefined), /not a trusted key/);
  });

  it('starts a runtime for a signature that verifies against the key sent with it', async () => {
    const assignment = signedAssignment(trusted.privateKey, [trusted.ref]);
    await push(assignment);
    const ready = await replicaIn(assignment.id, 'Ready');
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([ready.pid]);
  });
});
