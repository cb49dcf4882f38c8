import { expect } from 'chai';
import { Client } from 'pg';
import { Registry } from 'prom-client';
import { createLogger } from '@lunanexa/observability';
import {
  createScratchDatabase,
  runMigrations,
  testAdminUrl,
  type ScratchDatabase,
} from '@lunanexa/persistence';
import { PostgresRequestLog, type RequestRecord } from '../src/request-log';

function record(overrides: Partial<RequestRecord> = {}): RequestRecord {
  const receivedAt = new Date(Date.now() - 200);
  return {
    requestId: 'req-log-1',
    correlationId: 'corr-log-1',
    receivedAt,
    finishedAt: new Date(receivedAt.getTime() + 150),
    kind: 'chat',
    dialect: 'openai',
    requestedModel: 'demo@v1',
    modelRef: 'demo@v1',
    deploymentId: 'dep-1',
    stream: true,
    outcome: 'Completed',
    errorCode: null,
    httpStatus: 200,
    ttftMs: 20.5,
    durationMs: 150,
    promptTokens: 4,
    completionTokens: 16,
    tenantId: 'acme',
    caller: 'lnxk_AbCdEfGh',
    ...overrides,
  };
}

describe('PostgresRequestLog on PostgreSQL', function () {
  this.timeout(60_000);
  let db: ScratchDatabase;
  let sql: Client;
  const logger = createLogger({ service: 'request-log-test', level: 'silent' });

  before(async () => {
    db = await createScratchDatabase('gateway_request_log', testAdminUrl());
    await runMigrations(db.url);
    sql = new Client({ connectionString: db.url });
    await sql.connect();
  });

  after(async () => {
    await sql?.end();
    await db?.drop();
  });

  beforeEach(() => sql.query('TRUNCATE request_records'));

  it('writes queued records in one batch on flush, every column as given', async () => {
    const registry = new Registry();
    const log = new PostgresRequestLog({ databaseUrl: db.url, logger, registry, flushMs: 60_000 });
    try {
      for (let i = 0; i < 3; i++) log.record(record({ requestId: `req-log-${i}` }));
      log.record(
        record({
          requestId: 'req-log-err',
          outcome: 'Rejected',
          errorCode: 'MODEL_NOT_FOUND',
          httpStatus: 404,
          ttftMs: null,
          modelRef: null,
          deploymentId: null,
          promptTokens: null,
          completionTokens: null,
        }),
      );
      await log.flush();
      const rows = (
        await sql.query<{
          request_id: string;
          outcome: string;
          error_code: string | null;
          ttft_ms: number | null;
          completion_tokens: number | null;
        }>(
          'SELECT request_id, outcome, error_code, ttft_ms, completion_tokens FROM request_records ORDER BY id',
        )
      ).rows;
      expect(rows.map((row) => row.request_id)).to.deep.equal([
        'req-log-0',
        'req-log-1',
        'req-log-2',
        'req-log-err',
      ]);
      expect(rows[0]).to.include({
        outcome: 'Completed',
        error_code: null,
        ttft_ms: 20.5,
        completion_tokens: 16,
      });
      expect(rows[3]).to.include({ outcome: 'Rejected', error_code: 'MODEL_NOT_FOUND', ttft_ms: null });
      expect(
        await registry.getSingleMetricAsString('lunanexa_gateway_request_records_written_total'),
      ).to.match(/ 4$/m);
    } finally {
      await log.close();
    }
  });

  it('keeps records while PostgreSQL refuses them, drops only beyond its bound and counts the drops', async () => {
    const registry = new Registry();
    // A database that does not exist: every write fails, as during an outage.
    const broken = new URL(db.url);
    broken.pathname = '/lunanexa_no_such_database';
    const log = new PostgresRequestLog({
      databaseUrl: broken.toString(),
      logger,
      registry,
      flushMs: 60_000,
      maxQueued: 2,
    });
    try {
      for (let i = 0; i < 5; i++) log.record(record({ requestId: `req-out-${i}` }));
      await log.flush();
      expect(
        await registry.getSingleMetricAsString('lunanexa_gateway_request_records_dropped_total'),
      ).to.match(/ 3$/m);
      expect(
        await registry.getSingleMetricAsString('lunanexa_gateway_request_records_written_total'),
      ).to.match(/ 0$/m);
    } finally {
      await log.close().catch(() => undefined);
    }
  });

  it('flushes what is queued on close, and prunes rows older than the retention window', async () => {
    await sql.query(
      `INSERT INTO request_records (request_id, correlation_id, received_at, finished_at, kind, dialect, requested_model, stream, outcome, http_status, duration_ms)
       VALUES ('req-ancient', 'corr-ancient', now() - interval '3 hours', now() - interval '3 hours', 'chat', 'openai', 'demo@v1', false, 'Completed', 200, 5)`,
    );
    const log = new PostgresRequestLog({ databaseUrl: db.url, logger, flushMs: 60_000, retentionHours: 1 });
    log.record(record({ requestId: 'req-on-close' }));
    await log.close();
    const ids = (await sql.query<{ request_id: string }>('SELECT request_id FROM request_records')).rows.map(
      (row) => row.request_id,
    );
    expect(ids).to.deep.equal(['req-on-close']);
  });
});
