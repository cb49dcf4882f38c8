import {
  createEnvelope,
  openSshPrivateKey,
  signEnvelope,
  type AssignmentAckBody,
  type Envelope,
  type StatusReportBody,
} from '@lunanexa/agent-protocol';
import { ErrorCode, LunaNexaError, type Assignment } from '@lunanexa/contracts';
import { takesControllerKeyNotice } from '@lunanexa/domain';
import {
  SpanKind,
  endSpan,
  injectContext,
  otelContext,
  otelTrace,
  tracer,
  type Logger,
} from '@lunanexa/observability';
import {
  fixedControllerSigner,
  trustedNodeKeys,
  type ControllerIdentity,
  type ControllerSigner,
  type SouthboundNode,
} from './node';
import { ControllerKeyRefusedError, exchangeEnvelope } from './ssh-exchange';

export interface SouthboundClientOptions {
  /** TCP connect + SSH handshake + authentication + subsystem open. Default 10 s. */
  readonly connectTimeoutMs?: number;
  /** From sending the envelope to its reply (the agent fsyncs before it acks). Default 15 s. */
  readonly replyTimeoutMs?: number;
  readonly logger?: Logger;
  /** Stamps `issuedAt` and judges the reply's clock skew. */
  readonly now?: () => Date;
}

export const DEFAULT_SOUTHBOUND_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_SOUTHBOUND_REPLY_TIMEOUT_MS = 15_000;

type Request =
  { readonly type: 'assignment.put'; readonly assignment: Assignment } | { readonly type: 'status.get' };

/**
 * The controller's side of the southbound SSH channel (DESIGN.md "Southbound
 * channel"). Each call opens its own connection and closes it before
 * returning: pushes and reachability checks are rare, and a connection that
 * lives only for one request has no state to go stale.
 *
 * Errors are LunaNexaError throughout. DEPENDENCY_UNAVAILABLE means the node
 * could not be reached or did not answer in time, and the request may or may
 * not have been applied — pushes are idempotent (a re-delivery is acked
 * `already-accepted`), so retrying is safe. Every other code is the node's
 * (or the pinning's) verdict and retrying will not change it.
 */
export class SouthboundClient {
  private readonly signer: ControllerSigner;
  /** OpenSSH private key text per key id (converting costs more than a signature). */
  private readonly sshPrivateKeys = new Map<string, string>();
  private readonly connectTimeoutMs: number;
  private readonly replyTimeoutMs: number;
  private readonly logger: Logger | undefined;
  private readonly now: () => Date;

  constructor(identity: ControllerIdentity | ControllerSigner, options: SouthboundClientOptions = {}) {
    this.signer = 'candidates' in identity ? identity : fixedControllerSigner(identity);
    this.connectTimeoutMs = positive(
      options.connectTimeoutMs ?? DEFAULT_SOUTHBOUND_CONNECT_TIMEOUT_MS,
      'connectTimeoutMs',
    );
    this.replyTimeoutMs = positive(
      options.replyTimeoutMs ?? DEFAULT_SOUTHBOUND_REPLY_TIMEOUT_MS,
      'replyTimeoutMs',
    );
    this.logger = options.logger;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Sends a signed `assignment.put`; resolves with the ack once the node has
   * persisted the assignment. A reject throws its code (STALE_GENERATION,
   * LEASE_EXPIRED, SIGNATURE_INVALID, …) with the agent's message.
   */
  async pushAssignment(node: SouthboundNode, assignment: Assignment): Promise<AssignmentAckBody> {
    const reply = await this.request(node, { type: 'assignment.put', assignment });
    switch (reply.type) {
      case 'assignment.ack':
        if (reply.body.assignmentId !== assignment.id) {
          throw unexpected(node, `an ack for assignment ${reply.body.assignmentId}, not ${assignment.id}`);
        }
        return reply.body;
      case 'assignment.reject':
        throw new LunaNexaError(reply.body.code, reply.body.message, reply.body.violations);
      case 'error':
        throw new LunaNexaError(reply.body.code, reply.body.message, reply.body.violations);
      default:
        throw unexpected(node, `${reply.type} in reply to assignment.put`);
    }
  }

  /** Sends a signed `status.get`; resolves with every assignment the node holds. */
  async status(node: SouthboundNode): Promise<StatusReportBody> {
    const reply = await this.request(node, { type: 'status.get' });
    switch (reply.type) {
      case 'status.report':
        return reply.body;
      case 'error':
        throw new LunaNexaError(reply.body.code, reply.body.message, reply.body.violations);
      default:
        throw unexpected(node, `${reply.type} in reply to status.get`);
    }
  }

  private async request(node: SouthboundNode, request: Request): Promise<Envelope> {
    // A client span (a child of the activity's, with tracing on) whose context the envelope carries, signed.
    const span = tracer().startSpan(`southbound ${request.type}`, {
      kind: SpanKind.CLIENT,
      attributes: { 'lunanexa.node.id': node.id, 'lunanexa.message.type': request.type },
    });
    try {
      const reply = await otelContext.with(otelTrace.setSpan(otelContext.active(), span), () =>
        this.requestInSpan(node, request),
      );
      endSpan(span);
      return reply;
    } catch (error: unknown) {
      endSpan(span, error);
      throw error;
    }
  }

  private sshPrivateKey(identity: ControllerIdentity): string {
    let text = this.sshPrivateKeys.get(identity.keyId);
    if (text === undefined) {
      text = openSshPrivateKey(identity.privateKey);
      this.sshPrivateKeys.set(identity.keyId, text);
    }
    return text;
  }

  /**
   * Offers the ring's keys in order: a node that refuses the current key
   * during an overlap (it has not added it yet) is asked again with the
   * previous one, whose envelope's notice names the current key.
   */
  private async requestInSpan(node: SouthboundNode, request: Request): Promise<Envelope> {
    const candidates = this.signer.candidates();
    for (let index = 0; ; index++) {
      const identity = candidates[index];
      try {
        return await this.requestSignedBy(node, request, identity);
      } catch (error) {
        if (!(error instanceof ControllerKeyRefusedError) || index + 1 >= candidates.length) throw error;
        this.logger?.info(
          { event: 'southbound_key_fallback', nodeId: node.id, refusedKeyId: identity.keyId },
          `node ${node.id} refused controller key ${identity.keyId}; offering the previous key of the overlap`,
        );
      }
    }
  }

  private async requestSignedBy(
    node: SouthboundNode,
    request: Request,
    identity: ControllerIdentity,
  ): Promise<Envelope> {
    // Everything that can be refused locally is, before a connection is opened.
    const nodeKeys = trustedNodeKeys(node);
    const issuedAt = this.now();
    const { traceparent } = injectContext();
    // An agent older than the notice refuses the whole message for it (its schema is strict).
    const notice = takesControllerKeyNotice(node.agentProtocol) ? this.signer.notice(identity) : undefined;
    const envelope: Envelope =
      request.type === 'assignment.put'
        ? signEnvelope(
            identity.privateKey,
            identity.keyId,
            createEnvelope('assignment.put', {
              nodeId: node.id,
              issuedAt,
              traceparent,
              body:
                notice === undefined
                  ? { assignment: request.assignment }
                  : { assignment: request.assignment, controllerKeys: notice },
            }),
          )
        : signEnvelope(
            identity.privateKey,
            identity.keyId,
            createEnvelope('status.get', { nodeId: node.id, issuedAt, traceparent, body: {} }),
          );
    const fields = {
      event: 'southbound_request',
      nodeId: node.id,
      type: envelope.type,
      messageId: envelope.id,
      ...(request.type === 'assignment.put'
        ? { assignmentId: request.assignment.id, generation: request.assignment.generation }
        : {}),
    };
    const started = Date.now();
    try {
      const reply = await exchangeEnvelope({
        node,
        sshPrivateKey: this.sshPrivateKey(identity),
        controllerKeyId: identity.keyId,
        request: envelope,
        nodeKeys,
        connectTimeoutMs: this.connectTimeoutMs,
        replyTimeoutMs: this.replyTimeoutMs,
        now: this.now,
      });
      this.logger?.info(
        { ...fields, reply: reply.type, durationMs: Date.now() - started },
        `${envelope.type} to node ${node.id}: ${reply.type}`,
      );
      return reply;
    } catch (error: unknown) {
      const code = error instanceof LunaNexaError ? error.code : ErrorCode.INTERNAL;
      this.logger?.warn(
        { ...fields, code, durationMs: Date.now() - started },
        `${envelope.type} to node ${node.id} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      throw error;
    }
  }
}

function unexpected(node: SouthboundNode, what: string): LunaNexaError {
  return new LunaNexaError(ErrorCode.VALIDATION_FAILED, `node ${node.id} answered with ${what}`);
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number of ms`);
  return value;
}
