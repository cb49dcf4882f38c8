import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  hkdfSync,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';

/**
 * Heartbeat MAC keys: a symmetric key pair that a node and the controller
 * agree on without exchanging anything, so the 1 s heartbeat and its ack are
 * authenticated with HMAC-SHA256 instead of an Ed25519 signature and
 * verification each way (at fleet scale those four operations were a third
 * of the CPU a heartbeat costs the agent and the api together).
 *
 * Agreement is static-static X25519 between the node's Ed25519 key and one
 * controller Ed25519 key, both converted to their Montgomery form (as
 * libsodium's `crypto_sign_ed25519_*_to_curve25519` and age's ssh-ed25519
 * recipients do). Each side needs only its own private key and the other's
 * public key, which enrollment already exchanged: no handshake, no state to
 * store or share between api processes, and the pair changes whenever
 * either key rotates. HKDF-SHA256 binds the pair to the node id and both key
 * ids and splits it into one key per direction, so an ack can never be
 * replayed as a heartbeat or the reverse. Replay within a direction is
 * refused exactly as for signed envelopes (nonce, skew window, sequence).
 */
export const MAC_ALGORITHM = 'HMAC-SHA256';

/** An HMAC-SHA256 tag (32 bytes) as base64url without padding: 43 characters. */
export const MAC_VALUE_PATTERN = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;

/** The only envelope types a MAC may authenticate; everything else is signed. */
export const MAC_TYPES = ['heartbeat', 'heartbeat.ack'] as const;

export interface HeartbeatMacKeys {
  /** Authenticates heartbeats (node → controller). */
  readonly agentToController: Buffer;
  /** Authenticates heartbeat acks (controller → node). */
  readonly controllerToAgent: Buffer;
}

export interface HeartbeatMacContext {
  readonly nodeId: string;
  /** The node key the MAC keys were agreed with: its current key. */
  readonly nodeKeyId: string;
  /** The controller key they were agreed with; it names the MAC keys in the envelope signature. */
  readonly controllerKeyId: string;
}

const P = 2n ** 255n - 19n;

/** PKCS#8 DER of an X25519 private key up to its 32 raw bytes (RFC 8410). */
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

function modPow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = base % P;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

function littleEndian(bytes: Buffer): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i -= 1) value = (value << 8n) | BigInt(bytes[i] ?? 0);
  return value;
}

function toLittleEndian(value: bigint): Buffer {
  const out = Buffer.alloc(32);
  let v = value;
  for (let i = 0; i < 32; i += 1) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

function jwkOf(key: KeyObject, type: 'public' | 'private'): { x: string; d?: string } {
  if (key.asymmetricKeyType !== 'ed25519' || key.type !== type) {
    throw new Error(
      `expected an Ed25519 ${type} key, got a ${key.asymmetricKeyType ?? 'secret'} ${key.type} key`,
    );
  }
  return key.export({ format: 'jwk' }) as { x: string; d?: string };
}

/** The X25519 public key of an Ed25519 public key: u = (1 + y) / (1 − y) mod 2²⁵⁵ − 19. */
export function x25519PublicKeyOf(ed25519PublicKey: KeyObject): KeyObject {
  const raw = Buffer.from(jwkOf(ed25519PublicKey, 'public').x, 'base64url');
  const y = littleEndian(raw) & ((1n << 255n) - 1n);
  const denominator = (1n - y + P) % P;
  // y = 1 is the identity point: no key anyone generated, and no shared secret worth having.
  if (denominator === 0n) throw new Error('the Ed25519 public key is not usable for key agreement');
  const u = (((1n + y) % P) * modPow(denominator, P - 2n)) % P;
  return createPublicKey({
    key: { kty: 'OKP', crv: 'X25519', x: toLittleEndian(u).toString('base64url') },
    format: 'jwk',
  });
}

/** The X25519 private key of an Ed25519 private key: the clamped first half of SHA-512(seed), as Ed25519 uses it. */
export function x25519PrivateKeyOf(ed25519PrivateKey: KeyObject): KeyObject {
  const seed = Buffer.from(jwkOf(ed25519PrivateKey, 'private').d ?? '', 'base64url');
  const scalar = createHash('sha512').update(seed).digest().subarray(0, 32);
  scalar[0] = (scalar[0] ?? 0) & 248;
  scalar[31] = ((scalar[31] ?? 0) & 127) | 64;
  return createPrivateKey({
    key: Buffer.concat([X25519_PKCS8_PREFIX, scalar]),
    format: 'der',
    type: 'pkcs8',
  });
}

/**
 * The MAC keys of one (node key, controller key) pair. `ownPrivateKey` is
 * this side's Ed25519 private key, `peerPublicKey` the other side's Ed25519
 * public key; both sides get the same keys.
 */
export function heartbeatMacKeys(
  ownPrivateKey: KeyObject,
  peerPublicKey: KeyObject,
  context: HeartbeatMacContext,
): HeartbeatMacKeys {
  return agreedHeartbeatMacKeys(x25519PrivateKeyOf(ownPrivateKey), x25519PublicKeyOf(peerPublicKey), context);
}

/**
 * heartbeatMacKeys from keys already in X25519 form: the controller
 * converts each of its keys once, not once per node (the conversion of a
 * private key costs more than the agreement itself).
 */
export function agreedHeartbeatMacKeys(
  ownX25519PrivateKey: KeyObject,
  peerX25519PublicKey: KeyObject,
  context: HeartbeatMacContext,
): HeartbeatMacKeys {
  const shared = diffieHellman({ privateKey: ownX25519PrivateKey, publicKey: peerX25519PublicKey });
  // A small-order peer key gives the all-zero secret, which anyone could compute.
  if (shared.every((byte) => byte === 0)) throw new Error('the key agreement gave no secret');
  const info = Buffer.from(
    `lunanexa-agent-v1 heartbeat mac\0${context.nodeId}\0${context.nodeKeyId}\0${context.controllerKeyId}`,
    'utf8',
  );
  const okm = Buffer.from(hkdfSync('sha256', shared, Buffer.from('lunanexa-heartbeat-mac-v1'), info, 64));
  return { agentToController: okm.subarray(0, 32), controllerToAgent: okm.subarray(32, 64) };
}

/** The tag of a signing input, base64url. */
export function macOf(key: Buffer, message: Buffer): string {
  return createHmac('sha256', key).update(message).digest('base64url');
}

/** Whether `tag` is the MAC of `message` under `key` (constant time). */
export function macVerifies(key: Buffer, message: Buffer, tag: string): boolean {
  const expected = createHmac('sha256', key).update(message).digest();
  const given = Buffer.from(tag, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
