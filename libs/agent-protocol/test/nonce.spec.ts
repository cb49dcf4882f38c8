import { expect } from 'chai';
import { HeartbeatSchema } from '@lunanexa/contracts';
import { NONCE_BYTES, randomNonce } from '../src';

describe('randomNonce: envelope nonces from a pooled CSPRNG', () => {
  it('gives NONCE_BYTES random bytes as unpadded base64url, the form heartbeats require', () => {
    const nonce = randomNonce();
    expect(nonce).to.match(/^[A-Za-z0-9_-]{24}$/);
    expect(Buffer.from(nonce, 'base64url')).to.have.length(NONCE_BYTES);
    expect(HeartbeatSchema.shape.nonce.safeParse(nonce).success).to.equal(true);
  });

  it('never repeats a nonce or reuses bytes across many refills of the pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i += 1) seen.add(randomNonce());
    expect(seen.size).to.equal(20_000);
    // Every byte value turns up about equally often: the pool is random bytes, not a counter or a zeroed buffer.
    const counts = new Array<number>(256).fill(0);
    for (const nonce of seen)
      for (const byte of Buffer.from(nonce, 'base64url')) counts[byte] = (counts[byte] ?? 0) + 1;
    const expected = (20_000 * NONCE_BYTES) / 256;
    expect(Math.min(...counts)).to.be.greaterThan(expected * 0.8);
    expect(Math.max(...counts)).to.be.lessThan(expected * 1.2);
  });
});
