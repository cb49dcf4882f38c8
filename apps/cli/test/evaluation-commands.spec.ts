import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { buildSchema, parse, validate } from 'graphql';
import { runCli } from '../src/cli';
import { EVALUATION_DOCUMENTS, profileInputFromFile, suiteInputFromFile } from '../src/commands/evaluation';
import { ExitCode } from '../src/errors';
import { cannedApi, captureIo, graphqlRoute } from './support';

const API_SCHEMA = join(__dirname, '..', '..', '..', 'api', 'schema.gql');
const CONTRACT_FIXTURES = join(__dirname, '..', '..', '..', '..', 'libs', 'contracts', 'fixtures', 'v1');

describe('lunanexa eval', () => {
  let scratch: string;

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'lunanexa-eval-cli-'));
  });

  after(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  const schema = buildSchema(readFileSync(API_SCHEMA, 'utf8'));
  for (const [name, document] of Object.entries(EVALUATION_DOCUMENTS)) {
    it(`${name} operation validates against apps/api/schema.gql`, () => {
      expect(validate(schema, parse(document)).map((error) => error.message)).to.deep.equal([]);
    });
  }

  it('turns a suite file (the contracts fixture) into the GraphQL input: enum kinds, schema as JSON text', () => {
    const file = JSON.parse(readFileSync(join(CONTRACT_FIXTURES, 'evaluation-suite.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    const input = suiteInputFromFile(file) as { cases: { grader: Record<string, unknown> }[] };
    expect(input.cases.map((c) => c.grader['kind'])).to.deep.equal([
      'EXACT',
      'CONTAINS',
      'REGEX',
      'JSON_SCHEMA',
    ]);
    const jsonGrader = input.cases[3]?.grader ?? {};
    expect(jsonGrader).to.not.have.property('schema');
    expect(JSON.parse(jsonGrader['schemaJson'] as string)).to.deep.equal({
      properties: { answer: { type: 'number' } },
      required: ['answer'],
      type: 'object',
    });
  });

  it('flattens a profile file’s SLOs into the GraphQL input', () => {
    const file = JSON.parse(
      readFileSync(join(CONTRACT_FIXTURES, 'benchmark-profile.json'), 'utf8'),
    ) as Record<string, unknown>;
    const input = profileInputFromFile(file);
    expect(input).to.not.have.property('slo');
    expect(input).to.include({
      maxErrorRate: 0.01,
      maxTtftP95Ms: 500,
      minTokensPerSecond: 100,
      concurrency: 8,
    });
  });

  it('refuses a missing or unreadable file and missing flags as usage errors, sending nothing', async () => {
    const notJson = join(scratch, 'bad.json');
    writeFileSync(notJson, 'not json');
    for (const argv of [
      ['eval', 'suite', 'create'],
      ['eval', 'suite', 'create', '--file', join(scratch, 'missing.json')],
      ['eval', 'profile', 'create', '--file', notJson],
      ['eval', 'run', '--deployment', 'd', '--suite', 's'],
      ['eval', 'run', '--model-version', 'not-a-ref', '--deployment', 'd', '--suite', 's'],
      ['eval', 'compare', '--versions', 'a@1'],
    ]) {
      const io = captureIo();
      const code = await runCli(['--api-url', 'http://127.0.0.1:9', ...argv], io, '0.0.0-test');
      expect(code, argv.join(' ')).to.equal(ExitCode.USAGE);
      expect(io.err()).to.match(/^error\[USAGE\]/);
    }
  });

  it('compare prints the table and exits 1 when a version regressed against the baseline', async () => {
    const entry = (modelRef: string, baseline: boolean, regressed: boolean) => ({
      modelRef,
      baseline,
      passRate: 0.8,
      ttftP50Ms: 20,
      ttftP95Ms: regressed ? 160 : 25,
      ttftP99Ms: 30,
      tokensPerSecond: 900,
      errorRate: 0,
      sameSuiteAsBaseline: true,
      regressed,
      regressions: regressed
        ? [{ metric: 'ttftP95', baseline: 25, candidate: 160, reason: 'p95 TTFT 160.0 ms > 30.0 ms' }]
        : [],
      run: { id: `ev-${modelRef}` },
    });
    const answer = (regressed: boolean) => ({
      data: {
        benchmarkComparison: {
          profile: 'short-chat',
          profileDigest: `sha256:${'2'.repeat(64)}`,
          baseline: 'm@1',
          regressed,
          thresholds: {
            maxTtftP95Increase: 0.2,
            ttftSlackMs: 5,
            maxTokensPerSecondDrop: 0.2,
            maxErrorRateIncrease: 0.01,
            maxPassRateDrop: 0,
          },
          entries: [entry('m@1', true, false), entry('m@2', false, regressed)],
        },
      },
    });
    let regressed = true;
    const api = await cannedApi({
      'POST /graphql': graphqlRoute({ BenchmarkComparison: () => answer(regressed) }),
    });
    try {
      const io = captureIo();
      const code = await runCli(
        ['--api-url', api.url, 'eval', 'compare', '--profile', 'short-chat', '--versions', 'm@1,m@2'],
        io,
        '0.0.0-test',
      );
      expect(code).to.equal(ExitCode.FAILURE);
      expect(io.out()).to.contain('REGRESSED').and.to.contain('p95 TTFT 160.0 ms');
      const sent = JSON.parse(api.requests[0]?.body ?? '{}') as { variables: Record<string, unknown> };
      expect(sent.variables).to.deep.equal({ p: 'short-chat', v: ['m@1', 'm@2'], b: null });
      regressed = false;
      const clean = captureIo();
      expect(
        await runCli(
          ['--api-url', api.url, 'eval', 'compare', '--profile', 'short-chat', '--versions', 'm@1,m@2'],
          clean,
          '0.0.0-test',
        ),
      ).to.equal(ExitCode.OK);
    } finally {
      await api.close();
    }
  });
});
