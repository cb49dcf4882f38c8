import { createPublicKey } from 'node:crypto';
import { expect } from 'chai';
import { ENVELOPE_SCHEMAS, type UnsignedEnvelopeOf } from '../src/envelope';
import {
  heartbeatMacKeys,
  MAC_ALGORITHM,
  x25519PrivateKeyOf,
  x25519PublicKeyOf,
  type HeartbeatMacContext,
} from '../src/heartbeat-mac';
import { ReplayGuard } from '../src/replay-guard';
import { createEnvelope, macEnvelope, signEnvelope, verifyEnvelope } from '../src/signing';
import { ErrorCode, expectErrorCode, fixture, freshKeyPair } from './support';

function jwkX(key: ReturnType<typeof createPublicKey>): string {
  return (key.export({ format: 'jwk' }) as { x: string }).x;
}

/** A JSON round trip: what the receiver actually sees. */
function wire<T>(value: T): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

describe('heartbeat MAC keys', () => {
  const node = freshKeyPair();
  const controller = freshKeyPair();
  const context: HeartbeatMacContext = { nodeId: 'node-a', nodeKeyId: 'nk-1', controllerKeyId: 'ck-1' };

  it('converts an Ed25519 key pair to the matching X25519 pair', () => {
    for (let i = 0; i < 20; i += 1) {
      const pair = freshKeyPair();
      const fromPrivate = createPublicKey(x25519PrivateKeyOf(pair.privateKey));
      expect(fromPrivate.asymmetricKeyType).to.equal('x25519');
      expect(jwkX(fromPrivate)).to.equal(jwkX(x25519PublicKeyOf(pair.publicKey)));
    }
  });

  it('gives both sides the same keys, one per direction', () => {
    const agentSide = heartbeatMacKeys(node.privateKey, controller.publicKey, context);
    const controllerSide = heartbeatMacKeys(controller.privateKey, node.publicKey, context);
    expect(agentSide.agentToController.equals(controllerSide.agentToController)).to.equal(true);
    expect(agentSide.controllerToAgent.equals(controllerSide.controllerToAgent)).to.equal(true);
    expect(agentSide.agentToController.equals(agentSide.controllerToAgent)).to.equal(false);
    expect(agentSide.agentToController).to.have.length(32);
  });

  it('binds the keys to the node and both key ids, and to the keys themselves', () => {
    const base = heartbeatMacKeys(node.privateKey, controller.publicKey, context).agentToController;
    for (const other of [
      { ...context, nodeId: 'node-b' },
      { ...context, nodeKeyId: 'nk-2' },
      { ...context, controllerKeyId: 'ck-2' },
    ]) {
      expect(
        heartbeatMacKeys(node.privateKey, controller.publicKey, other).agentToController.equals(base),
      ).to.equal(false);
    }
    const stranger = freshKeyPair();
    expect(
      heartbeatMacKeys(stranger.privateKey, controller.publicKey, context).agentToController.equals(base),
    ).to.equal(false);
  });

  it('refuses keys of another type', () => {
    expect(() => x25519PublicKeyOf(node.privateKey)).to.throw(/Ed25519 public/);
    expect(() => x25519PrivateKeyOf(node.publicKey)).to.throw(/Ed25519 private/);
  });
});

describe('MAC-authenticated heartbeats', () => {
  const node = freshKeyPair();
  const controller = freshKeyPair();
  const sample = ENVELOPE_SCHEMAS.heartbeat.parse(fixture('heartbeat.json'));
  const ackSample = ENVELOPE_SCHEMAS['heartbeat.ack'].parse(fixture('heartbeat-ack.json'));
  const NOW = new Date(sample.issuedAt);
  const context: HeartbeatMacContext = {
    nodeId: sample.nodeId,
    nodeKeyId: 'nk-1',
    controllerKeyId: 'ck-1',
  };
  const keys = heartbeatMacKeys(node.privateKey, controller.publicKey, context);
  const noKeys = new Map();

  function heartbeat(): UnsignedEnvelopeOf<'heartbeat'> {
    const { signature: _signature, ...unsigned } = sample;
    return unsigned;
  }

  function macKey(keyId: string): Buffer | undefined {
    return keyId === 'ck-1' ? keys.agentToController : undefined;
  }

  it('round-trips: MAC, send as JSON, verify with the same keys', () => {
    const sent = macEnvelope(keys.agentToController, 'ck-1', heartbeat());
    expect(sent.signature.alg).to.equal(MAC_ALGORITHM);
    expect(sent.signature.value).to.have.length(43);
    const verified = verifyEnvelope(noKeys, wire(sent), { now: NOW, macKey });
    expect(verified).to.deep.equal(sent);
  });

  it('refuses a changed member, a wrong key, the other direction and an unknown key id', () => {
    const sent = wire(macEnvelope(keys.agentToController, 'ck-1', heartbeat()));
    const changed = wire(sent) as { body: { heartbeat: { sequence: number } } };
    changed.body.heartbeat.sequence += 1;
    expectErrorCode(() => verifyEnvelope(noKeys, changed, { now: NOW, macKey }), ErrorCode.SIGNATURE_INVALID);
    expectErrorCode(
      () => verifyEnvelope(noKeys, sent, { now: NOW, macKey: () => keys.controllerToAgent }),
      ErrorCode.SIGNATURE_INVALID,
    );
    const forged = wire(
      macEnvelope(
        heartbeatMacKeys(freshKeyPair().privateKey, controller.publicKey, context).agentToController,
        'ck-1',
        heartbeat(),
      ),
    );
    expectErrorCode(() => verifyEnvelope(noKeys, forged, { now: NOW, macKey }), ErrorCode.SIGNATURE_INVALID);
    const otherKeyId = wire(macEnvelope(keys.agentToController, 'ck-2', heartbeat()));
    expectErrorCode(
      () => verifyEnvelope(noKeys, otherKeyId, { now: NOW, macKey }),
      ErrorCode.SIGNATURE_INVALID,
    );
  });

  it('is refused where no MAC key is offered (every verifier but heartbeat ingest and the ack check)', () => {
    const sent = wire(macEnvelope(keys.agentToController, 'ck-1', heartbeat()));
    expectErrorCode(() => verifyEnvelope(noKeys, sent, { now: NOW }), ErrorCode.SIGNATURE_INVALID);
  });

  it('authenticates only heartbeats and their acks', () => {
    const { signature: _s, ...ack } = ackSample;
    const ackSent = wire(macEnvelope(keys.controllerToAgent, 'ck-1', ack));
    expect(
      verifyEnvelope(noKeys, ackSent, {
        now: new Date(ackSample.issuedAt),
        macKey: () => keys.controllerToAgent,
      }).type,
    ).to.equal('heartbeat.ack');
    // A status.get carrying a MAC: the verifier does not even ask for a key, and the schema refuses it.
    const statusGet = wire(
      signEnvelope(
        controller.privateKey,
        'ck-1',
        createEnvelope('status.get', { nodeId: sample.nodeId, body: {} }),
      ),
    ) as { signature: Record<string, unknown> };
    statusGet.signature = {
      keyId: 'ck-1',
      alg: MAC_ALGORITHM,
      value: (ackSent as { signature: { value: string } }).signature.value,
    };
    let asked = false;
    expectErrorCode(
      () =>
        verifyEnvelope(noKeys, statusGet, {
          now: NOW,
          macKey: () => {
            asked = true;
            return keys.controllerToAgent;
          },
        }),
      ErrorCode.SIGNATURE_INVALID,
    );
    expect(asked).to.equal(false);
    expect(ENVELOPE_SCHEMAS['status.get'].safeParse(statusGet).success).to.equal(false);
  });

  it('refuses a malformed tag and a replayed nonce', () => {
    const sent = wire(macEnvelope(keys.agentToController, 'ck-1', heartbeat())) as {
      signature: { value: string };
    };
    const short = wire(sent) as typeof sent;
    short.signature.value = short.signature.value.slice(0, 40);
    expectErrorCode(() => verifyEnvelope(noKeys, short, { now: NOW, macKey }), ErrorCode.VALIDATION_FAILED);
    const replayGuard = new ReplayGuard({ windowMs: 120_000 });
    verifyEnvelope(noKeys, sent, { now: NOW, macKey, replayGuard });
    expectErrorCode(
      () => verifyEnvelope(noKeys, sent, { now: NOW, macKey, replayGuard }),
      ErrorCode.REPLAY_DETECTED,
    );
  });
});
