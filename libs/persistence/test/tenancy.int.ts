import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Client, type Notification } from 'pg';
import type { DataSource } from 'typeorm';
import type { GatewayKey, Tenant } from '@lunanexa/contracts';
import {
  createDataSource,
  createScratchDatabase,
  existingAliasNames,
  findGatewayKey,
  findTenant,
  gatewayKeyCountsByTenant,
  insertGatewayKey,
  insertTenant,
  listGatewayKeys,
  listTenants,
  revokeGatewayKey,
  runMigrations,
  touchGatewayKeysLastUsed,
  updateTenant,
  type ScratchDatabase,
} from '../src';

const CHANNEL = 'lunanexa_gateway_credentials';

/** The PostgreSQL error code of a failed statement (TypeORM wraps the driver's error). */
async function pgErrorOf(work: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await work();
  } catch (error) {
    const failure = error as { code?: string; driverError?: { code?: string } };
    return failure.driverError?.code ?? failure.code;
  }
  return undefined;
}

function tenant(id: string, overrides: Partial<Tenant> = {}): Tenant {
  return {
    id,
    displayName: null,
    quota: { requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: null },
    maxPriority: null,
    createdBy: 'operator:root',
    createdAt: '2026-01-08T09:00:00.000Z',
    updatedBy: 'operator:root',
    updatedAt: '2026-01-08T09:00:00.000Z',
    ...overrides,
  };
}

function key(tenantId: string, overrides: Partial<GatewayKey> = {}): { key: GatewayKey; hash: string } {
  // The shape libs/credentials generateGatewayKey gives (its own tests cover the generation).
  const secret = `lnxk_${randomBytes(32).toString('base64url')}`;
  return {
    hash: createHash('sha256').update(secret).digest('hex'),
    key: {
      id: randomUUID(),
      tenantId,
      name: 'app',
      prefix: secret.slice(0, 13),
      aliases: ['chat'],
      createdBy: 'operator:root',
      createdAt: '2026-01-08T10:00:00.000Z',
      expiresAt: null,
      revokedAt: null,
      revokedBy: null,
      lastUsedAt: null,
      ...overrides,
    },
  };
}

describe('tenants and gateway keys on PostgreSQL', function () {
  this.timeout(60_000);
  let db: ScratchDatabase;
  let ds: DataSource;
  let listener: Client;
  const notifications: Notification[] = [];

  /** Notifications that arrive after `work`, once a round trip on the listener has flushed them. */
  async function notifiedBy(work: () => Promise<unknown>): Promise<string[]> {
    await listener.query('SELECT 1');
    notifications.length = 0;
    await work();
    // NOTIFY is delivered at commit; a query on the listening connection after it sees every notification sent before.
    await listener.query('SELECT 1');
    return notifications.filter((n) => n.channel === CHANNEL).map((n) => n.payload ?? '');
  }

  before(async () => {
    db = await createScratchDatabase('tenancy');
    await runMigrations(db.url);
    ds = createDataSource({ url: db.url, applicationName: 'tenancy-test' });
    await ds.initialize();
    listener = new Client({ connectionString: db.url });
    await listener.connect();
    listener.on('notification', (n) => notifications.push(n));
    await listener.query(`LISTEN ${CHANNEL}`);
    for (const name of ['chat', 'summarize']) {
      await ds.query(
        `INSERT INTO aliases (id, name, data_class, created_by, created_at, updated_at)
         VALUES ($1, $2, 'internal', 'test', now(), now())`,
        [randomUUID(), name],
      );
    }
  });

  after(async () => {
    await listener?.end();
    await ds?.destroy();
    await db?.drop();
  });

  it('inserts, finds, lists and updates tenants; quotas come back as numbers, bigint included', async () => {
    const acme = tenant('acme', {
      displayName: 'Acme Corp',
      quota: { requestsPerMinute: 600, tokensPerMinute: 10_000_000_000, maxConcurrentRequests: 32 },
    });
    expect(await notifiedBy(() => insertTenant(ds, acme))).to.deep.equal(['tenants']);
    await insertTenant(ds, tenant('beta'));
    expect(await findTenant(ds, 'acme')).to.deep.equal(acme);
    expect(await findTenant(ds, 'nobody')).to.equal(null);
    expect((await listTenants(ds)).map((t) => t.id)).to.deep.equal(['acme', 'beta']);
    const changed: Tenant = {
      ...acme,
      displayName: null,
      quota: { requestsPerMinute: null, tokensPerMinute: 5, maxConcurrentRequests: 100_000 },
      updatedBy: 'operator:alice',
      updatedAt: '2026-01-09T00:00:00.000Z',
    };
    expect(await notifiedBy(() => updateTenant(ds, changed))).to.deep.equal(['tenants']);
    expect(await findTenant(ds, 'acme')).to.deep.equal(changed);
    expect(await updateTenant(ds, tenant('nobody'))).to.equal(false);
    expect(await pgErrorOf(() => insertTenant(ds, tenant('acme')))).to.equal('23505');
  });

  it('refuses, in the database, every quota outside its bounds and ids or names out of shape', async () => {
    const bad: [string, Partial<Tenant>][] = [
      ['rpm 0', { quota: { requestsPerMinute: 0, tokensPerMinute: null, maxConcurrentRequests: null } }],
      [
        'rpm 1,000,001',
        { quota: { requestsPerMinute: 1_000_001, tokensPerMinute: null, maxConcurrentRequests: null } },
      ],
      ['tpm 0', { quota: { requestsPerMinute: null, tokensPerMinute: 0, maxConcurrentRequests: null } }],
      [
        'tpm 10,000,000,001',
        { quota: { requestsPerMinute: null, tokensPerMinute: 10_000_000_001, maxConcurrentRequests: null } },
      ],
      [
        'concurrency 0',
        { quota: { requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: 0 } },
      ],
      [
        'concurrency 100,001',
        { quota: { requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: 100_001 } },
      ],
      ['an empty display name', { displayName: '' }],
      ['a display name with a newline', { displayName: 'a\nb' }],
      ['an update before the creation', { updatedAt: '2026-01-01T00:00:00.000Z' }],
    ];
    for (const [name, overrides] of bad) {
      expect(await pgErrorOf(() => insertTenant(ds, tenant(`t-${randomUUID()}`, overrides))), name).to.equal(
        '23514',
      );
    }
    expect(await pgErrorOf(() => insertTenant(ds, tenant('acme corp')))).to.equal('23514');
    expect(await findTenant(ds, 'acme corp')).to.equal(null);
  });

  it('stores a key with its hash, never the secret, and lists, finds and revokes it once', async () => {
    const { key: created, hash } = key('acme', {
      aliases: ['chat', 'summarize'],
      expiresAt: '2026-04-08T10:00:00.000Z',
    });
    expect(await notifiedBy(() => insertGatewayKey(ds, created, hash))).to.deep.equal(['gateway_keys']);
    const stored = await ds.query<Record<string, unknown>[]>(`SELECT * FROM gateway_keys WHERE id = $1`, [
      created.id,
    ]);
    expect(stored[0]?.['key_hash']).to.equal(hash);
    expect(await findGatewayKey(ds, created.id)).to.deep.equal(created);
    expect(await findGatewayKey(ds, randomUUID())).to.equal(null);

    const older = key('acme', { createdAt: '2026-01-08T09:30:00.000Z' });
    await insertGatewayKey(ds, older.key, older.hash);
    expect(
      (await listGatewayKeys(ds, { tenantId: 'acme', includeRevoked: false })).map((k) => k.id),
    ).to.deep.equal([created.id, older.key.id]);

    const revocation = { revokedAt: '2026-01-10T08:00:00.000Z', revokedBy: 'operator:alice' };
    let revoked: GatewayKey | null = null;
    expect(
      await notifiedBy(async () => {
        revoked = await revokeGatewayKey(ds, older.key.id, revocation);
      }),
    ).to.deep.equal(['gateway_keys']);
    expect(revoked).to.deep.equal({ ...older.key, ...revocation });
    // A second revocation changes nothing: the first one's time and actor stay.
    expect(
      await revokeGatewayKey(ds, older.key.id, { revokedAt: new Date().toISOString(), revokedBy: 'x' }),
    ).to.equal(null);
    expect(await findGatewayKey(ds, older.key.id)).to.deep.include(revocation);
    expect(await revokeGatewayKey(ds, randomUUID(), revocation)).to.equal(null);

    expect(
      (await listGatewayKeys(ds, { tenantId: 'acme', includeRevoked: false })).map((k) => k.id),
    ).to.deep.equal([created.id]);
    expect(
      (await listGatewayKeys(ds, { tenantId: 'acme', includeRevoked: true })).map((k) => k.id),
    ).to.deep.equal([created.id, older.key.id]);
    const counts = await gatewayKeyCountsByTenant(ds, new Date('2026-02-01T00:00:00.000Z'));
    expect(counts.get('acme')).to.deep.equal({ total: 2, active: 1 });
    expect(counts.has('beta')).to.equal(false);
    // After its expiry the first key no longer counts as active.
    expect(
      (await gatewayKeyCountsByTenant(ds, new Date('2026-04-08T10:00:00.000Z'))).get('acme'),
    ).to.deep.equal({
      total: 2,
      active: 0,
    });
  });

  it('refuses, in the database, keys of unknown tenants, bad hashes, prefixes, names, aliases, expiries', async () => {
    const good = key('acme');
    expect(await pgErrorOf(() => insertGatewayKey(ds, key('nobody').key, good.hash))).to.equal('23503');
    expect(await pgErrorOf(() => insertGatewayKey(ds, good.key, 'A'.repeat(64)))).to.equal('23514');
    const bad: [string, Partial<GatewayKey>][] = [
      ['an API token prefix', { prefix: 'lnx_abcdefgh' }],
      ['a long prefix', { prefix: 'lnxk_abcdefghi' }],
      ['no aliases', { aliases: [] }],
      ['101 aliases', { aliases: Array.from({ length: 101 }, (_, i) => `a${i}`) }],
      ['a repeated alias', { aliases: ['chat', 'chat'] }],
      ['a model@version', { aliases: ['demo@v1'] }],
      ['an empty name', { name: '' }],
      ['a 101-character name', { name: 'n'.repeat(101) }],
      ['an expiry at creation', { expiresAt: '2026-01-08T10:00:00.000Z' }],
      ['a revocation by nobody', { revokedAt: '2026-01-09T00:00:00.000Z' }],
      ['a revoker without a revocation', { revokedBy: 'operator:root' }],
    ];
    for (const [name, overrides] of bad) {
      const candidate = key('acme', overrides);
      expect(await pgErrorOf(() => insertGatewayKey(ds, candidate.key, candidate.hash)), name).to.equal(
        '23514',
      );
    }
    const hundred = key('acme', { aliases: Array.from({ length: 100 }, (_, i) => `a${i}`) });
    await insertGatewayKey(ds, hundred.key, hundred.hash);
    expect(
      await pgErrorOf(() => insertGatewayKey(ds, { ...good.key, id: randomUUID() }, hundred.hash)),
    ).to.equal('23505');
    // PostgreSQL 18 reports an ON DELETE RESTRICT refusal as restrict_violation (23001); earlier
    // releases as foreign_key_violation (23503). Either way the tenant stays.
    expect(await pgErrorOf(() => ds.query(`DELETE FROM tenants WHERE id = 'acme'`))).to.be.oneOf([
      '23503',
      '23001',
    ]);
    expect(await ds.query(`SELECT 1 FROM tenants WHERE id = 'acme'`)).to.have.length(1);
  });

  it('touchGatewayKeysLastUsed: one statement per batch, latest time wins, never backwards, no notification', async () => {
    const a = key('beta');
    const b = key('beta');
    await insertGatewayKey(ds, a.key, a.hash);
    await insertGatewayKey(ds, b.key, b.hash);
    const t1 = new Date('2026-01-09T12:00:00.000Z');
    const t2 = new Date('2026-01-09T12:00:30.000Z');
    let touched = 0;
    expect(
      await notifiedBy(async () => {
        touched = await touchGatewayKeysLastUsed(ds, [
          { id: a.key.id, lastUsedAt: t1 },
          { id: a.key.id, lastUsedAt: t2 },
          { id: b.key.id, lastUsedAt: t1.toISOString() },
          { id: randomUUID(), lastUsedAt: t2 },
        ]);
      }),
    ).to.deep.equal([]);
    expect(touched).to.equal(2);
    expect((await findGatewayKey(ds, a.key.id))?.lastUsedAt).to.equal(t2.toISOString());
    expect((await findGatewayKey(ds, b.key.id))?.lastUsedAt).to.equal(t1.toISOString());
    // Another gateway flushing an older time afterwards does not move it back.
    expect(await touchGatewayKeysLastUsed(ds, [{ id: a.key.id, lastUsedAt: t1 }])).to.equal(0);
    expect((await findGatewayKey(ds, a.key.id))?.lastUsedAt).to.equal(t2.toISOString());
    expect(await touchGatewayKeysLastUsed(ds, [])).to.equal(0);
  });

  it('notifies once per statement, with the table name, for multi-row changes and deletes', async () => {
    expect(
      await notifiedBy(() => ds.query(`UPDATE gateway_keys SET name = name || '!' WHERE tenant_id = 'beta'`)),
    ).to.deep.equal(['gateway_keys']);
    expect(
      await notifiedBy(() => ds.query(`DELETE FROM gateway_keys WHERE tenant_id = 'beta'`)),
    ).to.deep.equal(['gateway_keys']);
    expect(await notifiedBy(() => ds.query(`DELETE FROM tenants WHERE id = 'beta'`))).to.deep.equal([
      'tenants',
    ]);
    // A change that rolls back notifies nobody.
    expect(
      await notifiedBy(() =>
        pgErrorOf(() =>
          ds.transaction(async (manager) => {
            await insertTenant(manager, tenant('rolled-back'));
            throw new Error('roll back');
          }),
        ),
      ),
    ).to.deep.equal([]);
  });

  it('existingAliasNames answers which of the names are aliases', async () => {
    expect(await existingAliasNames(ds, ['summarize', 'nope', 'chat'])).to.deep.equal(['chat', 'summarize']);
    expect(await existingAliasNames(ds, [])).to.deep.equal([]);
  });

  it('the migration goes down and up again', async () => {
    const applied = await ds.query<{ name: string }[]>(`SELECT name FROM schema_migrations ORDER BY id DESC`);
    const upTo = applied.findIndex((m) => m.name === 'TenantsAndGatewayKeys1767830400000');
    expect(upTo).to.be.at.least(0);
    // Later migrations (if any) go down first, then this one.
    for (let i = 0; i <= upTo; i++) await ds.undoLastMigration({ transaction: 'each' });
    const left = await ds.query<{ name: string }[]>(
      `SELECT relname AS name FROM pg_class WHERE relname IN ('tenants', 'gateway_keys')
       UNION ALL SELECT proname FROM pg_proc
        WHERE proname IN ('notify_gateway_credentials_changed', 'gateway_key_aliases_valid')`,
    );
    expect(left).to.deep.equal([]);
    expect(await runMigrations(db.url)).to.deep.equal(
      applied
        .slice(0, upTo + 1)
        .map((m) => m.name)
        .reverse(),
    );
  });
});
