/**
 * The southbound protocol between controller and agent (DESIGN.md,
 * "Southbound channel"). Version 1 is named once here: it is the SSH
 * subsystem the agent accepts, the `protocol` member of every envelope and
 * the protocol the agent reports in /health.
 */
export const AGENT_PROTOCOL = 'lunanexa-agent-v1';
export type AgentProtocol = typeof AGENT_PROTOCOL;

/** The only SSH subsystem an agent accepts; shell, exec, pty, env and forwarding are refused. */
export const AGENT_SSH_SUBSYSTEM: AgentProtocol = AGENT_PROTOCOL;

/**
 * Message types of v1. The controller sends `assignment.put` and
 * `status.get`; the agent answers with `assignment.ack`/`assignment.reject`,
 * `status.report`, or `error` (for anything that is not a well-formed request).
 */
export const MESSAGE_TYPES = [
  'assignment.put',
  'assignment.ack',
  'assignment.reject',
  'status.get',
  'status.report',
  'error',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** Types a controller sends and an agent accepts. */
export const CONTROLLER_MESSAGE_TYPES = [
  'assignment.put',
  'status.get',
] as const satisfies readonly MessageType[];
/** Types an agent sends. */
export const AGENT_MESSAGE_TYPES = [
  'assignment.ack',
  'assignment.reject',
  'status.report',
  'error',
] as const satisfies readonly MessageType[];

/** The only signature algorithm of v1. */
export const SIGNATURE_ALGORITHM = 'Ed25519';

/**
 * How far `issuedAt` may be from the verifier's clock, either way, before an
 * envelope is refused as a replay. Nonces are remembered for this long after
 * `issuedAt`, so together they refuse every exact replay.
 */
export const DEFAULT_MAX_SKEW_MS = 120_000;

/** Frame header: payload length as an unsigned 32-bit big-endian integer. */
export const FRAME_HEADER_BYTES = 4;
/** Largest frame payload (1 MiB). A longer announced length ends the channel before the payload is read. */
export const MAX_FRAME_BYTES = 1024 * 1024;
