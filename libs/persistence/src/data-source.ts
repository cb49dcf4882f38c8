import { DataSource } from 'typeorm';
import { ApiTokenEntity } from './entities/api-token.entity';
import { AuditEventEntity } from './entities/audit-event.entity';
import { OperatorEntity } from './entities/operator.entity';
import { PingRecordEntity } from './entities/ping-record.entity';
import { Initial1764669600000 } from './migrations/1764669600000-initial';
import { OperatorsAndApiTokens1765584000000 } from './migrations/1765584000000-operators-and-api-tokens';
import { NodesAndDeployments1767312000000 } from './migrations/1767312000000-nodes-and-deployments';
import { RequestRecords1767398400000 } from './migrations/1767398400000-request-records';
import { RegistryAndRollouts1767484800000 } from './migrations/1767484800000-registry-and-rollouts';
import { Evaluations1767571200000 } from './migrations/1767571200000-evaluations';
import { DataPoliciesAndPayloadCaptures1767657600000 } from './migrations/1767657600000-data-policies-and-payload-captures';
import { DeploymentPlacement1767744000000 } from './migrations/1767744000000-deployment-placement';
import { TenantsAndGatewayKeys1767830400000 } from './migrations/1767830400000-tenants-and-gateway-keys';
import { GatewayCallersAndLoad1767916800000 } from './migrations/1767916800000-gateway-callers-and-load';
import { DeploymentPlacementStrategy1768003200000 } from './migrations/1768003200000-deployment-placement-strategy';
import { ReplicaHealth1768096800000 } from './migrations/1768096800000-replica-health';
import { AuditChainAtCommit1768150000000 } from './migrations/1768150000000-audit-chain-at-commit';
import { TrustedSigningKeys1768300000000 } from './migrations/1768300000000-trusted-signing-keys';
import { NodeAgentProtocol1768400000000 } from './migrations/1768400000000-node-agent-protocol';
import { NodeGpuTelemetry1768500000000 } from './migrations/1768500000000-node-gpu-telemetry';
import { AssignmentRuntimeLoad1768520000000 } from './migrations/1768520000000-assignment-runtime-load';
import { NodeConditions1768540000000 } from './migrations/1768540000000-node-conditions';
import { GpuSamples1768560000000 } from './migrations/1768560000000-gpu-samples';
import { SignInThrottle1768700000000 } from './migrations/1768700000000-sign-in-throttle';
import { BenchmarkRuns1768810000000 } from './migrations/1768810000000-benchmark-runs';
import { AuditChainCheckpoints1768900000000 } from './migrations/1768900000000-audit-chain-checkpoints';
import { ControllerKeyRing1769100000000 } from './migrations/1769100000000-controller-key-ring';
import { NodesFillfactor1769200000000 } from './migrations/1769200000000-nodes-fillfactor';
import { RoutingAndFairness1768950000000 } from './migrations/1768950000000-routing-and-fairness';
import { GraphqlRateBuckets1769000000000 } from './migrations/1769000000000-graphql-rate-buckets';

export const ENTITIES = [PingRecordEntity, AuditEventEntity, OperatorEntity, ApiTokenEntity];
/** In order. A migration is never edited once committed; add a new one. */
export const MIGRATIONS = [
  Initial1764669600000,
  OperatorsAndApiTokens1765584000000,
  NodesAndDeployments1767312000000,
  RequestRecords1767398400000,
  RegistryAndRollouts1767484800000,
  Evaluations1767571200000,
  DataPoliciesAndPayloadCaptures1767657600000,
  DeploymentPlacement1767744000000,
  TenantsAndGatewayKeys1767830400000,
  GatewayCallersAndLoad1767916800000,
  DeploymentPlacementStrategy1768003200000,
  ReplicaHealth1768096800000,
  AuditChainAtCommit1768150000000,
  TrustedSigningKeys1768300000000,
  NodeAgentProtocol1768400000000,
  NodeGpuTelemetry1768500000000,
  AssignmentRuntimeLoad1768520000000,
  NodeConditions1768540000000,
  GpuSamples1768560000000,
  SignInThrottle1768700000000,
  BenchmarkRuns1768810000000,
  AuditChainCheckpoints1768900000000,
  RoutingAndFairness1768950000000,
  GraphqlRateBuckets1769000000000,
  ControllerKeyRing1769100000000,
  NodesFillfactor1769200000000,
];

export interface DataSourceSettings {
  readonly url: string;
  readonly applicationName: string;
  readonly poolSize?: number;
}

/** Schema changes only ever come from MIGRATIONS (`synchronize: false`). */
export function createDataSource(settings: DataSourceSettings): DataSource {
  return new DataSource({
    type: 'postgres',
    url: settings.url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    migrationsTableName: 'schema_migrations',
    logging: false,
    applicationName: settings.applicationName,
    extra: { max: settings.poolSize ?? 10, connectionTimeoutMillis: 5000 },
  });
}

/** Applies pending migrations in one transaction each; returns their names. */
export async function runMigrations(url: string): Promise<string[]> {
  const ds = createDataSource({ url, applicationName: 'lunanexa-migrate', poolSize: 2 });
  await ds.initialize();
  try {
    const applied = await ds.runMigrations({ transaction: 'each' });
    return applied.map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}

/** Names of the applied migrations, oldest first. */
export async function appliedMigrations(url: string): Promise<string[]> {
  const ds = createDataSource({ url, applicationName: 'lunanexa-migrate', poolSize: 1 });
  await ds.initialize();
  try {
    return await appliedMigrationNames(ds);
  } finally {
    await ds.destroy();
  }
}

async function appliedMigrationNames(ds: DataSource): Promise<string[]> {
  const present = await ds.query<{ exists: boolean }[]>(
    `SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`,
  );
  if (!present[0]?.exists) return [];
  const rows = await ds.query<{ name: string }[]>(
    'SELECT name FROM schema_migrations ORDER BY timestamp, id',
  );
  return rows.map((row) => row.name);
}

/**
 * Runs the `down` of every applied migration newer than `target`, newest
 * first, one transaction each, so the schema is what the release whose last
 * migration is `target` expects (a rollback). Refuses a target that is not
 * applied or not one of MIGRATIONS, before changing anything. Returns the
 * reverted names in the order they ran.
 */
export async function revertMigrationsTo(url: string, target: string): Promise<string[]> {
  if (!MIGRATIONS.some((migration) => migration.name === target))
    throw new Error(
      `${target} is not a migration of this release (${MIGRATIONS.map((m) => m.name).join(', ')})`,
    );
  const ds = createDataSource({ url, applicationName: 'lunanexa-migrate', poolSize: 2 });
  await ds.initialize();
  try {
    const applied = await appliedMigrationNames(ds);
    if (!applied.includes(target)) throw new Error(`${target} is not applied to this database`);
    const reverted: string[] = [];
    while (applied[applied.length - 1] !== target) {
      const newest = applied.pop() as string;
      await ds.undoLastMigration({ transaction: 'each' });
      reverted.push(newest);
    }
    return reverted;
  } finally {
    await ds.destroy();
  }
}
