import { sign } from 'node:crypto';
import {
  AGENT_HTTP_PATHS,
  createEnvelope,
  inventoryDigest,
  MAC_ALGORITHM,
  macEnvelope,
  MAX_TRUSTED_CONTROLLER_KEYS,
  openSshPublicKey,
  rotationProofInput,
  randomNonce,
  signEnvelope,
  verifyEnvelope,
  verifyNodeCredential,
  type EnvelopeOf,
  type NextNodeKey,
  type NodeEndpoint,
  type OrphanReport,
} from '@lunanexa/agent-protocol';
import {
  ErrorCode,
  LunaNexaError,
  type GpuTelemetry,
  type NodeInventory,
  type NodeLifecycleState,
  type ObservedAssignment,
  type RuntimeObservation,
} from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import { controllerEndpoint, postEnvelope, problemOf } from '../controller-http';
import type { NodeKeyRing } from '../ssh/keys';
import { claimedSignerKeyId, type ControllerKeyTrustStore } from '../controller-trust/store';
import type { ControllerTrust } from '../ssh/trust';
import type { CredentialStore } from './credential';
import type { RefusalQueue } from './refusal-queue';
import { HeartbeatMacState, type HeartbeatMac } from './mac';
import type { HeartbeatSequence } from './sequence';

/** What the reconciler contributes to one heartbeat. */
export interface HeartbeatObservations {
  readonly observedAssignments: readonly ObservedAssignment[];
  readonly runtimes: readonly RuntimeObservation[];
  /** Orphan sweeps that acted on something, not yet acknowledged (the controller audits each). */
  readonly orphanReports?: readonly OrphanReport[];
  /** Called once the controller acknowledged this heartbeat: one-off reports (exited runtimes) can go. */
  acknowledge(): void;
}

export interface HeartbeatOptions {
  readonly controllerUrl: string;
  /** The enrolled node id (the node name when the agent runs with static controller keys only). */
  readonly nodeId: string;
  readonly intervalSeconds: number;
  readonly trust: ControllerTrust;
  /**
   * Applies the controller key ring notices acks carry and records acks
   * signed by a key the agent does not trust; without it notices are ignored.
   * Its `trust` should be `trust`.
   */
  readonly controllerKeys?: ControllerKeyTrustStore;
  readonly nodeKeys: NodeKeyRing;
  readonly sequence: HeartbeatSequence;
  readonly refusals: RefusalQueue;
  readonly credentials: CredentialStore;
  readonly observe: () => HeartbeatObservations;
  readonly inventory: () => NodeInventory;
  /**
   * GPU figures for this heartbeat (TelemetrySampler): must settle quickly
   * whatever the driver does, since the lease renewal waits for it. Without
   * it heartbeats carry no telemetry.
   */
  readonly gpuTelemetry?: () => Promise<readonly GpuTelemetry[]>;
  /** Where the controller reaches this agent now (advertised address, SSH port); sent with every heartbeat. */
  readonly endpoint?: () => NodeEndpoint;
  readonly logger: Logger;
  readonly now?: () => Date;
  /** One request may take this long (default 10 s). */
  readonly requestTimeoutMs?: number;
  /** Told the outcome of every heartbeat (metrics). */
  readonly onResult?: (result: HeartbeatResult) => void;
  /**
   * MAC heartbeats once the controller has acked a signed one (HeartbeatMacState); default true.
   * False signs every heartbeat, as agents before heartbeat MACs did.
   */
  readonly macHeartbeats?: boolean;
}

/**
 * How the last heartbeat went: `ok` (acknowledged), `refused` (a problem
 * answer), `unreachable` (no answer), `untrusted-answer` (a 2xx that is not a
 * valid ack signed by a trusted controller key for this heartbeat).
 */
export type HeartbeatOutcome = 'ok' | 'refused' | 'unreachable' | 'untrusted-answer';

export interface HeartbeatResult {
  readonly outcome: HeartbeatOutcome;
  readonly sequence: number;
  readonly status: number | null;
  readonly code: ErrorCode | null;
  readonly message: string | null;
  readonly ack: EnvelopeOf<'heartbeat.ack'> | null;
  /** How the heartbeat carried the node's inventory: in full, or as the digest of the one the controller holds. */
  readonly inventoryAs?: 'inventory' | 'digest';
}

export interface HeartbeatHealth {
  readonly controllerUrl: string;
  readonly intervalSeconds: number;
  /** The last sequence sent (heartbeat-state.json holds a number at least this high). */
  readonly sequence: number;
  readonly lastAttemptAt: string | null;
  readonly lastOutcome: HeartbeatOutcome | null;
  readonly lastCode: ErrorCode | null;
  readonly lastMessage: string | null;
  readonly lastAckAt: string | null;
  readonly lastAckAgeSeconds: number | null;
  /** From the last ack: the node's administrative state and lease as the controller sees them. */
  readonly lifecycle: NodeLifecycleState | null;
  readonly cordoned: boolean | null;
  readonly leaseExpiresAt: string | null;
  /** Refusals waiting for the controller to record them. */
  readonly pendingRefusals: number;
  /** Key id of the key being rotated to, while a rotation is under way. */
  readonly nextKeyId: string | null;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Changes arriving this close together go in one heartbeat (both replicas of a deployment turning Ready). */
const CHANGE_COALESCE_MS = 10;
/** A change-driven heartbeat never follows the previous one sooner than this, so a flapping runtime is no flood. */
const CHANGE_MIN_GAP_MS = 50;

/**
 * Signed heartbeats to `<controllerUrl>/agent/v1/heartbeat`, one every
 * interval (the first at start), never two at once. A heartbeat that gets no
 * ack changes nothing on the node: runtimes keep running for as long as their
 * assignment leases last, whatever the controller says, and the next
 * heartbeat is sent at the next interval.
 *
 * Key rotation rides on heartbeats: an ack with `rotateKey` makes the agent
 * generate the next key, which every following heartbeat offers as `nextKey`
 * (with a proof signed by it) while still being signed by the current key;
 * the first ack of such a heartbeat means the controller registered it, and
 * the agent switches to it — for heartbeats and for SSH replies alike.
 */
export class HeartbeatLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private lastAttemptAt: Date | null = null;
  private lastAckAt: Date | null = null;
  private last: HeartbeatResult | null = null;
  private lastAckBody: EnvelopeOf<'heartbeat.ack'>['body'] | null = null;
  private readonly log: Logger;
  private readonly now: () => Date;
  private readonly url: string;
  private changeTimer: NodeJS.Timeout | undefined;
  /** A change-driven heartbeat is queued and has not read the observations yet: later changes ride on it. */
  private changeQueued = false;
  private lastBeganAt = -Infinity;
  private readonly mac: HeartbeatMacState | null;
  /**
   * The digest of the inventory the controller said in the last ack it holds for this node; null after any
   * heartbeat without an ack, or from a controller that does not say. While the inventory still has this
   * digest, heartbeats send the digest instead of the inventory.
   */
  private inventoryHeld: string | null = null;
  /** The last inventory object sent and its digest (the inventory is replaced, not changed, at each refresh). */
  private inventoryDigested: { readonly inventory: NodeInventory; readonly digest: string } | null = null;

  constructor(private readonly options: HeartbeatOptions) {
    this.log = options.logger.child({ component: 'heartbeat' });
    this.now = options.now ?? (() => new Date());
    this.mac =
      options.macHeartbeats === false
        ? null
        : new HeartbeatMacState(options.nodeId, options.nodeKeys, options.trust, () => this.now().getTime());
    this.url = controllerEndpoint(options.controllerUrl, AGENT_HTTP_PATHS.heartbeat);
  }

  /** Sends the first heartbeat now and the next ones every interval. */
  start(): void {
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      const startedAt = Date.now();
      this.running = this.beat()
        .catch((error: unknown) => {
          this.log.error({ err: error }, 'heartbeat failed');
        })
        .finally(() => {
          this.running = null;
          const elapsed = Date.now() - startedAt;
          this.schedule(Math.max(0, this.options.intervalSeconds * 1000 - elapsed));
        });
    }, delayMs);
    this.timer.unref();
  }

  /**
   * Something the controller waits for changed (a replica turned Ready, say): report it in a heartbeat now
   * rather than at the next interval, which keeps running as before.
   */
  reportChange(): void {
    if (this.closed || this.changeTimer !== undefined || this.changeQueued) return;
    const delayMs = Math.max(CHANGE_COALESCE_MS, this.lastBeganAt + CHANGE_MIN_GAP_MS - performance.now());
    this.changeTimer = setTimeout(() => {
      this.changeTimer = undefined;
      this.changeQueued = true;
      void this.beat().catch((error: unknown) => {
        this.log.error({ err: error }, 'heartbeat failed');
      });
    }, delayMs);
    this.changeTimer.unref();
  }

  /** Stops the timer and waits for a heartbeat in flight. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.changeTimer !== undefined) clearTimeout(this.changeTimer);
    await this.running;
    // A change-driven heartbeat may still be on its way.
    await this.queue;
  }

  /**
   * One heartbeat, start to finish, after any heartbeat still in flight (never
   * two at once: the sequence, the refusal queue and a rotation depend on
   * acks arriving in order). Throws only for local failures (the sequence
   * could not be persisted).
   */
  beat(): Promise<HeartbeatResult> {
    const run = this.queue.then(() => this.beatNow());
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async beatNow(): Promise<HeartbeatResult> {
    const { options } = this;
    this.changeQueued = false;
    this.lastBeganAt = performance.now();
    // A telemetry bug must never cost the lease: no figures rather than no heartbeat.
    const gpuTelemetry =
      options.gpuTelemetry === undefined ? [] : [...(await options.gpuTelemetry().catch(() => []))];
    const sequence = await options.sequence.next();
    const issuedAt = this.now();
    this.lastAttemptAt = issuedAt;
    const nonce = randomNonce();
    const observations = options.observe();
    const refusals = options.refusals.batch();
    const current = options.nodeKeys.current();
    const next = options.nodeKeys.next();
    const nextKey: NextNodeKey | null =
      next === null
        ? null
        : {
            keyId: next.keyId,
            publicKey: openSshPublicKey(next.publicKey),
            proof: sign(
              null,
              rotationProofInput(options.nodeId, current.keyId, next.keyId),
              next.privateKey,
            ).toString('base64url'),
          };
    const mac = nextKey === null ? (this.mac?.forHeartbeat() ?? null) : null;
    const inventory = this.inventoryOrDigest(options.inventory());
    const inventoryAs = 'inventory' in inventory ? 'inventory' : 'digest';
    const unsigned = createEnvelope('heartbeat', {
      nodeId: options.nodeId,
      issuedAt,
      nonce,
      body: {
        heartbeat: {
          nodeId: options.nodeId,
          sequence,
          sentAt: issuedAt.toISOString(),
          nonce,
          observedAssignments: [...observations.observedAssignments],
          runtimes: [...observations.runtimes],
          gpuTelemetry,
          ...inventory,
        },
        refusals,
        nextKey,
        credentialSerial: options.credentials.current()?.document.serial ?? null,
        ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint() }),
        ...((observations.orphanReports ?? []).length === 0
          ? {}
          : { orphanReports: [...(observations.orphanReports ?? [])] }),
        // What the controller needs to tell whether this node can still verify what it signs.
        // (More keys than the protocol carries — a config listing over MAX_TRUSTED_CONTROLLER_KEYS — are not reported.)
        ...(options.trust.size === 0 || options.trust.size > MAX_TRUSTED_CONTROLLER_KEYS
          ? {}
          : { controllerKeyIds: options.trust.keyIds() }),
      },
    });
    const envelope =
      mac === null
        ? signEnvelope(current.privateKey, current.keyId, unsigned)
        : macEnvelope(mac.keys.agentToController, mac.keyId, unsigned);
    const timeoutMs = Math.max(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, 1000);
    const answer = await postEnvelope(this.url, envelope, { timeoutMs });
    let result: HeartbeatResult;
    if (answer.kind === 'unreachable') {
      result = this.failed('unreachable', sequence, null, null, answer.reason);
    } else if (answer.status < 200 || answer.status >= 300) {
      const problem = problemOf(answer.body);
      if (
        mac !== null &&
        (problem.code === ErrorCode.SIGNATURE_INVALID || problem.code === ErrorCode.VALIDATION_FAILED)
      ) {
        this.mac?.refused();
        this.log.warn(
          { event: 'heartbeat_mac_refused', code: problem.code, controllerKeyId: mac.keyId },
          'the controller refused a MAC-authenticated heartbeat; signing heartbeats for a while',
        );
      }
      result = this.failed('refused', sequence, answer.status, problem.code, problem.detail);
    } else {
      let ack: EnvelopeOf<'heartbeat.ack'>;
      try {
        ack = this.verifyAck(answer.body, envelope, mac);
      } catch (error: unknown) {
        if (!(error instanceof LunaNexaError)) throw error;
        const signer = claimedSignerKeyId(answer.body);
        if (signer !== null && !options.trust.has(signer)) {
          // Most likely a rotation this node missed: say how to recover. Heartbeats go on regardless
          // (the controller records liveness and sees from controllerKeyIds what this node trusts).
          options.controllerKeys?.untrustedSigner({ keyId: signer, via: 'heartbeat.ack' });
        }
        result = {
          ...this.failed('untrusted-answer', sequence, answer.status, error.code, error.message),
          inventoryAs,
        };
        this.record(result);
        return result;
      }
      // A signed ack names the controller key to agree MAC keys with (after a switch, the new one).
      if (ack.signature.alg !== MAC_ALGORITHM) this.mac?.signedAck(ack.signature.keyId, current.keyId);
      await this.applyAck(ack, { refusalsSent: refusals.length, nextKey, observations });
      result = { outcome: 'ok', sequence, status: answer.status, code: null, message: null, ack };
    }
    result = { ...result, inventoryAs };
    this.record(result);
    return result;
  }

  /** The inventory, or its digest when the controller's last ack said it holds exactly this inventory. */
  private inventoryOrDigest(
    inventory: NodeInventory,
  ): { readonly inventory: NodeInventory } | { readonly inventoryDigest: string } {
    if (this.inventoryDigested?.inventory !== inventory) {
      this.inventoryDigested = { inventory, digest: inventoryDigest(inventory) };
    }
    const { digest } = this.inventoryDigested;
    return digest === this.inventoryHeld ? { inventoryDigest: digest } : { inventory };
  }

  private verifyAck(
    raw: unknown,
    request: EnvelopeOf<'heartbeat'>,
    mac: HeartbeatMac | null,
  ): EnvelopeOf<'heartbeat.ack'> {
    const envelope = verifyEnvelope(this.options.trust.publicKeys, raw, {
      now: this.now(),
      nodeId: this.options.nodeId,
      types: ['heartbeat.ack'],
      // A MAC'd heartbeat may be answered by a MAC with the same keys, or signed.
      macKey: (keyId) => (mac !== null && keyId === mac.keyId ? mac.keys.controllerToAgent : undefined),
    });
    if (envelope.type !== 'heartbeat.ack') {
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `expected heartbeat.ack, got ${envelope.type}`);
    }
    if (envelope.body.inReplyTo !== request.id) {
      throw new LunaNexaError(
        ErrorCode.VALIDATION_FAILED,
        `the ack answers ${envelope.body.inReplyTo}, not ${request.id}`,
      );
    }
    if (envelope.body.sequence !== request.body.heartbeat.sequence) {
      throw new LunaNexaError(
        ErrorCode.VALIDATION_FAILED,
        `the ack is for sequence ${envelope.body.sequence}, not ${request.body.heartbeat.sequence}`,
      );
    }
    return envelope;
  }

  private async applyAck(
    ack: EnvelopeOf<'heartbeat.ack'>,
    sent: {
      readonly refusalsSent: number;
      readonly nextKey: NextNodeKey | null;
      readonly observations: HeartbeatObservations;
    },
  ): Promise<void> {
    const { options } = this;
    const { body } = ack;
    this.lastAckAt = this.now();
    this.lastAckBody = body;
    options.refusals.acknowledge(body.refusalsRecorded, sent.refusalsSent);
    sent.observations.acknowledge();
    options.controllerKeys?.trustedSigner(ack.signature.keyId);
    // Before the credential: it may be signed by a key this notice announces.
    if (body.controllerKeys !== undefined) {
      await options.controllerKeys?.applyNotice(body.controllerKeys, ack.signature.keyId, 'heartbeat.ack');
    }

    let promoted = false;
    if (sent.nextKey !== null && options.nodeKeys.next()?.keyId === sent.nextKey.keyId) {
      const previous = options.nodeKeys.current().keyId;
      const key = await options.nodeKeys.promote();
      promoted = true;
      this.log.info(
        { event: 'node_key_rotated', previousKeyId: previous, keyId: key.keyId },
        'the controller registered the next node key; signing with it from now on',
      );
    }

    if (body.credential !== null) await this.acceptCredential(body.credential);

    // The ack that completes a rotation does not start the next one.
    if (body.rotateKey && !promoted && options.nodeKeys.next() === null) {
      const next = await options.nodeKeys.prepareNext();
      this.log.info(
        { event: 'node_key_rotation_started', nextKeyId: next.keyId },
        'the controller asked for a new node key; offering it in the next heartbeats',
      );
    }
  }

  private async acceptCredential(credential: unknown): Promise<void> {
    const { options } = this;
    try {
      const verified = verifyNodeCredential(options.trust.publicKeys, credential, this.now());
      const { document } = verified;
      if (document.nodeId !== options.nodeId) {
        throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `the credential is for node ${document.nodeId}`);
      }
      if (document.keyId !== options.nodeKeys.current().keyId) {
        throw new LunaNexaError(
          ErrorCode.VALIDATION_FAILED,
          `the credential binds key ${document.keyId}, not this node's key`,
        );
      }
      const held = options.credentials.current();
      if (held !== null && held.document.serial >= document.serial) return;
      await options.credentials.replace(verified);
      this.log.info(
        { event: 'credential_stored', serial: document.serial, expiresAt: document.expiresAt },
        `node credential ${document.serial} stored`,
      );
    } catch (error: unknown) {
      if (!(error instanceof LunaNexaError)) throw error;
      this.log.warn(
        { event: 'credential_refused', code: error.code },
        `credential from the controller not stored: ${error.message}`,
      );
    }
  }

  private failed(
    outcome: Exclude<HeartbeatOutcome, 'ok'>,
    sequence: number,
    status: number | null,
    code: ErrorCode | null,
    message: string | null,
  ): HeartbeatResult {
    return { outcome, sequence, status, code, message, ack: null };
  }

  /** Logs a change of outcome at warn/info; a repeat of the same failure only at debug, so an outage is not a log flood. */
  private record(result: HeartbeatResult): void {
    // Unacknowledged, the controller may not have recorded the inventory: the next heartbeat sends it.
    this.inventoryHeld = result.ack?.body.inventoryDigest ?? null;
    this.options.onResult?.(result);
    const previous = this.last;
    this.last = result;
    const fields = {
      event: 'heartbeat',
      sequence: result.sequence,
      outcome: result.outcome,
      status: result.status,
      code: result.code,
      reason: result.message,
    };
    const same = previous !== null && previous.outcome === result.outcome && previous.code === result.code;
    if (result.outcome === 'ok') {
      if (previous !== null && previous.outcome !== 'ok')
        this.log.info(fields, 'heartbeats acknowledged again');
      else this.log.debug(fields, 'heartbeat acknowledged');
    } else if (same) {
      this.log.debug(fields, 'heartbeat not acknowledged');
    } else {
      this.log.warn(fields, `heartbeat not acknowledged (${result.outcome}); runtimes keep running`);
    }
  }

  health(): HeartbeatHealth {
    const now = this.now();
    const ack = this.lastAckBody;
    return {
      controllerUrl: this.options.controllerUrl,
      intervalSeconds: this.options.intervalSeconds,
      sequence: this.options.sequence.lastSequence,
      lastAttemptAt: this.lastAttemptAt?.toISOString() ?? null,
      lastOutcome: this.last?.outcome ?? null,
      lastCode: this.last?.code ?? null,
      lastMessage: this.last?.message ?? null,
      lastAckAt: this.lastAckAt?.toISOString() ?? null,
      lastAckAgeSeconds:
        this.lastAckAt === null ? null : Math.max(0, (now.getTime() - this.lastAckAt.getTime()) / 1000),
      lifecycle: ack?.lifecycle ?? null,
      cordoned: ack?.cordoned ?? null,
      leaseExpiresAt: ack?.leaseExpiresAt ?? null,
      pendingRefusals: this.options.refusals.size,
      nextKeyId: this.options.nodeKeys.next()?.keyId ?? null,
    };
  }
}
