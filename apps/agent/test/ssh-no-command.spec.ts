import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as agentProtocol from '@lunanexa/agent-protocol';
import * as contracts from '@lunanexa/contracts';
import { expect } from 'chai';
import { buildSchema, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import { z } from 'zod';

/**
 * DESIGN.md invariant 6, "no remote arbitrary shell path to a node", checked
 * on the contracts themselves: no schema the controller can send to an agent
 * and no GraphQL field or argument has a member that names a command line.
 * Runtimes are launched from `executable` + `args[]` (LaunchSpec), never from
 * a string a shell would interpret.
 */

/** Name parts that mean "a command line": command, cmd, shell, script, exec (and plurals). */
const COMMAND_WORD = /^(command|cmd|shell|script|exec)s?$/;

/** `commandLine` → command, line; `exec_args` → exec, args; `CMD` → cmd. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word !== '')
    .map((word) => word.toLowerCase());
}

export function namesACommand(name: string): boolean {
  return nameWords(name).some((word) => COMMAND_WORD.test(word));
}

/** Every object key reachable in a zod schema, with its path (zod 4 definitions). */
export function schemaKeys(schema: z.ZodType, path = '', seen = new Set<z.ZodType>()): string[] {
  if (seen.has(schema)) return [];
  seen.add(schema);
  const def = schema._zod.def as unknown as Record<string, unknown> & { type: string };
  const child = (value: unknown, at: string): string[] =>
    value instanceof z.ZodType ? schemaKeys(value, at, seen) : [];
  switch (def.type) {
    case 'object': {
      const shape = (schema as z.ZodObject).shape;
      return Object.entries(shape).flatMap(([key, value]) => {
        const at = path === '' ? key : `${path}.${key}`;
        return [at, ...child(value, at)];
      });
    }
    case 'array':
      return child(def['element'], `${path}[]`);
    case 'union':
      return (def['options'] as unknown[]).flatMap((option) => child(option, path));
    case 'intersection':
      return [...child(def['left'], path), ...child(def['right'], path)];
    case 'record':
    case 'map':
      return [...child(def['keyType'], `${path}{key}`), ...child(def['valueType'], `${path}{}`)];
    case 'set':
      return child(def['valueType'], `${path}[]`);
    case 'tuple':
      return [
        ...(def['items'] as unknown[]).flatMap((item, i) => child(item, `${path}[${i}]`)),
        ...child(def['rest'], `${path}[]`),
      ];
    case 'pipe':
      return [...child(def['in'], path), ...child(def['out'], path)];
    case 'lazy':
      return child((def['getter'] as () => unknown)(), path);
    default:
      // optional, nullable, default, readonly, catch, nonoptional, prefault, promise…
      return child(def['innerType'], path);
  }
}

function zodSchemas(module: Record<string, unknown>): [string, z.ZodType][] {
  return Object.entries(module).filter(
    (entry): entry is [string, z.ZodType] => entry[1] instanceof z.ZodType,
  );
}

describe('no schema carries a command line', () => {
  it('recognises command-line names, so the checks below can fail', () => {
    for (const name of [
      'command',
      'commandLine',
      'cmd',
      'CMD',
      'shell',
      'shellCommand',
      'script',
      'scripts',
      'exec',
      'execArgs',
      'pre_exec',
    ]) {
      expect(namesACommand(name), name).to.equal(true);
    }
    for (const name of ['executable', 'args', 'envAllowlist', 'description', 'execution', 'prescription']) {
      expect(namesACommand(name), name).to.equal(false);
    }
    const planted = z.object({
      launch: z.object({ args: z.array(z.string()), shellCommand: z.string() }).optional(),
    });
    expect(schemaKeys(planted).filter(namesACommand)).to.deep.equal(['launch.shellCommand']);
    const nested = z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('a'), steps: z.array(z.object({ cmd: z.string() })) }),
      z.object({
        kind: z.literal('b'),
        extra: z.record(z.string(), z.object({ script: z.string() }).nullable()),
      }),
    ]);
    expect(schemaKeys(nested).filter(namesACommand)).to.deep.equal(['steps[].cmd', 'extra{}.script']);
  });

  const modules = [
    ['@lunanexa/agent-protocol', agentProtocol],
    ['@lunanexa/contracts', contracts],
  ] as const;
  for (const [name, module] of modules) {
    it(`${name}: no zod schema has a key naming a command line`, () => {
      const schemas = zodSchemas(module);
      expect(schemas.length, 'schemas inspected').to.be.greaterThan(name === '@lunanexa/contracts' ? 40 : 10);
      const offending = schemas.flatMap(([schemaName, schema]) =>
        schemaKeys(schema)
          .filter((key) => key.split(/[.[\]{}]+/).some(namesACommand))
          .map((key) => `${schemaName}: ${key}`),
      );
      expect(offending).to.deep.equal([]);
    });
  }

  it('agent messages: every envelope type is inspected, down to the runtime launch spec', () => {
    const keys = Object.values(agentProtocol.ENVELOPE_SCHEMAS).flatMap((schema) => schemaKeys(schema));
    expect(keys).to.include('body.assignment.runtime.launch.args');
    expect(keys).to.include('body.assignment.runtime.launch.executable');
    expect(keys.filter((key) => key.split(/[.[\]{}]+/).some(namesACommand))).to.deep.equal([]);
  });

  it('GraphQL (apps/api/schema.gql): no field, argument or input field names a command line', () => {
    const sdl = readFileSync(join(__dirname, '..', '..', '..', 'api', 'schema.gql'), 'utf8');
    const schema = buildSchema(sdl);
    const names: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const field of Object.values(type.getFields())) {
          names.push(`${type.name}.${field.name}`);
          names.push(...field.args.map((arg) => `${type.name}.${field.name}(${arg.name})`));
        }
      } else if (isInputObjectType(type)) {
        names.push(...Object.values(type.getFields()).map((field) => `${type.name}.${field.name}`));
      }
    }
    expect(names.length, 'GraphQL members inspected').to.be.greaterThan(10);
    const offending = names.filter((name) =>
      name
        .split(/[.()]+/)
        .slice(1)
        .some(namesACommand),
    );
    expect(offending).to.deep.equal([]);
  });
});
