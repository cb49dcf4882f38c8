import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { findRepoRoot } from './support/repo';

interface GraphqlDocumentFile {
  readonly name: string;
  readonly body: string;
}

interface Generator {
  readonly generateSdk: () => Promise<Map<string, string>>;
  readonly schemaType: (schema: unknown) => string;
  readonly generateSchemaTypes: (sdl: string) => Promise<string>;
  readonly generateOperations: (
    sdl: string,
    documents: readonly GraphqlDocumentFile[],
  ) => Promise<{ readonly operations: string; readonly schemas: string }>;
}

const repoRoot = findRepoRoot();

// A specifier held in a variable keeps this a real ESM import() in the compiled CommonJS.
async function loadGenerator(): Promise<Generator> {
  const url = pathToFileURL(path.join(repoRoot, 'scripts', 'generate-sdk.mjs')).href;
  return (await import(url)) as Generator;
}

async function failureOf(action: () => Promise<unknown>): Promise<Error> {
  try {
    await action();
  } catch (error: unknown) {
    if (error instanceof Error) return error;
    throw error;
  }
  return expect.fail('expected the generator to refuse');
}

const SDL = `
  scalar DateTime
  enum Colour { red green }
  "A thing."
  type Thing { id: ID! tags: [String!]! maybe: [Int] when: DateTime colour: Colour! parts: [Part!]! }
  type Part { name: String! weight: Float }
  input ThingInput { name: String! note: String count: Int! = 1 }
  type Query { things(first: Int!, after: String): [Thing!]! thing(id: ID!): Thing }
  type Mutation { addThing(input: ThingInput!): Thing! }
`;

describe('@lunanexa/sdk generated files', function () {
  // Formats about 14,000 generated lines with prettier: seconds on a quiet machine, far more on a loaded 2-core one.
  this.timeout(120_000);
  it('libs/sdk/openapi.json and src/generated are what schema.gql, libs/sdk/graphql and the gateway contract generate', async () => {
    // generateSdk also validates every libs/sdk/graphql document against apps/api/schema.gql and throws on the first invalid one.
    const files = await (await loadGenerator()).generateSdk();
    expect(files.size).to.equal(5);
    const stale: string[] = [];
    for (const [file, expected] of files) {
      const committed = readFileSync(file, 'utf8');
      if (committed !== expected) {
        const committedLines = committed.split('\n');
        const line = expected.split('\n').findIndex((text, i) => text !== committedLines[i]);
        stale.push(`${path.relative(repoRoot, file)} (first difference at line ${line + 1})`);
      }
    }
    if (stale.length > 0) {
      expect.fail(
        `the SDK is out of date with apps/api/schema.gql / libs/sdk/graphql / libs/contracts gateway-openapi: ${stale.join(', ')}; ` +
          'run `npm run sdk:generate` and commit the result',
      );
    }
  });

  it('maps JSON Schema objects, optional members, unions, consts, arrays and refs', async () => {
    const { schemaType } = await loadGenerator();
    const type = schemaType({
      type: 'object',
      required: ['kind', 'items'],
      properties: {
        kind: { const: 'chat' },
        items: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
        usage: { anyOf: [{ $ref: '#/components/schemas/Usage' }, { type: 'null' }] },
        role: { type: 'string', enum: ['user', 'assistant'] },
      },
      additionalProperties: false,
    });
    expect(type).to.equal(
      '{\n  readonly kind: "chat";\n  readonly items: readonly (string | number)[];\n' +
        '  readonly usage?: Usage | null;\n  readonly role?: "user" | "assistant";\n}',
    );
  });

  it('refuses a JSON Schema type it has no TypeScript type for', async () => {
    const { schemaType } = await loadGenerator();
    expect(() => schemaType({ type: 'tuple' })).to.throw(
      'JSON Schema type "tuple" has no TypeScript mapping',
    );
  });
});

describe('GraphQL schema types', () => {
  it('maps nullability, lists, enums, DateTime, inputs and arguments', async () => {
    const { generateSchemaTypes } = await loadGenerator();
    const output = await generateSchemaTypes(SDL);
    expect(output).to.match(/^\/\/ Generated from apps\/api\/schema\.gql .*do not edit\./);
    expect(output).to.include(`export type Colour = 'red' | 'green';`);
    expect(output).to.include('export type DateTimeString = string;');
    expect(output).to.include('/** A thing. */\nexport interface Thing {');
    expect(output).to.include('  readonly id: string;');
    expect(output).to.include('  readonly tags: readonly string[];');
    expect(output).to.include('  readonly maybe: readonly (number | null)[] | null;');
    expect(output).to.include('  readonly when: DateTimeString | null;');
    expect(output).to.include('  readonly name: string;\n  readonly note?: string | null;');
    expect(output).to.include('  readonly count?: number;');
    expect(output).to.include(
      'export interface QueryThingsArgs {\n  readonly first: number;\n  readonly after?: string | null;\n}',
    );
  });

  it('does not depend on the order the schema declares its types in', async () => {
    const { generateSchemaTypes } = await loadGenerator();
    const a = await generateSchemaTypes('type B { x: Int } type A { y: Int } type Query { a: A b: B }');
    const b = await generateSchemaTypes('type Query { a: A b: B } type A { y: Int } type B { x: Int }');
    expect(a).to.equal(b);
  });

  it('refuses a scalar it has no TypeScript type for', async () => {
    const { generateSchemaTypes } = await loadGenerator();
    const failure = await failureOf(() => generateSchemaTypes('scalar JSON type Query { blob: JSON }'));
    expect(failure.message).to.include('scalar JSON has no TypeScript mapping');
  });
});

describe('GraphQL operations', () => {
  const documents: GraphqlDocumentFile[] = [
    {
      name: 'things.graphql',
      body: `
        query ListThings($first: Int!, $after: String) {
          things(first: $first, after: $after) { id ...ThingParts colour when tags }
        }
        fragment ThingParts on Thing { parts { name weight } }
        mutation AddThing($input: ThingInput!) { added: addThing(input: $input) { __typename id maybe } }
        query OneThing($id: ID!) { thing(id: $id) { ...ThingFields } }
        fragment ThingFields on Thing { id tags }
      `,
    },
  ];

  it('writes one typed document per operation, with its fragments, result and variables types', async () => {
    const { generateOperations } = await loadGenerator();
    const { operations } = await generateOperations(SDL, documents);
    expect(operations).to.include(`import type * as Schema from './graphql';`);
    expect(operations).to.include(
      'export type ListThingsQuery = {\n  readonly things: readonly {\n    readonly id: string;\n' +
        '    readonly parts: readonly {\n      readonly name: string;\n      readonly weight: number | null;\n    }[];\n' +
        '    readonly colour: Schema.Colour;\n    readonly when: Schema.DateTimeString | null;\n' +
        '    readonly tags: readonly string[];\n  }[];\n};',
    );
    expect(operations).to.include(
      'export type ListThingsQueryVariables = {\n  readonly first: number;\n  readonly after?: string | null;\n};',
    );
    expect(operations).to.include(
      "export type AddThingMutation = {\n  readonly added: {\n    readonly __typename: 'Thing';\n" +
        '    readonly id: string;\n    readonly maybe: readonly (number | null)[] | null;\n  };\n};',
    );
    expect(operations).to.include(
      'export type AddThingMutationVariables = {\n  readonly input: Schema.ThingInput;\n};',
    );
    expect(operations).to.include(
      'export const ListThingsDocument: TypedDocument<ListThingsQuery, ListThingsQueryVariables> = {',
    );
    expect(operations).to.include("operationName: 'ListThings',");
    // The document sent carries the fragments it spreads.
    expect(operations).to.include('fragment ThingParts on Thing {\n  parts {');
    // A selection that is only a fragment spread is typed by the fragment's named type.
    expect(operations).to.include(
      'export type ThingFieldsFragment = {\n  readonly id: string;\n  readonly tags: readonly string[];\n};',
    );
    expect(operations).to.include(
      'export type OneThingQuery = {\n  readonly thing: ThingFieldsFragment | null;\n};',
    );
  });

  it('writes a zod schema of each result, reading enum values as plain strings', async () => {
    const { generateOperations } = await loadGenerator();
    const { schemas } = await generateOperations(SDL, documents);
    expect(schemas).to.include(`import { z } from 'zod';`);
    expect(schemas).to.include(
      'export const ListThingsQuerySchema = z.object({\n  things: z.array(\n    z.object({\n      id: z.string(),\n' +
        '      parts: z.array(\n        z.object({\n          name: z.string(),\n          weight: z.number().nullable(),\n' +
        '        }),\n      ),\n      colour: z.string(),\n      when: z.string().nullable(),\n      tags: z.array(z.string()),\n',
    );
    expect(schemas).to.include("__typename: z.literal('Thing'),");
    expect(schemas).to.include('export const ThingFieldsFragmentSchema = z.object({');
    expect(schemas).to.include('thing: ThingFieldsFragmentSchema.nullable(),');
    expect(schemas).to.include('maybe: z.array(z.number().int().nullable()).nullable(),');
  });

  it('refuses a document that is not valid against the schema, naming the file and line', async () => {
    const { generateOperations } = await loadGenerator();
    const failure = await failureOf(() =>
      generateOperations(SDL, [
        { name: 'bad.graphql', body: 'query Bad {\n  things(first: 1) { id size }\n}' },
      ]),
    );
    expect(failure.message).to.include('bad.graphql:2:');
    expect(failure.message).to.include('Cannot query field "size" on type "Thing".');
  });

  it('refuses an anonymous operation and two operations of one name', async () => {
    const { generateOperations } = await loadGenerator();
    const anonymous = await failureOf(() =>
      generateOperations(SDL, [{ name: 'a.graphql', body: 'query { thing(id: "1") { id } }' }]),
    );
    expect(anonymous.message).to.include('a.graphql: every operation needs a name');
    const twice = await failureOf(() =>
      generateOperations(SDL, [
        { name: 'a.graphql', body: 'query One { thing(id: "1") { id } }' },
        { name: 'b.graphql', body: 'query One { thing(id: "2") { id } }' },
      ]),
    );
    expect(twice.message).to.include('There can be only one operation named "One".');
  });
});
