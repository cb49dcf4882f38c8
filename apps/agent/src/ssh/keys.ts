import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { open, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  ed25519KeyId,
  generateEd25519PrivateKey,
  openSshPrivateKey,
  sshFingerprintOfBlob,
} from '@lunanexa/agent-protocol';
import { utils } from 'ssh2';
import { writeFileAtomic } from './atomic-file';

/** The node's signing key inside `dataDir` (PKCS#8 PEM, mode 0600). */
export const NODE_KEY_FILE = 'node-ed25519.pem';
/** The key a rotation is moving to, until the controller has registered it (then renamed over NODE_KEY_FILE). */
export const NEXT_NODE_KEY_FILE = 'node-ed25519.next.pem';

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
 * A new Ed25519 host key in OpenSSH format. Generated with node:crypto and
 * written by `openSshPrivateKey`, not ssh2's `generateKeyPairSync`: about 3 in
 * 1,000 keys from the latter fail ssh2's own parser ("Malformed OpenSSH
 * private key"), which stopped an agent at its first start.
 */
export function generateHostKeyText(comment: string): string {
  return openSshPrivateKey(generateEd25519PrivateKey(), comment);
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
    text = generateHostKeyText(comment);
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
 * controller; the agent signs acks, rejects, reports, errors and heartbeats with it.
 */
export async function loadOrCreateNodeKey(dataDir: string): Promise<NodeKey> {
  const file = join(dataDir, NODE_KEY_FILE);
  return (await loadNodeKeyFile(file)) ?? createNodeKeyFile(file);
}

async function createNodeKeyFile(file: string): Promise<NodeKey> {
  const privateKey = generateEd25519PrivateKey();
  const text = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  await writeFileAtomic(file, text, 0o600);
  return { ...parseNodeKey(file, text), created: true };
}

/** The key in `file`, or null when there is no such file. */
async function loadNodeKeyFile(file: string): Promise<NodeKey | null> {
  const text = await readProtected(file);
  return text === null ? null : { ...parseNodeKey(file, text), created: false };
}

function parseNodeKey(file: string, text: string): Omit<NodeKey, 'created'> {
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
  return { privateKey, publicKey, keyId: ed25519KeyId(publicKey) };
}

/**
 * The node key as the running agent uses it: whatever signs (the protocol
 * channel's replies, heartbeats) asks for `current()` at the moment it signs,
 * so a rotation takes effect everywhere at once, without a restart.
 *
 * Rotation (RotateNodeCredential): `prepareNext` generates the next key and
 * keeps it in `node-ed25519.next.pem` while heartbeats offer it to the
 * controller; `promote` renames it over `node-ed25519.pem` once the controller
 * has acknowledged it. A crash in between leaves the next key on disk, and it
 * is offered again after the restart.
 */
export class NodeKeyRing {
  private constructor(
    private readonly dataDir: string,
    private currentKey: NodeKey,
    private nextKey: NodeKey | null,
  ) {}

  static async open(dataDir: string): Promise<NodeKeyRing> {
    const current = await loadOrCreateNodeKey(dataDir);
    const next = await loadNodeKeyFile(join(dataDir, NEXT_NODE_KEY_FILE));
    return new NodeKeyRing(dataDir, current, next);
  }

  current(): NodeKey {
    return this.currentKey;
  }

  /** The key being rotated to, or null when no rotation is under way. */
  next(): NodeKey | null {
    return this.nextKey;
  }

  /** Generates and persists the next key (0600); returns the pending one if there already is one. */
  async prepareNext(): Promise<NodeKey> {
    this.nextKey ??= await createNodeKeyFile(join(this.dataDir, NEXT_NODE_KEY_FILE));
    return this.nextKey;
  }

  /**
   * Makes the next key the node key: an atomic rename on disk (then the
   * directory is fsync'd so the rename survives a power cut), then in memory.
   */
  async promote(): Promise<NodeKey> {
    const next = this.nextKey;
    if (next === null) throw new Error('no next node key to promote');
    await rename(join(this.dataDir, NEXT_NODE_KEY_FILE), join(this.dataDir, NODE_KEY_FILE));
    const dir = await open(this.dataDir, 'r');
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
    this.currentKey = { ...next, created: false };
    this.nextKey = null;
    return this.currentKey;
  }
}
