import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSchema, parse, validate } from 'graphql';
import { OPERATOR_OPERATIONS } from '@lunanexa/sdk';
import { findRepoRoot } from './support/repo';

interface Generator {
  readonly generateSdk: () => Promise<Map<string, string>>;
  readonly schemaType: (schema: unknown) => string;
}

const repoRoot = findRepoRoot();

// A specifier held in a variable keeps this a real ESM import() in the compiled CommonJS.
async function loadGenerator(): Promise<Generator> {
  const url = pathToFileURL(path.join(repoRoot, 'scripts', 'generate-sdk.mjs')).href;
  return (await import(url)) as Generator;
}

describe('@lunanexa/sdk generated files', () => {
  it('libs/sdk/openapi.json and src/generated are what schema.gql and the gateway contract generate', async () => {
    const files = await (await loadGenerator()).generateSdk();
    expect(files.size).to.equal(3);
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
        `the SDK is out of date with apps/api/schema.gql / libs/contracts gateway-openapi: ${stale.join(', ')}; ` +
          'run `npm run sdk:generate` and commit the result',
      );
    }
  });

  it('every operator operation the SDK sends is valid against apps/api/schema.gql', () => {
    const schema = buildSchema(readFileSync(path.join(repoRoot, 'apps', 'api', 'schema.gql'), 'utf8'));
    for (const [name, query] of Object.entries(OPERATOR_OPERATIONS)) {
      const errors = validate(schema, parse(query));
      expect(
        errors.map((e) => e.message),
        name,
      ).to.deep.equal([]);
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
