import { createHash, type KeyObject } from 'node:crypto';
import {
  KeyIdSchema,
  MAX_TRUSTED_CONTROLLER_KEYS,
  parseEd25519PublicKey,
  type ControllerKeyNotice,
} from '@lunanexa/agent-protocol';
import type { Logger } from '@lunanexa/observability';
import { ControllerTrust, type AuthorizedControllerKey } from '../ssh/trust';
import { decideControllerKeyNotice, type NoticeDecision } from './notice';
import { loadControllerTrustState, saveControllerTrustState, type ControllerTrustState } from './state';

/** Where a controller signature the agent could not place came from. */
export type UntrustedSignerSource = 'heartbeat.ack' | 'envelope' | 'ssh-publickey';

/** `controllerTrust` in /health. */
export type ControllerTrustHealth =
  | {
      readonly state: 'ok';
      readonly trustedKeyIds: readonly string[];
      readonly trustedFingerprints: readonly string[];
    }
  | {
      /** The controller signs with a key this agent does not trust: it probably missed a rotation. */
      readonly state: 'untrusted-signer';
      readonly signerKeyId: string;
      /** `SHA256:…` of the signer when its key id is an `ed25519:` id (or the SSH key was offered); else null. */
      readonly signerFingerprint: string | null;
      readonly via: UntrustedSignerSource;
      readonly trustedKeyIds: readonly string[];
      readonly trustedFingerprints: readonly string[];
      readonly since: string;
      readonly recovery: string;
    };

/** Recovery text names this when the agent was not told its config file. */
const CONFIG_PLACEHOLDER = '<agent.yaml>';
/** At most this many distinct untrusted signers are remembered as already logged. */
const MAX_LOGGED_SIGNERS = 64;
const ED25519_KEY_ID = /^ed25519:([A-Za-z0-9_-]{43})$/;

/**
 * The SSH fingerprint an operator compares for a controller key id: an
 * `ed25519:` id is base64url(sha256(ssh blob)) and the fingerprint is
 * `SHA256:` + base64(same hash), unpadded. Null for ids of another form
 * (configured keys may carry any id).
 */
export function fingerprintOfKeyId(keyId: string): string | null {
  const match = ED25519_KEY_ID.exec(keyId);
  if (match === null) return null;
  const hash = Buffer.from(match[1] ?? '', 'base64url');
  if (hash.length !== 32) return null;
  return `SHA256:${hash.toString('base64').replace(/=+$/, '')}`;
}

/** The `ed25519:` key id of an offered SSH public key blob (same hash as its fingerprint). */
export function keyIdOfBlob(blob: Buffer): string {
  return `ed25519:${createHash('sha256').update(blob).digest('base64url')}`;
}

/** What an operator does for a node that missed a controller key rotation. */
export function controllerTrustRecovery(args: {
  readonly signerKeyId: string;
  readonly signerFingerprint: string | null;
  readonly configFile?: string;
}): string {
  const fingerprint = args.signerFingerprint ?? '<SHA256 fingerprint of the current controller key>';
  return (
    `the controller signs with key ${args.signerKeyId} (${fingerprint}), which this agent does not trust: ` +
    'it probably missed a controller key rotation. Verify the fingerprint with the operator ' +
    '(`lunanexa controller-keys list`), then run ' +
    `\`lunanexa-agent trust-controller-key --config ${args.configFile ?? CONFIG_PLACEHOLDER} --fingerprint ${fingerprint}\` ` +
    'and restart the agent; re-enrolling is not needed.'
  );
}

interface UntrustedSigner {
  readonly keyId: string;
  readonly fingerprint: string | null;
  readonly via: UntrustedSignerSource;
  readonly since: Date;
}

export interface ControllerKeyTrustStoreOptions {
  readonly dataDir: string;
  /** `ssh.authorizedControllerKeys` of the config file. */
  readonly configured: readonly AuthorizedControllerKey[];
  readonly logger: Logger;
  readonly now?: () => Date;
  /** Named in the recovery text (`--config <file>`). */
  readonly configFile?: string;
}

/**
 * The agent's controller trust as it changes at run time: ControllerTrust
 * (what the SSH server, the protocol channel and the heartbeat client read)
 * plus `<dataDir>/controller-trust.json`, which keeps announced keys and
 * retired key ids across restarts. Applies key ring notices from verified
 * envelopes (heartbeat.ack, assignment.put) one at a time, and records a
 * controller signature by a key it does not trust as a problem /health shows
 * with the recovery steps.
 */
export class ControllerKeyTrustStore {
  readonly trust: ControllerTrust;
  private state: ControllerTrustState;
  private queue: Promise<unknown> = Promise.resolve();
  private problem: UntrustedSigner | null = null;
  private readonly loggedSigners = new Set<string>();
  private readonly warned = new Set<string>();
  private readonly log: Logger;
  private readonly now: () => Date;

  private constructor(
    private readonly options: ControllerKeyTrustStoreOptions,
    state: ControllerTrustState,
  ) {
    this.trust = new ControllerTrust();
    this.state = state;
    this.log = options.logger.child({ component: 'controller-trust' });
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Config keys, then the persisted announced keys, minus retired key ids (a
   * configured key that was retired is skipped with a warning naming it) —
   * unless that would leave nothing to trust, in which case the retired ones
   * stay (a node with no controller key can never be reached again).
   */
  static async open(options: ControllerKeyTrustStoreOptions): Promise<ControllerKeyTrustStore> {
    const store = new ControllerKeyTrustStore(options, await loadControllerTrustState(options.dataDir));
    const announced = store.state.announced.map((entry) => ({
      keyId: entry.keyId,
      publicKey: parseEd25519PublicKey(entry.publicKey),
      source: 'announced' as const,
    }));
    const configured = options.configured.map((key) => ({ ...key, source: 'config' as const }));
    store.addAll([...configured, ...announced]);
    if (store.trust.size > MAX_TRUSTED_CONTROLLER_KEYS) {
      store.log.warn(
        { event: 'controller_keys_too_many', trustedKeyIds: store.trust.keyIds() },
        `${store.trust.size} controller keys are trusted; heartbeats report controllerKeyIds only for at most ` +
          `${MAX_TRUSTED_CONTROLLER_KEYS} and rotations announce no more: trim ssh.authorizedControllerKeys`,
      );
    }
    return store;
  }

  private addAll(
    candidates: readonly (AuthorizedControllerKey & {
      readonly source: 'config' | 'enrollment' | 'announced';
    })[],
  ): void {
    const retired = new Set(this.state.retiredKeyIds);
    const kept = candidates.filter((key) => !retired.has(key.keyId));
    const keepRetired = kept.length === 0 && this.trust.size === 0 && candidates.length > 0;
    for (const key of candidates) {
      if (retired.has(key.keyId) && !keepRetired) {
        this.log.warn(
          { event: 'controller_key_retired_skipped', keyId: key.keyId, source: key.source },
          `controller key ${key.keyId} (${key.source}) was retired by a controller key rotation; not trusting it` +
            (key.source === 'config' ? ' (remove it from ssh.authorizedControllerKeys)' : ''),
        );
        continue;
      }
      try {
        this.trust.add(key, key.source);
      } catch (error: unknown) {
        this.log.warn(
          { event: 'controller_key_conflict', keyId: key.keyId, source: key.source },
          error instanceof Error ? error.message : String(error),
        );
      }
    }
    if (keepRetired) {
      this.log.warn(
        { event: 'controller_key_retired_kept', keyIds: this.trust.keyIds() },
        'every controller key this agent knows was retired; keeping them rather than trusting none',
      );
    }
  }

  /** The key pinned at enrollment (at start, or right after enrolling), unless a rotation retired it. */
  trustEnrolled(key: AuthorizedControllerKey): void {
    this.addAll([{ ...key, source: 'enrollment' }]);
  }

  /** The retired key ids persisted, oldest first. */
  retiredKeyIds(): readonly string[] {
    return this.state.retiredKeyIds;
  }

  /**
   * Applies a key ring notice from an envelope already verified with
   * `signerKeyId`. Changes are persisted before they take effect; a notice
   * that changes nothing writes nothing. Never throws: a failed write is
   * logged and the trust stays as it was (the next notice tries again).
   */
  applyNotice(
    notice: ControllerKeyNotice,
    signerKeyId: string,
    via: 'heartbeat.ack' | 'assignment.put',
  ): Promise<NoticeDecision> {
    const run = this.queue.then(() => this.applyNow(notice, signerKeyId, via));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async applyNow(
    notice: ControllerKeyNotice,
    signerKeyId: string,
    via: 'heartbeat.ack' | 'assignment.put',
  ): Promise<NoticeDecision> {
    const decision = decideControllerKeyNotice({
      notice,
      signerKeyId,
      trusted: this.trust.list(),
      state: this.state,
      now: this.now(),
    });
    if (decision.kind === 'ignored') {
      this.warnOnce(
        `ignored:${notice.signingKeyId}:${signerKeyId}`,
        { event: 'controller_key_notice_ignored', via, signerKeyId, signingKeyId: notice.signingKeyId },
        `controller key notice ignored: ${decision.reason}`,
      );
      return decision;
    }
    for (const skipped of decision.skipped) {
      this.warnOnce(
        `skipped:${skipped.keyId}:${skipped.reason}`,
        {
          event: 'controller_key_change_skipped',
          via,
          keyId: skipped.keyId,
          reason: skipped.reason,
          rotationId: notice.next?.rotationId ?? null,
        },
        `controller key notice: ${skipped.keyId} not changed (${skipped.reason}): ${skipped.detail}`,
      );
    }
    if (!decision.changed) return decision;
    try {
      await saveControllerTrustState(this.options.dataDir, decision.state);
    } catch (error: unknown) {
      this.log.error(
        { event: 'controller_trust_write_failed', err: error },
        'controller trust state could not be written; the key ring notice is not applied',
      );
      return decision;
    }
    this.state = decision.state;
    for (const keyId of decision.remove) {
      const held = this.trust.get(keyId);
      this.trust.remove(keyId);
      this.log.info(
        {
          event: 'controller_key_retired',
          via,
          keyId,
          fingerprint: held?.fingerprint ?? null,
          source: held?.source ?? null,
          trustedKeyIds: this.trust.keyIds(),
        },
        `controller key ${keyId} retired by the controller: no longer trusted`,
      );
    }
    if (decision.add !== null) {
      const publicKey: KeyObject = parseEd25519PublicKey(decision.add.publicKey);
      this.trust.add({ keyId: decision.add.keyId, publicKey }, 'announced');
      this.log.info(
        {
          event: 'controller_key_announced',
          via,
          keyId: decision.add.keyId,
          fingerprint: this.trust.get(decision.add.keyId)?.fingerprint ?? null,
          rotationId: decision.add.rotationId,
          trustedKeyIds: this.trust.keyIds(),
        },
        `controller key ${decision.add.keyId} (${this.trust.get(decision.add.keyId)?.fingerprint ?? ''}) announced by the controller: trusted from now on`,
      );
    }
    return decision;
  }

  /**
   * A controller message (ack, envelope) or SSH authentication came with a
   * key id this agent does not trust. /health shows it with the recovery
   * steps until a trusted controller signature arrives; the error line with
   * the same steps is logged once per signer.
   */
  untrustedSigner(args: {
    readonly keyId: string;
    readonly fingerprint?: string | null;
    readonly via: UntrustedSignerSource;
  }): void {
    if (this.trust.has(args.keyId)) return;
    const fingerprint = args.fingerprint ?? fingerprintOfKeyId(args.keyId);
    if (this.problem?.keyId !== args.keyId) {
      this.problem = { keyId: args.keyId, fingerprint, via: args.via, since: this.now() };
    }
    if (this.loggedSigners.has(args.keyId)) return;
    if (this.loggedSigners.size < MAX_LOGGED_SIGNERS) this.loggedSigners.add(args.keyId);
    const recovery = this.recovery(args.keyId, fingerprint);
    this.log.error(
      {
        event: 'controller_key_untrusted',
        via: args.via,
        signerKeyId: args.keyId,
        signerFingerprint: fingerprint,
        trustedKeyIds: this.trust.keyIds(),
        trustedFingerprints: this.trust.list().map((key) => key.fingerprint),
        recovery,
      },
      recovery,
    );
  }

  /** A controller signature verified with a trusted key: the controller and this node agree again. */
  trustedSigner(keyId: string): void {
    if (this.problem === null || !this.trust.has(keyId)) return;
    this.log.info(
      { event: 'controller_key_trusted_again', keyId, previousSignerKeyId: this.problem.keyId },
      'controller messages are signed with a trusted key again',
    );
    this.problem = null;
  }

  health(): ControllerTrustHealth {
    const trusted = this.trust.list();
    const trustedKeyIds = trusted.map((key) => key.keyId);
    const trustedFingerprints = trusted.map((key) => key.fingerprint);
    const problem = this.problem;
    if (problem === null) return { state: 'ok', trustedKeyIds, trustedFingerprints };
    return {
      state: 'untrusted-signer',
      signerKeyId: problem.keyId,
      signerFingerprint: problem.fingerprint,
      via: problem.via,
      trustedKeyIds,
      trustedFingerprints,
      since: problem.since.toISOString(),
      recovery: this.recovery(problem.keyId, problem.fingerprint),
    };
  }

  private recovery(keyId: string, fingerprint: string | null): string {
    return controllerTrustRecovery({
      signerKeyId: keyId,
      signerFingerprint: fingerprint,
      ...(this.options.configFile === undefined ? {} : { configFile: this.options.configFile }),
    });
  }

  private warnOnce(key: string, fields: Record<string, unknown>, message: string): void {
    if (this.warned.has(key)) return;
    if (this.warned.size < MAX_LOGGED_SIGNERS * 4) this.warned.add(key);
    this.log.warn(fields, message);
  }
}

/**
 * The key id a controller message claims to be signed with, read before
 * anything about it is trusted (to tell "signed by a key this node does not
 * trust" from other refusals); null when there is none of the right shape.
 */
export function claimedSignerKeyId(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const signature = (raw as { signature?: unknown }).signature;
  if (typeof signature !== 'object' || signature === null) return null;
  const keyId = (signature as { keyId?: unknown }).keyId;
  return typeof keyId === 'string' && KeyIdSchema.safeParse(keyId).success ? keyId : null;
}
