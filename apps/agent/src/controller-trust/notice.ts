import {
  ed25519KeyId,
  isPublishedTestKey,
  MAX_TRUSTED_CONTROLLER_KEYS,
  parseEd25519PublicKey,
  type ControllerKeyNotice,
} from '@lunanexa/agent-protocol';
import type { ControllerKeySource } from '../ssh/trust';
import { MAX_RETIRED_KEY_IDS, type AnnouncedControllerKey, type ControllerTrustState } from './state';

/** A key the agent trusts now, as the decision needs to see it. */
export interface TrustedKeyView {
  readonly keyId: string;
  readonly source: ControllerKeySource;
}

/** Something in a notice the agent did not do, and why (logged at warn). */
export interface SkippedKeyChange {
  readonly keyId: string;
  readonly reason:
    | 'key-id-mismatch'
    | 'unusable-key'
    | 'published-test-key'
    | 'announced-and-retired'
    | 'too-many-keys'
    | 'signer'
    | 'last-key';
  readonly detail: string;
}

export type NoticeDecision =
  | { readonly kind: 'ignored'; readonly reason: string }
  | {
      readonly kind: 'apply';
      /** The announced key to trust from now on, or null. */
      readonly add: AnnouncedControllerKey | null;
      /** Trusted key ids to stop trusting. */
      readonly remove: readonly string[];
      readonly skipped: readonly SkippedKeyChange[];
      /** What controller-trust.json holds after the change. */
      readonly state: ControllerTrustState;
      /** False when the notice changes nothing (the same notice again): nothing is written. */
      readonly changed: boolean;
    };

/**
 * What a controller key ring notice does to the agent's trust, decided
 * without touching anything. The envelope carrying `notice` has already been
 * verified with `signerKeyId` (a key the agent trusts); a notice that names
 * another signer is ignored. Retirements apply first (so a notice that
 * retires one key and announces another fits within
 * MAX_TRUSTED_CONTROLLER_KEYS); the signer and the last trusted key are never
 * removed; an announced key is trusted only when its id is the one its public
 * key derives (`ed25519KeyId`). The same notice twice changes nothing the
 * second time.
 */
export function decideControllerKeyNotice(args: {
  readonly notice: ControllerKeyNotice;
  readonly signerKeyId: string;
  readonly trusted: readonly TrustedKeyView[];
  readonly state: ControllerTrustState;
  readonly now: Date;
}): NoticeDecision {
  const { notice, signerKeyId, state } = args;
  if (notice.signingKeyId !== signerKeyId) {
    return {
      kind: 'ignored',
      reason: `the notice names signer ${notice.signingKeyId} but the envelope is signed by ${signerKeyId}`,
    };
  }
  const trusted = new Set(args.trusted.map((key) => key.keyId));
  const skipped: SkippedKeyChange[] = [];
  const remove: string[] = [];
  const retired = [...state.retiredKeyIds];

  for (const keyId of new Set(notice.retiredKeyIds)) {
    if (!trusted.has(keyId)) continue;
    if (keyId === signerKeyId) {
      skipped.push({
        keyId,
        reason: 'signer',
        detail: 'the key that signed the notice is never retired by it',
      });
      continue;
    }
    if (trusted.size - remove.length <= 1) {
      skipped.push({ keyId, reason: 'last-key', detail: 'the last trusted controller key is never removed' });
      continue;
    }
    remove.push(keyId);
    if (!retired.includes(keyId)) retired.push(keyId);
  }

  let add: AnnouncedControllerKey | null = null;
  const next = notice.next;
  if (next !== null && !trusted.has(next.keyId)) {
    const refusal = checkAnnounced(next, notice.retiredKeyIds);
    if (refusal !== null) {
      skipped.push(refusal);
    } else if (trusted.size - remove.length >= MAX_TRUSTED_CONTROLLER_KEYS) {
      skipped.push({
        keyId: next.keyId,
        reason: 'too-many-keys',
        detail: `already trusting ${trusted.size - remove.length} controller keys (at most ${MAX_TRUSTED_CONTROLLER_KEYS})`,
      });
    } else {
      add = {
        keyId: next.keyId,
        publicKey: next.publicKey,
        rotationId: next.rotationId,
        addedAt: args.now.toISOString(),
      };
    }
  }

  const removed = new Set(remove);
  const announced = state.announced.filter((entry) => !removed.has(entry.keyId));
  if (add !== null) announced.push(add);
  const retiredKeyIds = retired.filter((keyId) => keyId !== add?.keyId).slice(-MAX_RETIRED_KEY_IDS);
  return {
    kind: 'apply',
    add,
    remove,
    skipped,
    state: { format: state.format, announced, retiredKeyIds },
    changed: add !== null || remove.length > 0,
  };
}

function checkAnnounced(
  next: NonNullable<ControllerKeyNotice['next']>,
  retiredInNotice: readonly string[],
): SkippedKeyChange | null {
  if (retiredInNotice.includes(next.keyId)) {
    return {
      keyId: next.keyId,
      reason: 'announced-and-retired',
      detail: 'the notice announces and retires the same key',
    };
  }
  let derived: string;
  try {
    const key = parseEd25519PublicKey(next.publicKey);
    if (isPublishedTestKey(key)) {
      return {
        keyId: next.keyId,
        reason: 'published-test-key',
        detail: 'the announced key is a published test key anyone can sign with',
      };
    }
    derived = ed25519KeyId(key);
  } catch (error: unknown) {
    return {
      keyId: next.keyId,
      reason: 'unusable-key',
      detail: error instanceof Error ? error.message : String(error),
    };
  }
  if (derived !== next.keyId) {
    return {
      keyId: next.keyId,
      reason: 'key-id-mismatch',
      detail: `the announced public key has key id ${derived}, not ${next.keyId}`,
    };
  }
  return null;
}
