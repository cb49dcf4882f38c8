import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the gateway remembers of each inference request: metadata only —
 * ids, model, deployment, outcome, timings, token counts. Never a prompt or
 * a completion; payload capture is a separate, opt-in retention policy.
 *
 * The gateway appends in batches off the request path and deletes rows older
 * than its retention window, so the table stays bounded. `id` orders rows by
 * arrival for keyset paging; request ids come from clients and may repeat.
 */
export class RequestRecords1767398400000 implements MigrationInterface {
  name = 'RequestRecords1767398400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE request_records (
        id bigserial PRIMARY KEY,
        request_id text NOT NULL CHECK (length(request_id) BETWEEN 1 AND 128),
        correlation_id text NOT NULL CHECK (length(correlation_id) BETWEEN 1 AND 128),
        received_at timestamptz NOT NULL,
        finished_at timestamptz NOT NULL CHECK (finished_at >= received_at),
        kind text NOT NULL CHECK (kind IN ('chat', 'completion')),
        dialect text NOT NULL CHECK (dialect IN ('openai', 'generic')),
        requested_model text NOT NULL CHECK (length(requested_model) <= 256),
        model_ref text,
        deployment_id text,
        stream boolean NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('Rejected', 'Completed', 'Failed', 'Cancelled', 'TimedOut')),
        error_code text,
        http_status integer NOT NULL CHECK (http_status BETWEEN 100 AND 599),
        ttft_ms double precision CHECK (ttft_ms IS NULL OR ttft_ms >= 0),
        duration_ms double precision NOT NULL CHECK (duration_ms >= 0),
        prompt_tokens integer CHECK (prompt_tokens IS NULL OR prompt_tokens >= 0),
        completion_tokens integer CHECK (completion_tokens IS NULL OR completion_tokens >= 0)
      )`);
    await q.query(`CREATE INDEX request_records_received_at ON request_records (received_at)`);
    await q.query(`CREATE INDEX request_records_deployment ON request_records (deployment_id, received_at)`);
    await q.query(`CREATE INDEX request_records_request_id ON request_records (request_id)`);
    await q.query(`CREATE INDEX request_records_correlation_id ON request_records (correlation_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE request_records`);
  }
}
