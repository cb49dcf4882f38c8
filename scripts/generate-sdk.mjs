#!/usr/bin/env node
// Writes the generated part of @lunanexa/sdk (libs/sdk), the one GraphQL client the console,
// the CLI and the SDK share:
//   libs/sdk/openapi.json                       the gateway's OpenAPI 3.1 description (libs/contracts,
//                                               the document the gateway serves at GET /openapi.json)
//   libs/sdk/src/generated/gateway.ts           TypeScript types of its component schemas and error codes
//   libs/sdk/src/generated/graphql.ts           TypeScript types of apps/api/schema.gql
//   libs/sdk/src/generated/operations.ts        one typed document per operation in libs/sdk/graphql/**/*.graphql:
//                                               the document sent, its result and its variables types
//   libs/sdk/src/generated/operation-schemas.ts a zod schema of each operation's result, from its selection set
// Every document is validated against the schema first; an invalid one stops the generator.
// test/sdk-generated.spec.ts regenerates everything in memory and fails when a committed file
// differs, so a schema, document or contract change cannot land without the SDK regenerated.
// libs/contracts must be built first (`npm run sdk:generate` builds it).
//
// Usage: node scripts/generate-sdk.mjs [--check]

import { readFile, readdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
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
  Kind,
  Source,
  buildSchema,
  parse,
  print,
  typeFromAST,
  validate,
  visit,
} from 'graphql';
import * as prettier from 'prettier';
import { isMainModule } from './lib/main-module.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SDK = path.join(ROOT, 'libs', 'sdk');
export const SCHEMA_FILE = path.join(ROOT, 'apps', 'api', 'schema.gql');
export const DOCUMENTS_DIR = path.join(SDK, 'graphql');
export const OPENAPI_FILE = path.join(SDK, 'openapi.json');
export const GATEWAY_TYPES_FILE = path.join(SDK, 'src', 'generated', 'gateway.ts');
export const GRAPHQL_TYPES_FILE = path.join(SDK, 'src', 'generated', 'graphql.ts');
export const OPERATIONS_FILE = path.join(SDK, 'src', 'generated', 'operations.ts');
export const OPERATION_SCHEMAS_FILE = path.join(SDK, 'src', 'generated', 'operation-schemas.ts');
/** The version the committed description carries: the SDK's own, not a build's, so it is reproducible. */
const SDK_VERSION = JSON.parse(await readFile(path.join(SDK, 'package.json'), 'utf8')).version;

async function format(source, file) {
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(source, { ...options, filepath: file });
}

const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

// ---- Schema types (graphql.ts) ----

// A scalar not listed here stops the generator: guessing `unknown` or `string`
// would let a new scalar reach the clients untyped without anyone deciding.
const SCALARS = new Map([
  ['ID', 'string'],
  ['String', 'string'],
  ['Int', 'number'],
  ['Float', 'number'],
  ['Boolean', 'boolean'],
  ['DateTime', 'DateTimeString'],
]);

function scalarType(type) {
  const mapped = SCALARS.get(type.name);
  if (mapped === undefined) {
    throw new Error(
      `scalar ${type.name} has no TypeScript mapping; add it to SCALARS in ${path.basename(fileURLToPath(import.meta.url))}`,
    );
  }
  return mapped;
}

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

const listOf = (item) => `readonly ${item.includes('|') ? `(${item})` : item}[]`;

/** A schema type as TypeScript; `prefix` qualifies named types declared in graphql.ts. */
function tsType(type, nullable = true, prefix = '') {
  if (type instanceof GraphQLNonNull) return tsType(type.ofType, false, prefix);
  let inner;
  if (type instanceof GraphQLList) inner = listOf(tsType(type.ofType, true, prefix));
  else if (type instanceof GraphQLScalarType) {
    inner = scalarType(type);
    if (inner === 'DateTimeString') inner = `${prefix}${inner}`;
  } else inner = `${prefix}${type.name}`;
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

/** The schema types module for `sdl`, formatted with the repository's Prettier settings. */
export async function generateSchemaTypes(sdl) {
  const schema = buildSchema(sdl);
  // Sorted by name so the output depends on the schema's content, not on its printing order.
  const types = Object.values(schema.getTypeMap())
    .filter((type) => !type.name.startsWith('__'))
    .sort(byName);
  for (const type of types) {
    if (type instanceof GraphQLScalarType) scalarType(type);
  }
  const body = types
    .map(declaration)
    .filter((text) => text !== null)
    .join('\n\n');
  const source =
    `// Generated from apps/api/schema.gql by scripts/generate-sdk.mjs; do not edit.\n` +
    `// Regenerate with \`npm run sdk:generate\`.\n\n${body}\n`;
  return format(source, GRAPHQL_TYPES_FILE);
}

// ---- Operations (operations.ts, operation-schemas.ts) ----

/** Every `.graphql` file under `dir`, sorted by path, as `{ name, body }` (name relative to the repository). */
export async function readDocuments(dir = DOCUMENTS_DIR) {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const files = entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.graphql'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
  return Promise.all(
    files.map(async (file) => ({
      name: path.relative(ROOT, file).split(path.sep).join('/'),
      body: await readFile(file, 'utf8'),
    })),
  );
}

function located(error) {
  const where = error.locations?.[0];
  const source = error.source?.name;
  return source && where ? `${source}:${where.line}:${where.column}: ${error.message}` : error.message;
}

/**
 * The operations and fragments of `documents`, parsed and validated against `schema` as one
 * document, so operation and fragment names are unique across all files.
 */
function parseDocuments(schema, documents) {
  const definitions = [];
  for (const { name, body } of documents) {
    let parsed;
    try {
      parsed = parse(new Source(body, name));
    } catch (error) {
      throw new Error(`invalid GraphQL document: ${located(error)}`);
    }
    definitions.push(...parsed.definitions);
  }
  const document = { kind: Kind.DOCUMENT, definitions };
  const errors = validate(schema, document);
  if (errors.length > 0) {
    throw new Error(
      `GraphQL documents invalid against apps/api/schema.gql:\n${errors.map((e) => `  ${located(e)}`).join('\n')}`,
    );
  }
  const operations = [];
  const fragments = new Map();
  for (const definition of definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    else if (definition.kind === Kind.OPERATION_DEFINITION) {
      if (!definition.name) {
        throw new Error(
          `${definition.loc?.source.name}: every operation needs a name (the API's logs and traces show it)`,
        );
      }
      operations.push(definition);
    } else {
      throw new Error(`${definition.loc?.source.name}: only operations and fragments belong in a document`);
    }
  }
  return { operations, fragments };
}

/** The fragments `node` uses, directly or through other fragments, in first-use order. */
function usedFragments(node, fragments, seen = new Set()) {
  visit(node, {
    FragmentSpread(spread) {
      const name = spread.name.value;
      if (seen.has(name)) return;
      seen.add(name);
      usedFragments(fragments.get(name), fragments, seen);
    },
  });
  return [...seen].map((name) => fragments.get(name));
}

/** Every fragment after the fragments it spreads, so each generated schema constant is declared before its use. */
function dependencyOrder(fragments) {
  const ordered = new Map();
  const add = (fragment) => {
    if (ordered.has(fragment.name.value)) return;
    for (const used of usedFragments(fragment.selectionSet, fragments)) add(used);
    ordered.set(fragment.name.value, fragment);
  };
  for (const fragment of fragments.values()) add(fragment);
  return [...ordered.values()];
}

/**
 * The fields a selection set selects on `parent`, merged by response key (fragment spreads and
 * inline fragments on the same type are flattened). Conditional selections (@include/@skip,
 * fragments on a narrower type) would make the result's shape depend on the data, which these
 * generated types do not model, so they stop the generator.
 */
function collectFields(parent, selectionSet, fragments, fields = new Map()) {
  for (const selection of selectionSet.selections) {
    if (selection.directives?.length) {
      throw new Error(`directives on selections are not supported (on ${parent.name})`);
    }
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      const known = fields.get(key);
      if (known) {
        if (selection.selectionSet) known.selectionSets.push(selection.selectionSet);
      } else {
        fields.set(key, {
          name: selection.name.value,
          selectionSets: selection.selectionSet ? [selection.selectionSet] : [],
        });
      }
      continue;
    }
    const fragment =
      selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : selection;
    const condition = fragment.typeCondition?.name.value;
    if (condition !== undefined && condition !== parent.name) {
      throw new Error(`a fragment on ${condition} inside ${parent.name} is not supported`);
    }
    collectFields(parent, fragment.selectionSet, fragments, fields);
  }
  return fields;
}

/**
 * The shape an operation's data has: `typeOf` renders it as TypeScript (`ts`) or as a zod
 * schema (`zod`). Enum values are read as plain strings by the zod schemas: the contract lets a
 * newer API add values, and an older client should show them rather than refuse the answer.
 */
function shapeWriter(fragments, mode) {
  const typeOf = (type, selectionSets, nullable = true) => {
    if (type instanceof GraphQLNonNull) return typeOf(type.ofType, selectionSets, false);
    let inner;
    if (type instanceof GraphQLList) {
      const item = typeOf(type.ofType, selectionSets);
      inner = mode === 'ts' ? listOf(item) : `z.array(${item})`;
    } else if (type instanceof GraphQLScalarType) {
      const ts = scalarType(type);
      if (mode === 'ts') inner = ts === 'DateTimeString' ? `Schema.${ts}` : ts;
      else if (type.name === 'Int') inner = 'z.number().int()';
      else inner = `z.${ts === 'DateTimeString' ? 'string' : ts}()`;
    } else if (type instanceof GraphQLEnumType) {
      inner = mode === 'ts' ? `Schema.${type.name}` : 'z.string()';
    } else if (type instanceof GraphQLObjectType || type instanceof GraphQLInterfaceType) {
      inner = objectOf(type, selectionSets);
    } else {
      throw new Error(`selections on ${type.name} (${type.constructor.name}) are not supported`);
    }
    if (!nullable) return inner;
    return mode === 'ts' ? `${inner} | null` : `${inner}.nullable()`;
  };
  const objectOf = (parent, selectionSets) => {
    // A selection that is only a fragment spread on the same type reads as the fragment's named shape.
    const only = selectionSets.length === 1 ? selectionSets[0].selections : [];
    if (only.length === 1 && only[0].kind === Kind.FRAGMENT_SPREAD && !only[0].directives?.length) {
      const fragment = fragments.get(only[0].name.value);
      if (fragment.typeCondition.name.value === parent.name) {
        return mode === 'ts' ? `${fragment.name.value}Fragment` : `${fragment.name.value}FragmentSchema`;
      }
    }
    const fields = new Map();
    for (const selectionSet of selectionSets) collectFields(parent, selectionSet, fragments, fields);
    const members = [...fields].map(([key, { name, selectionSets: nested }]) => {
      if (name === '__typename') {
        return mode === 'ts' ? `readonly ${key}: '${parent.name}';` : `${key}: z.literal('${parent.name}'),`;
      }
      const field = parent.getFields()[name];
      const type = typeOf(field.type, nested);
      return mode === 'ts' ? `readonly ${key}: ${type};` : `${key}: ${type},`;
    });
    return mode === 'ts' ? `{\n${members.join('\n')}\n}` : `z.object({\n${members.join('\n')}\n})`;
  };
  return { typeOf, objectOf };
}

/** The TypeScript type of a variable: input objects and enums come from graphql.ts. */
function variablesType(schema, operation) {
  const variables = operation.variableDefinitions ?? [];
  if (variables.length === 0) return 'Record<string, never>';
  const members = variables.map((definition) => {
    const type = typeFromAST(schema, definition.type);
    const optional = !(type instanceof GraphQLNonNull) || definition.defaultValue !== undefined;
    return `readonly ${definition.variable.name.value}${optional ? '?' : ''}: ${tsType(type, true, 'Schema.')};`;
  });
  return `{\n${members.join('\n')}\n}`;
}

/** `text` as a TypeScript template literal, so the committed document reads as GraphQL. */
const templateLiteral = (text) =>
  `\`${text.replaceAll('\\', '\\\\').replaceAll('`', '\\`').replaceAll('${', '\\${')}\``;

const SUFFIX = { query: 'Query', mutation: 'Mutation', subscription: 'Subscription' };

/** The operations module and the operation schemas module for `documents` (`{ name, body }[]`). */
export async function generateOperations(sdl, documents) {
  const schema = buildSchema(sdl);
  const { operations, fragments } = parseDocuments(schema, documents);
  const ts = shapeWriter(fragments, 'ts');
  const zod = shapeWriter(fragments, 'zod');
  const typed = [];
  const schemas = [];
  for (const fragment of dependencyOrder(fragments)) {
    const name = fragment.name.value;
    const type = schema.getType(fragment.typeCondition.name.value);
    const from = `/** Fragment from ${fragment.loc.source.name}. */\n`;
    typed.push(`${from}export type ${name}Fragment = ${ts.objectOf(type, [fragment.selectionSet])};`);
    schemas.push(
      `${from}export const ${name}FragmentSchema = ${zod.objectOf(type, [fragment.selectionSet])};`,
    );
  }
  for (const operation of operations) {
    const name = operation.name.value;
    const root = schema.getRootType(operation.operation);
    const result = `${name}${SUFFIX[operation.operation]}`;
    const text = [operation, ...usedFragments(operation, fragments)].map((node) => print(node)).join('\n\n');
    const from = `/** From ${operation.loc.source.name}. */\n`;
    typed.push(
      `${from}export type ${result} = ${ts.objectOf(root, [operation.selectionSet])};`,
      `export type ${result}Variables = ${variablesType(schema, operation)};`,
      `export const ${name}Document: TypedDocument<${result}, ${result}Variables> = {\n` +
        `operationName: ${JSON.stringify(name)},\ndocument: ${templateLiteral(text)},\n};`,
    );
    schemas.push(`${from}export const ${result}Schema = ${zod.objectOf(root, [operation.selectionSet])};`);
  }
  const header = (what) =>
    `// Generated from libs/sdk/graphql/**/*.graphql and apps/api/schema.gql by scripts/generate-sdk.mjs; do not edit.\n` +
    `// Regenerate with \`npm run sdk:generate\`. ${what}\n\n`;
  const operationsSource =
    header('No runtime imports: the console bundles this file.') +
    `import type * as Schema from './graphql';\n\n` +
    `/**\n * A GraphQL document that carries its result and variables types, the same idea as\n` +
    ` * graphql-codegen's \`TypedDocumentNode\`: a client's return type follows from the document\n` +
    ` * passed in. The phantom \`types\` member exists only in the type system.\n */\n` +
    `export interface TypedDocument<TResult, TVariables> {\n` +
    `readonly operationName: string;\nreadonly document: string;\n` +
    `readonly types?: { readonly data: TResult; readonly variables: TVariables };\n}\n\n` +
    `${typed.join('\n\n')}\n`;
  const schemasSource =
    header('zod schemas of the operations in operations.ts.') +
    `import { z } from 'zod';\n\n${schemas.join('\n\n')}\n`;
  return {
    operations: await format(operationsSource, OPERATIONS_FILE),
    schemas: await format(schemasSource, OPERATION_SCHEMAS_FILE),
  };
}

/** The gateway's OpenAPI document, from the built libs/contracts. */
export function loadOpenApiDocument() {
  const require = createRequire(import.meta.url);
  const contracts = require(path.join(ROOT, 'libs', 'contracts', 'dist', 'src', 'gateway-openapi.js'));
  const errors = require(path.join(ROOT, 'libs', 'contracts', 'dist', 'src', 'errors.js'));
  return {
    document: contracts.gatewayOpenApiDocument(SDK_VERSION),
    errorCodes: [...contracts.GATEWAY_ERROR_CODES],
    statusByCode: errors.HTTP_STATUS_BY_CODE,
  };
}

const key = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name));

/** A JSON Schema (2020-12, the subset zod emits) as a TypeScript type. */
export function schemaType(schema, indent = '') {
  if (schema === true || schema === undefined || Object.keys(schema).length === 0) return 'unknown';
  if (schema.$ref) return schema.$ref.split('/').pop();
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((member) => wrap(schemaType(member, indent))).join(' | ');
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types
    .map((type) => {
      switch (type) {
        case 'string':
          return 'string';
        case 'integer':
        case 'number':
          return 'number';
        case 'boolean':
          return 'boolean';
        case 'null':
          return 'null';
        case 'array':
          return `readonly ${wrap(schemaType(schema.items, indent))}[]`;
        case 'object':
          return objectType(schema, indent);
        default:
          throw new Error(`JSON Schema type ${JSON.stringify(type)} has no TypeScript mapping`);
      }
    })
    .join(' | ');
}

const wrap = (type) => (/[|&]/.test(type) && !type.startsWith('{') ? `(${type})` : type);

function objectType(schema, indent) {
  const required = new Set(schema.required ?? []);
  const inner = `${indent}  `;
  const lines = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const doc = property.description
      ? `${inner}/** ${property.description.replaceAll('*/', '*\\/')} */\n`
      : '';
    return `${doc}${inner}readonly ${key(name)}${required.has(name) ? '' : '?'}: ${schemaType(property, inner)};`;
  });
  const extra = schema.additionalProperties;
  if (extra && extra !== false) lines.push(`${inner}readonly [key: string]: ${schemaType(extra, inner)};`);
  return lines.length === 0 ? 'Record<string, never>' : `{\n${lines.join('\n')}\n${indent}}`;
}

/** The gateway types module for an OpenAPI document and the codes its /v1 calls can be refused with. */
export async function generateGatewayTypes({ document, errorCodes, statusByCode }) {
  const schemas = document.components.schemas;
  const declarations = Object.keys(schemas)
    .sort()
    .map((name) => `export type ${name} = ${schemaType(schemas[name])};`);
  const operations = Object.entries(document.paths).flatMap(([route, methods]) =>
    Object.keys(methods).map((method) => `${JSON.stringify(`${method.toUpperCase()} ${route}`)}`),
  );
  const source = [
    '// Generated from libs/sdk/openapi.json (libs/contracts gateway-openapi) by scripts/generate-sdk.mjs; do not edit.',
    '// Regenerate with `npm run sdk:generate`.',
    '',
    `/** OpenAPI version of the description these types come from. */`,
    `export const GATEWAY_OPENAPI_INFO_VERSION = ${JSON.stringify(document.info.version)};`,
    '',
    '/** Every operation the gateway describes. */',
    `export const GATEWAY_OPERATIONS = [${operations.join(', ')}] as const;`,
    'export type GatewayOperation = (typeof GATEWAY_OPERATIONS)[number];',
    '',
    '/** The codes a /v1 call can be refused with, and the HTTP status of each. */',
    `export const GATEWAY_ERROR_STATUS = {${errorCodes.map((code) => `${key(code)}: ${statusByCode[code]}`).join(', ')}} as const;`,
    'export type GatewayErrorCode = keyof typeof GATEWAY_ERROR_STATUS;',
    '',
    ...declarations.flatMap((text) => [text, '']),
  ].join('\n');
  return format(source, GATEWAY_TYPES_FILE);
}

/** Every generated file and its expected content. */
export async function generateSdk() {
  const openapi = loadOpenApiDocument();
  const sdl = await readFile(SCHEMA_FILE, 'utf8');
  const { operations, schemas } = await generateOperations(sdl, await readDocuments());
  return new Map([
    [OPENAPI_FILE, await format(JSON.stringify(openapi.document), OPENAPI_FILE)],
    [GATEWAY_TYPES_FILE, await generateGatewayTypes(openapi)],
    [GRAPHQL_TYPES_FILE, await generateSchemaTypes(sdl)],
    [OPERATIONS_FILE, operations],
    [OPERATION_SCHEMAS_FILE, schemas],
  ]);
}

async function main() {
  const args = process.argv.slice(2);
  if (args.some((arg) => arg !== '--check')) {
    console.error('usage: node scripts/generate-sdk.mjs [--check]');
    return 64;
  }
  const files = await generateSdk();
  let stale = 0;
  for (const [file, content] of files) {
    const relative = path.relative(ROOT, file);
    if (args.includes('--check')) {
      const committed = await readFile(file, 'utf8').catch(() => '');
      if (committed !== content) {
        stale += 1;
        console.error(`sdk: ${relative} is out of date`);
      }
    } else {
      await writeFile(file, content);
      console.log(`sdk: wrote ${relative}`);
    }
  }
  return stale === 0 ? 0 : 1;
}

if (isMainModule(import.meta.url)) process.exitCode = await main();
