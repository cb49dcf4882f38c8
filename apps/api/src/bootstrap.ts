import 'reflect-metadata';
import type { Server } from 'node:http';
import { ValidationPipe, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  createServiceMetrics,
  keepIdleConnectionsOpen,
  tracingEnabled,
  type BuildInfo,
  type Logger,
} from '@lunanexa/observability';
import { AgentChannelService } from './agent-channel/agent-channel.service';
import { answerHeartbeatsFirst } from './agent-channel/heartbeat-route';
import { AppModule } from './app.module';
import { validationErrorToLunaNexa } from './common/errors';
import { GraphqlTracingInterceptor } from './common/graphql-tracing.interceptor';
import { ProblemJsonFilter } from './common/problem.filter';
import { requestIdsMiddleware } from './common/request-ids';
import type { ApiConfig } from './config';
import { consoleAvailable, consoleStaticMiddleware } from './console/console-static';
import { httpMetricsMiddleware } from './metrics/http-metrics';

/** Builds the API application without listening, so tests and main share one wiring. */
export async function createApiApp(
  config: ApiConfig,
  logger: Logger,
  build: BuildInfo,
): Promise<INestApplication> {
  const metrics = createServiceMetrics('api', build);
  const app = await NestFactory.create(AppModule.forRoot(config, logger, build, metrics), {
    logger: {
      log: (message: unknown) => logger.debug({ nest: true }, String(message)),
      error: (message: unknown, trace?: unknown) => logger.error({ nest: true, trace }, String(message)),
      warn: (message: unknown) => logger.warn({ nest: true }, String(message)),
      debug: (message: unknown) => logger.debug({ nest: true }, String(message)),
      verbose: (message: unknown) => logger.trace({ nest: true }, String(message)),
    },
    bodyParser: true,
  });
  const served = consoleAvailable(config.LUNANEXA_CONSOLE_DIR);
  const measured = httpMetricsMiddleware(metrics, served);
  app.use(requestIdsMiddleware);
  app.use(measured);
  answerHeartbeatsFirst(app.getHttpServer() as Server, app.get(AgentChannelService), logger, [
    requestIdsMiddleware,
    measured,
  ]);
  if (served) app.use(consoleStaticMiddleware(config.LUNANEXA_CONSOLE_DIR));
  else logger.warn({ dir: config.LUNANEXA_CONSOLE_DIR }, 'console not built: run `npm run build:console`');
  app.useGlobalFilters(new ProblemJsonFilter(logger));
  app.useGlobalPipes(
    new ValidationPipe({
      whitelist: true,
      forbidNonWhitelisted: true,
      transform: true,
      exceptionFactory: validationErrorToLunaNexa,
    }),
  );
  if (tracingEnabled()) app.useGlobalInterceptors(new GraphqlTracingInterceptor());
  app.enableShutdownHooks();
  keepIdleConnectionsOpen(app.getHttpServer() as Server);
  return app;
}
