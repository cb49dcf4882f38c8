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
  'enroll.request',
  'enroll.response',
  'heartbeat',
  'heartbeat.ack',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** Types a controller sends and an agent accepts on the SSH channel. */
export const CONTROLLER_MESSAGE_TYPES = [
  'assignment.put',
  'status.get',
] as const satisfies readonly MessageType[];
/** Types an agent sends on the SSH channel. */
export const AGENT_MESSAGE_TYPES = [
  'assignment.ack',
  'assignment.reject',
  'status.report',
  'error',
] as const satisfies readonly MessageType[];

/**
 * The agent → controller HTTP direction (DESIGN.md "Southbound channel"):
 * the agent POSTs `enroll.request` (signed with the key it just generated:
 * proof of possession) and `heartbeat` (signed with its enrolled node key);
 * the controller answers with `enroll.response` / `heartbeat.ack`, signed with
 * the controller key. None of these is accepted on the SSH channel.
 */
export const AGENT_HTTP_MESSAGE_TYPES = [
  'enroll.request',
  'heartbeat',
] as const satisfies readonly MessageType[];
export const CONTROLLER_HTTP_MESSAGE_TYPES = [
  'enroll.response',
  'heartbeat.ack',
] as const satisfies readonly MessageType[];

/** Every type the controller signs (the rest are signed by a node key). */
export const CONTROLLER_SIGNED_TYPES: readonly MessageType[] = [
  ...CONTROLLER_MESSAGE_TYPES,
  ...CONTROLLER_HTTP_MESSAGE_TYPES,
];

/** HTTP paths on the API for the agent → controller direction. */
export const AGENT_HTTP_PATHS = {
  enroll: '/agent/v1/enroll',
  heartbeat: '/agent/v1/heartbeat',
  /** GET: the accepted controller keys (ControllerKeysResponse), for a node that missed a rotation. */
  controllerKeys: '/agent/v1/controller-keys',
} as const;

/** The only signature algorithm of v1. */
export const SIGNATURE_ALGORITHM = 'Ed25519';

/**
 * An Ed25519 signature (64 bytes) as base64url without padding: 86
 * characters, the last of which carries only two bits, so one signature has
 * exactly one spelling.
 */
export const SIGNATURE_VALUE_PATTERN = /^[A-Za-z0-9_-]{85}[AQgw]$/;

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
