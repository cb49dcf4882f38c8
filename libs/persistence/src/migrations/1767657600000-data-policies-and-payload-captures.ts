import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Payload privacy (DESIGN.md invariant 5).
 *
 * `tenant_data_policies`: one row per tenant somebody configured; a tenant
 * without a row gets the default policy (libs/contracts data-policy.ts:
 * retention none, no consent, data class internal). The gateway reads the
 * whole table into memory on a timer, so the request path never waits on it.
 *
 * `payload_captures`: the only place a prompt or completion may be kept, and
 * only when the tenant's policy said so when the request completed. Every row
 * has an expiry (NOT NULL, after the capture, at most ten years on); the
 * RetentionExpiry workflow deletes expired rows in batches, each batch with a
 * `payload.delete` receipt in the audit chain. Deleted rows are gone: the
 * receipt keeps ids' sha256 and counts, never contents.
 */
export class DataPoliciesAndPayloadCaptures1767657600000 implements MigrationInterface {
  name = 'DataPoliciesAndPayloadCaptures1767657600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenant_data_policies (
        tenant_id text PRIMARY KEY CHECK (tenant_id ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'),
        data_class text NOT NULL CHECK (data_class IN ('public', 'internal', 'confidential', 'restricted')),
        retention_mode text NOT NULL CHECK (retention_mode IN ('none', 'days')),
        retention_days integer,
        evaluation_capture_consent boolean NOT NULL DEFAULT false,
        updated_by text NOT NULL CHECK (length(updated_by) BETWEEN 1 AND 256),
        updated_at timestamptz NOT NULL,
        CONSTRAINT tenant_data_policies_retention CHECK (
          (retention_mode = 'none' AND retention_days IS NULL)
          OR (retention_mode = 'days' AND retention_days BETWEEN 1 AND 3650)
        )
      )`);
    await q.query(`
      CREATE TABLE payload_captures (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL CHECK (length(tenant_id) BETWEEN 1 AND 128),
        request_id text NOT NULL CHECK (length(request_id) BETWEEN 1 AND 128),
        correlation_id text NOT NULL CHECK (length(correlation_id) BETWEEN 1 AND 128),
        deployment_id text,
        model_ref text,
        purpose text NOT NULL CHECK (purpose IN ('retention', 'evaluation')),
        request_body jsonb NOT NULL,
        response_text text NOT NULL,
        captured_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        CONSTRAINT payload_captures_expiry CHECK (
          expires_at > captured_at AND expires_at <= captured_at + interval '3651 days'
        )
      )`);
    await q.query(`CREATE INDEX payload_captures_expires_at ON payload_captures (expires_at)`);
    await q.query(`CREATE INDEX payload_captures_tenant ON payload_captures (tenant_id, captured_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE payload_captures`);
    await q.query(`DROP TABLE tenant_data_policies`);
  }
}
