import pino, { type Logger, type LoggerOptions } from 'pino';
import { activeTraceFields } from './tracing';

export type { Logger } from 'pino';

/**
 * Paths pino must never print. Bodies are never passed to the logger in the
 * first place; this list is the second line of defence for credentials that
 * arrive inside objects someone decides to log.
 */
export const REDACTED_PATHS: readonly string[] = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.cookie',
  'password',
  '*.password',
  'token',
  '*.token',
  'secret',
  '*.secret',
  'privateKey',
  '*.privateKey',
  'body',
  '*.body',
  'prompt',
  '*.prompt',
  'messages',
  '*.messages',
];

export interface LoggerSettings {
  readonly service: string;
  readonly level: string;
  readonly version?: string;
  /** Where to write; defaults to stdout. Tests pass a stream to inspect output. */
  readonly destination?: pino.DestinationStream;
}

/** Structured JSON logger with a fixed `service` field, redaction, and the active span's trace id. */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    base: { service: settings.service, ...(settings.version ? { version: settings.version } : {}) },
    redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // trace_id/span_id of the active OpenTelemetry span, so a log line finds its trace (empty when tracing is off).
    mixin: activeTraceFields,
  };
  return settings.destination ? pino(options, settings.destination) : pino(options);
}
