import type { Logger } from '@lunanexa/observability';
import {
  deleteRequestRecordsOlderThan,
  insertRequestRecords,
  queryableOf,
  type GatewayRequestRecord,
} from '@lunanexa/persistence';
import { Pool } from 'pg';
import { Counter, type Registry } from 'prom-client';

/** One finished inference request as the operator console lists it (never a prompt or a completion). */
export type RequestRecord = GatewayRequestRecord;

/** Where the gateway hands request records; `record` must never block or throw on the request path. */
export interface RequestLog {
  record(entry: RequestRecord): void;
  close(): Promise<void>;
}

export class NullRequestLog implements RequestLog {
  record(): void {}
  async close(): Promise<void> {}
}

export const DEFAULT_REQUEST_RECORD_RETENTION_HOURS = 168;

export interface PostgresRequestLogOptions {
  readonly databaseUrl: string;
  readonly logger: Logger;
  readonly registry?: Registry;
  /** How often queued records are written. */
  readonly flushMs?: number;
  /** Records held while PostgreSQL is unreachable; beyond this new ones are counted and dropped. */
  readonly maxQueued?: number;
  /** Rows older than this are deleted (hourly), so the table stays bounded. */
  readonly retentionHours?: number;
}

const BATCH_ROWS = 500;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

/**
 * Appends request records to PostgreSQL in batches, off the request path:
 * `record` only pushes onto a bounded queue, a timer writes it. Request
 * metadata is telemetry, not accepted state, so when PostgreSQL is down the
 * queue holds what it can and counts what it had to drop
 * (`lunanexa_gateway_request_records_dropped_total`) rather than slowing
 * inference down.
 */
export class PostgresRequestLog implements RequestLog {
  private readonly pool: Pool;
  private readonly queue: RequestRecord[] = [];
  private readonly timer: NodeJS.Timeout;
  private readonly maxQueued: number;
  private readonly retentionHours: number;
  private readonly written: Counter;
  private readonly dropped: Counter;
  private flushing: Promise<void> | null = null;
  private lastPrune = 0;
  private closed = false;

  constructor(private readonly options: PostgresRequestLogOptions) {
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      max: 2,
      application_name: 'lunanexa-gateway-request-log',
      connectionTimeoutMillis: 5000,
    });
    this.pool.on('error', (error) => options.logger.warn({ err: error }, 'request log connection error'));
    this.maxQueued = options.maxQueued ?? 10_000;
    this.retentionHours = options.retentionHours ?? DEFAULT_REQUEST_RECORD_RETENTION_HOURS;
    const registers = options.registry ? [options.registry] : [];
    this.written = new Counter({
      name: 'lunanexa_gateway_request_records_written_total',
      help: 'Request records (metadata only) written to PostgreSQL.',
      registers,
    });
    this.dropped = new Counter({
      name: 'lunanexa_gateway_request_records_dropped_total',
      help: 'Request records dropped because the queue was full while PostgreSQL could not be written.',
      registers,
    });
    this.timer = setInterval(() => void this.flush(), options.flushMs ?? 250);
    this.timer.unref();
  }

  record(entry: RequestRecord): void {
    if (this.closed) return;
    if (this.queue.length >= this.maxQueued) {
      this.dropped.inc();
      return;
    }
    this.queue.push(entry);
  }

  /** Writes everything queued; one flush at a time. Resolves when the queue was written or the write failed. */
  flush(): Promise<void> {
    this.flushing ??= this.writeQueued().finally(() => (this.flushing = null));
    return this.flushing;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
    await this.pool.end();
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, BATCH_ROWS);
      try {
        await insertRequestRecords(queryableOf(this.pool), batch);
      } catch (error: unknown) {
        // Kept for the next tick; the bound above stops the queue growing without limit.
        this.options.logger.warn(
          { err: error, queued: this.queue.length },
          'request records not written yet',
        );
        return;
      }
      this.queue.splice(0, batch.length);
      this.written.inc(batch.length);
    }
    if (Date.now() - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = Date.now();
      await deleteRequestRecordsOlderThan(queryableOf(this.pool), this.retentionHours).catch(
        (error: unknown) => this.options.logger.warn({ err: error }, 'request records not pruned'),
      );
    }
  }
}
