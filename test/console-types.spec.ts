import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { findRepoRoot } from './support/repo';

interface Generator {
  readonly SCHEMA_FILE: string;
  readonly OUTPUT_FILE: string;
  readonly generateConsoleTypes: (sdl: string) => Promise<string>;
}

const repoRoot = findRepoRoot();

// A specifier held in a variable keeps this a real ESM import() in the compiled CommonJS.
async function loadGenerator(): Promise<Generator> {
  const url = pathToFileURL(path.join(repoRoot, 'scripts', 'generate-console-types.mjs')).href;
  return (await import(url)) as Generator;
}

describe('console GraphQL types', () => {
  it('the committed schema-types.generated.ts is what apps/api/schema.gql generates', async () => {
    const generator = await loadGenerator();
    const expected = await generator.generateConsoleTypes(readFileSync(generator.SCHEMA_FILE, 'utf8'));
    const committed = readFileSync(generator.OUTPUT_FILE, 'utf8');
    const relative = path.relative(repoRoot, generator.OUTPUT_FILE);
    if (committed !== expected) {
      const committedLines = committed.split('\n');
      const line = expected.split('\n').findIndex((text, i) => text !== committedLines[i]);
      expect.fail(
        `${relative} is out of date with apps/api/schema.gql (first difference at line ${line + 1}); ` +
          'run `npm run console:types` and commit the result',
      );
    }
  });

  it('maps nullability, lists, enums, DateTime, inputs and arguments', async () => {
    const { generateConsoleTypes } = await loadGenerator();
    const output = await generateConsoleTypes(`
      scalar DateTime
      enum Colour { red green }
      "A thing."
      type Thing { id: ID! tags: [String!]! maybe: [Int] when: DateTime colour: Colour! }
      input ThingInput { name: String! note: String count: Int! = 1 }
      type Query { things(first: Int!, after: String): [Thing!]! }
    `);
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
    const { generateConsoleTypes } = await loadGenerator();
    const a = await generateConsoleTypes('type B { x: Int } type A { y: Int } type Query { a: A b: B }');
    const b = await generateConsoleTypes('type Query { a: A b: B } type A { y: Int } type B { x: Int }');
    expect(a).to.equal(b);
  });

  it('refuses a scalar it has no TypeScript type for', async () => {
    const { generateConsoleTypes } = await loadGenerator();
    let failure: unknown;
    try {
      await generateConsoleTypes('scalar JSON type Query { blob: JSON }');
    } catch (error: unknown) {
      failure = error;
    }
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.include('scalar JSON has no TypeScript mapping');
  });
});
