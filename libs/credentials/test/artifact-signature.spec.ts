import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { expect } from 'chai';
import {
  artifactSigningStatement,
  decideArtifactSignature,
  signingKeyFingerprint,
  type ArtifactSignatureClaim,
  type TrustedSigningKey,
} from '../src/artifact-signature';

function keyPair(): { privateKey: KeyObject; trusted: TrustedSigningKey } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  return {
    privateKey,
    trusted: { keyId: signingKeyFingerprint(raw), publicKey: raw.toString('base64'), revoked: false },
  };
}

const artifact = { digest: `sha256:${'ab'.repeat(32)}`, sizeBytes: 4096 };
const signer = keyPair();
const other = keyPair();

function signatureBy(privateKey: KeyObject, keyId: string, facts = artifact): ArtifactSignatureClaim {
  return {
    algorithm: 'ed25519',
    keyId,
    value: sign(null, artifactSigningStatement(facts), privateKey).toString('base64'),
  };
}

const good = signatureBy(signer.privateKey, signer.trusted.keyId);

function decide(
  signature: ArtifactSignatureClaim | null,
  trustedKeys: readonly TrustedSigningKey[] = [signer.trusted, other.trusted],
  options: { unsignedAllowed?: boolean; facts?: typeof artifact } = {},
) {
  return decideArtifactSignature({
    ref: 'chat@2',
    artifact: options.facts ?? artifact,
    signature,
    trustedKeys,
    unsignedAllowed: options.unsignedAllowed ?? true,
  });
}

function codeOf(decision: ReturnType<typeof decide>): string {
  if (decision.ok) return decision.signed ? 'signed' : 'unsigned';
  expect(decision.reason).to.include('chat@2');
  return decision.code;
}

describe('artifact signature decision', () => {
  it('the statement is the documented bytes', () => {
    expect(artifactSigningStatement(artifact).toString('utf8')).to.equal(
      `lunanexa-artifact-v1\ndigest=sha256:${'ab'.repeat(32)}\nsize=4096\n`,
    );
  });

  it('key ids are fingerprints of the raw public key', () => {
    expect(signer.trusted.keyId).to.match(/^ed25519:[0-9a-f]{32}$/);
    expect(signer.trusted.keyId).to.not.equal(other.trusted.keyId);
  });

  it('a signature by a trusted key over the digest and size verifies', () => {
    const decision = decide(good);
    expect(decision).to.deep.equal({ ok: true, signed: true, keyId: signer.trusted.keyId });
  });

  it('a signature by another key under the trusted key id is SIGNATURE_INVALID', () => {
    expect(codeOf(decide(signatureBy(other.privateKey, signer.trusted.keyId)))).to.equal('SIGNATURE_INVALID');
  });

  it('an unknown key id is SIGNATURE_INVALID', () => {
    expect(codeOf(decide(good, [other.trusted]))).to.equal('SIGNATURE_INVALID');
  });

  it('a revoked key is SIGNATURE_INVALID even when the signature is genuine', () => {
    expect(codeOf(decide(good, [{ ...signer.trusted, revoked: true }]))).to.equal('SIGNATURE_INVALID');
  });

  it('a tampered digest or size is SIGNATURE_INVALID', () => {
    expect(
      codeOf(decide(good, undefined, { facts: { ...artifact, digest: `sha256:${'cd'.repeat(32)}` } })),
    ).to.equal('SIGNATURE_INVALID');
    expect(codeOf(decide(good, undefined, { facts: { ...artifact, sizeBytes: 4097 } }))).to.equal(
      'SIGNATURE_INVALID',
    );
  });

  it('malformed signatures and keys are SIGNATURE_INVALID, never a throw', () => {
    expect(codeOf(decide({ ...good, value: 'not base64!' }))).to.equal('SIGNATURE_INVALID');
    expect(codeOf(decide({ ...good, value: Buffer.alloc(63).toString('base64') }))).to.equal(
      'SIGNATURE_INVALID',
    );
    expect(codeOf(decide({ ...good, value: Buffer.alloc(64).toString('base64') }))).to.equal(
      'SIGNATURE_INVALID',
    );
    expect(codeOf(decide({ ...good, algorithm: 'rsa' }))).to.equal('SIGNATURE_INVALID');
    // A stored key whose bytes do not hash to its id (a corrupted row) verifies nothing.
    expect(codeOf(decide(good, [{ ...signer.trusted, publicKey: other.trusted.publicKey }]))).to.equal(
      'SIGNATURE_INVALID',
    );
    expect(codeOf(decide(good, [{ ...signer.trusted, publicKey: 'AAAA' }]))).to.equal('SIGNATURE_INVALID');
  });

  it('unsigned versions pass unless the policy forbids them; a bad signature fails either way', () => {
    expect(codeOf(decide(null))).to.equal('unsigned');
    expect(codeOf(decide(null, [], { unsignedAllowed: false }))).to.equal('UNSIGNED_VERSION_NOT_ALLOWED');
    expect(codeOf(decide(good, [], { unsignedAllowed: true }))).to.equal('SIGNATURE_INVALID');
    expect(codeOf(decide(good, undefined, { unsignedAllowed: false }))).to.equal('signed');
  });
});
