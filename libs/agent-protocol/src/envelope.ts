import {
  AssignmentIntentSchema,
  AssignmentSchema,
  BootstrapTokenSchema,
  DigestSchema,
  ErrorCodeSchema,
  GenerationSchema,
  HeartbeatSchema,
  IsoTimestampSchema,
  NameSchema,
  NodeAddressSchema,
  NodeInventorySchema,
  NodeLabelsSchema,
  NodeLifecycleStateSchema,
  OpaqueIdSchema,
  ShortTextSchema,
  SshFingerprintSchema,
  TRACEPARENT_PATTERN,
} from '@lunanexa/contracts';
import { NodeCredentialSchema } from './credential';
import { MAC_ALGORITHM, MAC_TYPES, MAC_VALUE_PATTERN } from './heartbeat-mac';
import { z } from 'zod';
import {
  AGENT_PROTOCOL,
  MESSAGE_TYPES,
  SIGNATURE_ALGORITHM,
  SIGNATURE_VALUE_PATTERN,
  type MessageType,
} from './protocol';

export { SIGNATURE_VALUE_PATTERN } from './protocol';

/**
 * Envelopes of the southbound protocol v1: one typed JSON document per frame,
 * `{ protocol, type, id, nodeId, issuedAt, nonce, body, signature }`. Every
 * schema is strict (an unknown member is refused, never ignored), and none of
 * them has a member that could carry a command line: the controller states
 * desired state, the agent decides how to reach it (DESIGN.md invariant 6).
 */

export const MessageTypeSchema = z.enum(MESSAGE_TYPES);

/** 16–64 random bytes, base64url without padding (the same shape as a heartbeat nonce). */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{22,86}$/;
export const NonceSchema = z
  .string()
  .regex(NONCE_PATTERN, 'must be 16-64 random bytes, base64url without padding');

/** Names the key that signed an envelope; the verifier looks it up among the keys it trusts. */
export const KeyIdSchema = OpaqueIdSchema;

export const SignatureSchema = z
  .object({
    keyId: KeyIdSchema,
    alg: z.literal(SIGNATURE_ALGORITHM),
    value: z
      .string()
      .regex(SIGNATURE_VALUE_PATTERN, 'must be a 64-byte Ed25519 signature, base64url without padding'),
  })
  .strict();
/**
 * A heartbeat or its ack authenticated by the node's heartbeat MAC keys
 * (heartbeat-mac.ts) instead of signed: `keyId` names the controller key the
 * MAC keys were agreed with; the node key is the node's current one.
 */
export const MacSignatureSchema = z
  .object({
    keyId: KeyIdSchema,
    alg: z.literal(MAC_ALGORITHM),
    value: z
      .string()
      .regex(MAC_VALUE_PATTERN, 'must be a 32-byte HMAC-SHA256 tag, base64url without padding'),
  })
  .strict();
/** Either form: only heartbeats and their acks may carry a MAC (their envelope schemas say so). */
export const AnySignatureSchema = z.discriminatedUnion('alg', [SignatureSchema, MacSignatureSchema]);
export type EnvelopeSignature = z.infer<typeof AnySignatureSchema>;

/** A field-level problem echoed back to the sender; bounded so a reply cannot balloon. */
export const ProtocolViolationSchema = z
  .object({
    path: z.string().max(256),
    message: z.string().min(1).max(1024),
  })
  .strict();
export type ProtocolViolation = z.infer<typeof ProtocolViolationSchema>;
export const MAX_VIOLATIONS = 32;

/** An OpenSSH `ssh-ed25519 AAAA…` line (no comment needed); parsed and checked by the receiver. */
export const OpenSshEd25519LineSchema = z
  .string()
  .max(512)
  .regex(
    /^ssh-ed25519 [A-Za-z0-9+/]+={0,2}( [\x20-\x7e]{0,128})?$/,
    'must be an OpenSSH ssh-ed25519 public key line',
  );

/** At most this many controller keys an agent trusts at once (config, enrollment and announced keys together). */
export const MAX_TRUSTED_CONTROLLER_KEYS = 8;

/**
 * The controller's key ring as it tells an agent, inside an envelope the agent
 * has already verified (`heartbeat.ack`, `assignment.put`). A rotation goes:
 * announce (`next` names the new key while the old one still signs), switch
 * (the new key signs; the old one is still accepted, the overlap), retire
 * (`retiredKeyIds` names the old key: the agent drops it and from then on
 * accepts only the new one). `signingKeyId` must equal the envelope
 * signature's key id; a notice naming another signer is ignored. An agent
 * never retires the key that signed the notice.
 */
export const ControllerKeyNoticeSchema = z
  .object({
    signingKeyId: KeyIdSchema,
    /** The key that will sign after the switch; null outside the announce phase. */
    next: z
      .object({
        keyId: KeyIdSchema,
        publicKey: OpenSshEd25519LineSchema,
        /** The rotation this key belongs to (for logs and audit). */
        rotationId: OpaqueIdSchema,
      })
      .strict()
      .nullable(),
    /** Keys no longer accepted: the agent removes them from its trust store. */
    retiredKeyIds: z.array(KeyIdSchema).max(MAX_TRUSTED_CONTROLLER_KEYS),
  })
  .strict();
export type ControllerKeyNotice = z.infer<typeof ControllerKeyNoticeSchema>;

// ---------------------------------------------------------------------------
// Bodies

/** Controller → agent: the desired state of one replica. Generation and lease travel inside the assignment. */
export const AssignmentPutBodySchema = z
  .object({
    assignment: AssignmentSchema,
    /** The controller's key ring (announce / retire); absent from controllers that predate key rotation. */
    controllerKeys: ControllerKeyNoticeSchema.optional(),
  })
  .strict();
export type AssignmentPutBody = z.infer<typeof AssignmentPutBodySchema>;

/**
 * What accepting an `assignment.put` did: `accepted` — a generation newer
 * than any held for the assignment; `lease-renewed` — the same generation and
 * spec with a later lease; `already-accepted` — nothing new (a re-delivery),
 * nothing written.
 */
export const ACK_RESULTS = ['accepted', 'lease-renewed', 'already-accepted'] as const;
export const AckResultSchema = z.enum(ACK_RESULTS);
export type AckResult = z.infer<typeof AckResultSchema>;

/** Agent → controller: the assignment is persisted (fsync'd) at this generation and lease. */
export const AssignmentAckBodySchema = z
  .object({
    inReplyTo: OpaqueIdSchema,
    assignmentId: OpaqueIdSchema,
    generation: GenerationSchema,
    /** sha256 of the canonical assignment without `leaseExpiresAt`: what the generation fence compares. */
    specDigest: DigestSchema,
    leaseExpiresAt: IsoTimestampSchema,
    result: AckResultSchema,
  })
  .strict();
export type AssignmentAckBody = z.infer<typeof AssignmentAckBodySchema>;

/** Agent → controller: the put changed nothing, and why. */
export const AssignmentRejectBodySchema = z
  .object({
    /** The rejected envelope's id, when it had a readable one. */
    inReplyTo: OpaqueIdSchema.nullable(),
    assignmentId: OpaqueIdSchema.nullable(),
    generation: GenerationSchema.nullable(),
    code: ErrorCodeSchema,
    message: ShortTextSchema,
    /** For `STALE_GENERATION`: the generation the agent holds, so the controller can see who is behind. */
    highestAcceptedGeneration: GenerationSchema.nullable(),
    violations: z.array(ProtocolViolationSchema).max(MAX_VIOLATIONS),
  })
  .strict();
export type AssignmentRejectBody = z.infer<typeof AssignmentRejectBodySchema>;

/** Controller → agent: report what you hold. */
export const StatusGetBodySchema = z.object({}).strict();
export type StatusGetBody = z.infer<typeof StatusGetBodySchema>;

/** One accepted assignment as the agent holds it (desired state; observed state travels in heartbeats). */
export const AcceptedAssignmentSummarySchema = z
  .object({
    assignmentId: OpaqueIdSchema,
    deploymentId: OpaqueIdSchema,
    generation: GenerationSchema,
    intent: AssignmentIntentSchema,
    leaseExpiresAt: IsoTimestampSchema,
    specDigest: DigestSchema,
    acceptedAt: IsoTimestampSchema,
  })
  .strict();
export type AcceptedAssignmentSummary = z.infer<typeof AcceptedAssignmentSummarySchema>;

/** Agent → controller: every accepted assignment, ordered by id. */
export const StatusReportBodySchema = z
  .object({
    inReplyTo: OpaqueIdSchema,
    assignments: z.array(AcceptedAssignmentSummarySchema).max(1024),
  })
  .strict();
export type StatusReportBody = z.infer<typeof StatusReportBodySchema>;

/** Either side: a frame or envelope that is not a request the receiver can answer otherwise. */
export const ErrorBodySchema = z
  .object({
    inReplyTo: OpaqueIdSchema.nullable(),
    code: ErrorCodeSchema,
    message: ShortTextSchema,
    violations: z.array(ProtocolViolationSchema).max(MAX_VIOLATIONS),
  })
  .strict();
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/**
 * Agent → controller (HTTP): a new node asks to join. Signed with the node key
 * whose public half is `publicKey` (proof of possession); the envelope's
 * `nodeId` is the node name until the controller assigns an id.
 */
export const EnrollRequestBodySchema = z
  .object({
    bootstrapToken: BootstrapTokenSchema,
    nodeName: NameSchema,
    publicKey: OpenSshEd25519LineSchema,
    labels: NodeLabelsSchema,
    inventory: NodeInventorySchema,
    /** Where the controller's SSH client and the gateway reach this node. */
    address: NodeAddressSchema,
    ssh: z
      .object({
        port: z.int().min(1).max(65535),
        /** The host key the controller pins: every later SSH connection must present exactly it. */
        hostKeyFingerprint: SshFingerprintSchema,
      })
      .strict(),
  })
  .strict();
export type EnrollRequestBody = z.infer<typeof EnrollRequestBodySchema>;

/** Controller → agent (HTTP reply): who the node now is and which controller key to trust. */
export const EnrollResponseBodySchema = z
  .object({
    inReplyTo: OpaqueIdSchema,
    nodeId: OpaqueIdSchema,
    nodeName: NameSchema,
    lifecycle: NodeLifecycleStateSchema,
    /** The EnrollNode workflow that takes the node to Active. */
    workflowId: z.string().min(1).max(256),
    controllerKeyId: OpaqueIdSchema,
    controllerPublicKey: OpenSshEd25519LineSchema,
    heartbeatIntervalSeconds: z.int().min(1).max(300),
    leaseDurationSeconds: z.int().min(2).max(3600),
  })
  .strict();
export type EnrollResponseBody = z.infer<typeof EnrollResponseBodySchema>;

/** Something the agent refused (an SSH request or a southbound envelope), reported so the controller audits it. */
export const AgentRefusalSchema = z
  .object({
    at: IsoTimestampSchema,
    /** `ssh:<request>` (e.g. `ssh:exec`) or `envelope:<type or unknown>`. */
    kind: z.string().regex(/^(ssh|envelope):[a-z.-]{1,32}$/),
    code: ErrorCodeSchema,
    remoteAddress: z.string().max(64),
    keyId: OpaqueIdSchema.nullable(),
    envelopeId: OpaqueIdSchema.nullable(),
    assignmentId: OpaqueIdSchema.nullable(),
    generation: GenerationSchema.nullable(),
    detail: z.string().max(256).nullable(),
  })
  .strict();
export type AgentRefusal = z.infer<typeof AgentRefusalSchema>;
export const MAX_REFUSALS_PER_HEARTBEAT = 64;

/** One runtime the agent's orphan sweep acted on: a tagged process group or a labelled container. */
export const OrphanActionSchema = z
  .object({
    kind: z.enum(['process', 'container']),
    /** Process group id (a binary runtime, or a container engine CLI); null for a container seen only through the engine. */
    pid: z.int().positive().nullable(),
    /** Container name as the engine shows it; null for a process. */
    container: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,252}$/)
      .nullable(),
    /** The assignment it was launched for, when its tag or label says; null when it names none. */
    assignmentId: OpaqueIdSchema.nullable(),
    reason: ShortTextSchema,
  })
  .strict();
export type OrphanAction = z.infer<typeof OrphanActionSchema>;
export const MAX_ORPHAN_ACTIONS = 256;
export const MAX_ORPHAN_REPORTS_PER_HEARTBEAT = 16;

/**
 * What one orphan sweep found (only sweeps that found something are
 * reported): runtimes of this agent that no live assignment slot owned,
 * adopted because their assignment still wants them, or stopped.
 */
export const OrphanReportSchema = z
  .object({
    sweptAt: IsoTimestampSchema,
    /** `start`: the sweep before the first reconcile pass; `periodic`: one while the agent runs. */
    trigger: z.enum(['start', 'periodic']),
    adopted: z.array(OrphanActionSchema).max(MAX_ORPHAN_ACTIONS),
    stopped: z.array(OrphanActionSchema).max(MAX_ORPHAN_ACTIONS),
    /** Found but not gone (a process group that survives SIGKILL, an engine that refused to stop). */
    failed: z.array(OrphanActionSchema).max(MAX_ORPHAN_ACTIONS),
  })
  .strict();
export type OrphanReport = z.infer<typeof OrphanReportSchema>;

/** A key the agent generated to replace its node key (RotateNodeCredential); `proof` is its signature over `rotationProofInput`. */
export const NextNodeKeySchema = z
  .object({
    keyId: OpaqueIdSchema,
    publicKey: OpenSshEd25519LineSchema,
    proof: z.string().regex(SIGNATURE_VALUE_PATTERN),
  })
  .strict();
export type NextNodeKey = z.infer<typeof NextNodeKeySchema>;

/** Where the controller's SSH client and the gateway reach a node now. */
export const NodeEndpointSchema = z
  .object({
    address: NodeAddressSchema,
    sshPort: z.int().min(1).max(65535),
  })
  .strict();
export type NodeEndpoint = z.infer<typeof NodeEndpointSchema>;

/** Agent → controller (HTTP): observed state and lease renewal, signed with the node key. */
export const HeartbeatBodySchema = z
  .object({
    heartbeat: HeartbeatSchema,
    /** Refusals since the last acknowledged heartbeat (oldest first). */
    refusals: z.array(AgentRefusalSchema).max(MAX_REFUSALS_PER_HEARTBEAT),
    /** Present while the agent rotates its key: the key that will sign from the next heartbeat on. */
    nextKey: NextNodeKeySchema.nullable(),
    /** Serial of the credential the agent holds; null before the first. */
    credentialSerial: z.int().nonnegative().nullable(),
    /**
     * Where the agent serves now (it may have restarted on another address or
     * SSH port). Signed like the rest, so only the node key moves a node; the
     * pinned SSH host key still has to answer there. Absent from agents that
     * predate it: the controller keeps what it has.
     */
    endpoint: NodeEndpointSchema.optional(),
    /**
     * Orphan sweeps since the last acknowledged heartbeat (oldest first); each
     * is audited as `node.orphans.reconciled`. Absent from agents that predate it.
     */
    orphanReports: z.array(OrphanReportSchema).max(MAX_ORPHAN_REPORTS_PER_HEARTBEAT).optional(),
    /**
     * The controller key ids the agent trusts now. The controller signs for
     * this node with a key it trusts (during an overlap the previous key, so a
     * node that missed the announcement still learns the next one), and marks
     * a node that trusts none of the accepted keys ControllerKeyTrusted=False.
     * Absent from agents that predate key rotation.
     */
    controllerKeyIds: z.array(KeyIdSchema).min(1).max(MAX_TRUSTED_CONTROLLER_KEYS).optional(),
  })
  .strict();
export type HeartbeatBody = z.infer<typeof HeartbeatBodySchema>;

/** Controller → agent (HTTP reply): the lease, the node's administrative state, and a credential when there is a newer one. */
export const HeartbeatAckBodySchema = z
  .object({
    inReplyTo: OpaqueIdSchema,
    sequence: z.int().nonnegative(),
    lifecycle: NodeLifecycleStateSchema,
    cordoned: z.boolean(),
    leaseExpiresAt: IsoTimestampSchema,
    /** The node's current credential when the agent's serial is older (or null); otherwise null. */
    credential: NodeCredentialSchema.nullable(),
    /** True while a RotateNodeCredential asks the agent for a new key and none has arrived. */
    rotateKey: z.boolean(),
    /** How many refusals from the heartbeat were recorded (the agent drops that many from its queue). */
    refusalsRecorded: z.int().nonnegative(),
    /** The controller's key ring (announce / retire); absent from controllers that predate key rotation. */
    controllerKeys: ControllerKeyNoticeSchema.optional(),
    /**
     * The digest of the inventory the controller now holds for the node (inventoryDigest): while the
     * agent's inventory has this digest, its next heartbeat may send the digest instead. Sent only to
     * agents at protocol 2 or later, as `controllerKeys`.
     */
    inventoryDigest: DigestSchema.optional(),
  })
  .strict();
export type HeartbeatAckBody = z.infer<typeof HeartbeatAckBodySchema>;

export const BODY_SCHEMAS = {
  'assignment.put': AssignmentPutBodySchema,
  'assignment.ack': AssignmentAckBodySchema,
  'assignment.reject': AssignmentRejectBodySchema,
  'status.get': StatusGetBodySchema,
  'status.report': StatusReportBodySchema,
  error: ErrorBodySchema,
  'enroll.request': EnrollRequestBodySchema,
  'enroll.response': EnrollResponseBodySchema,
  heartbeat: HeartbeatBodySchema,
  'heartbeat.ack': HeartbeatAckBodySchema,
} as const satisfies Record<MessageType, z.ZodType>;

// ---------------------------------------------------------------------------
// Envelopes

const headerShape = {
  protocol: z.literal(AGENT_PROTOCOL),
  /** Unique per message; replies name it in `inReplyTo`. */
  id: OpaqueIdSchema,
  /** The node the message is for (controller → agent) or from (agent → controller). */
  nodeId: OpaqueIdSchema,
  issuedAt: IsoTimestampSchema,
  nonce: NonceSchema,
  /**
   * W3C trace context of the sender's span (OpenTelemetry), so the receiver's
   * work joins the same trace. Optional: absent with tracing off. Signed like
   * every other member, so it cannot be swapped in transit.
   */
  traceparent: z.string().regex(TRACEPARENT_PATTERN, 'must be a W3C traceparent').optional(),
  signature: SignatureSchema,
};
/** Heartbeats and their acks: signed, or authenticated by the heartbeat MAC keys. */
const macHeaderShape = { ...headerShape, signature: AnySignatureSchema };

/** The envelope with its body not yet interpreted: enough to find the key and check the signature. */
export const EnvelopeHeaderSchema = z
  .object({
    ...macHeaderShape,
    type: MessageTypeSchema,
    body: z.unknown().refine((body) => body !== undefined, { message: 'is required' }),
  })
  .strict();
export type EnvelopeHeader = z.infer<typeof EnvelopeHeaderSchema>;

function envelopeOf<T extends MessageType, B extends (typeof BODY_SCHEMAS)[T]>(type: T, body: B) {
  return z.object({ ...headerShape, type: z.literal(type), body }).strict();
}

function macEnvelopeOf<T extends (typeof MAC_TYPES)[number], B extends (typeof BODY_SCHEMAS)[T]>(
  type: T,
  body: B,
) {
  return z.object({ ...macHeaderShape, type: z.literal(type), body }).strict();
}

export const AssignmentPutEnvelopeSchema = envelopeOf('assignment.put', AssignmentPutBodySchema).superRefine(
  (envelope, ctx) => {
    // An assignment for another node, correctly signed, must not be replayable to this one.
    if (envelope.body.assignment.nodeId !== envelope.nodeId) {
      ctx.addIssue({
        code: 'custom',
        path: ['body', 'assignment', 'nodeId'],
        message: 'must equal the envelope nodeId',
      });
    }
  },
);
export const AssignmentAckEnvelopeSchema = envelopeOf('assignment.ack', AssignmentAckBodySchema);
export const AssignmentRejectEnvelopeSchema = envelopeOf('assignment.reject', AssignmentRejectBodySchema);
export const StatusGetEnvelopeSchema = envelopeOf('status.get', StatusGetBodySchema);
export const StatusReportEnvelopeSchema = envelopeOf('status.report', StatusReportBodySchema);
export const ErrorEnvelopeSchema = envelopeOf('error', ErrorBodySchema);
export const EnrollRequestEnvelopeSchema = envelopeOf('enroll.request', EnrollRequestBodySchema).superRefine(
  (envelope, ctx) => {
    if (envelope.body.nodeName !== envelope.nodeId) {
      ctx.addIssue({ code: 'custom', path: ['body', 'nodeName'], message: 'must equal the envelope nodeId' });
    }
  },
);
export const EnrollResponseEnvelopeSchema = envelopeOf('enroll.response', EnrollResponseBodySchema);
export const HeartbeatEnvelopeSchema = macEnvelopeOf('heartbeat', HeartbeatBodySchema).superRefine(
  (envelope, ctx) => {
    // The heartbeat's own identity fields are the envelope's: one nonce, one node, one instant.
    if (envelope.body.heartbeat.nodeId !== envelope.nodeId) {
      ctx.addIssue({
        code: 'custom',
        path: ['body', 'heartbeat', 'nodeId'],
        message: 'must equal the envelope nodeId',
      });
    }
    if (envelope.body.heartbeat.nonce !== envelope.nonce) {
      ctx.addIssue({
        code: 'custom',
        path: ['body', 'heartbeat', 'nonce'],
        message: 'must equal the envelope nonce',
      });
    }
    if (envelope.body.heartbeat.sentAt !== envelope.issuedAt) {
      ctx.addIssue({
        code: 'custom',
        path: ['body', 'heartbeat', 'sentAt'],
        message: 'must equal the envelope issuedAt',
      });
    }
  },
);
export const HeartbeatAckEnvelopeSchema = macEnvelopeOf('heartbeat.ack', HeartbeatAckBodySchema);

export const EnvelopeSchema = z.discriminatedUnion('type', [
  AssignmentPutEnvelopeSchema,
  AssignmentAckEnvelopeSchema,
  AssignmentRejectEnvelopeSchema,
  StatusGetEnvelopeSchema,
  StatusReportEnvelopeSchema,
  ErrorEnvelopeSchema,
  EnrollRequestEnvelopeSchema,
  EnrollResponseEnvelopeSchema,
  HeartbeatEnvelopeSchema,
  HeartbeatAckEnvelopeSchema,
]);
export type Envelope = z.infer<typeof EnvelopeSchema>;
export type EnvelopeOf<T extends MessageType> = Extract<Envelope, { type: T }>;
export type BodyOf<T extends MessageType> = EnvelopeOf<T>['body'];

/** An envelope before signing: everything the signature covers. */
export type UnsignedEnvelope<E extends Envelope = Envelope> = E extends unknown
  ? Omit<E, 'signature'>
  : never;
export type UnsignedEnvelopeOf<T extends MessageType> = UnsignedEnvelope<EnvelopeOf<T>>;

export const ENVELOPE_SCHEMAS = {
  'assignment.put': AssignmentPutEnvelopeSchema,
  'assignment.ack': AssignmentAckEnvelopeSchema,
  'assignment.reject': AssignmentRejectEnvelopeSchema,
  'status.get': StatusGetEnvelopeSchema,
  'status.report': StatusReportEnvelopeSchema,
  error: ErrorEnvelopeSchema,
  'enroll.request': EnrollRequestEnvelopeSchema,
  'enroll.response': EnrollResponseEnvelopeSchema,
  heartbeat: HeartbeatEnvelopeSchema,
  'heartbeat.ack': HeartbeatAckEnvelopeSchema,
} as const satisfies Record<MessageType, z.ZodType>;

/**
 * What can be read from an envelope that failed verification, for the reply's
 * `inReplyTo` and the reject's assignment fields: each value only if it is
 * well formed on its own, otherwise null. Never trusted for anything else.
 */
export interface EnvelopeReference {
  readonly id: string | null;
  readonly type: MessageType | null;
  readonly assignmentId: string | null;
  readonly generation: number | null;
}

export function peekEnvelope(input: unknown): EnvelopeReference {
  const record = asRecord(input);
  const body = asRecord(record?.['body']);
  const assignment = asRecord(body?.['assignment']);
  const id = OpaqueIdSchema.safeParse(record?.['id']);
  const type = MessageTypeSchema.safeParse(record?.['type']);
  const assignmentId = OpaqueIdSchema.safeParse(assignment?.['id']);
  const generation = GenerationSchema.safeParse(assignment?.['generation']);
  return {
    id: id.success ? id.data : null,
    type: type.success ? type.data : null,
    assignmentId: assignmentId.success ? assignmentId.data : null,
    generation: generation.success ? generation.data : null,
  };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * `GET /agent/v1/controller-keys` (HTTP, unauthenticated, unsigned): the
 * controller keys still accepted. Nothing here is trusted as it arrives: an
 * agent that missed a rotation adds a key only when its SSH fingerprint equals
 * one the operator gave it out of band (`lunanexa-agent trust-controller-key
 * --fingerprint SHA256:…`).
 */
export const ControllerKeysResponseSchema = z
  .object({
    keys: z
      .array(
        z
          .object({
            keyId: KeyIdSchema,
            publicKey: OpenSshEd25519LineSchema,
            sshFingerprint: SshFingerprintSchema,
            /** `next`: announced, not signing yet; `current`: signs; `previous`: accepted until the overlap ends. */
            state: z.enum(['next', 'current', 'previous']),
          })
          .strict(),
      )
      .max(MAX_TRUSTED_CONTROLLER_KEYS),
  })
  .strict();
export type ControllerKeysResponse = z.infer<typeof ControllerKeysResponseSchema>;
