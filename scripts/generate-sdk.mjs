#!/usr/bin/env node
// Writes the generated part of @lunanexa/sdk (libs/sdk):
//   libs/sdk/openapi.json                 the gateway's OpenAPI 3.1 description (libs/contracts,
//                                         the document the gateway serves at GET /openapi.json)
//   libs/sdk/src/generated/gateway.ts     TypeScript types of its component schemas and error codes
//   libs/sdk/src/generated/graphql.ts     TypeScript types of apps/api/schema.gql (the console's generator)
// test/sdk-generated.spec.ts regenerates all three in memory and fails when a committed file
// differs, so a schema or contract change cannot land without the SDK regenerated.
// libs/contracts must be built first (`npm run sdk:generate` builds it).
//
// Usage: node scripts/generate-sdk.mjs [--check]

import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { generateConsoleTypes, SCHEMA_FILE } from './generate-console-types.mjs';
import { isMainModule } from './lib/main-module.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SDK = path.join(ROOT, 'libs', 'sdk');
export const OPENAPI_FILE = path.join(SDK, 'openapi.json');
export const GATEWAY_TYPES_FILE = path.join(SDK, 'src', 'generated', 'gateway.ts');
export const GRAPHQL_TYPES_FILE = path.join(SDK, 'src', 'generated', 'graphql.ts');
/** The version the committed description carries: the SDK's own, not a build's, so it is reproducible. */
const SDK_VERSION = JSON.parse(await readFile(path.join(SDK, 'package.json'), 'utf8')).version;

async function format(source, file) {
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(source, { ...options, filepath: file });
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

/** The GraphQL types module: the console generator's output under the SDK's own header. */
export async function generateGraphqlTypes(sdl) {
  const console = await generateConsoleTypes(sdl);
  const body = console.split('\n').slice(2).join('\n');
  const source =
    '// Generated from apps/api/schema.gql by scripts/generate-sdk.mjs (the console generator); do not edit.\n' +
    '// Regenerate with `npm run sdk:generate`.\n' +
    body;
  return format(source, GRAPHQL_TYPES_FILE);
}

/** Every generated file and its expected content. */
export async function generateSdk() {
  const openapi = loadOpenApiDocument();
  return new Map([
    [OPENAPI_FILE, await format(JSON.stringify(openapi.document), OPENAPI_FILE)],
    [GATEWAY_TYPES_FILE, await generateGatewayTypes(openapi)],
    [GRAPHQL_TYPES_FILE, await generateGraphqlTypes(await readFile(SCHEMA_FILE, 'utf8'))],
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
