import {
  Global,
  Module,
  type DynamicModule,
  type OnApplicationShutdown,
  Inject,
  Injectable,
} from '@nestjs/common';
import { Client, Connection } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { createDataSource } from '@lunanexa/persistence';
import { tracingEnabled, type BuildInfo, type Logger } from '@lunanexa/observability';
import { DataSource } from 'typeorm';
import { API_CONFIG, API_LOGGER, BUILD_INFO, type ApiConfig } from '../config';
import { DrainableRetries } from './drainable-retries';
import { HEARTBEAT_DB, TEMPORAL_CLIENT } from './tokens';
import { WorkflowRunner } from './workflow-runner';

export { HEARTBEAT_DB, TEMPORAL_CLIENT } from './tokens';

/** One pool of the api's PostgreSQL connections, named so pg_stat_activity tells them apart. */
async function connectedDataSource(
  config: ApiConfig,
  applicationName: string,
  poolSize: number,
): Promise<DataSource> {
  const ds = createDataSource({ url: config.DATABASE_URL, applicationName, poolSize });
  await ds.initialize();
  return ds;
}

@Injectable()
class InfrastructureLifecycle implements OnApplicationShutdown {
  constructor(
    private readonly db: DataSource,
    @Inject(HEARTBEAT_DB) private readonly heartbeatDb: DataSource,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    private readonly retries: DrainableRetries,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.retries.drain();
    await this.temporal.connection.close();
    if (this.heartbeatDb.isInitialized) await this.heartbeatDb.destroy();
    if (this.db.isInitialized) await this.db.destroy();
  }
}

/**
 * Process-wide handles: config, logger, PostgreSQL, the Temporal client and
 * the one WorkflowRunner every feature starts and signals workflows through.
 * The Temporal connection is lazy so the API starts (and reports not-ready)
 * while Temporal is still coming up, instead of crashing.
 */
@Global()
@Module({})
export class InfrastructureModule {
  static forRoot(config: ApiConfig, logger: Logger, build: BuildInfo): DynamicModule {
    return {
      module: InfrastructureModule,
      providers: [
        { provide: API_CONFIG, useValue: config },
        { provide: API_LOGGER, useValue: logger },
        { provide: BUILD_INFO, useValue: build },
        {
          provide: DataSource,
          useFactory: () => connectedDataSource(config, 'lunanexa-api', config.LUNANEXA_DB_POOL_SIZE),
        },
        {
          provide: HEARTBEAT_DB,
          useFactory: () =>
            connectedDataSource(config, 'lunanexa-api-heartbeats', config.LUNANEXA_HEARTBEAT_DB_POOL_SIZE),
        },
        { provide: DrainableRetries, useValue: new DrainableRetries() },
        {
          provide: TEMPORAL_CLIENT,
          inject: [DrainableRetries],
          useFactory: (retries: DrainableRetries) =>
            new Client({
              connection: Connection.lazy({
                address: config.TEMPORAL_ADDRESS,
                connectTimeout: '5 seconds',
                interceptors: [retries.interceptor],
              }),
              namespace: config.TEMPORAL_NAMESPACE,
              // With tracing on, starting a workflow is a span whose context travels in the workflow's headers.
              ...(tracingEnabled()
                ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } }
                : {}),
            }),
        },
        InfrastructureLifecycle,
        WorkflowRunner,
      ],
      exports: [
        API_CONFIG,
        API_LOGGER,
        BUILD_INFO,
        DataSource,
        HEARTBEAT_DB,
        TEMPORAL_CLIENT,
        WorkflowRunner,
      ],
    };
  }
}
