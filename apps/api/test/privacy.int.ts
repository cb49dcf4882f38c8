import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { dataOf, startTestApi, type TestApi } from './api-test-support';

const FIELDS = 'tenantId dataClass retentionMode retentionDays evaluationCaptureConsent configured updatedBy';
const SET = `mutation($input: SetDataPolicyInput!) { setDataPolicy(input: $input) { ${FIELDS} } }`;
const GET = `query($t: String!) { dataPolicy(tenantId: $t) { ${FIELDS} } }`;
const CAPTURES = `query($t: String, $l: Int) { payloadCaptures(tenantId: $t, limit: $l) {
  id tenantId requestId purpose capturedAt expiresAt requestBytes responseBytes } }`;

interface PolicyView {
  tenantId: string;
  dataClass: string;
  retentionMode: string;
  retentionDays: number | null;
  evaluationCaptureConsent: boolean;
  configured: boolean;
  updatedBy: string;
}

interface AuditRow {
  decision: string;
  result: string;
  evidence: Record<string, unknown>;
}

describe('payload privacy API on real PostgreSQL and Temporal', function () {
  this.timeout(120_000);
  let api: TestApi;

  before(async () => {
    api = await startTestApi('privacy_api');
  });

  after(async () => {
    await api?.stop();
  });

  async function audit(action: string): Promise<AuditRow[]> {
    return api.fixture.ds.query<AuditRow[]>(
      `SELECT decision, result, evidence FROM audit_events WHERE action = $1 ORDER BY seq`,
      [action],
    );
  }

  it('a tenant nobody configured reads as the default: retention none, no consent, internal', async () => {
    const policy = dataOf<PolicyView>(await api.graphql(GET, { t: 'tenant-new' }, api.admin), 'dataPolicy');
    expect(policy).to.deep.include({
      tenantId: 'tenant-new',
      dataClass: 'internal',
      retentionMode: 'none',
      retentionDays: null,
      evaluationCaptureConsent: false,
      configured: false,
    });
  });

  it('setDataPolicy stores the policy and audits it with before and after', async () => {
    const input = {
      tenantId: 'tenant-a',
      dataClass: 'confidential',
      retentionMode: 'days',
      retentionDays: 14,
    };
    const set = dataOf<PolicyView>(await api.graphql(SET, { input }, api.admin), 'setDataPolicy');
    expect(set).to.deep.include({ ...input, evaluationCaptureConsent: false, configured: true });
    expect(set.updatedBy).to.match(/^operator:/);
    const again = dataOf<PolicyView>(
      await api.graphql(SET, { input: { ...input, evaluationCaptureConsent: true } }, api.admin),
      'setDataPolicy',
    );
    expect(again.evaluationCaptureConsent).to.equal(true);
    const events = (await audit('dataPolicy.set')).filter((e) => e.evidence['tenantId'] === 'tenant-a');
    expect(events).to.have.length(2);
    expect(events[0]).to.deep.include({ decision: 'allowed', result: 'succeeded' });
    expect(events[0]?.evidence['before']).to.deep.include({ configured: false, retention: { mode: 'none' } });
    expect(events[0]?.evidence['after']).to.deep.include({ retention: { mode: 'days', days: 14 } });
    expect(events[1]?.evidence['before']).to.deep.include({ evaluationCaptureConsent: false });
    expect(events[1]?.evidence['after']).to.deep.include({ evaluationCaptureConsent: true });
    const listed = dataOf<PolicyView[]>(
      await api.graphql(`{ dataPolicies { ${FIELDS} } }`, {}, api.admin),
      'dataPolicies',
    );
    expect(listed.map((p) => p.tenantId)).to.include('tenant-a');
  });

  for (const [name, input, path] of [
    ['zero retention days', { retentionMode: 'days', retentionDays: 0 }, 'retentionDays'],
    ['more than 3650 days', { retentionMode: 'days', retentionDays: 3651 }, 'retentionDays'],
    ['days without a count', { retentionMode: 'days' }, 'retentionDays'],
    ['none with a count', { retentionMode: 'none', retentionDays: 3 }, 'retentionDays'],
    ['an unknown retention mode', { retentionMode: 'forever' }, 'retentionMode'],
    ['an unknown data class', { retentionMode: 'none', dataClass: 'secret' }, 'dataClass'],
    ['a tenant id that is not opaque', { retentionMode: 'none', tenantId: 'acme corp' }, 'tenantId'],
  ] as const) {
    it(`refuses ${name} with VALIDATION_FAILED naming ${path}, audited, and changes nothing`, async () => {
      const tenantId = `tenant-${randomUUID().slice(0, 8)}`;
      const before = await api.fixture.ds.query<unknown[]>(
        `SELECT * FROM tenant_data_policies ORDER BY tenant_id`,
      );
      const refusalsBefore = (await audit('dataPolicy.set')).filter((e) => e.result === 'refused').length;
      const answer = await api.graphql(
        SET,
        { input: { tenantId, dataClass: 'internal', ...input } },
        api.admin,
      );
      const error = answer.errors?.[0];
      expect(error?.extensions.code).to.equal('VALIDATION_FAILED');
      const violations = error?.extensions['violations'] as { path: string }[] | undefined;
      expect(violations?.map((v) => v.path)).to.include(path);
      expect(
        await api.fixture.ds.query(`SELECT * FROM tenant_data_policies ORDER BY tenant_id`),
      ).to.deep.equal(before);
      const refusals = (await audit('dataPolicy.set')).filter((e) => e.result === 'refused');
      expect(refusals).to.have.length(refusalsBefore + 1);
      expect(refusals.at(-1)?.evidence).to.deep.include({ errorCode: 'VALIDATION_FAILED' });
    });
  }

  it('an operator (not admin) is refused FORBIDDEN and nothing changes', async () => {
    const operator = await api.operator('otto-privacy', 'operator');
    const answer = await api.graphql(
      SET,
      { input: { tenantId: 'tenant-b', dataClass: 'internal', retentionMode: 'days', retentionDays: 1 } },
      operator,
    );
    expect(answer.errors?.[0]?.extensions.code).to.equal('FORBIDDEN');
    const policy = dataOf<PolicyView>(await api.graphql(GET, { t: 'tenant-b' }, operator), 'dataPolicy');
    expect(policy.configured).to.equal(false);
  });

  it('payloadCaptures lists metadata and sizes only; purgePayloadCaptures deletes them with a receipt', async () => {
    const secret = `secret-${randomUUID()}`;
    for (const days of [1, 2]) {
      await api.fixture.ds.query(
        `INSERT INTO payload_captures (id, tenant_id, request_id, correlation_id, purpose, request_body, response_text,
                captured_at, expires_at)
         VALUES ($1, 'tenant-a', $2, $2, 'retention', $3::jsonb, $4, now(), now() + make_interval(days => $5))`,
        [randomUUID(), `req-${days}`, JSON.stringify({ prompt: secret }), `answer ${secret}`, days],
      );
    }
    const answer = await api.graphql(CAPTURES, { t: 'tenant-a', l: 10 }, api.admin);
    const listed = dataOf<{ requestBytes: number; responseBytes: number; purpose: string }[]>(
      answer,
      'payloadCaptures',
    );
    expect(listed).to.have.length(2);
    expect(listed[0]?.responseBytes).to.equal(Buffer.byteLength(`answer ${secret}`));
    expect(JSON.stringify(answer)).not.to.include(secret);
    expect((await api.graphql(CAPTURES, { l: 0 }, api.admin)).errors?.[0]?.extensions.code).to.equal(
      'VALIDATION_FAILED',
    );

    const purged = dataOf<{ deleted: number; receiptHashes: string[]; workflowId: string }>(
      await api.graphql(
        `mutation { purgePayloadCaptures(tenantId: "tenant-a") { deleted receiptHashes workflowId } }`,
        {},
        api.admin,
      ),
      'purgePayloadCaptures',
    );
    expect(purged.deleted).to.equal(2);
    expect(purged.receiptHashes).to.have.length(1);
    expect(purged.workflowId).to.match(/^retentionExpiry\/purge:tenant-a:/);
    expect(await api.fixture.ds.query(`SELECT id FROM payload_captures`)).to.deep.equal([]);
    const [receipt] = await api.fixture.ds.query<{ actor: string; evidence: Record<string, unknown> }[]>(
      `SELECT actor, evidence FROM audit_events WHERE hash = $1`,
      [purged.receiptHashes[0]],
    );
    expect(receipt?.actor).to.match(/^operator:/);
    expect(receipt?.evidence).to.deep.include({ mode: 'purge', tenantId: 'tenant-a', count: 2 });
    expect(JSON.stringify(receipt)).not.to.include(secret);
  });
});
