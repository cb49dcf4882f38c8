import { createLogger, initTracing, readBuildInfo, runMain } from '@lunanexa/observability';
import { createApiApp } from './bootstrap';
import { loadApiConfig } from './config';

runMain('lunanexa-api', async () => {
  const config = loadApiConfig();
  const build = readBuildInfo();
  // Before the app is built: the Temporal client adds its tracing interceptor only when tracing is on.
  initTracing({ service: 'api', version: build.version });
  const logger = createLogger({ service: 'api', level: config.LUNANEXA_LOG_LEVEL, version: build.version });
  const app = await createApiApp(config, logger, build);
  await app.listen(config.LUNANEXA_API_PORT, config.LUNANEXA_API_HOST);
  logger.info({ url: `http://${config.LUNANEXA_API_HOST}:${config.LUNANEXA_API_PORT}` }, 'api listening');
});
