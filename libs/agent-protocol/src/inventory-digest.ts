import { createHash } from 'node:crypto';
import { canonicalJson, type NodeInventory } from '@lunanexa/contracts';

/**
 * What a heartbeat sends instead of an inventory the controller already
 * holds, and what the controller's ack says it holds: sha256 over the
 * canonical JSON of the inventory, so the agent and every api replica compute
 * the same digest from the same inventory whatever its key order.
 */
export function inventoryDigest(inventory: NodeInventory): string {
  return `sha256:${createHash('sha256').update(canonicalJson(inventory), 'utf8').digest('hex')}`;
}
