import { heartbeatMacKeys, type HeartbeatMacKeys } from '@lunanexa/agent-protocol';
import type { NodeKeyRing } from '../ssh/keys';
import type { ControllerTrust } from '../ssh/trust';

/** After a MAC'd heartbeat is refused as unauthenticated, heartbeats are signed for this long. */
export const MAC_PAUSE_AFTER_REFUSAL_MS = 10 * 60_000;

/** The MAC keys one heartbeat is authenticated with, and the controller key id that names them. */
export interface HeartbeatMac {
  readonly keyId: string;
  readonly keys: HeartbeatMacKeys;
}

/**
 * Whether the next heartbeat is MAC'd (agent-protocol heartbeat-mac.ts) or
 * signed, and with which keys. The agent signs until the controller has
 * answered a signed heartbeat with an ack signed by a key the agent trusts;
 * from then on it MACs with the keys agreed with that controller key and its
 * current node key. It signs again:
 * - while a node key rotation is under way (the controller learns the next
 *   key and its first use from signed heartbeats), and after one, until a
 *   heartbeat signed by the new key is acked by a signature;
 * - when the controller answers with a signed ack (its key for this node
 *   changed: the agent follows the new one);
 * - when that controller key is no longer trusted (retired);
 * - for MAC_PAUSE_AFTER_REFUSAL_MS after a MAC'd heartbeat was refused as
 *   unauthenticated (a controller that predates MACs, a key it no longer holds).
 */
export class HeartbeatMacState {
  /** The controller key and node key of the last ack that was signed, not MAC'd. */
  private agreed: { readonly controllerKeyId: string; readonly nodeKeyId: string } | null = null;
  private pausedUntilMs = 0;
  private derived: (HeartbeatMac & { readonly nodeKeyId: string }) | null = null;

  constructor(
    private readonly nodeId: string,
    private readonly nodeKeys: NodeKeyRing,
    private readonly trust: ControllerTrust,
    private readonly nowMs: () => number = Date.now,
  ) {}

  /** The keys to MAC the next heartbeat with, or null to sign it. */
  forHeartbeat(): HeartbeatMac | null {
    const agreed = this.agreed;
    if (agreed === null || this.nowMs() < this.pausedUntilMs || this.nodeKeys.next() !== null) return null;
    const nodeKey = this.nodeKeys.current();
    const controllerKey = this.trust.publicKeys.get(agreed.controllerKeyId);
    if (nodeKey.keyId !== agreed.nodeKeyId || controllerKey === undefined) {
      this.agreed = null;
      return null;
    }
    const derived = this.derived;
    if (derived !== null && derived.keyId === agreed.controllerKeyId && derived.nodeKeyId === nodeKey.keyId)
      return derived;
    this.derived = {
      keyId: agreed.controllerKeyId,
      nodeKeyId: nodeKey.keyId,
      keys: heartbeatMacKeys(nodeKey.privateKey, controllerKey, {
        nodeId: this.nodeId,
        nodeKeyId: nodeKey.keyId,
        controllerKeyId: agreed.controllerKeyId,
      }),
    };
    return this.derived;
  }

  /** An ack signed by `controllerKeyId` answered a heartbeat `nodeKeyId` signed or MAC'd. */
  signedAck(controllerKeyId: string, nodeKeyId: string): void {
    this.agreed = { controllerKeyId, nodeKeyId };
  }

  /** A MAC'd heartbeat was refused as unauthenticated: sign for a while. */
  refused(): void {
    this.agreed = null;
    this.pausedUntilMs = this.nowMs() + MAC_PAUSE_AFTER_REFUSAL_MS;
  }
}
