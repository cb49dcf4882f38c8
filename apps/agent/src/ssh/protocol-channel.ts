import type { KeyObject } from 'node:crypto';
import {
  CONTROLLER_MESSAGE_TYPES,
  createEnvelope,
  encodeFrame,
  FrameDecoder,
  MAX_VIOLATIONS,
  peekEnvelope,
  signEnvelope,
  verifyEnvelope,
  type AgentRefusal,
  type BodyOf,
  type ControllerKeyNotice,
  type Envelope,
  type EnvelopeOf,
  type EnvelopeReference,
  type MessageType,
  type ProtocolViolation,
  type PublicKeySet,
  type ReplayGuard,
} from '@lunanexa/agent-protocol';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import {
  SpanKind,
  endSpan,
  extractContext,
  otelContext,
  otelTrace,
  tracer,
  type Logger,
} from '@lunanexa/observability';
import type { Counter } from 'prom-client';
import type { ServerChannel } from 'ssh2';
import { INVALID_MESSAGE_TYPE_LABEL } from '../metrics';
import { claimedSignerKeyId } from '../controller-trust/store';
import type { AcceptedAssignment, AssignmentStore } from './assignment-store';

/** What happened to an assignment that was accepted; `already-accepted` re-deliveries are not announced. */
export interface AssignmentAcceptedEvent {
  readonly result: 'accepted' | 'lease-renewed';
  readonly accepted: AcceptedAssignment;
}

/**
 * Plug-in point for the runtime reconciler: called after an assignment (or a
 * lease renewal) is persisted and acknowledged. Reconciling runtimes is the
 * listener's job; it is never awaited by the channel, and a throw or rejection
 * is logged, never sent to the controller (the ack already promised only
 * durability).
 */
export type OnAssignmentAccepted = (event: AssignmentAcceptedEvent) => void | Promise<void>;

/** Called with every envelope the channel refused, so the next heartbeat reports it for audit. */
export type OnEnvelopeRefused = (refusal: AgentRefusal) => void;

export interface SouthboundContext {
  readonly nodeId: string;
  /** May grow while the agent runs (enrollment adds the controller key); read at each verification. */
  readonly controllerKeys: PublicKeySet;
  /** Asked at every signature, so a rotated node key signs from the next reply on. */
  readonly nodeKey: { current(): { readonly keyId: string; readonly privateKey: KeyObject } };
  readonly store: AssignmentStore;
  readonly replayGuard: ReplayGuard;
  readonly maxSkewMs: number;
  readonly now: () => Date;
  readonly logger: Logger;
  readonly messages: Counter<'type' | 'outcome'>;
  readonly onAssignmentAccepted?: OnAssignmentAccepted;
  readonly onRefusal?: OnEnvelopeRefused;
  /**
   * The controller key ring notice of a verified `assignment.put`, with the
   * key id that signed the envelope. Awaited before the assignment is applied,
   * and applied whether or not the assignment is accepted.
   */
  readonly onControllerKeyNotice?: (notice: ControllerKeyNotice, signerKeyId: string) => Promise<unknown>;
  /** Told when an envelope is signed by a key id the agent does not trust (it may have missed a rotation). */
  readonly onUntrustedSigner?: (keyId: string) => void;
  /** Told when an envelope verified with a trusted key. */
  readonly onTrustedSigner?: (keyId: string) => void;
}

export interface ChannelPeer {
  readonly remoteAddress: string;
  /** The controller key the SSH connection authenticated with. */
  readonly keyId: string;
}

/** Frames waiting to be handled before the channel stops reading (SSH flow control then holds the sender). */
const MAX_PENDING_FRAMES = 8;

type Pending =
  | { readonly kind: 'message'; readonly value: unknown }
  | { readonly kind: 'fatal'; readonly error: LunaNexaError };

interface Reply {
  readonly envelope: Envelope | null;
  readonly after?: () => void;
}

/**
 * Serves the `lunanexa-agent-v1` subsystem on one SSH channel: decodes
 * frames, verifies each envelope (controller keys, clock skew, replay guard,
 * this node, controller message types only), applies assignments through the
 * store (fence + durable write) and answers with a signed envelope. Frames are
 * handled one at a time in arrival order. A framing error (malformed or
 * oversize frame) is answered with an `error` envelope and the channel is
 * closed; every other refusal leaves the channel open.
 */
export function serveProtocolChannel(
  channel: ServerChannel,
  context: SouthboundContext,
  peer: ChannelPeer,
): void {
  const decoder = new FrameDecoder();
  const pending: Pending[] = [];
  let running = false;
  let closed = false;
  const log = context.logger.child({ remoteAddress: peer.remoteAddress, controllerKeyId: peer.keyId });

  channel.on('data', (chunk: Buffer) => {
    if (closed) return;
    const { messages, error } = decoder.push(chunk);
    for (const value of messages) pending.push({ kind: 'message', value });
    if (error !== null) pending.push({ kind: 'fatal', error });
    if (pending.length >= MAX_PENDING_FRAMES) channel.pause();
    void drain();
  });
  channel.on('close', () => {
    closed = true;
    pending.length = 0;
  });
  channel.on('error', (error: unknown) => {
    log.warn({ err: error }, 'southbound channel error');
  });

  async function drain(): Promise<void> {
    if (running) return;
    running = true;
    try {
      for (let item = pending.shift(); item !== undefined && !closed; item = pending.shift()) {
        if (item.kind === 'fatal') {
          count(null, item.error.code);
          refused({ id: null, type: null, assignmentId: null, generation: null }, item.error);
          log.warn({ event: 'southbound_frame_refused', code: item.error.code }, item.error.message);
          await send(errorEnvelope(null, item.error));
          closeChannel();
          return;
        }
        const reply = await handle(item.value);
        if (reply.envelope !== null) await send(reply.envelope);
        reply.after?.();
        if (pending.length < MAX_PENDING_FRAMES / 2) channel.resume();
      }
    } catch (error: unknown) {
      // A bug on our side (e.g. a reply that does not validate): say nothing more on this channel.
      log.error({ err: error }, 'southbound channel failed; closing it');
      closeChannel();
    } finally {
      running = false;
    }
  }

  function closeChannel(): void {
    if (closed) return;
    closed = true;
    pending.length = 0;
    channel.end();
    channel.close();
  }

  async function send(envelope: Envelope): Promise<void> {
    if (closed) return;
    if (channel.write(encodeFrame(envelope))) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        channel.off('drain', done);
        channel.off('close', done);
        resolve();
      };
      channel.on('drain', done);
      channel.on('close', done);
    });
  }

  async function handle(raw: unknown): Promise<Reply> {
    const now = context.now();
    let envelope: Envelope;
    try {
      envelope = verifyEnvelope(context.controllerKeys, raw, {
        now,
        maxSkewMs: context.maxSkewMs,
        replayGuard: context.replayGuard,
        nodeId: context.nodeId,
        types: CONTROLLER_MESSAGE_TYPES,
      });
    } catch (error: unknown) {
      if (!(error instanceof LunaNexaError)) throw error;
      const ref = peekEnvelope(raw);
      const signer = claimedSignerKeyId(raw);
      if (signer !== null && !context.controllerKeys.has(signer)) context.onUntrustedSigner?.(signer);
      count(ref.type, error.code);
      refused(ref, error);
      log.warn(
        { event: 'southbound_message_refused', code: error.code, type: ref.type, messageId: ref.id },
        error.message,
      );
      // Never answer an error with an error: two peers must not be able to ping-pong.
      if (ref.type === 'error') return { envelope: null };
      if (ref.type === 'assignment.put') return { envelope: reject(ref, error, now) };
      return { envelope: errorEnvelope(ref.id, error, now) };
    }
    context.onTrustedSigner?.(envelope.signature.keyId);
    if (envelope.traceparent === undefined) return answer(envelope, now);
    // The controller's span travelled (signed) in the envelope: handling it is that span's child,
    // and the log lines written meanwhile carry its trace id.
    const span = tracer().startSpan(
      `agent ${envelope.type}`,
      { kind: SpanKind.SERVER, attributes: { 'lunanexa.message.type': envelope.type } },
      extractContext({ traceparent: envelope.traceparent }),
    );
    try {
      const reply = await otelContext.with(otelTrace.setSpan(otelContext.active(), span), () =>
        answer(envelope, now),
      );
      endSpan(span);
      return reply;
    } catch (error: unknown) {
      endSpan(span, error);
      throw error;
    }
  }

  async function answer(envelope: Envelope, now: Date): Promise<Reply> {
    switch (envelope.type) {
      case 'assignment.put':
        return applyAssignment(envelope, now);
      case 'status.get':
        count(envelope.type, 'ok');
        return {
          envelope: sign(
            'status.report',
            { inReplyTo: envelope.id, assignments: context.store.summaries() },
            now,
          ),
        };
      default: {
        // verifyEnvelope admits only controller types; this is a second line of defence.
        const error = new LunaNexaError(
          ErrorCode.VALIDATION_FAILED,
          `${envelope.type} is not accepted by the agent`,
        );
        count(envelope.type, error.code);
        refused({ id: envelope.id, type: envelope.type, assignmentId: null, generation: null }, error);
        return { envelope: errorEnvelope(envelope.id, error, now) };
      }
    }
  }

  async function applyAssignment(envelope: EnvelopeOf<'assignment.put'>, now: Date): Promise<Reply> {
    const { assignment, controllerKeys } = envelope.body;
    if (controllerKeys !== undefined && context.onControllerKeyNotice !== undefined) {
      // The envelope verified: its key ring notice counts whatever becomes of the assignment.
      try {
        await context.onControllerKeyNotice(controllerKeys, envelope.signature.keyId);
      } catch (error: unknown) {
        log.error({ err: error, messageId: envelope.id }, 'controller key notice could not be applied');
      }
    }
    const ref: EnvelopeReference = {
      id: envelope.id,
      type: envelope.type,
      assignmentId: assignment.id,
      generation: assignment.generation,
    };
    try {
      const outcome = await context.store.apply({
        assignment,
        envelopeId: envelope.id,
        signedBy: envelope.signature.keyId,
        now,
      });
      count(envelope.type, 'ok');
      log.info(
        {
          event: 'assignment_accepted',
          assignmentId: assignment.id,
          deploymentId: assignment.deploymentId,
          generation: assignment.generation,
          intent: assignment.intent,
          leaseExpiresAt: assignment.leaseExpiresAt,
          result: outcome.result,
          messageId: envelope.id,
        },
        `assignment ${assignment.id} generation ${assignment.generation}: ${outcome.result}`,
      );
      const ack = sign(
        'assignment.ack',
        {
          inReplyTo: envelope.id,
          assignmentId: assignment.id,
          generation: outcome.entry.assignment.generation,
          specDigest: outcome.entry.specDigest,
          leaseExpiresAt: outcome.entry.assignment.leaseExpiresAt,
          result: outcome.result,
        },
        now,
      );
      const { result } = outcome;
      if (result === 'already-accepted') return { envelope: ack };
      return { envelope: ack, after: () => notify({ result, accepted: outcome.entry }) };
    } catch (error: unknown) {
      if (!(error instanceof LunaNexaError)) throw error;
      count(envelope.type, error.code);
      refused(ref, error);
      const fields = {
        event: 'assignment_rejected',
        code: error.code,
        assignmentId: assignment.id,
        generation: assignment.generation,
        heldGeneration: context.store.highestGeneration(assignment.id),
        messageId: envelope.id,
      };
      if (error.code === ErrorCode.INTERNAL) log.error({ ...fields, err: error.cause }, error.message);
      else log.warn(fields, error.message);
      return { envelope: reject(ref, error, now) };
    }
  }

  function notify(event: AssignmentAcceptedEvent): void {
    const listener = context.onAssignmentAccepted;
    if (listener === undefined) return;
    const failed = (error: unknown): void => {
      log.error({ err: error, assignmentId: event.accepted.assignment.id }, 'onAssignmentAccepted failed');
    };
    try {
      Promise.resolve(listener(event)).catch(failed);
    } catch (error: unknown) {
      failed(error);
    }
  }

  function reject(ref: EnvelopeReference, error: LunaNexaError, now: Date = context.now()): Envelope {
    return sign(
      'assignment.reject',
      {
        inReplyTo: ref.id,
        assignmentId: ref.assignmentId,
        generation: ref.generation,
        code: error.code,
        message: shortText(error.message),
        highestAcceptedGeneration:
          ref.assignmentId === null ? null : context.store.highestGeneration(ref.assignmentId),
        violations: boundedViolations(error),
      },
      now,
    );
  }

  function errorEnvelope(
    inReplyTo: string | null,
    error: LunaNexaError,
    now: Date = context.now(),
  ): Envelope {
    return sign(
      'error',
      {
        inReplyTo,
        code: error.code,
        message: shortText(error.message),
        violations: boundedViolations(error),
      },
      now,
    );
  }

  function sign<T extends MessageType>(type: T, body: BodyOf<T>, now: Date): EnvelopeOf<T> {
    const key = context.nodeKey.current();
    return signEnvelope(
      key.privateKey,
      key.keyId,
      createEnvelope(type, { nodeId: context.nodeId, body, issuedAt: now }),
    );
  }

  function refused(ref: EnvelopeReference, error: LunaNexaError): void {
    const listener = context.onRefusal;
    if (listener === undefined) return;
    listener({
      at: context.now().toISOString(),
      kind: `envelope:${ref.type ?? 'unknown'}`,
      code: error.code,
      remoteAddress: peer.remoteAddress.slice(0, 64),
      keyId: peer.keyId,
      envelopeId: ref.id,
      assignmentId: ref.assignmentId,
      generation: ref.generation,
      detail: error.message.trim() === '' ? null : error.message.slice(0, 256),
    });
  }

  function count(type: MessageType | null, outcome: string): void {
    context.messages.inc({ type: type ?? INVALID_MESSAGE_TYPE_LABEL, outcome });
  }
}

function shortText(message: string): string {
  const text = message.trim() === '' ? 'refused' : message;
  return text.length > 1024 ? `${text.slice(0, 1023)}…` : text;
}

function boundedViolations(error: LunaNexaError): ProtocolViolation[] {
  return error.violations.slice(0, MAX_VIOLATIONS).map((violation) => ({
    path: violation.path.slice(0, 256),
    message: shortText(violation.message),
  }));
}
