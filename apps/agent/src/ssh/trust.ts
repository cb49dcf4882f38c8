import { timingSafeEqual, type KeyObject } from 'node:crypto';
import { sshEd25519PublicBlob, sshFingerprint, type PublicKeySet } from '@lunanexa/agent-protocol';

/** One controller key: it authenticates the controller's SSH connection and verifies what it signs. */
export interface AuthorizedControllerKey {
  readonly keyId: string;
  readonly publicKey: KeyObject;
}

/**
 * Where a trusted key came from: the config file, the enrollment answer
 * pinned by its fingerprint, or a key ring notice / an operator's
 * `trust-controller-key` (persisted in controller-trust.json).
 */
export type ControllerKeySource = 'config' | 'enrollment' | 'announced';

export interface TrustedControllerKey extends AuthorizedControllerKey {
  readonly blob: Buffer;
  readonly source: ControllerKeySource;
  /** `SHA256:…`, what an operator compares with `lunanexa controller-keys`. */
  readonly fingerprint: string;
}

/**
 * The controller keys this agent trusts, shared by the SSH server
 * (publickey authentication), the protocol channel (envelope signatures) and
 * the heartbeat client (ack and credential signatures). It changes while the
 * agent runs: the SSH port must be listening before enrollment (its port goes
 * into the request) and the enrolled key is only known after; a controller
 * key rotation adds the next key and later removes the retired one. Every
 * reader sees a change at its next look (the SSH server at the next
 * authentication, envelope verification at the next envelope). The last key
 * is never removed.
 */
export class ControllerTrust {
  private readonly byId = new Map<string, TrustedControllerKey>();
  private readonly verification = new Map<string, KeyObject>();

  constructor(configured: readonly AuthorizedControllerKey[] = []) {
    for (const key of configured) this.add(key, 'config');
  }

  /**
   * Trusts `key` from now on. The same key under the same id again is a
   * no-op (false); another key under a trusted id is refused, since it would
   * let one id verify with two keys. True when the key was added.
   */
  add(key: AuthorizedControllerKey, source: ControllerKeySource): boolean {
    const blob = sshEd25519PublicBlob(key.publicKey);
    const held = this.byId.get(key.keyId);
    if (held !== undefined) {
      if (held.blob.equals(blob)) return false;
      throw new Error(`controller key id ${key.keyId} is already trusted for another key`);
    }
    this.byId.set(key.keyId, { ...key, blob, source, fingerprint: sshFingerprint(key.publicKey) });
    this.verification.set(key.keyId, key.publicKey);
    return true;
  }

  /**
   * Stops trusting `keyId`: the next SSH authentication and the next
   * envelope verification refuse it. Refuses (throws) to remove the last key,
   * which would leave the node unreachable for good. False when not trusted.
   */
  remove(keyId: string): boolean {
    if (!this.byId.has(keyId)) return false;
    if (this.byId.size <= 1) throw new Error(`controller key ${keyId} is the last trusted key`);
    this.byId.delete(keyId);
    this.verification.delete(keyId);
    return true;
  }

  /** A live view: envelopes verified after `add` or `remove` see the change. */
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

  get(keyId: string): TrustedControllerKey | undefined {
    return this.byId.get(keyId);
  }

  has(keyId: string): boolean {
    return this.byId.has(keyId);
  }

  /** The trusted key ids, sorted (what heartbeats report as `controllerKeyIds`). */
  keyIds(): string[] {
    return [...this.byId.keys()].sort();
  }

  /** Every trusted key, ordered by key id. */
  list(): TrustedControllerKey[] {
    return this.keyIds().map((keyId) => this.byId.get(keyId) as TrustedControllerKey);
  }

  get size(): number {
    return this.byId.size;
  }
}
