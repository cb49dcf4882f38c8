import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { buildSchema, parse, validate } from 'graphql';
import { runCli } from '../src/cli';
import { DATA_POLICY_DOCUMENTS, dataPolicyInput, parseRetention } from '../src/commands/data-policy';
import { CliError } from '../src/errors';
import { captureIo, cannedApi, graphqlRoute, sentOperations } from './support';

const API_SCHEMA = join(__dirname, '..', '..', '..', 'api', 'schema.gql');

const POLICY = {
  tenantId: 'tenant-a',
  dataClass: 'confidential',
  retentionMode: 'days',
  retentionDays: 30,
  evaluationCaptureConsent: false,
  configured: true,
  updatedBy: 'operator:root',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('lunanexa policy data', () => {
  const schema = buildSchema(readFileSync(API_SCHEMA, 'utf8'));
  for (const [name, document] of Object.entries(DATA_POLICY_DOCUMENTS)) {
    it(`${name} validates against apps/api/schema.gql`, () => {
      expect(validate(schema, parse(document)).map((error) => error.message)).to.deep.equal([]);
    });
  }

  it('reads --retention as none or a number of days, and refuses anything else as usage', () => {
    expect(parseRetention('none')).to.deep.equal({ retentionMode: 'none', retentionDays: null });
    expect(parseRetention('30')).to.deep.equal({ retentionMode: 'days', retentionDays: 30 });
    expect(parseRetention('7d')).to.deep.equal({ retentionMode: 'days', retentionDays: 7 });
    for (const bad of ['0', '3651', 'forever', '-1', '1.5'])
      expect(() => parseRetention(bad), bad).to.throw(CliError);
    expect(() => dataPolicyInput('t', { dataClass: 'secret' })).to.throw(CliError);
  });

  it('set replaces the whole policy: options left out take the default, consent only when asked for', () => {
    expect(dataPolicyInput('t', {})).to.deep.equal({
      tenantId: 't',
      dataClass: 'internal',
      retentionMode: 'none',
      retentionDays: null,
      evaluationCaptureConsent: false,
    });
    expect(
      dataPolicyInput('t', { retention: '30d', evaluationCapture: true, dataClass: 'restricted' }),
    ).to.deep.equal({
      tenantId: 't',
      dataClass: 'restricted',
      retentionMode: 'days',
      retentionDays: 30,
      evaluationCaptureConsent: true,
    });
  });

  it('set, get and list against a canned API', async () => {
    const api = await cannedApi({
      'POST /graphql': graphqlRoute({
        SetDataPolicy: (variables) => ({
          data: { setDataPolicy: { ...POLICY, ...(variables['input'] as object) } },
        }),
        DataPolicy: () => ({ data: { dataPolicy: POLICY } }),
        DataPolicies: () => ({ data: { dataPolicies: [POLICY] } }),
      }),
    });
    try {
      const set = captureIo();
      expect(
        await runCli(
          [
            '--api-url',
            api.url,
            'policy',
            'data',
            'set',
            'tenant-a',
            '--data-class',
            'confidential',
            '--retention',
            '30',
          ],
          set,
          '0.1.0',
        ),
        set.err(),
      ).to.equal(0);
      expect(set.out()).to.match(/^retention +30 days$/m);
      expect(sentOperations(api.requests)[0]).to.deep.equal({
        name: 'SetDataPolicy',
        variables: {
          input: {
            tenantId: 'tenant-a',
            dataClass: 'confidential',
            retentionMode: 'days',
            retentionDays: 30,
            evaluationCaptureConsent: false,
          },
        },
      });
      const get = captureIo();
      expect(
        await runCli(['--api-url', api.url, 'policy', 'data', 'get', 'tenant-a', '--json'], get, '0.1.0'),
      ).to.equal(0);
      expect(JSON.parse(get.out())).to.deep.equal(POLICY);
      const list = captureIo();
      expect(await runCli(['--api-url', api.url, 'policy', 'data', 'list'], list, '0.1.0')).to.equal(0);
      expect(list.out()).to.match(/^tenant-a +confidential +30 days +off +operator:root/m);
      const usage = captureIo();
      expect(
        await runCli(
          ['--api-url', api.url, 'policy', 'data', 'set', 'tenant-a', '--retention', 'forever'],
          usage,
          '0.1.0',
        ),
      ).to.equal(64);
    } finally {
      await api.close();
    }
  });
});
