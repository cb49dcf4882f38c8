import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ed25519KeyId, sshFingerprintOfBlob } from '@lunanexa/agent-protocol';
import { utils } from 'ssh2';
import { writeFileAtomic } from './atomic-file';

/** The node's signing key inside `dataDir` (PKCS#8 PEM, mode 0600). */
export const NODE_KEY_FILE = 'node-ed25519.pem';

/** Owner-only: a key file that group or others can read is refused, as sshd does. */
const UNPROTECTED_BITS = 0o077;

export class KeyFileError extends Error {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super(`${file}: ${problem}`);
    this.name = 'KeyFileError';
  }
}

async function readProtected(file: string): Promise<string | null> {
  let mode: number;
  try {
    mode = (await stat(file)).mode;
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if ((mode & UNPROTECTED_BITS) !== 0) {
    throw new KeyFileError(
      file,
      `is readable or writable by group/others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
    );
  }
  return readFile(file, 'utf8');
}

export interface HostKey {
  /** The OpenSSH private key text, as ssh2's Server takes it. */
  readonly privateKey: string;
  /** `SHA256:…` of the public host key: what a controller pins at enrollment. */
  readonly fingerprint: string;
  readonly created: boolean;
}

/**
 * Loads the SSH host key, generating an Ed25519 one (OpenSSH format, 0600)
 * on first start. An existing file must be an unencrypted private key ssh2
 * can use and must not be readable by anyone but the owner.
 */
export async function loadOrCreateHostKey(file: string, comment: string): Promise<HostKey> {
  let text = await readProtected(file);
  let created = false;
  if (text === null) {
    text = utils.generateKeyPairSync('ed25519', { comment }).private;
    await writeFileAtomic(file, text, 0o600);
    created = true;
  }
  const parsed = utils.parseKey(text);
  if (parsed instanceof Error)
    throw new KeyFileError(file, `is not a usable SSH private key: ${parsed.message}`);
  if (!parsed.isPrivateKey())
    throw new KeyFileError(file, 'holds a public key; the host key must be private');
  return { privateKey: text, fingerprint: sshFingerprintOfBlob(parsed.getPublicSSH()), created };
}

export interface NodeKey {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** `ed25519:<fingerprint>`: the key id on everything this node signs. */
  readonly keyId: string;
  readonly created: boolean;
}

/**
 * Loads the node's Ed25519 signing key from `<dataDir>/node-ed25519.pem`,
 * generating it on first start. Enrollment sends its public half to the
 * controller; the agent signs acks, rejects, reports and errors with it.
 */
export async function loadOrCreateNodeKey(dataDir: string): Promise<NodeKey> {
  const file = join(dataDir, NODE_KEY_FILE);
  let text = await readProtected(file);
  let created = false;
  if (text === null) {
    const { privateKey } = generateKeyPairSync('ed25519');
    text = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    await writeFileAtomic(file, text, 0o600);
    created = true;
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(text);
  } catch (error: unknown) {
    throw new KeyFileError(
      file,
      `is not a PEM private key: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (privateKey.asymmetricKeyType !== 'ed25519') {
    throw new KeyFileError(
      file,
      `holds a ${privateKey.asymmetricKeyType ?? 'unknown'} key; the node key is Ed25519`,
    );
  }
  const publicKey = createPublicKey(privateKey);
  return { privateKey, publicKey, keyId: ed25519KeyId(publicKey), created };
}
