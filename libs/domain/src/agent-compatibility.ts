import { AGENT_PROTOCOL_VERSION, UNREPORTED_AGENT_PROTOCOL, type NodeInventory } from '@lunanexa/contracts';

/**
 * Version skew between the controller and its agents (docs/UPGRADING.md):
 * the controller is upgraded first and agents node by node, so for a while it
 * talks to agents one protocol behind. It keeps serving and deploying to them
 * by leaving out what they would refuse, and says which nodes are behind.
 */
export interface AgentCompatibility {
  /** The protocol the agent speaks (UNREPORTED_AGENT_PROTOCOL when it does not say). */
  readonly protocol: number;
  /** Behind this controller's agent protocol: upgrade the agent. */
  readonly outdated: boolean;
  /** Operator words for what the node does not get until its agent is upgraded; null when current. */
  readonly reason: string | null;
}

export function agentProtocolOf(inventory: Pick<NodeInventory, 'agentProtocol'>): number {
  return inventory.agentProtocol ?? UNREPORTED_AGENT_PROTOCOL;
}

export function agentCompatibility(inventory: Pick<NodeInventory, 'agentProtocol'>): AgentCompatibility {
  const protocol = agentProtocolOf(inventory);
  if (protocol >= AGENT_PROTOCOL_VERSION) return { protocol, outdated: false, reason: null };
  return {
    protocol,
    outdated: true,
    reason:
      `agent protocol ${protocol}, controller ${AGENT_PROTOCOL_VERSION}: ` +
      (acceptsTrustedSigningKeys(protocol)
        ? 'upgrade the agent'
        : 'the agent does not verify artifact signatures; upgrade it'),
  };
}

/**
 * Whether an assignment to this agent may carry `trustedSigningKeys`. Agents
 * before protocol 2 refuse an assignment with the field (their schema is
 * strict), so the controller sends them the assignment without it: they start
 * the artifact after the digest check only, as they always did.
 */
export function acceptsTrustedSigningKeys(protocol: number): boolean {
  return protocol >= 2;
}
