import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1764669600000 implements MigrationInterface {
  name = 'Initial1764669600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ping_records (
        id uuid PRIMARY KEY,
        workflow_id text NOT NULL UNIQUE,
        idempotency_key text NOT NULL,
        message text NOT NULL,
        actor text NOT NULL,
        correlation_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX ping_records_created_at ON ping_records (created_at DESC)`);
    await q.query(`
      CREATE TABLE audit_events (
        seq bigint PRIMARY KEY CHECK (seq > 0),
        id uuid NOT NULL UNIQUE,
        occurred_at timestamptz NOT NULL,
        actor text NOT NULL,
        action text NOT NULL,
        decision text NOT NULL CHECK (decision IN ('allowed', 'denied', 'not-applicable')),
        evidence jsonb NOT NULL,
        result text NOT NULL CHECK (result IN ('succeeded', 'failed', 'refused')),
        correlation_id text NOT NULL,
        workflow_id text,
        prev_hash char(64) NOT NULL,
        hash char(64) NOT NULL UNIQUE
      )`);
    await q.query(`CREATE INDEX audit_events_correlation_id ON audit_events (correlation_id)`);
    await q.query(`CREATE INDEX audit_events_workflow_id ON audit_events (workflow_id)`);
    await q.query(`
      CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_events is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await q.query(`
      CREATE TRIGGER audit_events_no_update_delete BEFORE UPDATE OR DELETE ON audit_events
      FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()`);
    await q.query(`
      CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
      FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_events`);
    await q.query(`DROP FUNCTION audit_events_append_only()`);
    await q.query(`DROP TABLE ping_records`);
  }
}
