import { expect } from 'chai';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { Registry } from 'prom-client';
import { generateApiToken, generateGatewayKey } from '@lunanexa/credentials';
import { createLogger } from '@lunanexa/observability';
import {
  createScratchDatabase,
  keyFingerprint,
  publishGatewayLoad,
  describeControllerKey,
  recordControllerKey,
  runMigrations,
  testAdminUrl,
  touchGatewayKeysLastUsed,
  type ScratchDatabase,
} from '@lunanexa/persistence';
import { MISS_RELOAD_INTERVAL_MS, PostgresCredentialTable, UNLIMITED } from '../src/credential-table';
import { CapturedLog } from './support';

async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<number> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

describe('the gateway credential snapshot on PostgreSQL', function () {
  this.timeout(60_000);
  let db: ScratchDatabase;
  let sql: Client;
  let table: PostgresCredentialTable;
  const log = new CapturedLog();
  const registry = new Registry();
  const acme = generateGatewayKey();
  const operatorId = randomUUID();
  const token = generateApiToken();
  const acmeKeyId = randomUUID();

  before(async () => {
    db = await createScratchDatabase('gateway_credentials', testAdminUrl());
    await runMigrations(db.url);
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    await sql.query(
      `INSERT INTO operators (id, username, password_hash, role) VALUES ($1, 'ops', $2, 'operator')`,
      [operatorId, `scrypt$16384$8$1$${'a'.repeat(22)}$${'b'.repeat(43)}`],
    );
    await sql.query(
      `INSERT INTO api_tokens (id, operator_id, name, token_hash, prefix, role) VALUES ($1, $2, 'ci', $3, $4, 'operator')`,
      [randomUUID(), operatorId, token.tokenHash, token.prefix],
    );
    await sql.query(
      `INSERT INTO tenants (id, requests_per_minute, tokens_per_minute, max_concurrent_requests, created_by, created_at, updated_by, updated_at)
       VALUES ('acme', 600, NULL, 8, 'test', now(), 'test', now())`,
    );
    await sql.query(
      `INSERT INTO gateway_keys (id, tenant_id, name, key_hash, prefix, aliases, created_by, created_at)
       VALUES ($1, 'acme', 'app', $2, $3, ARRAY['chat'], 'test', now())`,
      [acmeKeyId, acme.keyHash, acme.prefix],
    );
    // A long safety-net interval: every change below must arrive by notification.
    table = new PostgresCredentialTable({
      databaseUrl: db.url,
      logger: createLogger({ service: 'gateway', level: 'debug', destination: log }),
      refreshMs: 600_000,
      registry,
    });
    table.start();
    await until(() => table.ready(), 'the first snapshot');
  });

  after(async () => {
    await table?.close();
    await sql?.end();
    await db?.drop();
  });

  it('loads tenants with their quotas, keys by hash, operator tokens with their effective role', () => {
    expect(table.gatewayKey(acme.keyHash)).to.deep.include({
      id: acmeKeyId,
      tenantId: 'acme',
      aliases: ['chat'],
    });
    expect(table.quota('acme')).to.deep.equal({
      requestsPerMinute: 600,
      tokensPerMinute: null,
      maxConcurrentRequests: 8,
    });
    expect(table.quota('nobody')).to.equal(UNLIMITED);
    expect(table.operatorToken(token.tokenHash)).to.deep.include({ operatorId, role: 'operator' });
    expect(table.operator(operatorId)).to.deep.include({ username: 'ops', disabled: false, sessionEpoch: 0 });
  });

  it('a revoked key, a changed quota, a disabled operator and a new controller key arrive by NOTIFY within moments', async () => {
    await sql.query(`UPDATE gateway_keys SET revoked_at = now(), revoked_by = 'test' WHERE id = $1`, [
      acmeKeyId,
    ]);
    const revokedIn = await until(() => table.gatewayKey(acme.keyHash) === undefined, 'the revocation');
    await sql.query(`UPDATE tenants SET tokens_per_minute = 5000 WHERE id = 'acme'`);
    await until(() => table.quota('acme').tokensPerMinute === 5000, 'the new quota');
    await sql.query(
      `UPDATE operators SET disabled_at = now(), session_epoch = session_epoch + 1 WHERE id = $1`,
      [operatorId],
    );
    await until(() => table.operatorToken(token.tokenHash) === undefined, "the disabled owner's token");
    expect(table.operator(operatorId)?.disabled).to.equal(true);
    const controller = generateKeyPairSync('ed25519');
    const fingerprint = keyFingerprint(controller.publicKey);
    await recordControllerKey(
      { query: async (text, params) => (await sql.query(text, params)).rows as never },
      describeControllerKey(controller.publicKey),
      new Date(),
    );
    await until(() => table.controllerKey(fingerprint) !== undefined, 'the controller key');
    // One round trip, not the 10-minute safety net.
    expect(revokedIn).to.be.below(2000);
  });

  it('keeps the last snapshot while PostgreSQL refuses, and reports the failure', async () => {
    const before = table.quota('acme');
    await sql.query(`ALTER TABLE tenants RENAME TO tenants_away`);
    try {
      expect(await table.refresh()).to.equal(false);
      expect(table.quota('acme')).to.equal(before);
      expect(table.ready()).to.equal(true);
      expect(
        log.lines.some((line) => line['msg'] === 'credential reload failed; the previous snapshot applies'),
      ).to.equal(true);
    } finally {
      await sql.query(`ALTER TABLE tenants_away RENAME TO tenants`);
    }
    expect(await table.refresh()).to.equal(true);
  });

  it('last use of keys is written in one statement and does not make gateways reload', async () => {
    const reloads = async (): Promise<number> =>
      (await registry.getSingleMetric('lunanexa_gateway_credential_reloads_total')?.get())?.values[0]
        ?.value ?? 0;
    const before = await reloads();
    await touchGatewayKeysLastUsed(
      { query: async (text, params) => (await sql.query(text, params)).rows as never },
      [{ id: acmeKeyId, lastUsedAt: '2026-01-01T00:00:00.000Z' }],
    );
    const [row] = (await sql.query(`SELECT last_used_at FROM gateway_keys WHERE id = $1`, [acmeKeyId]))
      .rows as {
      last_used_at: Date;
    }[];
    expect(row?.last_used_at.toISOString()).to.equal('2026-01-01T00:00:00.000Z');
    // A change the gateway checks does notify (the previous test); a last-use batch must not.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await reloads()).to.equal(before);
  });

  it('a key whose notification has not arrived is found by one reload on its first call; unknown keys reload at most once a second', async () => {
    const reloads = async (): Promise<number> =>
      (await registry.getSingleMetric('lunanexa_gateway_credential_reloads_total')?.get())?.values[0]
        ?.value ?? 0;
    // Triggers off for this session: the insert sends no NOTIFY, as when the notification is still on its way.
    const insertSilently = async (name: string) => {
      const key = generateGatewayKey();
      await sql.query(`SET session_replication_role = replica`);
      try {
        await sql.query(
          `INSERT INTO gateway_keys (id, tenant_id, name, key_hash, prefix, aliases, created_by, created_at)
           VALUES ($1, 'acme', $2, $3, $4, ARRAY['chat'], 'test', now())`,
          [randomUUID(), name, key.keyHash, key.prefix],
        );
      } finally {
        await sql.query(`SET session_replication_role = origin`);
      }
      return key;
    };
    const fresh = await insertSilently('fresh');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(table.gatewayKey(fresh.keyHash)).to.equal(undefined);
    const before = await reloads();
    await table.reloadAfterMiss();
    expect(table.gatewayKey(fresh.keyHash)?.prefix).to.equal(fresh.prefix);
    expect(await reloads()).to.equal(before + 1);
    // A key committed just after that reload started is not in it. Its first
    // call, inside the interval, waits for the next reload rather than sharing
    // the one that missed it; a flood of unknown keys meanwhile shares that
    // same next reload.
    const second = await insertSilently('second');
    const startedMs = Date.now();
    await Promise.all([
      table.reloadAfterMiss(),
      ...Array.from({ length: 50 }, () => table.reloadAfterMiss()),
    ]);
    expect(table.gatewayKey(second.keyHash)?.prefix).to.equal(second.prefix);
    expect(await reloads()).to.equal(before + 2);
    expect(Date.now() - startedMs).to.be.within(
      MISS_RELOAD_INTERVAL_MS - 400,
      MISS_RELOAD_INTERVAL_MS + 1_500,
    );
    // Past the interval, the next miss reloads at once.
    await new Promise((resolve) => setTimeout(resolve, MISS_RELOAD_INTERVAL_MS + 50));
    const third = await insertSilently('third');
    const immediateMs = Date.now();
    await table.reloadAfterMiss();
    expect(table.gatewayKey(third.keyHash)?.prefix).to.equal(third.prefix);
    expect(Date.now() - immediateMs).to.be.below(MISS_RELOAD_INTERVAL_MS / 2);
    expect(await reloads()).to.equal(before + 3);
  });

  it('gateway load: a gateway replaces its rows in one statement; an empty publication removes them', async () => {
    const q = {
      query: async (text: string, params?: unknown[]) => (await sql.query(text, params)).rows as never,
    };
    await publishGatewayLoad(
      q,
      'gw-1:4100',
      [
        { groupKey: 'deployment:dep-a', deploymentId: 'dep-a', inFlight: 4, queued: 3, capacity: 4 },
        { groupKey: 'ref:m@1', deploymentId: 'dep-b', inFlight: 1, queued: 0, capacity: 8 },
      ],
      new Date(),
    );
    await publishGatewayLoad(
      q,
      'gw-1:4100',
      [{ groupKey: 'deployment:dep-a', deploymentId: 'dep-a', inFlight: 2, queued: 1, capacity: 4 }],
      new Date(),
    );
    const rows = (await sql.query(`SELECT group_key, queued FROM gateway_load ORDER BY group_key`)).rows;
    expect(rows).to.deep.equal([{ group_key: 'deployment:dep-a', queued: 1 }]);
    await publishGatewayLoad(q, 'gw-1:4100', [], new Date());
    expect((await sql.query(`SELECT count(*)::int AS n FROM gateway_load`)).rows[0]).to.deep.equal({ n: 0 });
  });
});
