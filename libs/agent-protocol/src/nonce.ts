import { randomFillSync } from 'node:crypto';

/** Random bytes in an envelope nonce: 24 base64url characters. */
export const NONCE_BYTES = 18;

/** Nonces drawn per refill of the pool. */
const NONCES_PER_REFILL = 256;

const pool = Buffer.allocUnsafe(NONCE_BYTES * NONCES_PER_REFILL);
let offset = pool.length;

/**
 * A fresh envelope nonce: NONCE_BYTES from the CSPRNG, base64url. The bytes
 * come from a pool filled NONCES_PER_REFILL nonces at a time and each byte is
 * used once, so a nonce is as unpredictable as a `randomBytes(18)` of its own;
 * one call to the generator per nonce cost about as much as an HMAC of the
 * whole heartbeat, at both ends, for every heartbeat and ack.
 */
export function randomNonce(): string {
  if (offset === pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const nonce = pool.toString('base64url', offset, offset + NONCE_BYTES);
  offset += NONCE_BYTES;
  return nonce;
}
