import { NestFactory } from '@nestjs/core';
import { GraphQLSchemaBuilderModule, GraphQLSchemaFactory } from '@nestjs/graphql';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { AuditResolver } from './audit/audit.resolver';
import { AuthResolver } from './auth/auth.resolver';
import { HealthResolver } from './health/health.resolver';
import { DeploymentsResolver } from './deployments/deployments.resolver';
import { NodeFieldsResolver, NodesResolver } from './nodes/nodes.resolver';
import { HealingResolver } from './healing/healing.resolver';
import { ReconcileResolver } from './reconcile/reconcile.resolver';
import { LiveResolver } from './live/live.resolver';
import { RequestsResolver } from './requests/requests.resolver';
import { RolloutFieldsResolver, RolloutsResolver } from './rollouts/rollouts.resolver';
import { PrivacyResolver } from './privacy/privacy.resolver';
import { TenancyResolver } from './tenancy/tenancy.resolver';
import { SigningResolver } from './signing/signing.resolver';
import { ControllerKeysResolver } from './controller-keys/controller-keys.resolver';
import {
  ModelFieldsResolver,
  ModelVersionFieldsResolver,
  RegistryResolver,
} from './registry/registry.resolver';
import { EvaluationResolver } from './evaluations/evaluation.resolver';
import { BenchmarkRunResolver } from './benchmarks/benchmark-run.resolver';
import { SearchResolver } from './requests/search.resolver';
import { WorkflowAlertsResolver } from './requests/workflow-alerts.resolver';
import { SystemResolver } from './system/system.resolver';

/** Every resolver class of the v1 schema. The API test checks the running schema matches the committed one. */
export const GRAPHQL_RESOLVERS = [
  HealthResolver,
  SystemResolver,
  AuthResolver,
  NodesResolver,
  NodeFieldsResolver,
  DeploymentsResolver,
  HealingResolver,
  ReconcileResolver,
  LiveResolver,
  AuditResolver,
  RequestsResolver,
  SearchResolver,
  WorkflowAlertsResolver,
  RolloutsResolver,
  RolloutFieldsResolver,
  PrivacyResolver,
  TenancyResolver,
  SigningResolver,
  ControllerKeysResolver,
  RegistryResolver,
  ModelFieldsResolver,
  ModelVersionFieldsResolver,
  EvaluationResolver,
  BenchmarkRunResolver,
];

export const COMMITTED_SCHEMA_PATH = 'apps/api/schema.gql';

const HEADER = '# Generated from the code-first resolvers by `npm run schema:print`. Do not edit.\n\n';

export function formatSchemaFile(sdl: string): string {
  return `${HEADER}${sdl.trim()}\n`;
}

/** Builds the schema from the resolver classes alone (no database or Temporal needed). */
export async function buildSchemaSdl(): Promise<string> {
  const app = await NestFactory.create(GraphQLSchemaBuilderModule, { logger: false });
  await app.init();
  const schema = await app.get(GraphQLSchemaFactory).create(GRAPHQL_RESOLVERS);
  await app.close();
  return formatSchemaFile(printSchema(lexicographicSortSchema(schema)));
}
