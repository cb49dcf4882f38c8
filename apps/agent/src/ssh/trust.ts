import { timingSafeEqual, type KeyObject } from 'node:crypto';
import { sshEd25519PublicBlob, type PublicKeySet } from '@lunanexa/agent-protocol';

/** One controller key: it authenticates the controller's SSH connection and verifies what it signs. */
export interface AuthorizedControllerKey {
  readonly keyId: string;
  readonly publicKey: KeyObject;
}

/** Where a trusted key came from: the config file, or the enrollment answer pinned by its fingerprint. */
export type ControllerKeySource = 'config' | 'enrollment';

export interface TrustedControllerKey extends AuthorizedControllerKey {
  readonly blob: Buffer;
  readonly source: ControllerKeySource;
}

/**
 * The controller keys this agent trusts, shared by the SSH server
 * (publickey authentication), the protocol channel (envelope signatures) and
 * the heartbeat client (ack and credential signatures). It can grow while
 * the agent runs, because the SSH port must be listening before enrollment
 * (its port goes into the request) and the enrolled key is only known after.
 * Keys are never removed while running.
 */
export class ControllerTrust {
  private readonly byId = new Map<string, TrustedControllerKey>();
  private readonly verification = new Map<string, KeyObject>();

  constructor(configured: readonly AuthorizedControllerKey[] = []) {
    for (const key of configured) this.add(key, 'config');
  }

  /**
   * Trusts `key` from now on. The same key under the same id again is a
   * no-op; another key under a trusted id is refused, since it would let one
   * id verify with two keys.
   */
  add(key: AuthorizedControllerKey, source: ControllerKeySource): void {
    const blob = sshEd25519PublicBlob(key.publicKey);
    const held = this.byId.get(key.keyId);
    if (held !== undefined) {
      if (held.blob.equals(blob)) return;
      throw new Error(`controller key id ${key.keyId} is already trusted for another key`);
    }
    this.byId.set(key.keyId, { ...key, blob, source });
    this.verification.set(key.keyId, key.publicKey);
  }

  /** A live view: envelopes verified after `add` see the new key. */
  get publicKeys(): PublicKeySet {
    return this.verification;
  }

  /** The trusted key whose SSH blob is `offered`, compared in constant time; undefined if none. */
  findByBlob(offered: Buffer): TrustedControllerKey | undefined {
    let match: TrustedControllerKey | undefined;
    for (const key of this.byId.values()) {
      if (key.blob.length === offered.length && timingSafeEqual(key.blob, offered)) match ??= key;
    }
    return match;
  }

  keyIds(): string[] {
    return [...this.byId.keys()];
  }

  get size(): number {
    return this.byId.size;
  }
}
