import type { Logger } from 'pino';

/**
 * Graceful shutdown on SIGTERM/SIGINT, the same for every LunaNexa process:
 * the first signal runs `close` (stop accepting work, finish what is in
 * flight) and exits 0, or 1 if closing fails; a second signal means the
 * operator does not want to wait, and exits 1 at once.
 */
export function stopOnSignals(
  logger: Logger,
  close: () => Promise<void>,
  details: Readonly<Record<string, unknown>> = {},
  message = 'shutting down',
): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      logger.warn({ signal }, 'second signal during shutdown; exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal, ...details }, message);
    close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
