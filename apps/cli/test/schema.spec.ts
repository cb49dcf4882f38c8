import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { buildSchema, parse, validate } from 'graphql';
import { PING_MUTATION } from '../src/commands/ping';
import { HEALTH_QUERY } from '../src/commands/status';
import { FLEET_DOCUMENTS } from '../src/fleet-api';
import { ROLLOUT_DOCUMENTS } from '../src/commands/rollouts';
import { REGISTRY_DOCUMENTS } from '../src/commands/registry';
import { HEALING_DOCUMENTS } from '../src/commands/healing';
import { SIGNING_DOCUMENTS } from '../src/commands/signing';
import { RECONCILE_DOCUMENTS } from '../src/commands/reconcile';
import { DIGEST_DOCUMENTS } from '../src/commands/digest';

/** The API commits its generated schema; the CLI's operations must stay valid against it. */
const API_SCHEMA = join(__dirname, '..', '..', '..', 'api', 'schema.gql');

describe('CLI GraphQL operations', () => {
  const schema = buildSchema(readFileSync(API_SCHEMA, 'utf8'));
  for (const [name, operation] of [
    ['health query', HEALTH_QUERY],
    ['ping mutation', PING_MUTATION],
    ...Object.entries(FLEET_DOCUMENTS).map(
      ([field, document]) => [`fleet ${field} operation`, document] as const,
    ),
    ...Object.entries(ROLLOUT_DOCUMENTS).map(
      ([field, document]) => [`rollout ${field} operation`, document] as const,
    ),
    ...Object.entries(REGISTRY_DOCUMENTS).map(
      ([field, document]) => [`registry ${field} operation`, document] as const,
    ),
    ...Object.entries(HEALING_DOCUMENTS).map(
      ([field, document]) => [`healing ${field} operation`, document] as const,
    ),
    ...Object.entries(SIGNING_DOCUMENTS).map(
      ([field, document]) => [`signing ${field} operation`, document] as const,
    ),
    ...Object.entries(RECONCILE_DOCUMENTS).map(
      ([field, document]) => [`reconcile ${field} operation`, document] as const,
    ),
    ...Object.entries(DIGEST_DOCUMENTS).map(
      ([field, document]) => [`digest ${field} operation`, document] as const,
    ),
  ]) {
    it(`${name} validates against apps/api/schema.gql`, () => {
      expect(validate(schema, parse(operation)).map((error) => error.message)).to.deep.equal([]);
    });
  }
});
