import './support/contract-modules';

import { expect } from 'chai';

import {
  QUOTAS,
  TENANT_ID_PATTERN,
  canChangeTenants,
  canIssueKeys,
  canPurgePayloads,
  purgeEffect,
  canRevokeKeys,
  expiresAtFor,
  quotaFieldValid,
  quotaSummary,
  quotaText,
  revokeEffect,
} from '../src/app/pages/tenants/tenant-rules';
import { tenantUsageView } from '../src/app/pages/tenants/tenant-usage-rules';
import { canAs } from './support/roles';

describe('console tenant rules', () => {
  it('leaves tenants and their keys to administrators', () => {
    for (const check of [canChangeTenants, canIssueKeys, canRevokeKeys]) {
      expect(check(canAs('admin'))).to.equal(true);
      expect(check(canAs('operator'))).to.equal(false);
      expect(check(canAs('viewer'))).to.equal(false);
    }
  });

  it('takes opaque tenant ids', () => {
    expect(TENANT_ID_PATTERN.test('acme:team-1.prod')).to.equal(true);
    expect(TENANT_ID_PATTERN.test('-acme')).to.equal(false);
    expect(TENANT_ID_PATTERN.test('a'.repeat(129))).to.equal(false);
  });

  it('prints quotas with grouping and "unlimited" for none', () => {
    expect(quotaText(null)).to.equal('unlimited');
    expect(quotaText(2_000_000)).to.equal('2,000,000');
    expect(
      quotaSummary({ requestsPerMinute: 600, tokensPerMinute: null, maxConcurrentRequests: 32 }),
    ).to.equal('600 req/min · unlimited tokens/min · 32 concurrent');
  });

  it('accepts a quota field empty or a whole number within its bounds', () => {
    expect(QUOTAS.map((quota) => quota.field)).to.deep.equal([
      'requestsPerMinute',
      'tokensPerMinute',
      'maxConcurrentRequests',
    ]);
    for (const { field, min, max } of QUOTAS) {
      expect(quotaFieldValid(null, field), field).to.equal(true);
      expect(quotaFieldValid(min, field), field).to.equal(true);
      expect(quotaFieldValid(max, field), field).to.equal(true);
      expect(quotaFieldValid(min - 1, field), field).to.equal(false);
      expect(quotaFieldValid(max + 1, field), field).to.equal(false);
      expect(quotaFieldValid(min + 0.5, field), field).to.equal(false);
    }
  });

  it('computes a key expiry from its lifetime in days, none for a key that never expires', () => {
    const now = new Date('2026-12-06T10:00:00.000Z');
    expect(expiresAtFor(null, now)).to.equal(null);
    expect(expiresAtFor(30, now)).to.equal('2027-01-05T10:00:00.000Z');
  });

  it('states what revoking a key does', () => {
    expect(revokeEffect({ prefix: 'lnx_ab12', name: 'ci', aliases: ['chat', 'search'] })).to.equal(
      'Revokes lnx_ab12… (ci). Every gateway refuses it from its next request on (401 UNAUTHENTICATED), ' +
        'for chat, search. This cannot be undone: issue a new key instead.',
    );
  });
});

describe('console tenant usage', () => {
  const bucket = (minute: number, requests: number, errors: number, rateLimited: number) => ({
    start: `2026-12-06T12:${String(minute).padStart(2, '0')}:00.000Z`,
    requests,
    errors,
    rateLimited,
    promptTokens: requests * 7,
    completionTokens: requests * 20,
  });
  const report = {
    windowStart: '2026-12-06T12:00:00.000Z',
    windowEnd: '2026-12-06T12:03:00.000Z',
    bucketSeconds: 60,
    buckets: [bucket(0, 0, 0, 0), bucket(1, 4, 1, 1), bucket(2, 2, 0, 0)],
    totals: { requests: 6, errors: 1, rateLimited: 1, promptTokens: 42, completionTokens: 120 },
    tenants: [
      { tenantId: 'other', topModels: [{ requestedModel: 'x', requests: 9, errors: 0 }] },
      { tenantId: 'acme', topModels: [{ requestedModel: 'chat-prod', requests: 6, errors: 1 }] },
    ],
  };

  it('draws requests, errors and 429s per minute, and the tokens, on the buckets’ times', () => {
    const view = tenantUsageView(report, 'acme');
    expect(view.x).to.deep.equal(report.buckets.map((b) => Date.parse(b.start)));
    expect(view.calls.map((s) => [s.label, s.values])).to.deep.equal([
      ['Requests', [0, 4, 2]],
      ['Errors', [0, 1, 0]],
      ['Refused 429', [0, 1, 0]],
    ]);
    expect(view.tokens.map((s) => s.values)).to.deep.equal([
      [0, 28, 14],
      [0, 80, 40],
    ]);
    expect(view.empty).to.equal(false);
  });

  it('lists this tenant’s top aliases only, and says when there was no traffic', () => {
    expect(tenantUsageView(report, 'acme').topModels).to.deep.equal([
      { requestedModel: 'chat-prod', requests: 6, errors: 1 },
    ]);
    const quiet = tenantUsageView(
      { ...report, totals: { ...report.totals, requests: 0 }, tenants: [] },
      'acme',
    );
    expect(quiet).to.deep.include({ empty: true, topModels: [] });
  });
});

describe('console payload purge', () => {
  const capture = (id: string) => ({
    id,
    requestId: `req-${id}`,
    correlationId: `corr-${id}`,
    modelRef: 'chat@v1',
    purpose: 'retention',
    requestBytes: 10,
    responseBytes: 20,
    capturedAt: '2026-12-06T12:00:00.000Z',
    expiresAt: '2026-12-13T12:00:00.000Z',
  });

  it('is an administrator’s action', () => {
    expect(canPurgePayloads(canAs('admin'))).to.equal(true);
    expect(canPurgePayloads(canAs('operator'))).to.equal(false);
    expect(canPurgePayloads(canAs('viewer'))).to.equal(false);
  });

  it('says how many are deleted, and that a full list means there may be more', () => {
    expect(purgeEffect('acme', [capture('1')], 50)).to.match(
      /^Deletes 1 kept payload of acme now .*cannot be undone\.$/,
    );
    expect(purgeEffect('acme', [capture('1'), capture('2')], 2)).to.match(
      /^Deletes at least 2 kept payloads of acme/,
    );
    expect(purgeEffect('acme', [], 50)).to.match(/^Deletes 0 kept payloads of acme/);
  });
});
