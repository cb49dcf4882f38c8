#!/usr/bin/env node
// Writes the console's TypeScript view of the API's committed GraphQL schema
// (apps/api/schema.gql) to console/src/app/shared/graphql/schema-types.generated.ts.
// test/console-types.spec.ts regenerates it in memory and fails when the
// committed file differs, so a schema change and its console types land together.
//
// Usage: node scripts/generate-console-types.mjs [--stdout]

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLUnionType,
  buildSchema,
} from 'graphql';
import * as prettier from 'prettier';
import { isMainModule } from './lib/main-module.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SCHEMA_FILE = path.join(ROOT, 'apps', 'api', 'schema.gql');
export const OUTPUT_FILE = path.join(
  ROOT,
  'console',
  'src',
  'app',
  'shared',
  'graphql',
  'schema-types.generated.ts',
);

// A scalar not listed here stops the generator: guessing `unknown` or `string`
// would let a new scalar reach the console untyped without anyone deciding.
const SCALARS = new Map([
  ['ID', 'string'],
  ['String', 'string'],
  ['Int', 'number'],
  ['Float', 'number'],
  ['Boolean', 'boolean'],
  ['DateTime', 'DateTimeString'],
]);

function docComment(description, deprecationReason, indent = '') {
  const lines = [];
  if (description) lines.push(...description.split('\n'));
  if (deprecationReason) lines.push(`@deprecated ${deprecationReason}`);
  if (lines.length === 0) return '';
  // A description containing `*/` would otherwise end the comment early.
  const safe = lines.map((line) => line.replaceAll('*/', '*\\/').trimEnd());
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((line) => `${indent} *${line ? ` ${line}` : ''}`).join('\n')}\n${indent} */\n`;
}

function tsType(type, nullable = true) {
  if (type instanceof GraphQLNonNull) return tsType(type.ofType, false);
  let inner;
  if (type instanceof GraphQLList) {
    const item = tsType(type.ofType);
    inner = `readonly ${item.includes('|') ? `(${item})` : item}[]`;
  } else if (type instanceof GraphQLScalarType) {
    inner = SCALARS.get(type.name);
    if (inner === undefined) {
      throw new Error(
        `scalar ${type.name} has no TypeScript mapping; add it to SCALARS in ${path.basename(fileURLToPath(import.meta.url))}`,
      );
    }
  } else {
    inner = type.name;
  }
  return nullable ? `${inner} | null` : inner;
}

function fieldsBlock(fields, isInput) {
  return fields
    .map((field) => {
      // An input value that may be null, or has a default, may also be left out.
      const optional =
        isInput && (!(field.type instanceof GraphQLNonNull) || field.defaultValue !== undefined) ? '?' : '';
      return `${docComment(field.description, field.deprecationReason, '  ')}  readonly ${field.name}${optional}: ${tsType(field.type)};`;
    })
    .join('\n');
}

function declaration(type) {
  const doc = docComment(type.description);
  if (type instanceof GraphQLEnumType) {
    const values = type.getValues().map((value) => `'${value.value}'`);
    return `${doc}export type ${type.name} = ${values.join(' | ')};`;
  }
  if (type instanceof GraphQLUnionType) {
    return `${doc}export type ${type.name} = ${type
      .getTypes()
      .map((member) => member.name)
      .join(' | ')};`;
  }
  if (
    type instanceof GraphQLObjectType ||
    type instanceof GraphQLInputObjectType ||
    type instanceof GraphQLInterfaceType
  ) {
    const interfaces = 'getInterfaces' in type ? type.getInterfaces().map((i) => i.name) : [];
    const heritage = interfaces.length > 0 ? ` extends ${interfaces.join(', ')}` : '';
    const fields = Object.values(type.getFields());
    const isInput = type instanceof GraphQLInputObjectType;
    // Arguments get their own interface (`QueryRecentPingsArgs`), the variables shape of an operation on that field.
    const args = isInput
      ? []
      : fields
          .filter((field) => field.args.length > 0)
          .map(
            (field) =>
              `export interface ${type.name}${field.name[0].toUpperCase()}${field.name.slice(1)}Args {\n${fieldsBlock(field.args, true)}\n}`,
          );
    return [
      `${doc}export interface ${type.name}${heritage} {\n${fieldsBlock(fields, isInput)}\n}`,
      ...args,
    ].join('\n\n');
  }
  if (type instanceof GraphQLScalarType) {
    return type.name === 'DateTime' ? `${doc}export type DateTimeString = string;` : null;
  }
  throw new Error(`unsupported GraphQL type ${String(type)}`);
}

/** The generated module for `sdl`, formatted with the repository's Prettier settings. */
export async function generateConsoleTypes(sdl) {
  const schema = buildSchema(sdl);
  // Sorted by name so the output depends on the schema's content, not on its printing order.
  const types = Object.values(schema.getTypeMap())
    .filter((type) => !type.name.startsWith('__'))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const type of types) {
    if (type instanceof GraphQLScalarType && !SCALARS.has(type.name)) tsType(type);
  }
  const body = types
    .map(declaration)
    .filter((text) => text !== null)
    .join('\n\n');
  const source =
    `// Generated from apps/api/schema.gql by scripts/generate-console-types.mjs; do not edit.\n` +
    `// Regenerate with \`npm run console:types\`.\n\n${body}\n`;
  const options = (await prettier.resolveConfig(OUTPUT_FILE)) ?? {};
  return prettier.format(source, { ...options, filepath: OUTPUT_FILE });
}

async function main() {
  const args = process.argv.slice(2);
  if (args.some((arg) => arg !== '--stdout')) {
    console.error('usage: node scripts/generate-console-types.mjs [--stdout]');
    return 64;
  }
  const output = await generateConsoleTypes(await readFile(SCHEMA_FILE, 'utf8'));
  if (args.includes('--stdout')) {
    process.stdout.write(output);
    return 0;
  }
  await writeFile(OUTPUT_FILE, output);
  console.log(`console types: wrote ${path.relative(ROOT, OUTPUT_FILE)}`);
  return 0;
}

if (isMainModule(import.meta.url)) process.exitCode = await main();
