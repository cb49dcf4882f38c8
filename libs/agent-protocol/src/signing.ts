import { randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { CanonicalJsonError, canonicalJson, ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import type { z } from 'zod';
import {
  EnvelopeHeaderSchema,
  ENVELOPE_SCHEMAS,
  EnvelopeSchema,
  type EnvelopeHeader,
  type EnvelopeSignature,
  MAX_VIOLATIONS,
  type BodyOf,
  type Envelope,
  type EnvelopeOf,
  type ProtocolViolation,
  type UnsignedEnvelope,
  type UnsignedEnvelopeOf,
} from './envelope';
import type { ReplayGuard } from './replay-guard';
import { MAC_ALGORITHM, MAC_TYPES, macOf, macVerifies } from './heartbeat-mac';
import { randomNonce } from './nonce';
import { AGENT_PROTOCOL, DEFAULT_MAX_SKEW_MS, SIGNATURE_ALGORITHM, type MessageType } from './protocol';

/**
 * Signing input: the canonical JSON (libs/contracts `canonicalJson`) of the
 * envelope without its `signature` member, as UTF-8 bytes. Everything else —
 * protocol, type, id, nodeId, issuedAt, nonce and body — is covered, so none
 * of it can be changed or moved to another node without the signature failing.
 */
export function signingInput(envelope: object): Buffer {
  const { signature: _signature, ...unsigned } = envelope as Record<string, unknown>;
  return Buffer.from(canonicalJson(unsigned), 'utf8');
}

export interface NewEnvelopeFields<T extends MessageType> {
  readonly nodeId: string;
  readonly body: BodyOf<T>;
  /** Defaults to `msg-<uuid>`. */
  readonly id?: string;
  /** Defaults to now. */
  readonly issuedAt?: Date;
  /** Defaults to randomNonce(): 18 random bytes (24 base64url characters). */
  readonly nonce?: string;
  /** The sender's trace context (W3C traceparent); omitted when undefined. */
  readonly traceparent?: string;
}

/** Builds an unsigned envelope with a fresh id and nonce. */
export function createEnvelope<T extends MessageType>(
  type: T,
  fields: NewEnvelopeFields<T>,
): UnsignedEnvelopeOf<T> {
  const envelope = {
    protocol: AGENT_PROTOCOL,
    type,
    id: fields.id ?? `msg-${randomUUID()}`,
    nodeId: fields.nodeId,
    issuedAt: (fields.issuedAt ?? new Date()).toISOString(),
    nonce: fields.nonce ?? randomNonce(),
    ...(fields.traceparent === undefined ? {} : { traceparent: fields.traceparent }),
    body: fields.body,
  };
  // TypeScript cannot narrow the union by a generic `type`; the pairing of type and body is what BodyOf<T> states.
  return envelope as unknown as UnsignedEnvelopeOf<T>;
}

function assertEd25519(key: KeyObject, type: 'private' | 'public'): void {
  if (key.type !== type || key.asymmetricKeyType !== 'ed25519') {
    throw new Error(
      `expected an Ed25519 ${type} key, got a ${key.asymmetricKeyType ?? 'secret'} ${key.type} key`,
    );
  }
}

/**
 * Signs an envelope with an Ed25519 private key (deterministic: the same
 * envelope and key always give the same signature). The result is validated
 * against the v1 schema before it is returned, so nothing invalid is ever
 * sent; a failure is VALIDATION_FAILED with the violations.
 */
export function signEnvelope<T extends MessageType>(
  privateKey: KeyObject,
  keyId: string,
  envelope: UnsignedEnvelopeOf<T>,
): EnvelopeOf<T>;
export function signEnvelope(privateKey: KeyObject, keyId: string, envelope: UnsignedEnvelope): Envelope;
export function signEnvelope(privateKey: KeyObject, keyId: string, envelope: UnsignedEnvelope): Envelope {
  assertEd25519(privateKey, 'private');
  const value = sign(null, signingInput(envelope), privateKey).toString('base64url');
  return withSignature(envelope, { keyId, alg: SIGNATURE_ALGORITHM, value });
}

/** The envelope with its signature or MAC, validated against the v1 schema so nothing invalid is ever sent. */
function withSignature(envelope: UnsignedEnvelope, signature: EnvelopeSignature): Envelope {
  const parsed = EnvelopeSchema.safeParse({ ...envelope, signature });
  if (!parsed.success) throw validationFailed('envelope does not match the v1 schema', parsed.error);
  return parsed.data;
}

/**
 * Authenticates a heartbeat or its ack with a heartbeat MAC key
 * (heartbeat-mac.ts) instead of signing it: `keyId` names the controller key
 * the MAC keys were agreed with. Validated like signEnvelope.
 */
export function macEnvelope<T extends (typeof MAC_TYPES)[number]>(
  key: Buffer,
  keyId: string,
  envelope: UnsignedEnvelopeOf<T>,
): EnvelopeOf<T> {
  const value = macOf(key, signingInput(envelope));
  return withSignature(envelope, { keyId, alg: MAC_ALGORITHM, value }) as EnvelopeOf<T>;
}

export interface VerifyOptions {
  /** The verifier's clock. */
  readonly now: Date;
  /** Largest accepted distance between `issuedAt` and `now`, either way. Default DEFAULT_MAX_SKEW_MS. */
  readonly maxSkewMs?: number;
  /** Refuses a nonce seen before; its window must cover `maxSkewMs`. Consulted last, so a forgery burns no nonce. */
  readonly replayGuard?: ReplayGuard;
  /** When set, `nodeId` must equal it (a message for another node is refused). */
  readonly nodeId?: string;
  /** When set, only these types are accepted. */
  readonly types?: readonly MessageType[];
  /**
   * The heartbeat MAC key named by a MAC'd envelope's key id (the key for
   * the direction this verifier receives), or undefined when there is none.
   * Without it a MAC'd envelope is refused: only heartbeat ingest and the
   * agent's ack check accept them.
   */
  readonly macKey?: (keyId: string) => Buffer | undefined;
  /** The caller's own EnvelopeHeaderSchema parse of `input`, when it has one: not parsed a second time. */
  readonly header?: EnvelopeHeader;
}

/** Trusted verification keys by key id. */
export type PublicKeySet = ReadonlyMap<string, KeyObject>;

/**
 * Verifies an envelope received as parsed JSON and returns it typed. Checks,
 * in order: the envelope shape (VALIDATION_FAILED), the signature by a key in
 * `publicKeys`, or for a heartbeat or its ack the MAC by `options.macKey`
 * (SIGNATURE_INVALID — also for an unknown key id), `issuedAt`
 * within `maxSkewMs` of `now` (REPLAY_DETECTED), the body of its type, the
 * node and the accepted types (VALIDATION_FAILED), and finally the nonce
 * (REPLAY_DETECTED; RATE_LIMITED when the guard is full). Throws LunaNexaError.
 */
export function verifyEnvelope(publicKeys: PublicKeySet, input: unknown, options: VerifyOptions): Envelope {
  const maxSkewMs = options.maxSkewMs ?? DEFAULT_MAX_SKEW_MS;
  if (options.replayGuard !== undefined && options.replayGuard.windowMs < maxSkewMs) {
    throw new Error('the replay guard window is shorter than maxSkewMs; replays could slip through');
  }
  let header: EnvelopeHeader;
  if (options.header !== undefined) header = options.header;
  else {
    const parsed = EnvelopeHeaderSchema.safeParse(input);
    if (!parsed.success) throw validationFailed('not a v1 envelope', parsed.error);
    header = parsed.data;
  }

  const { signature } = header;
  let message: Buffer;
  try {
    message = signingInput(input as object);
  } catch (error: unknown) {
    if (error instanceof CanonicalJsonError) {
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, error.message);
    }
    throw error;
  }
  if (signature.alg === MAC_ALGORITHM) {
    const macKey = (MAC_TYPES as readonly string[]).includes(header.type)
      ? options.macKey?.(signature.keyId)
      : undefined;
    if (macKey === undefined) {
      throw new LunaNexaError(
        ErrorCode.SIGNATURE_INVALID,
        `no heartbeat MAC key of controller key ${signature.keyId} for this ${header.type}`,
      );
    }
    if (!macVerifies(macKey, message, signature.value)) {
      throw new LunaNexaError(
        ErrorCode.SIGNATURE_INVALID,
        `MAC does not verify with the heartbeat key of controller key ${signature.keyId}`,
      );
    }
  } else {
    const key = publicKeys.get(signature.keyId);
    if (key === undefined) {
      throw new LunaNexaError(ErrorCode.SIGNATURE_INVALID, `key ${signature.keyId} is not trusted here`);
    }
    assertEd25519(key, 'public');
    if (!verify(null, message, key, Buffer.from(signature.value, 'base64url'))) {
      throw new LunaNexaError(
        ErrorCode.SIGNATURE_INVALID,
        `signature does not verify with key ${signature.keyId}`,
      );
    }
  }

  const nowMs = options.now.getTime();
  const issuedAtMs = Date.parse(header.issuedAt);
  if (Math.abs(nowMs - issuedAtMs) > maxSkewMs) {
    throw new LunaNexaError(
      ErrorCode.REPLAY_DETECTED,
      `issuedAt ${header.issuedAt} is more than ${maxSkewMs} ms from the receiver's clock`,
    );
  }

  // The type is known by now: its own schema, not the union of all of them.
  const parsed = ENVELOPE_SCHEMAS[header.type].safeParse(input);
  if (!parsed.success) throw validationFailed(`invalid ${header.type} envelope`, parsed.error);
  const envelope = parsed.data;
  if (options.nodeId !== undefined && envelope.nodeId !== options.nodeId) {
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'the envelope is for another node', [
      { path: 'nodeId', message: 'is not this node' },
    ]);
  }
  if (options.types !== undefined && !options.types.includes(envelope.type)) {
    throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `${envelope.type} is not accepted here`, [
      { path: 'type', message: `must be one of ${options.types.join(', ')}` },
    ]);
  }
  options.replayGuard?.remember(envelope.nonce, issuedAtMs, nowMs);
  return envelope;
}

/** zod issues as bounded protocol violations (paths dotted, at most MAX_VIOLATIONS). */
export function violationsOf(error: z.ZodError): ProtocolViolation[] {
  return error.issues.slice(0, MAX_VIOLATIONS).map((issue) => ({
    path: issue.path.map(String).join('.').slice(0, 256),
    message: issue.message.slice(0, 1024) || 'is invalid',
  }));
}

function validationFailed(message: string, error: z.ZodError): LunaNexaError {
  return new LunaNexaError(ErrorCode.VALIDATION_FAILED, message, violationsOf(error));
}
