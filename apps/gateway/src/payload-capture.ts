import { randomUUID } from 'node:crypto';
import {
  type CaptureDecision,
  type PayloadCapturePurpose,
  type WorkloadRequest,
  captureExpiresAt,
} from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import { insertPayloadCaptures, queryableOf } from '@lunanexa/persistence';
import { Pool } from 'pg';
import { Counter, type Registry } from 'prom-client';

/**
 * A completed request's payload, kept because its tenant's data policy said
 * so (retention N days, or evaluation-capture consent). The only structure in
 * the gateway that holds prompt or completion text beyond the request itself.
 */
export interface PayloadCapture {
  readonly id: string;
  readonly tenantId: string;
  readonly requestId: string;
  readonly correlationId: string;
  readonly deploymentId: string | null;
  readonly modelRef: string | null;
  readonly purpose: PayloadCapturePurpose;
  /** The workload as the gateway understood it (messages or prompt, parameters, target). */
  readonly request: WorkloadRequest;
  /** The generated text, choices joined in order. */
  readonly responseText: string;
  readonly capturedAt: Date;
  readonly expiresAt: Date;
}

/** Where captures go; `capture` never blocks or throws on the request path. */
export interface PayloadCaptureSink {
  capture(entry: PayloadCapture): void;
  close(): Promise<void>;
}

export class NullPayloadCapture implements PayloadCaptureSink {
  capture(): void {}
  async close(): Promise<void> {}
}

/** The capture a decision asks for, or null when the policy keeps nothing. */
export function payloadCaptureOf(
  decision: CaptureDecision,
  fields: Omit<PayloadCapture, 'id' | 'purpose' | 'expiresAt'>,
): PayloadCapture | null {
  if (!decision.capture) return null;
  return {
    ...fields,
    id: randomUUID(),
    purpose: decision.purpose,
    expiresAt: captureExpiresAt(fields.capturedAt, decision.days),
  };
}

/**
 * What may be logged about an error on the data plane: its type, code and
 * stack frames — never its message, which for a parser, a driver (a failing
 * row's values) or an upstream body can quote payload text.
 */
export function redactedError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const code = (error as { code?: unknown }).code;
  return {
    type: error.name,
    ...(typeof code === 'string' || typeof code === 'number' ? { code } : {}),
    frames: (error.stack ?? '')
      .split('\n')
      .filter((line) => line.trimStart().startsWith('at '))
      .slice(0, 12)
      .map((line) => line.trim()),
  };
}

export interface PostgresPayloadCaptureOptions {
  readonly databaseUrl: string;
  readonly logger: Logger;
  readonly registry?: Registry;
  readonly flushMs?: number;
  /** Captures held while PostgreSQL is slow or down; beyond this (or maxQueuedBytes) new ones are dropped and counted. */
  readonly maxQueued?: number;
  readonly maxQueuedBytes?: number;
}

const BATCH_ROWS = 100;

interface Queued {
  readonly entry: PayloadCapture;
  readonly body: string;
  readonly bytes: number;
}

/**
 * Writes captures to PostgreSQL in batches off the request path, like the
 * request log: `capture` pushes onto a queue bounded by count and bytes, a
 * timer writes it. A full queue drops the capture
 * (`lunanexa_gateway_payload_captures_dropped_total`): a missing capture is
 * safer than a blocked request, and holding payloads in memory without bound
 * is worse than either. Failures are logged by error code only — a driver's
 * message could quote the row.
 */
export class PostgresPayloadCapture implements PayloadCaptureSink {
  private readonly pool: Pool;
  private readonly queue: Queued[] = [];
  private queuedBytes = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly maxQueued: number;
  private readonly maxQueuedBytes: number;
  private readonly written: Counter;
  private readonly dropped: Counter;
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(private readonly options: PostgresPayloadCaptureOptions) {
    this.pool = new Pool({
      connectionString: options.databaseUrl,
      max: 1,
      application_name: 'lunanexa-gateway-payload-capture',
      connectionTimeoutMillis: 5000,
    });
    this.pool.on('error', (error) =>
      options.logger.warn({ err: redactedError(error) }, 'payload capture connection error'),
    );
    this.maxQueued = options.maxQueued ?? 1000;
    this.maxQueuedBytes = options.maxQueuedBytes ?? 64 * 1_048_576;
    const registers = options.registry ? [options.registry] : [];
    this.written = new Counter({
      name: 'lunanexa_gateway_payload_captures_written_total',
      help: 'Payload captures (kept under a tenant data policy) written to PostgreSQL.',
      registers,
    });
    this.dropped = new Counter({
      name: 'lunanexa_gateway_payload_captures_dropped_total',
      help: 'Payload captures dropped because the bounded queue was full; the requests themselves were served.',
      registers,
    });
    this.timer = setInterval(() => void this.flush(), options.flushMs ?? 250);
    this.timer.unref();
  }

  capture(entry: PayloadCapture): void {
    if (this.closed) return;
    const body = JSON.stringify(entry.request);
    const bytes = Buffer.byteLength(body) + Buffer.byteLength(entry.responseText);
    if (this.queue.length >= this.maxQueued || this.queuedBytes + bytes > this.maxQueuedBytes) {
      this.dropped.inc();
      return;
    }
    this.queue.push({ entry, body, bytes });
    this.queuedBytes += bytes;
  }

  flush(): Promise<void> {
    this.flushing ??= this.writeQueued().finally(() => (this.flushing = null));
    return this.flushing;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
    // What could not be written is dropped, counted, and released with the process.
    if (this.queue.length > 0) this.dropped.inc(this.queue.length);
    this.queue.length = 0;
    await this.pool.end();
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, BATCH_ROWS);
      try {
        await insertPayloadCaptures(
          queryableOf(this.pool),
          batch.map((queued) => ({ ...queued.entry, requestBody: queued.body })),
        );
      } catch (error: unknown) {
        const code = (error as { code?: unknown }).code;
        // Data or constraint errors (SQLSTATE 22/23) would fail every retry: drop that batch, keep the rest moving.
        const poisoned = typeof code === 'string' && /^2[23]/.test(code);
        this.options.logger.warn(
          { err: redactedError(error), queued: this.queue.length, droppedBatch: poisoned },
          poisoned
            ? 'payload captures refused by PostgreSQL; batch dropped'
            : 'payload captures not written yet',
        );
        if (!poisoned) return;
        this.release(batch.length);
        this.dropped.inc(batch.length);
        continue;
      }
      this.release(batch.length);
      this.written.inc(batch.length);
    }
  }

  private release(count: number): void {
    for (const queued of this.queue.splice(0, count)) this.queuedBytes -= queued.bytes;
  }
}
