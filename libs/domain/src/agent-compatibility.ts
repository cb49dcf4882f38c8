import {
  AGENT_PROTOCOL_VERSION,
  CONTROLLER_KEY_NOTICE_PROTOCOL,
  ErrorCode,
  INVENTORY_DIGEST_PROTOCOL,
  UNREPORTED_AGENT_PROTOCOL,
  type NodeInventory,
} from '@lunanexa/contracts';

/**
 * Version skew between the controller and its agents (docs/UPGRADING.md):
 * the controller is upgraded first and agents node by node, so for a while it
 * talks to agents one protocol behind. It keeps serving and deploying to them
 * and says which nodes are behind.
 */
export interface AgentCompatibility {
  /** The protocol the agent speaks (UNREPORTED_AGENT_PROTOCOL when it does not say). */
  readonly protocol: number;
  /** Behind this controller's agent protocol: upgrade the agent. */
  readonly outdated: boolean;
  /** Operator words for why the node is marked; null when current. */
  readonly reason: string | null;
}

export function agentProtocolOf(inventory: Pick<NodeInventory, 'agentProtocol'>): number {
  return inventory.agentProtocol ?? UNREPORTED_AGENT_PROTOCOL;
}

/**
 * Whether an agent at `protocol` may be sent the controller key ring notice
 * (`controllerKeys` on `heartbeat.ack` and `assignment.put`). An older agent's
 * strict schema refuses the whole message for it: an ack it refuses leaves
 * its lease unrenewed, an assignment it refuses never runs. Without notices
 * it cannot follow a controller key rotation, which is why a rotation is
 * refused while such agents are enrolled.
 */
export function takesControllerKeyNotice(protocol: number): boolean {
  return protocol >= CONTROLLER_KEY_NOTICE_PROTOCOL;
}

/**
 * Whether an agent at `protocol` may be told in its ack the digest of the inventory the controller holds,
 * after which it sends that digest instead of an unchanged inventory. An older agent refuses the member.
 */
export function takesInventoryDigest(protocol: number): boolean {
  return protocol >= INVENTORY_DIGEST_PROTOCOL;
}

export function agentCompatibility(inventory: Pick<NodeInventory, 'agentProtocol'>): AgentCompatibility {
  const protocol = agentProtocolOf(inventory);
  if (protocol >= AGENT_PROTOCOL_VERSION) return { protocol, outdated: false, reason: null };
  return {
    protocol,
    outdated: true,
    reason:
      inventory.agentProtocol === undefined
        ? `the agent does not report its protocol (release 0.1.0 or older), the controller speaks ${AGENT_PROTOCOL_VERSION}: upgrade it`
        : `agent protocol ${protocol}, controller ${AGENT_PROTOCOL_VERSION}: upgrade the agent`,
  };
}

/**
 * Whether an agent's refusal of an assignment is the one agents older than
 * signature verification give for the `trustedSigningKeys` field (their
 * assignment schema is strict: "Unrecognized key"). Only an agent that does
 * not report protocol 2 or later may answer so; the controller then sends the
 * assignment again without the field, which such an agent starts after the
 * digest check alone, as it always did. An agent at 0.1.0 verifies signatures
 * and needs the field, so it is never left out up front.
 */
export function refusedTrustedSigningKeys(
  protocol: number,
  refusal: { readonly code: string; readonly violations: readonly { readonly message: string }[] },
): boolean {
  return (
    protocol < 2 &&
    refusal.code === ErrorCode.VALIDATION_FAILED &&
    refusal.violations.some((violation) => violation.message.includes('trustedSigningKeys'))
  );
}
