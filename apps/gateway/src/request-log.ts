import type { Logger } from '@lunanexa/observability';
import { Pool } from 'pg';
import { Counter, type Registry } from 'prom-client';

/**
 * One finished inference request as the operator console lists it: ids,
 * model, deployment, outcome, timings and token counts. Deliberately no
 * field can hold a prompt or a completion.
 */
export interface RequestRecord {
  readonly requestId: string;
  readonly correlationId: string;
  readonly receivedAt: Date;
  readonly finishedAt: Date;
  readonly kind: 'chat' | 'completion';
  readonly dialect: 'openai' | 'generic';
  /** The model ref or alias the caller named. */
  readonly requestedModel: string;
  readonly modelRef: string | null;
  readonly deploymentId: string | null;
  readonly stream: boolean;
  /** Terminal workload state: Rejected | Completed | Failed | Cancelled | TimedOut. */
  readonly outcome: string;
  readonly errorCode: string | null;
  readonly httpStatus: number;
  readonly ttftMs: number | null;
  readonly durationMs: number;
  readonly promptTokens: number | null;
  readonly completionTokens: number | null;
  /** The authenticated tenant the request counted against. */
  readonly tenantId: string | null;
  /** Who called: a gateway key's display prefix or an operator actor; never a secret. */
  readonly caller: string | null;
}

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

const INSERT = `
INSERT INTO request_records (request_id, correlation_id, received_at, finished_at, kind, dialect,
       requested_model, model_ref, deployment_id, stream, outcome, error_code, http_status,
       ttft_ms, duration_ms, prompt_tokens, completion_tokens, tenant_id, caller)
SELECT * FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::text[], $6::text[],
       $7::text[], $8::text[], $9::text[], $10::boolean[], $11::text[], $12::text[], $13::int[],
       $14::float8[], $15::float8[], $16::int[], $17::int[], $18::text[], $19::text[])`;

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
        await this.pool.query(INSERT, columnsOf(batch));
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
      await this.pool
        .query(`DELETE FROM request_records WHERE received_at < now() - make_interval(hours => $1)`, [
          this.retentionHours,
        ])
        .catch((error: unknown) => this.options.logger.warn({ err: error }, 'request records not pruned'));
    }
  }
}

function columnsOf(batch: readonly RequestRecord[]): unknown[][] {
  const pick = <T>(read: (entry: RequestRecord) => T): T[] => batch.map(read);
  return [
    pick((e) => e.requestId),
    pick((e) => e.correlationId),
    pick((e) => e.receivedAt.toISOString()),
    pick((e) => e.finishedAt.toISOString()),
    pick((e) => e.kind),
    pick((e) => e.dialect),
    pick((e) => e.requestedModel.slice(0, 256)),
    pick((e) => e.modelRef),
    pick((e) => e.deploymentId),
    pick((e) => e.stream),
    pick((e) => e.outcome),
    pick((e) => e.errorCode),
    pick((e) => e.httpStatus),
    pick((e) => e.ttftMs),
    pick((e) => e.durationMs),
    pick((e) => e.promptTokens),
    pick((e) => e.completionTokens),
    pick((e) => e.tenantId),
    pick((e) => e.caller),
  ];
}
