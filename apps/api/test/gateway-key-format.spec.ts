import { createHash } from 'node:crypto';
import { expect } from 'chai';
import * as contracts from '@lunanexa/contracts';
import * as credentials from '@lunanexa/credentials';

/**
 * The key format is stated in libs/contracts (what every side may validate
 * and display); libs/credentials generates and hashes keys (the API issues
 * them, the gateway checks them). This checks what it generates is what the
 * contract and the gateway_keys CHECKs accept, and what the parser reads.
 */
describe('gateway key format: what libs/credentials generates, libs/contracts accepts', () => {
  it('a generated key is read back as a gateway key by the bearer parser', () => {
    const { key, prefix } = credentials.generateGatewayKey();
    expect(credentials.parseAuthorization(`Bearer ${key}`)).to.deep.equal({
      kind: 'gateway-key',
      key,
      prefix,
    });
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
