import { createHash, createPrivateKey, createPublicKey, randomBytes, type KeyObject } from 'node:crypto';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';

/**
 * Ed25519 public keys as operators write them: the OpenSSH one-liner
 * (`ssh-ed25519 AAAAC3Nza… comment`, what `ssh-keygen` prints) or a PEM
 * `PUBLIC KEY` block (SPKI, what OpenSSL and `node:crypto` export). Both
 * describe the same 32 bytes; the controller's one key serves SSH
 * authentication and envelope signing alike.
 */

const SSH_ED25519 = 'ssh-ed25519';
const ED25519_PUBLIC_KEY_BYTES = 32;

function invalidKey(reason: string): LunaNexaError {
  return new LunaNexaError(ErrorCode.VALIDATION_FAILED, `not an Ed25519 public key: ${reason}`);
}

/** DER PKCS#8 header of an Ed25519 private key (RFC 8410); the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * A new Ed25519 private key from 32 random bytes. Used instead of
 * `generateKeyPairSync('ed25519')`: on Node 20 a garbage collection that
 * finalizes that call's key-generation job while the same key is being
 * exported can deadlock the process on the key's mutex (seen as a unit test
 * that hung forever generating host keys in a loop). Building the key from a
 * seed involves no key-generation job at all.
 */
export function generateEd25519PrivateKey(): KeyObject {
  return createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, randomBytes(32)]),
    format: 'der',
    type: 'pkcs8',
  });
}

/** Parses an OpenSSH `ssh-ed25519` line or a PEM `PUBLIC KEY`; anything else is VALIDATION_FAILED. */
export function parseEd25519PublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  if (trimmed.startsWith('-----BEGIN')) {
    // createPublicKey would happily derive a public key from a private one; a config must never hold that.
    if (!/^-----BEGIN PUBLIC KEY-----\r?\n[\s\S]+\r?\n-----END PUBLIC KEY-----$/.test(trimmed)) {
      throw invalidKey('PEM input must be a single PUBLIC KEY block');
    }
    let key: KeyObject;
    try {
      key = createPublicKey({ key: trimmed, format: 'pem' });
    } catch (error: unknown) {
      throw invalidKey(error instanceof Error ? error.message : String(error));
    }
    if (key.asymmetricKeyType !== 'ed25519') {
      throw invalidKey(`the PEM key is ${key.asymmetricKeyType ?? 'of an unknown type'}`);
    }
    return key;
  }
  const match = /^(\S+) ([A-Za-z0-9+/]+={0,2})(?: .*)?$/.exec(trimmed);
  if (match === null) throw invalidKey('expected "ssh-ed25519 <base64> [comment]" or a PEM PUBLIC KEY');
  const [, declared = '', base64 = ''] = match;
  if (declared !== SSH_ED25519) throw invalidKey(`key type ${declared} is not ${SSH_ED25519}`);
  const raw = rawFromSshBlob(Buffer.from(base64, 'base64'));
  return ed25519PublicKeyFromRaw(raw);
}

/** Reads the SSH wire form `string "ssh-ed25519", string key(32)` and nothing after it. */
function rawFromSshBlob(blob: Buffer): Buffer {
  let offset = 0;
  const readString = (): Buffer => {
    if (offset + 4 > blob.length) throw invalidKey('truncated key blob');
    const length = blob.readUInt32BE(offset);
    offset += 4;
    if (offset + length > blob.length) throw invalidKey('truncated key blob');
    const value = blob.subarray(offset, offset + length);
    offset += length;
    return value;
  };
  const type = readString().toString('latin1');
  if (type !== SSH_ED25519) throw invalidKey(`key blob type ${type} is not ${SSH_ED25519}`);
  const raw = readString();
  if (raw.length !== ED25519_PUBLIC_KEY_BYTES) throw invalidKey(`key is ${raw.length} bytes, not 32`);
  if (offset !== blob.length) throw invalidKey('trailing bytes after the key');
  return raw;
}

export function ed25519PublicKeyFromRaw(raw: Buffer): KeyObject {
  if (raw.length !== ED25519_PUBLIC_KEY_BYTES) throw invalidKey(`key is ${raw.length} bytes, not 32`);
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
}

/** The 32 public bytes of an Ed25519 key (public or private KeyObject). */
export function ed25519PublicKeyRaw(key: KeyObject): Buffer {
  const publicKey = key.type === 'private' ? createPublicKey(key) : key;
  if (publicKey.asymmetricKeyType !== 'ed25519') throw invalidKey('the key is not Ed25519');
  const { x } = publicKey.export({ format: 'jwk' });
  if (typeof x !== 'string') throw invalidKey('the key has no public component');
  return Buffer.from(x, 'base64url');
}

/** SSH wire form of the public key: what an SSH client presents in publickey authentication. */
export function sshEd25519PublicBlob(key: KeyObject): Buffer {
  const raw = ed25519PublicKeyRaw(key);
  const type = Buffer.from(SSH_ED25519, 'latin1');
  const blob = Buffer.alloc(4 + type.length + 4 + raw.length);
  blob.writeUInt32BE(type.length, 0);
  type.copy(blob, 4);
  blob.writeUInt32BE(raw.length, 4 + type.length);
  raw.copy(blob, 8 + type.length);
  return blob;
}

/** `ssh-ed25519 <base64> [comment]`, as `authorized_keys` and `ssh-keygen -y` write it. */
export function openSshPublicKey(key: KeyObject, comment?: string): string {
  const line = `${SSH_ED25519} ${sshEd25519PublicBlob(key).toString('base64')}`;
  return comment === undefined || comment === '' ? line : `${line} ${comment}`;
}

function sshString(value: Buffer | string): Buffer {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length, 0);
  return Buffer.concat([length, bytes]);
}

/**
 * An Ed25519 private KeyObject (e.g. a PKCS#8 PEM key made with node:crypto)
 * in the unencrypted OpenSSH format (`-----BEGIN OPENSSH PRIVATE KEY-----`),
 * which is what SSH clients — ssh2 included — take for Ed25519. Lets the
 * controller authenticate over SSH with the same key it signs envelopes with.
 */
export function openSshPrivateKey(privateKey: KeyObject, comment = ''): string {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw invalidKey('expected an Ed25519 private key');
  }
  const { d } = privateKey.export({ format: 'jwk' });
  if (typeof d !== 'string') throw invalidKey('the key has no private component');
  const seed = Buffer.from(d, 'base64url');
  const raw = ed25519PublicKeyRaw(privateKey);
  const publicBlob = sshEd25519PublicBlob(privateKey);
  const check = randomBytes(4);
  let section = Buffer.concat([
    check,
    check,
    sshString(SSH_ED25519),
    sshString(raw),
    sshString(Buffer.concat([seed, raw])),
    sshString(comment),
  ]);
  // Pad to the cipher block size (8 for "none") with 1, 2, 3, …
  const padding = (8 - (section.length % 8)) % 8;
  section = Buffer.concat([section, Buffer.from(Array.from({ length: padding }, (_, i) => i + 1))]);
  const body = Buffer.concat([
    Buffer.from('openssh-key-v1\0', 'latin1'),
    sshString('none'),
    sshString('none'),
    sshString(Buffer.alloc(0)),
    Buffer.from([0, 0, 0, 1]),
    sshString(publicBlob),
    sshString(section),
  ]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
}

/** `SHA256:<base64>`, the fingerprint `ssh-keygen -lf` prints for the same key. */
export function sshFingerprint(key: KeyObject): string {
  return sshFingerprintOfBlob(sshEd25519PublicBlob(key));
}

/** The OpenSSH SHA256 fingerprint of any SSH public-key blob (host keys of any type). */
export function sshFingerprintOfBlob(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * A key id derived from the key itself: `ed25519:` + the SHA256 fingerprint in
 * base64url (same hash as `ssh-keygen -lf`, URL-safe alphabet, so it is an
 * opaque id). Used for keys the agent generates; controller key ids come from
 * the agent's configuration.
 */
export function ed25519KeyId(key: KeyObject): string {
  return `ed25519:${createHash('sha256').update(sshEd25519PublicBlob(key)).digest('base64url')}`;
}

/**
 * Fingerprints of the keys whose PRIVATE halves are committed to this
 * repository (`libs/agent-protocol/test/keys/`) to sign the golden fixtures.
 * Anyone can sign with them, so nothing may trust them: the agent refuses a
 * configuration that lists one. A test keeps this list equal to the files.
 */
export const PUBLISHED_TEST_KEY_FINGERPRINTS: readonly string[] = [
  // test/keys/TEST-ONLY-controller.ed25519.*
  'SHA256:ycdwZlz1B25253vZ/1bCzZ30Koireatgx3MaL/GUtgE',
  // test/keys/TEST-ONLY-node.ed25519.*
  'SHA256:pfgYvbpe+rPyLDFf5HwiJAyshuK/QGzQWRB0l6pgB9M',
];

export function isPublishedTestKey(key: KeyObject): boolean {
  return PUBLISHED_TEST_KEY_FINGERPRINTS.includes(sshFingerprint(key));
}
