import { createHash, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { generateEd25519PrivateKey } from '@lunanexa/agent-protocol';

/**
 * The controller's identity: one Ed25519 key pair. It signs operator session
 * tokens today and node assignments later (libs/agent-protocol will take the
 * same key through this function). The private key lives in one PKCS#8 PEM
 * file outside the source tree, readable by the service user only.
 */
export interface ControllerKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** base64url(sha256(raw 32-byte public key)): names the key in JWT `kid` and in logs. */
  readonly fingerprint: string;
  /** The file the key was read from (or created in). */
  readonly file: string;
}

export class ControllerKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControllerKeyError';
  }
}

/** Raw 32-byte Ed25519 public key. */
export function rawEd25519PublicKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') {
    throw new ControllerKeyError('not an Ed25519 public key');
  }
  return Buffer.from(jwk.x, 'base64url');
}

export function keyFingerprint(publicKey: KeyObject): string {
  return createHash('sha256').update(rawEd25519PublicKey(publicKey)).digest('base64url');
}

function fromPem(pem: string, file: string): ControllerKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: pem, format: 'pem' });
  } catch (error) {
    throw new ControllerKeyError(
      `controller key ${file} is not a readable PEM private key (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') {
    throw new ControllerKeyError(
      `controller key ${file} is a ${privateKey.asymmetricKeyType ?? 'unknown'} key; an Ed25519 key is required`,
    );
  }
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, fingerprint: keyFingerprint(publicKey), file };
}

function read(file: string): ControllerKey {
  const mode = statSync(file).mode;
  if ((mode & 0o077) !== 0) {
    throw new ControllerKeyError(
      `controller key ${file} is readable by group or others (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${file}`,
    );
  }
  return fromPem(readFileSync(file, 'utf8'), file);
}

/**
 * Reads the controller key from `file`, creating it on first start. Creation
 * writes a temporary file with mode 0600 and hard-links it into place, so a
 * crash never leaves a half-written key and two processes starting together
 * end up with the same key (the second link fails and that process reads the
 * winner's file). A key file that group or others can read is refused, the
 * way ssh refuses such a private key.
 */
export function loadOrCreateControllerKey(file: string): ControllerKey {
  try {
    return read(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const privateKey = generateEd25519PrivateKey();
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' });
  const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temporary, pem, { mode: 0o600, flag: 'wx' });
  try {
    // The umask may have narrowed the mode further, never widened it; make it exact.
    chmodSync(temporary, 0o600);
    linkSync(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  return read(file);
}

/** Where the controller key lives when no file is configured: `<dataDir>/controller/controller-ed25519.pem`. */
export function defaultControllerKeyFile(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, '')}/controller/controller-ed25519.pem`;
}
