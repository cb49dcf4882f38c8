import type { KeyObject } from 'node:crypto';
import {
  agreedHeartbeatMacKeys,
  x25519PrivateKeyOf,
  x25519PublicKeyOf,
  type HeartbeatMacKeys,
} from '@lunanexa/agent-protocol';
import type { ControllerKeyRing } from '@lunanexa/persistence';

/** Bounded: pairs of rotated-away keys are never asked for again. */
const MAX_CACHED_PAIRS = 100_000;

/**
 * The heartbeat MAC keys (agent-protocol heartbeat-mac.ts) of each node's
 * current key with each controller key this process holds, derived once
 * and kept: a key id names exactly one key, so a pair's keys never change.
 * Nothing is stored or shared: every api process derives the same keys from
 * the node's public key and the ring's private key.
 */
export class HeartbeatMacKeyCache {
  private readonly pairs = new Map<string, HeartbeatMacKeys>();
  /** The ring's private keys in X25519 form, by key id. */
  private readonly controllerKeys = new Map<string, KeyObject>();

  constructor(
    private readonly ring: ControllerKeyRing,
    private readonly publicKey: (text: string) => KeyObject,
  ) {}

  /**
   * The keys of `node`'s current key and controller key `controllerKeyId`;
   * undefined when this process holds no live key of that id (retired, or
   * never the controller's), so a MAC with it is refused.
   */
  of(
    node: { readonly id: string; readonly keyId: string; readonly publicKey: string },
    controllerKeyId: string,
  ): HeartbeatMacKeys | undefined {
    const held = this.ring.heldByKeyId(controllerKeyId);
    if (held === undefined) return undefined;
    const pair = `${node.id}\0${node.keyId}\0${controllerKeyId}`;
    let keys = this.pairs.get(pair);
    if (keys === undefined) {
      let controllerKey = this.controllerKeys.get(controllerKeyId);
      if (controllerKey === undefined) {
        controllerKey = x25519PrivateKeyOf(held.privateKey);
        this.controllerKeys.set(controllerKeyId, controllerKey);
      }
      keys = agreedHeartbeatMacKeys(controllerKey, x25519PublicKeyOf(this.publicKey(node.publicKey)), {
        nodeId: node.id,
        nodeKeyId: node.keyId,
        controllerKeyId,
      });
      if (this.pairs.size >= MAX_CACHED_PAIRS) this.pairs.clear();
      this.pairs.set(pair, keys);
    }
    return keys;
  }
}
