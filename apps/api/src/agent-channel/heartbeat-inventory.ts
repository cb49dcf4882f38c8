import { inventoryDigest, type Envelope } from '@lunanexa/agent-protocol';
import type { HeartbeatWithInventory, NodeInventory } from '@lunanexa/contracts';

export type HeartbeatEnvelope = Envelope & { type: 'heartbeat' };
/** A heartbeat envelope whose heartbeat has its inventory: as sent, or the recorded one its digest named. */
export type HeartbeatEnvelopeWithInventory = HeartbeatEnvelope & {
  readonly body: HeartbeatEnvelope['body'] & { readonly heartbeat: HeartbeatWithInventory };
};

/** Digests by inventory object: a recorded inventory is compared with every heartbeat until it changes. */
const digests = new WeakMap<NodeInventory, string>();

export function digestOf(inventory: NodeInventory): string {
  let digest = digests.get(inventory);
  if (digest === undefined) {
    digest = inventoryDigest(inventory);
    digests.set(inventory, digest);
  }
  return digest;
}

/**
 * The heartbeat with its inventory: the one it sent, or `recorded` when it sent the digest of exactly that.
 * Null when it named the digest of an inventory other than `recorded` (recorded through another api replica
 * since this process read the node, or never): the caller reads the node again, or refuses the heartbeat so
 * that the agent sends its inventory.
 */
export function withRecordedInventory(
  recorded: NodeInventory,
  envelope: HeartbeatEnvelope,
): HeartbeatEnvelopeWithInventory | null {
  const { heartbeat } = envelope.body;
  if (heartbeat.inventory !== undefined) return envelope as HeartbeatEnvelopeWithInventory;
  if (heartbeat.inventoryDigest !== digestOf(recorded)) return null;
  return {
    ...envelope,
    body: { ...envelope.body, heartbeat: { ...heartbeat, inventory: recorded } },
  };
}

/** What the heartbeat asks to record: the inventory it sent, or null when it sent only the recorded one's digest. */
export function inventoryToRecord(heartbeat: HeartbeatWithInventory): NodeInventory | null {
  return heartbeat.inventoryDigest === undefined ? heartbeat.inventory : null;
}
