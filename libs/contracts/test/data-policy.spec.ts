import { expect } from 'chai';
import {
  EVALUATION_CAPTURE_DEFAULT_DAYS,
  TenantDataPolicyInputSchema,
  TenantDataPolicySchema,
  captureDecision,
  captureExpiresAt,
  defaultDataPolicy,
  type TenantDataPolicy,
} from '../src/data-policy';

function policy(overrides: Partial<TenantDataPolicy> = {}): TenantDataPolicy {
  return { ...defaultDataPolicy('tenant-a'), ...overrides };
}

describe('tenant data policy contract', () => {
  it('the default keeps nothing, has no consent and the internal data class, and is itself valid', () => {
    const fallback = defaultDataPolicy('t1');
    expect(fallback).to.deep.include({
      tenantId: 't1',
      dataClass: 'internal',
      retention: { mode: 'none' },
      evaluationCaptureConsent: false,
    });
    expect(TenantDataPolicySchema.safeParse(fallback).success).to.equal(true);
    expect(defaultDataPolicy().tenantId).to.equal('default');
  });

  it('consent defaults to false when omitted', () => {
    const parsed = TenantDataPolicyInputSchema.parse({
      tenantId: 't1',
      dataClass: 'confidential',
      retention: { mode: 'days', days: 7 },
    });
    expect(parsed.evaluationCaptureConsent).to.equal(false);
  });

  for (const [name, retention] of [
    ['zero days', { mode: 'days', days: 0 }],
    ['more than ten years', { mode: 'days', days: 3651 }],
    ['fractional days', { mode: 'days', days: 1.5 }],
    ['days without a count', { mode: 'days' }],
    ['none with a count', { mode: 'none', days: 3 }],
    ['an unknown mode', { mode: 'forever' }],
  ] as const) {
    it(`rejects retention with ${name}`, () => {
      const result = TenantDataPolicyInputSchema.safeParse({
        tenantId: 't1',
        dataClass: 'internal',
        retention,
      });
      expect(result.success).to.equal(false);
    });
  }

  it('rejects a tenant id that is not opaque and an unknown data class', () => {
    expect(
      TenantDataPolicyInputSchema.safeParse({
        tenantId: 'acme corp',
        dataClass: 'internal',
        retention: { mode: 'none' },
      }).success,
    ).to.equal(false);
    expect(
      TenantDataPolicyInputSchema.safeParse({
        tenantId: 't1',
        dataClass: 'secret',
        retention: { mode: 'none' },
      }).success,
    ).to.equal(false);
  });
});

describe('captureDecision', () => {
  it('retention none without consent captures nothing', () => {
    expect(captureDecision(policy())).to.deep.equal({ capture: false });
  });

  it('retention of N days captures for retention, for N days', () => {
    expect(captureDecision(policy({ retention: { mode: 'days', days: 2 } }))).to.deep.equal({
      capture: true,
      purpose: 'retention',
      days: 2,
    });
  });

  it('consent with retention none captures for evaluation for the bounded default', () => {
    expect(captureDecision(policy({ evaluationCaptureConsent: true }))).to.deep.equal({
      capture: true,
      purpose: 'evaluation',
      days: EVALUATION_CAPTURE_DEFAULT_DAYS,
    });
  });

  it('consent with a retention never keeps an evaluation capture longer than the retention', () => {
    for (const days of [1, 7, 365]) {
      const decision = captureDecision(
        policy({ evaluationCaptureConsent: true, retention: { mode: 'days', days } }),
      );
      expect(decision).to.deep.equal({ capture: true, purpose: 'evaluation', days });
    }
  });

  it('expiry is exactly N days after the capture', () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    expect(captureExpiresAt(at, 2).toISOString()).to.equal('2026-01-03T00:00:00.000Z');
  });
});
