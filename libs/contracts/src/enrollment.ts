import { z } from 'zod';

/**
 * Enrollment and lease constants shared by the API (which issues bootstrap
 * tokens and keeps node leases), the agent (which presents the token and
 * renews the lease) and the console/CLI (which print the agent command).
 */

/** Bootstrap tokens start with this prefix so they are recognisable (and scannable) when leaked. */
export const BOOTSTRAP_TOKEN_PREFIX = 'lnxb_';
/** `lnxb_` + 32 random bytes in base64url. */
export const BOOTSTRAP_TOKEN_PATTERN = /^lnxb_[A-Za-z0-9_-]{43}$/;
export const BootstrapTokenSchema = z
  .string()
  .regex(BOOTSTRAP_TOKEN_PATTERN, 'must be a bootstrap token: lnxb_ followed by 43 base64url characters');

/** Default and bounds of a bootstrap token's lifetime. */
export const DEFAULT_BOOTSTRAP_TOKEN_TTL_SECONDS = 15 * 60;
export const MIN_BOOTSTRAP_TOKEN_TTL_SECONDS = 60;
export const MAX_BOOTSTRAP_TOKEN_TTL_SECONDS = 24 * 60 * 60;

/**
 * How often an agent heartbeats, and how long one accepted heartbeat keeps the node's lease. Short, so that a
 * dead node stops being routed to (lease lapsed) and is recovered (lease lapsed plus the worker's grace) within
 * seconds; the lease still outlasts three missed heartbeats. Ingest batches its writes, so 1 s beats are cheap.
 */
export const DEFAULT_HEARTBEAT_INTERVAL_SECONDS = 1;
export const DEFAULT_NODE_LEASE_SECONDS = 4;

/** How long a node credential is valid; RotateNodeCredential issues the next one. */
export const DEFAULT_NODE_CREDENTIAL_TTL_SECONDS = 30 * 24 * 60 * 60;

/** `SHA256:<base64 without padding>`: the OpenSSH fingerprint format (`ssh-keygen -lf`). */
export const SSH_FINGERPRINT_PATTERN = /^SHA256:[A-Za-z0-9+/]{43}$/;
export const SshFingerprintSchema = z
  .string()
  .regex(SSH_FINGERPRINT_PATTERN, 'must be an OpenSSH SHA256 fingerprint: SHA256:<43 base64 characters>');

/** A host name or IPv4/IPv6 literal the controller and gateway reach the node at. */
export const NODE_ADDRESS_PATTERN =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|[0-9A-Fa-f:.]{2,45})$/;
export const NodeAddressSchema = z
  .string()
  .max(253)
  .regex(NODE_ADDRESS_PATTERN, 'must be a host name or an IP address');
