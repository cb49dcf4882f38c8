import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, getIntrospectionQuery, Kind, parse, print, type GraphQLSchema } from 'graphql';
import { DEFAULT_QUERY_BUDGET, judgeLexicalMeasure, judgeOperation } from '@lunanexa/domain';
import { findRepoRoot } from '@lunanexa/observability';
import {
  QueryBudgetGate,
  QueryRateLimiter,
  graphQLRequestParts,
  measureOperation,
  measureSource,
} from '../src/common/query-budget';

const root = findRepoRoot();
const schema: GraphQLSchema = buildSchema(readFileSync(join(root, 'apps/api/schema.gql'), 'utf8'));

function documentsUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? documentsUnder(join(dir, entry.name))
      : entry.name.endsWith('.graphql')
        ? [join(dir, entry.name)]
        : [],
  );
}

const measure = (query: string, variables?: Record<string, unknown>, operationName?: string) =>
  measureOperation(schema, parse(query), operationName, variables);

describe('GraphQL query budget (measuring documents against the schema)', () => {
  it('lets every committed console, CLI and SDK operation and the standard introspection query through', () => {
    const files = documentsUnder(join(root, 'libs/sdk/graphql'));
    expect(files.length).to.be.greaterThan(10);
    let operations = 0;
    let dearest = { cost: 0, name: '' };
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      expect(
        judgeLexicalMeasure(measureSource(source, DEFAULT_QUERY_BUDGET), DEFAULT_QUERY_BUDGET),
        file,
      ).to.deep.equal({
        allowed: true,
      });
      for (const definition of parse(source).definitions) {
        if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
        operations++;
        const name = definition.name?.value;
        const measured = measureOperation(schema, parse(source), name, {});
        expect(judgeOperation(measured, DEFAULT_QUERY_BUDGET), `${file} ${name}`).to.deep.equal({
          allowed: true,
        });
        // Priced by their list sizes alone, real operations stay well inside the budget.
        const expensive = /\b(auditChainStatus|controlPlaneDigest|search)\b/.test(print(definition));
        if (!expensive && measured.cost > dearest.cost) dearest = { cost: measured.cost, name: `${name}` };
      }
    }
    expect(operations).to.be.greaterThan(50);
    // The budget leaves room: the dearest (ConsoleModels, 5,060) costs at most a third of it.
    expect(dearest.cost, dearest.name).to.be.at.most(DEFAULT_QUERY_BUDGET.maxCost / 3);
    const introspection = measure(getIntrospectionQuery());
    expect(judgeOperation(introspection, DEFAULT_QUERY_BUDGET)).to.deep.equal({ allowed: true });
  });

  it('prices list fields by their size argument, from literals and from variables', () => {
    // Scalars (and lists of them) come with their row; a list of objects costs 1 per list per parent item.
    expect(measure('{ rollouts(limit: 4) { id steps } }').cost).to.equal(10);
    expect(
      measure('query($n: Int) { rollouts(limit: $n) { receipts { __typename } } }', { n: 7 }).cost,
    ).to.equal(10 + 7 * 1);
    expect(measure('{ rollouts { receipts { __typename } } }').cost).to.equal(10 + 50);
    expect(measure('{ a: auditChainStatus { valid } b: auditChainStatus(mode: FULL) { valid } }')).to.include(
      {
        cost: 1_000 + 10_000,
        aliases: 2,
        depth: 2,
      },
    );
  });

  it('counts fragments at every spread without walking them again, and survives a fragment cycle', () => {
    const levels = 40;
    const bomb =
      `query { ...f${levels} }\nfragment f0 on Query { x: health { __typename } }\n` +
      Array.from({ length: levels }, (_, i) => `fragment f${i + 1} on Query { ...f${i} ...f${i} }`).join(
        '\n',
      );
    const started = process.hrtime.bigint();
    const measured = measure(bomb);
    expect(Number(process.hrtime.bigint() - started) / 1e6).to.be.below(100);
    expect(measured.cost).to.equal(10 * 2 ** levels);
    expect(measured.aliases).to.equal(2 ** levels);
    const cycle = measure(
      '{ ...a } fragment a on Query { health { __typename } ...b } fragment b on Query { ...a }',
    );
    expect(cycle.cost).to.equal(10);
    // Depth follows fragments into the fields they select.
    expect(measure('{ rollouts { ...r } } fragment r on Rollout { id }').depth).to.equal(2);
  });

  it('bounds introspection by list nesting, not by its price', () => {
    const cyclic = measure(
      '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }',
    );
    expect(cyclic).to.include({ introspectionListNesting: 4, cost: 100, depth: 1 });
    expect(
      measure('{ __type(name: "Query") { fields { args { name } } } }').introspectionListNesting,
    ).to.equal(2);
  });

  it('counts tokens and nesting of a 100,000-deep document without recursing, and stops past the limit', () => {
    const deep = `{ ${'a { '.repeat(100_000)}b${' }'.repeat(100_000)} }`;
    expect(measureSource(deep, DEFAULT_QUERY_BUDGET)).to.deep.equal({
      tokens: DEFAULT_QUERY_BUDGET.maxTokens + 1,
      depth: 2_501,
    });
    expect(measureSource('{ a { b } }', DEFAULT_QUERY_BUDGET)).to.deep.equal({ tokens: 6, depth: 2 });
    // Not lexable: counted up to the fault; the parser reports it.
    expect(measureSource('{ a "unterminated', DEFAULT_QUERY_BUDGET)).to.deep.equal({ tokens: 2, depth: 1 });
  });

  it('reads the query, operation and variables of a GET or a POST', () => {
    expect(
      graphQLRequestParts('POST', { query: '{ a }', operationName: 'A', variables: { n: 1 } }, {}),
    ).to.deep.equal({
      query: '{ a }',
      operationName: 'A',
      variables: { n: 1 },
    });
    expect(graphQLRequestParts('GET', undefined, { query: '{ a }', variables: '{"n":2}' })).to.deep.equal({
      query: '{ a }',
      operationName: undefined,
      variables: { n: 2 },
    });
    expect(graphQLRequestParts('POST', [{ query: '{ a }' }], {})).to.equal(null);
    expect(graphQLRequestParts('POST', { query: 3 }, {})).to.equal(null);
  });

  it('the gate refuses over budget, lets an unparseable document through to Apollo, and rate-limits per caller', async () => {
    let now = 0;
    const gate = new QueryBudgetGate(
      DEFAULT_QUERY_BUDGET,
      new QueryRateLimiter({ capacity: 1_000, refillPerSecond: 100 }, 10_000, () => now),
    );
    const parts = (query: string) => ({ query, operationName: undefined, variables: undefined });
    expect(await gate.judge(schema, parts('{ nodes { name } }'), 'a')).to.equal(null);
    expect(await gate.judge(schema, parts('{ nodes { '), 'a')).to.equal(null);
    const tooDeep = await gate.judge(schema, parts(`{ ${'a { '.repeat(30)}b${' }'.repeat(30)} }`), 'a');
    expect(tooDeep?.status).to.equal(400);
    expect(tooDeep?.error.extensions).to.include({
      code: 'QUERY_TOO_COSTLY',
      limit: 'depth',
      measured: 31,
      max: 24,
    });
    // 600 twice from a bucket of 1,000: the second waits for 200 more at 100 a second.
    const dear = parts('{ rollouts(limit: 590) { receipts { __typename } } }');
    expect(await gate.judge(schema, dear, 'b')).to.equal(null);
    const limited = await gate.judge(schema, dear, 'b');
    expect(limited?.status).to.equal(429);
    expect(limited?.error.extensions).to.include({ code: 'RATE_LIMITED', retryAfterSeconds: 2, cost: 600 });
    expect(limited?.headers).to.deep.equal({ 'retry-after': '2' });
    expect(await gate.judge(schema, dear, 'c')).to.equal(null);
    now = 2_000;
    expect(await gate.judge(schema, dear, 'b')).to.equal(null);
  });

  it('the rate limiter forgets refilled callers once it tracks too many', () => {
    const limiter = new QueryRateLimiter({ capacity: 10, refillPerSecond: 10 }, 3);
    for (const caller of ['a', 'b', 'c', 'd']) expect(limiter.takeNow(caller, 10, 0).allowed).to.equal(true);
    // Four callers in debt at once: the oldest is dropped (it starts over full), the others keep theirs.
    expect(limiter.takeNow('b', 10, 0).allowed).to.equal(false);
    expect(limiter.takeNow('a', 10, 0).allowed).to.equal(true);
  });
});
