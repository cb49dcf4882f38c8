import { createHash } from 'node:crypto';
import { expect } from 'chai';
import * as contracts from '@lunanexa/contracts';
import * as credentials from '@lunanexa/credentials';

/**
 * The key format is stated twice: in libs/contracts (what every side may
 * validate and display) and in libs/credentials (what the API generates and
 * the gateway hashes). The API issues keys with the one and documents them
 * with the other, so this checks they agree.
 */
describe('gateway key format: libs/credentials agrees with libs/contracts', () => {
  it('same prefix and pattern', () => {
    expect(credentials.GATEWAY_KEY_PREFIX).to.equal(contracts.GATEWAY_KEY_PREFIX);
    expect(credentials.GATEWAY_KEY_PATTERN.source).to.equal(contracts.GATEWAY_KEY_PATTERN.source);
  });

  it('generated keys, hashes and display prefixes are what the contract and the gateway_keys CHECKs accept', () => {
    for (let i = 0; i < 32; i++) {
      const { key, keyHash, prefix } = credentials.generateGatewayKey();
      expect(contracts.GatewayKeySecretSchema.safeParse(key).success, key).to.equal(true);
      expect(prefix).to.match(contracts.GATEWAY_KEY_DISPLAY_PREFIX_PATTERN);
      expect(prefix).to.equal(
        key.slice(0, contracts.GATEWAY_KEY_PREFIX.length + contracts.GATEWAY_KEY_DISPLAY_CHARS),
      );
      expect(keyHash).to.equal(createHash('sha256').update(key, 'utf8').digest('hex'));
      expect(keyHash).to.match(/^[0-9a-f]{64}$/);
      expect(credentials.hashBearerSecret(key)).to.equal(keyHash);
    }
  });
});
