import { generateKeyPairSync, verify } from 'node:crypto';
import { expect } from 'chai';
import { utils } from 'ssh2';
import {
  PUBLISHED_TEST_KEY_FINGERPRINTS,
  ed25519KeyId,
  ed25519PublicKeyRaw,
  isPublishedTestKey,
  openSshPrivateKey,
  openSshPublicKey,
  parseEd25519PublicKey,
  sshEd25519PublicBlob,
  sshFingerprint,
} from '../src/keys';
import { ErrorCode, expectErrorCode, freshKeyPair, testKeyFile, testPrivateKey, publicOf } from './support';

describe('Ed25519 public keys', () => {
  const { publicKey, privateKey } = freshKeyPair();
  const raw = ed25519PublicKeyRaw(publicKey);

  it('reads the OpenSSH line and the PEM SPKI form as the same key', () => {
    const fromSsh = parseEd25519PublicKey(openSshPublicKey(publicKey, 'controller@lab'));
    const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const fromPem = parseEd25519PublicKey(pem);
    expect(ed25519PublicKeyRaw(fromSsh)).to.deep.equal(raw);
    expect(ed25519PublicKeyRaw(fromPem)).to.deep.equal(raw);
    expect(ed25519PublicKeyRaw(privateKey)).to.deep.equal(raw);
  });

  it('reads the committed test keys in both forms, matching their private halves', () => {
    for (const name of ['controller', 'node'] as const) {
      const expected = ed25519PublicKeyRaw(publicOf(testPrivateKey(name)));
      expect(
        ed25519PublicKeyRaw(parseEd25519PublicKey(testKeyFile(`TEST-ONLY-${name}.ed25519.pub`))),
      ).to.deep.equal(expected);
      expect(
        ed25519PublicKeyRaw(parseEd25519PublicKey(testKeyFile(`TEST-ONLY-${name}.ed25519.pub.pem`))),
      ).to.deep.equal(expected);
    }
  });

  it('computes the fingerprint ssh-keygen prints and a URL-safe key id from the same hash', () => {
    const fingerprint = sshFingerprint(publicKey);
    expect(fingerprint).to.match(/^SHA256:[A-Za-z0-9+/]{43}$/);
    const keyId = ed25519KeyId(publicKey);
    expect(keyId).to.match(/^ed25519:[A-Za-z0-9_-]{43}$/);
    expect(keyId.slice('ed25519:'.length)).to.equal(
      fingerprint.slice('SHA256:'.length).replace(/\+/g, '-').replace(/\//g, '_'),
    );
    expect(sshEd25519PublicBlob(publicKey).subarray(0, 15).toString('latin1')).to.equal(
      '\u0000\u0000\u0000\u000bssh-ed25519',
    );
  });

  for (const [label, text] of [
    ['an RSA OpenSSH key', 'ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQC7 user@host'],
    ['garbage', 'not a key'],
    ['an empty string', ''],
    ['a truncated blob', 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIA=='],
    [
      'a blob whose inner type disagrees',
      `ssh-ed25519 ${Buffer.from('\u0000\u0000\u0000\u0007ssh-rsa').toString('base64')}`,
    ],
  ] as const) {
    it(`refuses ${label}`, () => {
      expectErrorCode(() => parseEd25519PublicKey(text), ErrorCode.VALIDATION_FAILED);
    });
  }

  it('refuses a PEM private key (it must never be accepted as a public one) and a non-Ed25519 PEM key', () => {
    const pkcs8 = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expectErrorCode(() => parseEd25519PublicKey(pkcs8), ErrorCode.VALIDATION_FAILED);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
      format: 'pem',
      type: 'spki',
    });
    expectErrorCode(() => parseEd25519PublicKey(ec.toString()), ErrorCode.VALIDATION_FAILED);
  });

  it('writes the OpenSSH private-key format an SSH client reads back as the same key', () => {
    for (const comment of ['', 'c', 'controller@lab-with-a-longer-comment']) {
      const parsed = utils.parseKey(openSshPrivateKey(privateKey, comment));
      if (parsed instanceof Error) throw parsed;
      expect(parsed.type).to.equal('ssh-ed25519');
      expect(parsed.comment).to.equal(comment);
      expect(parsed.isPrivateKey()).to.equal(true);
      expect(parsed.getPublicSSH()).to.deep.equal(sshEd25519PublicBlob(publicKey));
      const signature = parsed.sign(Buffer.from('challenge'));
      expect(verify(null, Buffer.from('challenge'), publicKey, signature)).to.equal(true);
    }
    expectErrorCode(() => openSshPrivateKey(publicKey), ErrorCode.VALIDATION_FAILED);
  });

  it('lists exactly the committed test keys as published, and recognises them', () => {
    const committed = (['controller', 'node'] as const).map((name) =>
      sshFingerprint(publicOf(testPrivateKey(name))),
    );
    expect([...PUBLISHED_TEST_KEY_FINGERPRINTS].sort()).to.deep.equal([...committed].sort());
    expect(
      isPublishedTestKey(parseEd25519PublicKey(testKeyFile('TEST-ONLY-controller.ed25519.pub'))),
    ).to.equal(true);
    expect(isPublishedTestKey(publicKey)).to.equal(false);
  });
});
