import { expect } from 'chai';
import { TENANCY_MUTATION_PERMISSIONS } from '../src/roles';
import {
  CreateGatewayKeyInputSchema,
  CreateTenantInputSchema,
  GATEWAY_KEY_DISPLAY_CHARS,
  GATEWAY_KEY_PATTERN,
  GATEWAY_KEY_PREFIX,
  GATEWAY_KEY_SECRET_CHARS,
  GatewayKeySchema,
  GatewayKeySecretSchema,
  QUOTA_BOUNDS,
  QUOTA_FIELDS,
  TenantQuotaSchema,
  TenantSchema,
  UNLIMITED_QUOTA,
  gatewayKeyState,
  quotaViolation,
  type GatewayKey,
} from '../src/tenancy';
import { fixture } from './helpers';

function key(overrides: Partial<GatewayKey> = {}): GatewayKey {
  return { ...GatewayKeySchema.parse(fixture('gateway-key.json')), ...overrides };
}

describe('tenancy contract', () => {
  it('gateway keys are lnxk_ + 43 base64url characters; the display prefix keeps 8 of them', () => {
    expect(GATEWAY_KEY_PREFIX).to.equal('lnxk_');
    expect(GATEWAY_KEY_SECRET_CHARS).to.equal(Buffer.alloc(32).toString('base64url').length);
    expect(GATEWAY_KEY_DISPLAY_CHARS).to.equal(8);
    const good = `lnxk_${'A'.repeat(21)}-_${'z'.repeat(20)}`;
    expect(GATEWAY_KEY_PATTERN.test(good)).to.equal(true);
    expect(GatewayKeySecretSchema.safeParse(good).success).to.equal(true);
    for (const bad of [
      `lnx_${'A'.repeat(43)}`,
      `lnxk_${'A'.repeat(42)}`,
      `lnxk_${'A'.repeat(44)}`,
      `lnxk_${'A'.repeat(42)}=`,
      `LNXK_${'A'.repeat(43)}`,
    ]) {
      expect(GatewayKeySecretSchema.safeParse(bad).success, bad).to.equal(false);
    }
  });

  it('each quota is a whole number within its bounds, or null for unlimited', () => {
    expect(TenantQuotaSchema.parse(UNLIMITED_QUOTA)).to.deep.equal({
      requestsPerMinute: null,
      tokensPerMinute: null,
      maxConcurrentRequests: null,
    });
    expect(QUOTA_FIELDS).to.deep.equal(Object.keys(QUOTA_BOUNDS));
    for (const field of QUOTA_FIELDS) {
      const { min, max } = QUOTA_BOUNDS[field];
      for (const value of [min, max]) {
        expect(
          TenantQuotaSchema.safeParse({ ...UNLIMITED_QUOTA, [field]: value }).success,
          `${field}=${value}`,
        ).to.equal(true);
        expect(quotaViolation(field, value)).to.equal(null);
      }
      for (const value of [min - 1, max + 1, 1.5, -1]) {
        const result = TenantQuotaSchema.safeParse({ ...UNLIMITED_QUOTA, [field]: value });
        expect(result.success, `${field}=${value}`).to.equal(false);
        expect(result.error?.issues[0]?.path).to.deep.equal([field]);
        expect(quotaViolation(field, value), `${field}=${value}`).to.be.a('string');
      }
    }
    expect(QUOTA_BOUNDS.tokensPerMinute.max).to.equal(10_000_000_000);
    // A quota is never left out: null says "unlimited" on purpose.
    expect(TenantQuotaSchema.safeParse({ requestsPerMinute: 1 }).success).to.equal(false);
  });

  it('a new tenant without quota or display name is unlimited and unnamed', () => {
    expect(CreateTenantInputSchema.parse({ id: 'acme' })).to.deep.equal({
      id: 'acme',
      displayName: null,
      quota: UNLIMITED_QUOTA,
    });
    for (const id of ['acme corp', '-acme', '', 'a'.repeat(129)]) {
      expect(CreateTenantInputSchema.safeParse({ id }).success, id).to.equal(false);
    }
    expect(CreateTenantInputSchema.safeParse({ id: 'acme', displayName: 'line\nbreak' }).success).to.equal(
      false,
    );
    expect(TenantSchema.safeParse(fixture('tenant.unlimited.json')).success).to.equal(true);
  });

  it('a key names 1..100 distinct aliases (alias names, never model@version)', () => {
    const input = { tenantId: 'acme', name: 'app', aliases: ['chat'] };
    expect(CreateGatewayKeyInputSchema.parse(input)).to.deep.equal({ ...input, expiresAt: null });
    for (const aliases of [
      [],
      ['chat', 'chat'],
      ['demo@v1'],
      ['Chat'],
      Array.from({ length: 101 }, (_, i) => `a${i}`),
    ]) {
      expect(CreateGatewayKeyInputSchema.safeParse({ ...input, aliases }).success, aliases.join()).to.equal(
        false,
      );
    }
    expect(
      CreateGatewayKeyInputSchema.safeParse({
        ...input,
        aliases: Array.from({ length: 100 }, (_, i) => `a${i}`),
      }).success,
    ).to.equal(true);
  });

  it('a stored key never expires before it was created and is revoked by someone exactly when revoked', () => {
    const created = key();
    expect(GatewayKeySchema.safeParse({ ...created, expiresAt: created.createdAt }).success).to.equal(false);
    expect(
      GatewayKeySchema.safeParse({ ...created, revokedAt: '2026-02-01T00:00:00.000Z', revokedBy: null })
        .success,
    ).to.equal(false);
    expect(GatewayKeySchema.safeParse({ ...created, revokedBy: 'operator:root' }).success).to.equal(false);
    expect(GatewayKeySchema.safeParse(fixture('gateway-key.revoked.json')).success).to.equal(true);
    // The document has no place for the secret or its hash.
    expect(GatewayKeySchema.safeParse({ ...created, keyHash: 'a'.repeat(64) }).success).to.equal(false);
  });

  it('gatewayKeyState: revoked beats expired, and a key expires at its expiresAt instant', () => {
    const expiresAt = '2026-04-08T10:00:00.000Z';
    const at = (iso: string) => new Date(iso);
    expect(gatewayKeyState(key({ expiresAt }), at('2026-04-08T09:59:59.999Z'))).to.equal('Active');
    expect(gatewayKeyState(key({ expiresAt }), at(expiresAt))).to.equal('Expired');
    expect(gatewayKeyState(key({ expiresAt: null }), at('2099-01-01T00:00:00.000Z'))).to.equal('Active');
    expect(
      gatewayKeyState(
        key({ expiresAt, revokedAt: '2026-02-01T00:00:00.000Z', revokedBy: 'operator:root' }),
        at('2030-01-01T00:00:00.000Z'),
      ),
    ).to.equal('Revoked');
  });

  it('every tenancy mutation needs administer, like credentials', () => {
    expect(TENANCY_MUTATION_PERMISSIONS).to.deep.equal({
      createTenant: 'administer',
      updateTenant: 'administer',
      createGatewayKey: 'administer',
      revokeGatewayKey: 'administer',
    });
  });
});
