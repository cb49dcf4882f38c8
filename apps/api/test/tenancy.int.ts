import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { findTenant } from '@lunanexa/persistence';
import { Client, type Notification } from 'pg';
import { dataOf, startTestApi, type GraphQLBody, type TestApi } from './api-test-support';

const TENANT_FIELDS = `id displayName quota { requestsPerMinute tokensPerMinute maxConcurrentRequests }
  keyCount activeKeyCount createdBy createdAt updatedBy updatedAt`;
const KEY_FIELDS = `id tenantId name prefix aliases state createdBy createdAt expiresAt revokedAt revokedBy lastUsedAt`;
const CREATE_TENANT = `mutation($input: CreateTenantInput!) { createTenant(input: $input) { ${TENANT_FIELDS} } }`;
const UPDATE_TENANT = `mutation($input: UpdateTenantInput!) { updateTenant(input: $input) { ${TENANT_FIELDS} } }`;
const CREATE_TENANT_CAP = `mutation($input: CreateTenantInput!) { createTenant(input: $input) { id maxPriority } }`;
const UPDATE_TENANT_CAP = `mutation($input: UpdateTenantInput!) { updateTenant(input: $input) { id maxPriority } }`;
const TENANT = `query($id: String!) { tenant(id: $id) { ${TENANT_FIELDS} } }`;
const TENANTS = `{ tenants { ${TENANT_FIELDS} } }`;
const CREATE_KEY = `mutation($input: CreateGatewayKeyInput!) {
  createGatewayKey(input: $input) { secret key { ${KEY_FIELDS} } } }`;
const KEYS = `query($t: String!, $r: Boolean) { gatewayKeys(tenantId: $t, includeRevoked: $r) { ${KEY_FIELDS} } }`;
const REVOKE = `mutation($id: ID!) { revokeGatewayKey(id: $id) { ${KEY_FIELDS} } }`;
const CHANNEL = 'lunanexa_gateway_credentials';
const VALID_KEY_INPUT: Record<string, unknown> = { tenantId: 'acme', name: 'app', aliases: ['chat'] };

interface Quota {
  requestsPerMinute: number | null;
  tokensPerMinute: number | null;
  maxConcurrentRequests: number | null;
}
interface TenantView {
  id: string;
  displayName: string | null;
  quota: Quota;
  keyCount: number;
  activeKeyCount: number;
  createdBy: string;
  updatedBy: string;
}
interface KeyView {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  aliases: string[];
  state: string;
  expiresAt: string | null;
  revokedAt: string | null;
  revokedBy: string | null;
  lastUsedAt: string | null;
}
interface AuditRow {
  action: string;
  decision: string;
  result: string;
  evidence: Record<string, unknown>;
}

function errorOf(answer: GraphQLBody): { code: string; paths: string[] } {
  const error = answer.errors?.[0];
  const violations = (error?.extensions['violations'] ?? []) as { path: string }[];
  return { code: error?.extensions.code ?? 'none', paths: violations.map((v) => v.path) };
}

describe('tenants and gateway keys API on real PostgreSQL', function () {
  this.timeout(120_000);
  let api: TestApi;
  let viewer: string;
  let listener: Client;
  const notifications: Notification[] = [];
  /** Every secret this file was shown: none may appear in the database, the audit log or another answer. */
  const secrets: string[] = [];

  before(async () => {
    api = await startTestApi('tenancy_api');
    viewer = await api.operator('vera-tenancy', 'viewer');
    for (const name of ['chat', 'summarize']) {
      dataOf(
        await api.graphql(
          `mutation($input: CreateAliasInput!) { createAlias(input: $input) { name } }`,
          { input: { name, dataClass: 'internal' } },
          api.admin,
        ),
        'createAlias',
      );
    }
    listener = new Client({ connectionString: api.fixture.db.url });
    await listener.connect();
    listener.on('notification', (n) => notifications.push(n));
    await listener.query(`LISTEN ${CHANNEL}`);
  });

  after(async () => {
    await listener?.end();
    await api?.stop();
  });

  async function audit(action: string): Promise<AuditRow[]> {
    return api.fixture.ds.query<AuditRow[]>(
      `SELECT action, decision, result, evidence FROM audit_events WHERE action = $1 ORDER BY seq`,
      [action],
    );
  }

  /** Waits (bounded) for a notification on the credentials channel with `payload`. */
  async function notification(payload: string, since: number): Promise<Notification> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const found = notifications.slice(since).find((n) => n.channel === CHANNEL && n.payload === payload);
      if (found) return found;
      if (Date.now() > deadline) expect.fail(`no NOTIFY ${CHANNEL} '${payload}' within 5 s`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('an admin creates a tenant with quotas; it is listed and audited with before and after', async () => {
    const created = dataOf<TenantView>(
      await api.graphql(
        CREATE_TENANT,
        {
          input: {
            id: 'acme',
            displayName: 'Acme Corp',
            requestsPerMinute: 600,
            tokensPerMinute: 10_000_000_000,
            maxConcurrentRequests: 32,
          },
        },
        api.admin,
      ),
      'createTenant',
    );
    expect(created).to.deep.include({
      id: 'acme',
      displayName: 'Acme Corp',
      quota: { requestsPerMinute: 600, tokensPerMinute: 10_000_000_000, maxConcurrentRequests: 32 },
      keyCount: 0,
      activeKeyCount: 0,
    });
    expect(created.createdBy).to.match(/^operator:/);
    const unlimited = dataOf<TenantView>(
      await api.graphql(CREATE_TENANT, { input: { id: 'beta' } }, api.admin),
      'createTenant',
    );
    expect(unlimited.quota).to.deep.equal({
      requestsPerMinute: null,
      tokensPerMinute: null,
      maxConcurrentRequests: null,
    });
    const listed = dataOf<TenantView[]>(await api.graphql(TENANTS, {}, viewer), 'tenants');
    expect(listed.map((t) => t.id)).to.deep.equal(['acme', 'beta']);
    const events = await audit('tenant.create');
    expect(events).to.have.length(2);
    expect(events[0]).to.deep.include({ decision: 'allowed', result: 'succeeded' });
    expect(events[0]?.evidence).to.deep.include({ tenantId: 'acme', before: null });
    expect(events[0]?.evidence['after']).to.deep.include({ id: 'acme', displayName: 'Acme Corp' });
  });

  it('a duplicate tenant id is CONFLICT, audited as a refusal', async () => {
    const answer = await api.graphql(CREATE_TENANT, { input: { id: 'acme' } }, api.admin);
    expect(errorOf(answer).code).to.equal('CONFLICT');
    expect((await audit('tenant.create')).at(-1)).to.deep.include({ decision: 'denied', result: 'refused' });
    expect((await audit('tenant.create')).at(-1)?.evidence).to.deep.include({
      tenantId: 'acme',
      errorCode: 'CONFLICT',
    });
  });

  it('updateTenant changes only the fields sent; an explicit null means unlimited', async () => {
    const since = notifications.length;
    const updated = dataOf<TenantView>(
      await api.graphql(UPDATE_TENANT, { input: { id: 'acme', requestsPerMinute: null } }, api.admin),
      'updateTenant',
    );
    expect(updated).to.deep.include({
      displayName: 'Acme Corp',
      quota: { requestsPerMinute: null, tokensPerMinute: 10_000_000_000, maxConcurrentRequests: 32 },
    });
    await notification('tenants', since);
    const again = dataOf<TenantView>(
      await api.graphql(
        UPDATE_TENANT,
        { input: { id: 'acme', requestsPerMinute: 1200, displayName: 'Acme' } },
        api.admin,
      ),
      'updateTenant',
    );
    expect(again).to.deep.include({
      displayName: 'Acme',
      quota: { requestsPerMinute: 1200, tokensPerMinute: 10_000_000_000, maxConcurrentRequests: 32 },
    });
    const events = await audit('tenant.update');
    expect(events).to.have.length(2);
    expect((events[0]?.evidence['before'] as { quota: Quota }).quota.requestsPerMinute).to.equal(600);
    expect((events[0]?.evidence['after'] as { quota: Quota }).quota.requestsPerMinute).to.equal(null);
    expect((events[1]?.evidence['after'] as { displayName: string }).displayName).to.equal('Acme');
    const unknown = await api.graphql(
      UPDATE_TENANT,
      { input: { id: 'nobody', requestsPerMinute: 5 } },
      api.admin,
    );
    expect(errorOf(unknown).code).to.equal('NOT_FOUND');
  });

  for (const [field, value] of [
    ['requestsPerMinute', 0],
    ['requestsPerMinute', 1_000_001],
    ['tokensPerMinute', 0],
    ['tokensPerMinute', 10_000_000_001],
    ['tokensPerMinute', 1.5],
    ['maxConcurrentRequests', 0],
    ['maxConcurrentRequests', 100_001],
    ['maxPriority', 'urgent'],
    ['maxPriority', 'HIGH'],
  ] as const) {
    it(`refuses ${field} = ${value} with VALIDATION_FAILED naming it, audited, and changes nothing`, async () => {
      const before = await api.fixture.ds.query<unknown[]>(`SELECT * FROM tenants ORDER BY id`);
      for (const [mutation, id] of [
        [UPDATE_TENANT, 'acme'],
        [CREATE_TENANT, `t-${randomUUID().slice(0, 8)}`],
      ] as const) {
        const refusals = (await audit(mutation === UPDATE_TENANT ? 'tenant.update' : 'tenant.create')).length;
        const answer = await api.graphql(mutation, { input: { id, [field]: value } }, api.admin);
        expect(errorOf(answer)).to.deep.equal({ code: 'VALIDATION_FAILED', paths: [field] });
        const events = await audit(mutation === UPDATE_TENANT ? 'tenant.update' : 'tenant.create');
        expect(events).to.have.length(refusals + 1);
        expect(events.at(-1)?.evidence).to.deep.include({ errorCode: 'VALIDATION_FAILED', fields: [field] });
      }
      expect(await api.fixture.ds.query(`SELECT * FROM tenants ORDER BY id`)).to.deep.equal(before);
    });
  }

  it('maxPriority caps a tenant: set on create and update, cleared with null, audited, reloaded by gateways', async () => {
    const id = `capped-${randomUUID().slice(0, 8)}`;
    const PRIORITY = `query($id: String!) { tenant(id: $id) { maxPriority } }`;
    const created = dataOf<{ maxPriority: string | null }>(
      await api.graphql(CREATE_TENANT_CAP, { input: { id, maxPriority: 'low' } }, api.admin),
      'createTenant',
    );
    expect(created.maxPriority).to.equal('low');
    const since = notifications.length;
    const updated = dataOf<{ maxPriority: string | null }>(
      await api.graphql(UPDATE_TENANT_CAP, { input: { id, maxPriority: 'normal' } }, api.admin),
      'updateTenant',
    );
    expect(updated.maxPriority).to.equal('normal');
    await notification('tenants', since);
    // A field left out keeps the cap.
    dataOf(
      await api.graphql(UPDATE_TENANT_CAP, { input: { id, displayName: 'Capped' } }, api.admin),
      'updateTenant',
    );
    expect(
      dataOf<{ maxPriority: string | null }>(await api.graphql(PRIORITY, { id }, api.admin), 'tenant'),
    ).to.deep.equal({
      maxPriority: 'normal',
    });
    const events = (await audit('tenant.update')).filter((event) => event.evidence['tenantId'] === id);
    expect((events[0]?.evidence['before'] as { maxPriority: string }).maxPriority).to.equal('low');
    expect((events[0]?.evidence['after'] as { maxPriority: string }).maxPriority).to.equal('normal');
    dataOf(
      await api.graphql(UPDATE_TENANT_CAP, { input: { id, maxPriority: null } }, api.admin),
      'updateTenant',
    );
    expect(
      dataOf<{ maxPriority: string | null }>(await api.graphql(PRIORITY, { id }, api.admin), 'tenant'),
    ).to.deep.equal({
      maxPriority: null,
    });
    expect((await findTenant(api.fixture.ds, id))?.maxPriority).to.equal(null);
  });

  it('refuses a tenant id that is not opaque and a display name with control characters', async () => {
    const answer = await api.graphql(
      CREATE_TENANT,
      { input: { id: 'acme corp', displayName: 'a\u0007b' } },
      api.admin,
    );
    expect(errorOf(answer)).to.deep.equal({ code: 'VALIDATION_FAILED', paths: ['id', 'displayName'] });
  });

  it('createGatewayKey shows the secret once; the database keeps only its sha256; NOTIFY reaches listeners', async () => {
    const since = notifications.length;
    const answer = await api.graphql(
      CREATE_KEY,
      {
        input: {
          tenantId: 'acme',
          name: 'chat app',
          aliases: ['chat', 'summarize'],
          expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        },
      },
      api.admin,
    );
    const created = dataOf<{ secret: string; key: KeyView }>(answer, 'createGatewayKey');
    secrets.push(created.secret);
    expect(created.secret).to.match(/^lnxk_[A-Za-z0-9_-]{43}$/);
    expect(created.key).to.deep.include({
      tenantId: 'acme',
      name: 'chat app',
      prefix: created.secret.slice(0, 13),
      aliases: ['chat', 'summarize'],
      state: 'Active',
      revokedAt: null,
      lastUsedAt: null,
    });
    const notice = await notification('gateway_keys', since);
    expect(notice.payload).to.equal('gateway_keys');

    const rows = await api.fixture.ds.query<{ key_hash: string; prefix: string }[]>(
      `SELECT key_hash, prefix FROM gateway_keys WHERE id = $1`,
      [created.key.id],
    );
    expect(rows[0]?.key_hash).to.equal(createHash('sha256').update(created.secret).digest('hex'));
    expect(rows[0]?.prefix).to.equal(created.key.prefix);

    // Listing never shows it again.
    const listed = await api.graphql(KEYS, { t: 'acme' }, viewer);
    expect(dataOf<KeyView[]>(listed, 'gatewayKeys').map((k) => k.id)).to.deep.equal([created.key.id]);
    expect(JSON.stringify(listed)).not.to.include(created.secret.slice(13));
    const tenant = dataOf<TenantView>(await api.graphql(TENANT, { id: 'acme' }, viewer), 'tenant');
    expect(tenant).to.deep.include({ keyCount: 1, activeKeyCount: 1 });

    const event = (await audit('gatewayKey.create')).at(-1);
    expect(event).to.deep.include({ decision: 'allowed', result: 'succeeded' });
    expect(event?.evidence).to.deep.include({
      tenantId: 'acme',
      keyId: created.key.id,
      prefix: created.key.prefix,
    });
    expect(event?.evidence['after']).to.deep.include({ aliases: ['chat', 'summarize'] });
  });

  for (const [name, input, code, paths] of [
    ['an unknown alias', { aliases: ['chat', 'nope'] }, 'NOT_FOUND', ['aliases.1']],
    ['an unknown tenant', { tenantId: 'nobody' }, 'NOT_FOUND', []],
    ['no aliases', { aliases: [] }, 'VALIDATION_FAILED', ['aliases']],
    ['a repeated alias', { aliases: ['chat', 'chat'] }, 'VALIDATION_FAILED', ['aliases.1']],
    ['a model@version instead of an alias', { aliases: ['demo@v1'] }, 'VALIDATION_FAILED', ['aliases.0']],
    ['an empty name', { name: '' }, 'VALIDATION_FAILED', ['name']],
    ['an expiry in the past', { expiresAt: '2020-01-01T00:00:00.000Z' }, 'VALIDATION_FAILED', ['expiresAt']],
    [
      'an expiry with an offset',
      { expiresAt: '2030-01-01T00:00:00+02:00' },
      'VALIDATION_FAILED',
      ['expiresAt'],
    ],
    [
      'an expiry beyond ten years',
      { expiresAt: '2999-01-01T00:00:00.000Z' },
      'VALIDATION_FAILED',
      ['expiresAt'],
    ],
  ] as const) {
    it(`createGatewayKey with ${name} is ${code}, audited, and stores nothing`, async () => {
      const before = await api.fixture.ds.query<{ n: string }[]>(`SELECT count(*) AS n FROM gateway_keys`);
      const refusals = (await audit('gatewayKey.create')).length;
      const answer = await api.graphql(CREATE_KEY, { input: { ...VALID_KEY_INPUT, ...input } }, api.admin);
      expect(errorOf(answer)).to.deep.equal({ code, paths: [...paths] });
      expect(answer.data?.['createGatewayKey'] ?? null).to.equal(null);
      expect(await api.fixture.ds.query(`SELECT count(*) AS n FROM gateway_keys`)).to.deep.equal(before);
      const events = await audit('gatewayKey.create');
      expect(events).to.have.length(refusals + 1);
      expect(events.at(-1)).to.deep.include({ decision: 'denied', result: 'refused' });
      expect(events.at(-1)?.evidence).to.deep.include({ errorCode: code });
    });
  }

  it('a viewer reads tenants and keys but every change is FORBIDDEN; an operator too', async () => {
    const operator = await api.operator('otto-tenancy', 'operator');
    // Whatever the tests before created (acme, beta and the capped one): readers see the admin's list.
    const all = dataOf<TenantView[]>(await api.graphql(TENANTS, {}, api.admin), 'tenants').map((t) => t.id);
    expect(all).to.include.members(['acme', 'beta']);
    for (const caller of [viewer, operator]) {
      const seen = dataOf<TenantView[]>(await api.graphql(TENANTS, {}, caller), 'tenants').map((t) => t.id);
      expect(seen).to.deep.equal(all);
      for (const [document, variables] of [
        [CREATE_TENANT, { input: { id: 'gamma' } }],
        [UPDATE_TENANT, { input: { id: 'acme', requestsPerMinute: 1 } }],
        [CREATE_KEY, { input: { tenantId: 'acme', name: 'x', aliases: ['chat'] } }],
        [REVOKE, { id: randomUUID() }],
      ] as const) {
        const answer = await api.graphql(document, variables, caller);
        expect(errorOf(answer).code, document).to.equal('FORBIDDEN');
      }
    }
    expect(dataOf(await api.graphql(TENANT, { id: 'gamma' }, viewer), 'tenant')).to.equal(null);
    expect(
      dataOf<TenantView>(await api.graphql(TENANT, { id: 'acme' }, viewer), 'tenant').quota.requestsPerMinute,
    ).to.equal(1200);
  });

  it('revokeGatewayKey revokes at once (NOTIFY), is idempotent, and hides the key unless includeRevoked', async () => {
    const created = dataOf<{ secret: string; key: KeyView }>(
      await api.graphql(
        CREATE_KEY,
        { input: { tenantId: 'beta', name: 'batch', aliases: ['chat'] } },
        api.admin,
      ),
      'createGatewayKey',
    );
    secrets.push(created.secret);
    expect(created.key.expiresAt).to.equal(null);
    const since = notifications.length;
    const revoked = dataOf<KeyView>(
      await api.graphql(REVOKE, { id: created.key.id }, api.admin),
      'revokeGatewayKey',
    );
    expect(revoked).to.deep.include({ id: created.key.id, state: 'Revoked' });
    expect(revoked.revokedBy).to.match(/^operator:/);
    await notification('gateway_keys', since);

    const again = dataOf<KeyView>(
      await api.graphql(REVOKE, { id: created.key.id }, api.admin),
      'revokeGatewayKey',
    );
    expect(again).to.deep.equal(revoked);
    const events = (await audit('gatewayKey.revoke')).filter((e) => e.evidence['keyId'] === created.key.id);
    expect(events.map((e) => [e.result, e.evidence['changed']])).to.deep.equal([
      ['succeeded', true],
      ['succeeded', false],
    ]);
    expect(events[0]?.evidence).to.deep.include({ tenantId: 'beta', prefix: created.key.prefix });
    expect((events[0]?.evidence['before'] as KeyView).revokedAt).to.equal(null);
    expect((events[0]?.evidence['after'] as KeyView).revokedAt).to.equal(revoked.revokedAt);

    expect(dataOf<KeyView[]>(await api.graphql(KEYS, { t: 'beta' }, viewer), 'gatewayKeys')).to.deep.equal(
      [],
    );
    expect(
      dataOf<KeyView[]>(await api.graphql(KEYS, { t: 'beta', r: true }, viewer), 'gatewayKeys').map(
        (k) => k.id,
      ),
    ).to.deep.equal([created.key.id]);
    expect(dataOf<TenantView>(await api.graphql(TENANT, { id: 'beta' }, viewer), 'tenant')).to.deep.include({
      keyCount: 1,
      activeKeyCount: 0,
    });

    expect(errorOf(await api.graphql(REVOKE, { id: randomUUID() }, api.admin)).code).to.equal('NOT_FOUND');
    expect(errorOf(await api.graphql(REVOKE, { id: 'not-a-uuid' }, api.admin))).to.deep.equal({
      code: 'VALIDATION_FAILED',
      paths: ['id'],
    });
    expect(errorOf(await api.graphql(KEYS, { t: 'nobody' }, viewer)).code).to.equal('NOT_FOUND');
  });

  it('no secret is anywhere in the database: not in gateway_keys, not in the audit log', async () => {
    expect(secrets).to.have.length(2);
    const dump = JSON.stringify([
      await api.fixture.ds.query(`SELECT * FROM gateway_keys`),
      await api.fixture.ds.query(`SELECT * FROM audit_events`),
    ]);
    for (const secret of secrets) {
      expect(dump).not.to.include(secret);
      // Not even the random part past the display prefix.
      expect(dump).not.to.include(secret.slice(13));
      // Nor its hash outside the key_hash column.
      const hash = createHash('sha256').update(secret).digest('hex');
      expect(JSON.stringify(await api.fixture.ds.query(`SELECT * FROM audit_events`))).not.to.include(hash);
    }
    const actions = await api.fixture.ds.query<{ action: string; n: string }[]>(
      `SELECT action, count(*) AS n FROM audit_events
        WHERE action IN ('tenant.create', 'tenant.update', 'gatewayKey.create', 'gatewayKey.revoke')
        GROUP BY action ORDER BY action`,
    );
    expect(actions.map((a) => a.action)).to.deep.equal([
      'gatewayKey.create',
      'gatewayKey.revoke',
      'tenant.create',
      'tenant.update',
    ]);
  });
});
