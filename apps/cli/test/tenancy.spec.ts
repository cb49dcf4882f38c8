import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { buildSchema, parse, validate } from 'graphql';
import { runCli } from '../src/cli';
import {
  SHOWN_ONCE_WARNING,
  TENANCY_DOCUMENTS,
  createGatewayKeyInput,
  createTenantInput,
  parseExpiresIn,
  parseQuota,
  updateTenantInput,
} from '../src/commands/tenancy';
import { CliError } from '../src/errors';
import { captureIo, cannedApi, graphqlRoute, sentOperations } from './support';

const API_SCHEMA = join(__dirname, '..', '..', '..', 'api', 'schema.gql');

const TENANT = {
  id: 'acme',
  displayName: 'Acme Corp',
  quota: { requestsPerMinute: 600, tokensPerMinute: 2_000_000, maxConcurrentRequests: null },
  keyCount: 2,
  activeKeyCount: 1,
  createdBy: 'operator:root',
  createdAt: '2026-01-08T09:00:00.000Z',
  updatedBy: 'operator:root',
  updatedAt: '2026-01-08T09:30:00.000Z',
};

const KEY = {
  id: '4f1c2b9e-8d7a-4c3b-9e2f-1a0b3c4d5e6f',
  tenantId: 'acme',
  name: 'app',
  prefix: 'lnxk_Zk3_pQ9a',
  aliases: ['chat', 'summarize'],
  state: 'Active',
  createdBy: 'operator:root',
  createdAt: '2026-01-08T10:00:00.000Z',
  expiresAt: null,
  revokedAt: null,
  revokedBy: null,
  lastUsedAt: null,
};

const SECRET = `lnxk_Zk3_pQ9a${'x'.repeat(35)}`;

const cli = (url: string, ...args: string[]) => ['--api-url', url, ...args];

describe('lunanexa tenant and gateway-key', () => {
  const schema = buildSchema(readFileSync(API_SCHEMA, 'utf8'));
  for (const [name, document] of Object.entries(TENANCY_DOCUMENTS)) {
    it(`${name} validates against apps/api/schema.gql`, () => {
      expect(validate(schema, parse(document)).map((error) => error.message)).to.deep.equal([]);
    });
  }

  it('reads quotas as unlimited or a whole number within the contract bounds', () => {
    expect(parseQuota('unlimited', 'requestsPerMinute')).to.equal(null);
    expect(parseQuota('600', 'requestsPerMinute')).to.equal(600);
    expect(parseQuota('10000000000', 'tokensPerMinute')).to.equal(10_000_000_000);
    for (const [raw, field] of [
      ['0', 'requestsPerMinute'],
      ['1000001', 'requestsPerMinute'],
      ['10000000001', 'tokensPerMinute'],
      ['100001', 'maxConcurrentRequests'],
      ['1.5', 'maxConcurrentRequests'],
      ['none', 'requestsPerMinute'],
    ] as const) {
      expect(() => parseQuota(raw, field), `${field}=${raw}`).to.throw(CliError);
    }
  });

  it('create sends only the quotas given (the rest are unlimited); update sends only what changes', () => {
    expect(createTenantInput('acme', { requestsPerMinute: '600', maxConcurrent: 'unlimited' })).to.deep.equal(
      {
        id: 'acme',
        requestsPerMinute: 600,
        maxConcurrentRequests: null,
      },
    );
    expect(updateTenantInput('acme', { tokensPerMinute: 'unlimited' })).to.deep.equal({
      id: 'acme',
      tokensPerMinute: null,
    });
    expect(updateTenantInput('acme', { displayName: false })).to.deep.equal({
      id: 'acme',
      displayName: null,
    });
    expect(() => updateTenantInput('acme', {})).to.throw(CliError, /nothing to change/);
    expect(() => createTenantInput('acme corp', {})).to.throw(CliError);
  });

  it('create-key input: tenant, name and at least one distinct alias; --expires-in as a duration', () => {
    const now = new Date('2026-01-08T00:00:00.000Z');
    expect(
      createGatewayKeyInput({ tenant: 'acme', name: 'app', alias: ['chat'], expiresIn: '30d' }, now),
    ).to.deep.equal({
      tenantId: 'acme',
      name: 'app',
      aliases: ['chat'],
      expiresAt: '2026-02-07T00:00:00.000Z',
    });
    expect(parseExpiresIn('12h', now)).to.equal('2026-01-08T12:00:00.000Z');
    expect(parseExpiresIn('90m', now)).to.equal('2026-01-08T01:30:00.000Z');
    for (const bad of ['0d', '3651d', '30', 'P30D', '-1d', '1.5d']) {
      expect(() => parseExpiresIn(bad, now), bad).to.throw(CliError);
    }
    for (const options of [
      { name: 'app', alias: ['chat'] },
      { tenant: 'acme', alias: ['chat'] },
      { tenant: 'acme', name: 'app' },
      { tenant: 'acme', name: 'app', alias: ['chat', 'chat'] },
      { tenant: 'acme', name: 'app', alias: ['demo@v1'] },
    ]) {
      expect(() => createGatewayKeyInput(options, now), JSON.stringify(options)).to.throw(CliError);
    }
  });

  it('gateway-key create prints the key alone on stdout, the shown-once warning and details on stderr', async () => {
    const api = await cannedApi({
      'POST /graphql': graphqlRoute({
        CreateGatewayKey: (variables) => ({
          data: {
            createGatewayKey: { secret: SECRET, key: { ...KEY, ...(variables['input'] as object) } },
          },
        }),
      }),
    });
    try {
      const io = captureIo();
      const args = ['gateway-key', 'create', '--tenant', 'acme', '--name', 'app', '--alias', 'chat'];
      expect(await runCli(cli(api.url, ...args, '--alias', 'summarize'), io, '0.1.0'), io.err()).to.equal(0);
      expect(io.out()).to.equal(`${SECRET}\n`);
      expect(io.err()).to.include(SHOWN_ONCE_WARNING);
      expect(io.err()).to.match(/^prefix +lnxk_Zk3_pQ9a$/m);
      expect(io.err()).not.to.include(SECRET);
      expect(sentOperations(api.requests)[0]).to.deep.equal({
        name: 'CreateGatewayKey',
        variables: { input: { tenantId: 'acme', name: 'app', aliases: ['chat', 'summarize'] } },
      });

      const json = captureIo();
      expect(await runCli(cli(api.url, ...args, '--json'), json, '0.1.0')).to.equal(0);
      expect(JSON.parse(json.out())).to.deep.include({ secret: SECRET });
      expect(json.err()).to.equal(SHOWN_ONCE_WARNING);

      const usage = captureIo();
      expect(
        await runCli(
          cli(api.url, 'gateway-key', 'create', '--tenant', 'acme', '--name', 'x'),
          usage,
          '0.1.0',
        ),
      ).to.equal(64);
      expect(sentOperations(api.requests)).to.have.length(2);
    } finally {
      await api.close();
    }
  });

  it('tenant create, update, list and show against a canned API', async () => {
    const api = await cannedApi({
      'POST /graphql': graphqlRoute({
        CreateTenant: () => ({ data: { createTenant: { ...TENANT, keyCount: 0, activeKeyCount: 0 } } }),
        UpdateTenant: () => ({ data: { updateTenant: TENANT } }),
        Tenants: () => ({ data: { tenants: [TENANT] } }),
        Tenant: (variables) =>
          variables['id'] === 'acme'
            ? { data: { tenant: TENANT, gatewayKeys: [KEY] } }
            : { code: 'NOT_FOUND', message: 'no tenant nobody' },
      }),
    });
    try {
      const create = captureIo();
      expect(
        await runCli(
          cli(
            api.url,
            'tenant',
            'create',
            'acme',
            '--display-name',
            'Acme Corp',
            '--requests-per-minute',
            '600',
          ),
          create,
          '0.1.0',
        ),
        create.err(),
      ).to.equal(0);
      expect(create.out()).to.match(/^requests\/min +600$/m);
      expect(create.out()).to.match(/^max concurrent +unlimited$/m);
      const update = captureIo();
      expect(
        await runCli(
          cli(api.url, 'tenant', 'update', 'acme', '--max-concurrent', 'unlimited', '--no-display-name'),
          update,
          '0.1.0',
        ),
        update.err(),
      ).to.equal(0);
      expect(sentOperations(api.requests).map((op) => op.variables)).to.deep.equal([
        { input: { id: 'acme', displayName: 'Acme Corp', requestsPerMinute: 600 } },
        { input: { id: 'acme', maxConcurrentRequests: null, displayName: null } },
      ]);
      const list = captureIo();
      expect(await runCli(cli(api.url, 'tenant', 'list'), list, '0.1.0')).to.equal(0);
      expect(list.out()).to.match(/^acme +Acme Corp +600 +2,000,000 +unlimited +1\/2$/m);
      const show = captureIo();
      expect(await runCli(cli(api.url, 'tenant', 'show', 'acme'), show, '0.1.0')).to.equal(0);
      expect(show.out()).to.match(/^keys +1 active of 2$/m);
      expect(show.out()).to.include('lnxk_Zk3_pQ9a');
      expect(show.out()).to.include('chat,summarize');
      const missing = captureIo();
      expect(await runCli(cli(api.url, 'tenant', 'show', 'nobody'), missing, '0.1.0')).to.equal(1);
      expect(missing.err()).to.match(/error\[NOT_FOUND\]/);
      const bad = captureIo();
      expect(
        await runCli(cli(api.url, 'tenant', 'update', 'acme', '--requests-per-minute', '0'), bad, '0.1.0'),
      ).to.equal(64);
    } finally {
      await api.close();
    }
  });

  it('gateway-key list and revoke against a canned API', async () => {
    const revoked = {
      ...KEY,
      state: 'Revoked',
      revokedAt: '2026-01-10T08:00:00.000Z',
      revokedBy: 'operator:root',
    };
    const api = await cannedApi({
      'POST /graphql': graphqlRoute({
        GatewayKeys: () => ({ data: { gatewayKeys: [KEY] } }),
        RevokeGatewayKey: () => ({ data: { revokeGatewayKey: revoked } }),
      }),
    });
    try {
      const list = captureIo();
      expect(
        await runCli(
          cli(api.url, 'gateway-key', 'list', '--tenant', 'acme', '--include-revoked'),
          list,
          '0.1.0',
        ),
      ).to.equal(0);
      expect(list.out()).to.match(/lnxk_Zk3_pQ9a +app +Active +chat,summarize +never +never/);
      const revoke = captureIo();
      expect(await runCli(cli(api.url, 'gateway-key', 'revoke', KEY.id), revoke, '0.1.0')).to.equal(0);
      expect(revoke.out()).to.match(/^state +Revoked$/m);
      expect(sentOperations(api.requests).map((op) => op.variables)).to.deep.equal([
        { tenantId: 'acme', includeRevoked: true },
        { id: KEY.id },
      ]);
      const usage = captureIo();
      expect(await runCli(cli(api.url, 'gateway-key', 'revoke', 'lnxk_Zk3_pQ9a'), usage, '0.1.0')).to.equal(
        64,
      );
      expect(await runCli(cli(api.url, 'gateway-key', 'list'), captureIo(), '0.1.0')).to.equal(64);
    } finally {
      await api.close();
    }
  });
});
