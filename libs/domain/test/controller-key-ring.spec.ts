import { expect } from 'chai';
import {
  AGENT_PROTOCOL_VERSION,
  CONTROLLER_KEY_NOTICE_PROTOCOL,
  ErrorCode,
  INVENTORY_DIGEST_PROTOCOL,
  LunaNexaError,
  UNREPORTED_AGENT_PROTOCOL,
} from '@lunanexa/contracts';
import {
  acceptedKeys,
  nextNodeConditions,
  nodeKeyTrust,
  nodesTrustingOnlyPreviousKey,
  NOTICE_RETIRED_KEYS,
  planRotation,
  ringNotice,
  ringPhase,
  signingKey,
  signingKeyForNode,
  takesControllerKeyNotice,
  takesInventoryDigest,
  type ControllerKeyState,
  type RingKeyRecord,
} from '../src';

const key = (n: number, state: ControllerKeyState, extra: Partial<RingKeyRecord> = {}): RingKeyRecord => ({
  keyId: `ed25519:key-${n}`,
  sshFingerprint: `SHA256:fingerprint-${n}`,
  publicKey: `ssh-ed25519 AAAA${n}`,
  state,
  rotationId: n === 1 ? null : `rotation-${n}`,
  acceptUntil: state === 'previous' ? new Date('2026-12-07T00:00:00.000Z') : null,
  ...extra,
});

const steady = [key(1, 'current')];
const announced = [key(1, 'current'), key(2, 'next')];
const overlap = [key(1, 'previous'), key(2, 'current')];
const retired = [key(1, 'retired'), key(2, 'current')];

function refusal(work: () => unknown): LunaNexaError {
  try {
    work();
  } catch (error) {
    if (error instanceof LunaNexaError) return error;
    throw error;
  }
  throw new Error('expected a LunaNexaError');
}

describe('the controller key ring', () => {
  it('moves through steady, announced, overlap and back to steady, with one signing key throughout', () => {
    expect([steady, announced, overlap, retired].map(ringPhase)).to.deep.equal([
      'steady',
      'announced',
      'overlap',
      'steady',
    ]);
    expect([steady, announced, overlap, retired].map((ring) => signingKey(ring).keyId)).to.deep.equal([
      'ed25519:key-1',
      'ed25519:key-1',
      'ed25519:key-2',
      'ed25519:key-2',
    ]);
    expect(acceptedKeys(retired).map((k) => k.keyId)).to.deep.equal(['ed25519:key-2']);
    expect(refusal(() => signingKey([key(1, 'retired')])).code).to.equal(ErrorCode.DEPENDENCY_UNAVAILABLE);
    expect(refusal(() => signingKey([key(1, 'current'), key(2, 'current')])).code).to.equal(
      ErrorCode.INTERNAL,
    );
  });

  it('announces the next key while the current one signs, and names retired keys after the overlap', () => {
    expect(ringNotice(steady, signingKey(steady))).to.deep.equal({
      signingKeyId: 'ed25519:key-1',
      next: null,
      retiredKeyIds: [],
    });
    expect(ringNotice(announced, signingKey(announced)).next).to.deep.equal({
      keyId: 'ed25519:key-2',
      publicKey: 'ssh-ed25519 AAAA2',
      rotationId: 'rotation-2',
    });
    expect(ringNotice(overlap, signingKey(overlap))).to.deep.equal({
      signingKeyId: 'ed25519:key-2',
      next: null,
      retiredKeyIds: [],
    });
    expect(ringNotice(retired, signingKey(retired)).retiredKeyIds).to.deep.equal(['ed25519:key-1']);
    const many = [...Array.from({ length: 7 }, (_, i) => key(i + 1, 'retired')), key(9, 'current')];
    expect(ringNotice(many, signingKey(many)).retiredKeyIds).to.have.length(NOTICE_RETIRED_KEYS);
    expect(ringNotice(many, signingKey(many)).retiredKeyIds.at(-1)).to.equal('ed25519:key-7');
  });

  it('answers a node that has not added the new key with the previous key during the overlap, naming the new key', () => {
    const previous = overlap[0];
    expect(signingKeyForNode(overlap, ['ed25519:key-1']).keyId).to.equal('ed25519:key-1');
    expect(ringNotice(overlap, previous).next?.keyId).to.equal('ed25519:key-2');
    expect(signingKeyForNode(overlap, ['ed25519:key-1', 'ed25519:key-2']).keyId).to.equal('ed25519:key-2');
    // Not reporting (an older agent) or trusting nothing we hold: the current key.
    expect(signingKeyForNode(overlap, undefined).keyId).to.equal('ed25519:key-2');
    expect(signingKeyForNode(retired, ['ed25519:key-1']).keyId).to.equal('ed25519:key-2');
  });

  it('judges a node that trusts none of the accepted keys untrusted, with the fingerprint and the command that recovers it', () => {
    expect(nodeKeyTrust(retired, ['ed25519:key-2'])).to.include({
      trusted: true,
      reason: 'TrustsCurrentKey',
    });
    expect(nodeKeyTrust(overlap, ['ed25519:key-1'])).to.include({
      trusted: true,
      reason: 'TrustsPreviousKey',
    });
    expect(nodeKeyTrust(retired, undefined)).to.include({ trusted: true, reason: 'NotReported' });
    const lost = nodeKeyTrust(retired, ['ed25519:key-1']);
    expect(lost).to.include({ trusted: false, reason: 'ControllerKeyNotTrusted' });
    expect(lost.message).to.contain('SHA256:fingerprint-2');
    expect(lost.message).to.contain('lunanexa-agent trust-controller-key');
    expect(lost.message).to.contain('--fingerprint SHA256:fingerprint-2');
  });

  it('turns ControllerKeyTrusted False at once for such a node and True again at its next good heartbeat', () => {
    const receivedAt = new Date('2026-12-06T12:00:00.000Z');
    const condition = (state: ReturnType<typeof nextNodeConditions>) =>
      state.conditions.find((c) => c.type === 'ControllerKeyTrusted');
    const unknown = nextNodeConditions(null, { receivedAt });
    expect(condition(unknown)?.status).to.equal('Unknown');
    const bad = nextNodeConditions(unknown, {
      receivedAt,
      controllerKeyTrust: nodeKeyTrust(retired, ['ed25519:key-1']),
    });
    expect(condition(bad)).to.include({ status: 'False', reason: 'ControllerKeyNotTrusted' });
    const good = nextNodeConditions(bad, {
      receivedAt,
      controllerKeyTrust: nodeKeyTrust(retired, ['ed25519:key-2']),
    });
    expect(condition(good)).to.include({ status: 'True', reason: 'TrustsCurrentKey' });
    const lagging = nextNodeConditions(good, {
      receivedAt,
      controllerKeyTrust: nodeKeyTrust(overlap, ['ed25519:key-1']),
    });
    expect(condition(lagging)).to.include({ status: 'True', reason: 'TrustsPreviousKey' });
    expect(
      nodesTrustingOnlyPreviousKey([
        { name: 'a', conditions: lagging.conditions },
        { name: 'b', conditions: good.conditions },
      ]).map((n) => n.name),
    ).to.deep.equal(['a']);
  });

  it('plans one rotation at a time, with windows in range and a reason', () => {
    expect(planRotation(steady, { reason: 'yearly rotation' })).to.deep.equal({
      announceSeconds: 86_400,
      overlapSeconds: 604_800,
      reason: 'yearly rotation',
    });
    expect(
      planRotation(retired, { announceSeconds: 5, overlapSeconds: 10, reason: ' drill ' }),
    ).to.deep.equal({
      announceSeconds: 5,
      overlapSeconds: 10,
      reason: 'drill',
    });
    expect(refusal(() => planRotation(announced, { reason: 'again' })).code).to.equal(ErrorCode.CONFLICT);
    expect(refusal(() => planRotation(overlap, { reason: 'again' })).code).to.equal(ErrorCode.CONFLICT);
    const bad = refusal(() => planRotation(steady, { announceSeconds: 0, reason: 'drill' }));
    expect(bad.code).to.equal(ErrorCode.VALIDATION_FAILED);
    expect(bad.violations.map((v) => v.path)).to.deep.equal(['announceSeconds']);
    expect(
      refusal(() => planRotation(steady, { overlapSeconds: 1.5, reason: 'drill' })).violations[0]?.path,
    ).to.equal('overlapSeconds');
    expect(refusal(() => planRotation(steady, { reason: 'x' })).violations[0]?.path).to.equal('reason');
  });

  it('refuses a rotation while enrolled agents cannot take the key ring notice, naming them', () => {
    const twelve = Array.from({ length: 12 }, (_, i) => `dgx-${String(i + 1).padStart(2, '0')}`);
    const refused = refusal(() =>
      planRotation(steady, { reason: 'yearly rotation', nodesWithoutNotice: twelve }),
    );
    expect(refused.code).to.equal(ErrorCode.CONFLICT);
    expect(refused.message).to.match(
      /^12 enrolled node\(s\) run an agent too old to follow a controller key rotation/,
    );
    expect(refused.message).to.include('dgx-01, dgx-02').and.include('dgx-10, and 2 more');
    expect(refused.message).to.not.include('dgx-11');
    expect(planRotation(steady, { reason: 'yearly rotation', nodesWithoutNotice: [] }).reason).to.equal(
      'yearly rotation',
    );
  });

  it('sends the key ring notice and the held inventory digest only to agents at protocol 2 or later', () => {
    expect(takesControllerKeyNotice(UNREPORTED_AGENT_PROTOCOL)).to.equal(false);
    expect(takesControllerKeyNotice(CONTROLLER_KEY_NOTICE_PROTOCOL)).to.equal(true);
    expect(takesControllerKeyNotice(AGENT_PROTOCOL_VERSION)).to.equal(true);
    expect(takesInventoryDigest(UNREPORTED_AGENT_PROTOCOL)).to.equal(false);
    expect(takesInventoryDigest(INVENTORY_DIGEST_PROTOCOL)).to.equal(true);
    expect(takesInventoryDigest(AGENT_PROTOCOL_VERSION)).to.equal(true);
  });
});
