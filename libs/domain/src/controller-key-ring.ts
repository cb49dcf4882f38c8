import { ErrorCode, LunaNexaError, type FieldViolation } from '@lunanexa/contracts';

/**
 * The controller's key ring: which Ed25519 key signs, which the agents are
 * told to trust next, which they may still accept, and which are gone. A
 * rotation moves one key through `next` → `current` and the key it replaces
 * through `current` → `previous` → `retired`:
 *
 * - announce: the new key is `next`. The current key still signs; every signed
 *   heartbeat answer and assignment names the next key, and agents add it.
 * - switch: the new key signs. The old one is `previous` until the overlap
 *   ends: agents still accept it, and a node that has not reported the new key
 *   yet is answered with the old one, so it learns the new key late rather
 *   than not at all.
 * - retire: the old key is `retired`. Notices name it, agents drop it, and from
 *   then on they accept only the new key. A node that was away the whole time
 *   trusts none of the accepted keys: it is ControllerKeyTrusted=False, told
 *   how to recover (pin the new key by its fingerprint), never re-enrolled.
 */
export const CONTROLLER_KEY_STATES = ['next', 'current', 'previous', 'retired'] as const;
export type ControllerKeyState = (typeof CONTROLLER_KEY_STATES)[number];

/** One key of the ring as the ring's records hold it (public half only: nothing here signs). */
export interface RingKeyRecord {
  /** `ed25519:` + base64url(sha256(SSH blob)): the envelope signature's key id. */
  readonly keyId: string;
  /** `SHA256:…` as `ssh-keygen -lf` prints it: what an operator compares out of band. */
  readonly sshFingerprint: string;
  /** `ssh-ed25519 AAAA…`. */
  readonly publicKey: string;
  readonly state: ControllerKeyState;
  /** The rotation that made this key `next` (null for the key the controller started with). */
  readonly rotationId: string | null;
  /** For `previous`: when the overlap ends and the key is retired. */
  readonly acceptUntil: Date | null;
}

/** What a signed heartbeat answer or assignment tells an agent about the ring (libs/agent-protocol ControllerKeyNotice). */
export interface RingNotice {
  readonly signingKeyId: string;
  readonly next: { readonly keyId: string; readonly publicKey: string; readonly rotationId: string } | null;
  readonly retiredKeyIds: string[];
}

/** Retired keys named in notices: enough for agents that come back after a few rotations, bounded like the notice. */
export const NOTICE_RETIRED_KEYS = 4;

/** Bounds of a rotation's phases, in seconds. */
export const ROTATION_LIMITS = {
  announce: { min: 1, max: 30 * 24 * 3600, default: 24 * 3600 },
  overlap: { min: 1, max: 90 * 24 * 3600, default: 7 * 24 * 3600 },
} as const;

function violation(message: string, path: string): never {
  const violations: FieldViolation[] = [{ path, message }];
  throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `${path} ${message}`, violations);
}

/** The single key in `state`, or undefined; more than one is a broken ring (the table's indexes forbid it). */
function only(ring: readonly RingKeyRecord[], state: ControllerKeyState): RingKeyRecord | undefined {
  const found = ring.filter((key) => key.state === state);
  if (found.length > 1) {
    throw new LunaNexaError(
      ErrorCode.INTERNAL,
      `the controller key ring holds ${found.length} ${state} keys`,
    );
  }
  return found[0];
}

/** The key that signs now. A ring without one is not set up (the api records its key at start). */
export function signingKey(ring: readonly RingKeyRecord[]): RingKeyRecord {
  const current = only(ring, 'current');
  if (current === undefined) {
    throw new LunaNexaError(ErrorCode.DEPENDENCY_UNAVAILABLE, 'the controller key ring has no current key');
  }
  return current;
}

/** Keys whose signatures the controller's own verifiers accept (session tokens, evidence): all but retired. */
export function acceptedKeys(ring: readonly RingKeyRecord[]): RingKeyRecord[] {
  return ring.filter((key) => key.state !== 'retired');
}

/** The phase a ring is in: which of a rotation's steps comes next. */
export function ringPhase(ring: readonly RingKeyRecord[]): 'steady' | 'announced' | 'overlap' {
  if (only(ring, 'next') !== undefined) return 'announced';
  if (only(ring, 'previous') !== undefined) return 'overlap';
  return 'steady';
}

/**
 * The key to sign with for a node that reported trusting `trustedKeyIds`
 * (undefined: an agent that does not report, so the current key). During the
 * overlap a node that trusts the previous key but not yet the current one gets
 * the previous key, whose notice names the key it must add.
 */
export function signingKeyForNode(
  ring: readonly RingKeyRecord[],
  trustedKeyIds: readonly string[] | null | undefined,
): RingKeyRecord {
  const current = signingKey(ring);
  if (trustedKeyIds === undefined || trustedKeyIds === null || trustedKeyIds.includes(current.keyId)) {
    return current;
  }
  const previous = only(ring, 'previous');
  if (previous !== undefined && trustedKeyIds.includes(previous.keyId)) return previous;
  return current;
}

/**
 * The notice an envelope signed by `signer` carries. During the overlap the
 * current key is announced as `next` in envelopes the previous key signs (the
 * laggard's answer), so a node that missed the announcement still learns it.
 */
export function ringNotice(ring: readonly RingKeyRecord[], signer: RingKeyRecord): RingNotice {
  const next = only(ring, 'next') ?? (signer.state === 'previous' ? signingKey(ring) : undefined);
  const retired = ring
    .filter((key) => key.state === 'retired')
    .slice(-NOTICE_RETIRED_KEYS)
    .map((key) => key.keyId);
  return {
    signingKeyId: signer.keyId,
    next:
      next === undefined
        ? null
        : { keyId: next.keyId, publicKey: next.publicKey, rotationId: next.rotationId ?? 'initial' },
    retiredKeyIds: retired,
  };
}

/** What the controller concludes about one node's trust from the key ids its heartbeat reported. */
export interface NodeKeyTrust {
  /** The node can verify what the controller signs for it (with the current key, or the previous during the overlap). */
  readonly trusted: boolean;
  /** The node trusts the current key (not only the previous one). */
  readonly current: boolean;
  readonly reason: 'TrustsCurrentKey' | 'TrustsPreviousKey' | 'ControllerKeyNotTrusted' | 'NotReported';
  readonly message: string;
}

/** The command that pins the current key on a node that missed a rotation (also in OPERATIONS.md). */
export function recoveryCommand(current: Pick<RingKeyRecord, 'sshFingerprint'>): string {
  return `lunanexa-agent trust-controller-key --config /etc/lunanexa/agent.yaml --fingerprint ${current.sshFingerprint}`;
}

export function nodeKeyTrust(
  ring: readonly RingKeyRecord[],
  trustedKeyIds: readonly string[] | null | undefined,
): NodeKeyTrust {
  const current = signingKey(ring);
  if (trustedKeyIds === undefined || trustedKeyIds === null) {
    return {
      trusted: true,
      current: false,
      reason: 'NotReported',
      message: 'the agent does not report which controller keys it trusts',
    };
  }
  if (trustedKeyIds.includes(current.keyId)) {
    return {
      trusted: true,
      current: true,
      reason: 'TrustsCurrentKey',
      message: `trusts ${current.sshFingerprint}`,
    };
  }
  const previous = only(ring, 'previous');
  if (previous !== undefined && trustedKeyIds.includes(previous.keyId)) {
    return {
      trusted: true,
      current: false,
      reason: 'TrustsPreviousKey',
      message:
        `trusts only the previous key ${previous.sshFingerprint}, accepted until ` +
        `${previous.acceptUntil?.toISOString() ?? 'the overlap ends'}; it is told the current key ${current.sshFingerprint}`,
    };
  }
  return {
    trusted: false,
    current: false,
    reason: 'ControllerKeyNotTrusted',
    message:
      `trusts none of the controller's accepted keys (it missed a key rotation); the controller signs with ` +
      `${current.sshFingerprint}. Check that fingerprint with an operator, then on the node run: ` +
      `${recoveryCommand(current)} and restart the agent (no re-enrollment needed)`,
  };
}

/** A rotation as an admin asks for it. */
export interface RotationRequest {
  readonly announceSeconds?: number | null;
  readonly overlapSeconds?: number | null;
  readonly reason: string;
  /**
   * Enrolled nodes whose agents cannot take the key ring notice
   * (takesControllerKeyNotice): they would never learn the next key, and be
   * cut off when the current one retires.
   */
  readonly nodesWithoutNotice?: readonly string[];
}

export interface RotationPlan {
  readonly announceSeconds: number;
  readonly overlapSeconds: number;
  readonly reason: string;
}

/**
 * Checks a rotation request against the ring: one rotation at a time (a ring
 * with a next or previous key is mid-rotation: CONFLICT), windows within
 * ROTATION_LIMITS, a reason for the audit log. Throws before anything changes.
 */
export function planRotation(ring: readonly RingKeyRecord[], request: RotationRequest): RotationPlan {
  const reason = request.reason.trim();
  if (reason.length < 3 || reason.length > 500) violation('must be 3 to 500 characters', 'reason');
  const window = (value: number | null | undefined, name: 'announce' | 'overlap'): number => {
    const limits = ROTATION_LIMITS[name];
    const seconds = value ?? limits.default;
    if (!Number.isInteger(seconds) || seconds < limits.min || seconds > limits.max) {
      violation(`must be a whole number of seconds from ${limits.min} to ${limits.max}`, `${name}Seconds`);
    }
    return seconds;
  };
  const plan = {
    announceSeconds: window(request.announceSeconds, 'announce'),
    overlapSeconds: window(request.overlapSeconds, 'overlap'),
    reason,
  };
  signingKey(ring);
  const outdated = request.nodesWithoutNotice ?? [];
  if (outdated.length > 0) {
    const named =
      outdated.slice(0, 10).join(', ') + (outdated.length > 10 ? `, and ${outdated.length - 10} more` : '');
    throw new LunaNexaError(
      ErrorCode.CONFLICT,
      `${outdated.length} enrolled node(s) run an agent too old to follow a controller key rotation (${named}): ` +
        `upgrade their agents first (docs/UPGRADING.md), or they are cut off when the current key retires`,
    );
  }
  const phase = ringPhase(ring);
  if (phase !== 'steady') {
    throw new LunaNexaError(
      ErrorCode.CONFLICT,
      phase === 'announced'
        ? 'a controller key rotation is in progress: a next key is announced'
        : 'a controller key rotation is in progress: the previous key is still accepted until the overlap ends',
    );
  }
  return plan;
}

/**
 * Nodes whose last heartbeat showed they trust the previous key but not the
 * current one: retiring the previous key now cuts them off until they pin the
 * current key (the retirement's audit names them).
 */
export function nodesTrustingOnlyPreviousKey<
  T extends { readonly conditions: readonly { readonly type: string; readonly reason: string }[] },
>(nodes: readonly T[]): T[] {
  return nodes.filter((node) =>
    node.conditions.some(
      (condition) => condition.type === 'ControllerKeyTrusted' && condition.reason === 'TrustsPreviousKey',
    ),
  );
}
