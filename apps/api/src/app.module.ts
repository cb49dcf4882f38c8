import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import {
  Module,
  RequestMethod,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import type { ExecutionResult } from 'graphql';
import { GraphQLModule } from '@nestjs/graphql';
import type { BuildInfo, Logger, ServiceMetrics } from '@lunanexa/observability';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { DEFAULT_QUERY_BUDGET } from '@lunanexa/domain';
import { formatGraphQLError } from './common/errors';
import { QUERY_BUDGET_GATE, QueryBudgetGate, QueryBudgetMiddleware } from './common/query-budget';
import { SharedQueryRateLimiter } from './common/shared-query-rate';
import { buildGraphQLContext, type GraphQLContext } from './common/graphql-context';
import type { ApiConfig } from './config';
import { AgentChannelModule } from './agent-channel/agent-channel.module';
import { DeploymentsModule } from './deployments/deployments.module';
import { NodesModule } from './nodes/nodes.module';
import { HealingModule } from './healing/healing.module';
import { ReconcileModule } from './reconcile/reconcile.module';
import { HealthModule } from './health/health.module';
import { LiveModule } from './live/live.module';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import { MetricsController, SERVICE_METRICS } from './metrics/metrics.controller';
import { GpuTelemetryMetrics } from './metrics/gpu-telemetry.metric';
import { NodeConditionMetric } from './metrics/node-condition.metric';
import { OutdatedAgentsMetric } from './metrics/outdated-agents.metric';
import { RuntimeLoadMetric } from './metrics/runtime-load.metric';
import { RequestsModule } from './requests/requests.module';
import { RolloutsModule } from './rollouts/rollouts.module';
import { PrivacyModule } from './privacy/privacy.module';
import { TenancyModule } from './tenancy/tenancy.module';
import { SigningModule } from './signing/signing.module';
import { ControllerKeysModule } from './controller-keys/controller-keys.module';
import { EvidenceModule } from './evidence/evidence.module';
import { RegistryModule } from './registry/registry.module';
import { EvaluationsModule } from './evaluations/evaluations.module';
import { BenchmarksModule } from './benchmarks/benchmarks.module';
import { SystemModule } from './system/system.module';

/** Every GraphQL error carries the request and correlation ids of the call that produced it. */
type ApolloPlugin = NonNullable<ApolloDriverConfig['plugins']>[number];

function errorIdsPlugin(): ApolloPlugin {
  return {
    requestDidStart() {
      return Promise.resolve({
        willSendResponse({ response, contextValue }) {
          const ids = (contextValue as GraphQLContext | undefined)?.ids;
          if (response.body.kind !== 'single' || !response.body.singleResult.errors || !ids)
            return Promise.resolve();
          response.body.singleResult.errors = response.body.singleResult.errors.map((error) => ({
            ...error,
            extensions: {
              ...error.extensions,
              requestId: ids.requestId,
              correlationId: ids.correlationId,
            },
          }));
          return Promise.resolve();
        },
      });
    },
  };
}

@Module({})
export class AppModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(QueryBudgetMiddleware).forRoutes({ path: 'graphql', method: RequestMethod.ALL });
  }

  static forRoot(
    config: ApiConfig,
    logger: Logger,
    build: BuildInfo,
    metrics: ServiceMetrics,
  ): DynamicModule {
    const budget = { ...DEFAULT_QUERY_BUDGET, maxCost: config.LUNANEXA_GRAPHQL_MAX_COST };
    const limiter = new SharedQueryRateLimiter({
      policy: {
        capacity: config.LUNANEXA_GRAPHQL_COST_BURST,
        refillPerSecond: config.LUNANEXA_GRAPHQL_COST_PER_SECOND,
      },
      databaseUrl: config.DATABASE_URL,
      poolSize: config.LUNANEXA_GRAPHQL_RATE_DB_POOL_SIZE,
      timeoutMs: config.LUNANEXA_GRAPHQL_RATE_DB_TIMEOUT_MS,
      pruneEveryMs: config.LUNANEXA_GRAPHQL_RATE_PRUNE_SECONDS * 1000,
      logger,
      registry: metrics.registry,
    });
    return {
      module: AppModule,
      imports: [
        InfrastructureModule.forRoot(config, logger, build),
        GraphQLModule.forRoot<ApolloDriverConfig>({
          driver: ApolloDriver,
          autoSchemaFile: true,
          sortSchema: true,
          playground: false,
          introspection: true,
          context: buildGraphQLContext,
          // Live updates: graphql-ws (protocol graphql-transport-ws) on the same path, errors typed like HTTP ones.
          subscriptions: {
            'graphql-ws': {
              path: '/graphql',
              onNext: (
                _ctx: unknown,
                _id: unknown,
                _payload: unknown,
                _args: unknown,
                result: ExecutionResult,
              ) =>
                result.errors
                  ? {
                      ...result,
                      errors: result.errors.map((error) =>
                        formatGraphQLError(error.toJSON(), error, (e) =>
                          logger.error({ err: e }, 'unhandled subscription error'),
                        ),
                      ),
                    }
                  : result,
            },
          },
          // QueryBudgetMiddleware refuses a larger document before Apollo; this is the parser's own backstop.
          parseOptions: { maxTokens: budget.maxTokens + 1 },
          plugins: [errorIdsPlugin()],
          formatError: (formatted, error) =>
            formatGraphQLError(formatted, error, (e) => logger.error({ err: e }, 'unhandled GraphQL error')),
        }),
        AuthModule,
        HealthModule,
        SystemModule,
        RequestsModule,
        RolloutsModule,
        PrivacyModule,
        TenancyModule,
        SigningModule,
        ControllerKeysModule,
        EvidenceModule,
        RegistryModule,
        EvaluationsModule,
        BenchmarksModule,
        NodesModule,
        AgentChannelModule,
        DeploymentsModule,
        HealingModule,
        ReconcileModule,
        LiveModule,
        AuditModule,
      ],
      controllers: [MetricsController],
      providers: [
        { provide: SERVICE_METRICS, useValue: metrics },
        // A provider of its own so Nest closes its pool at shutdown.
        { provide: SharedQueryRateLimiter, useValue: limiter },
        { provide: QUERY_BUDGET_GATE, useValue: new QueryBudgetGate(budget, limiter) },
        QueryBudgetMiddleware,
        NodeConditionMetric,
        OutdatedAgentsMetric,
        GpuTelemetryMetrics,
        RuntimeLoadMetric,
      ],
    };
  }
}
