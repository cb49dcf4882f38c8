/**
 * The southbound protocol between controller and agent (DESIGN.md,
 * "Southbound channel"). Version 1 is named once here: it is the SSH
 * subsystem the agent accepts and the protocol it reports in /health.
 * Envelopes and signing arrive with enrollment.
 */
export const AGENT_PROTOCOL = 'lunanexa-agent-v1';
export type AgentProtocol = typeof AGENT_PROTOCOL;

/** The only SSH subsystem an agent accepts; shell, exec, pty, env and forwarding are refused. */
export const AGENT_SSH_SUBSYSTEM: AgentProtocol = AGENT_PROTOCOL;
