import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `audit_chain_checkpoints`: the events up to which the audit chain was last
 * verified, so `auditChainStatus` walks only what was appended since (its
 * cost no longer grows with the installation's age). Append-only like the
 * chain itself: by trigger here, by privilege for the api's role
 * (APP_ROLE_TABLE_RIGHTS). A checkpoint names an existing event and the hash
 * it had when verified; an event whose hash no longer matches is a break.
 */
export class AuditChainCheckpoints1768900000000 implements MigrationInterface {
  name = 'AuditChainCheckpoints1768900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_chain_checkpoints (
        seq bigint PRIMARY KEY REFERENCES audit_events (seq),
        hash text NOT NULL CHECK (hash ~ '^[0-9a-f]{64}$'),
        verified_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE FUNCTION audit_chain_checkpoints_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_chain_checkpoints is append-only (% refused)', TG_OP
          USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await q.query(`
      CREATE TRIGGER audit_chain_checkpoints_no_update_delete BEFORE UPDATE OR DELETE ON audit_chain_checkpoints
      FOR EACH ROW EXECUTE FUNCTION audit_chain_checkpoints_append_only()`);
    await q.query(`
      CREATE TRIGGER audit_chain_checkpoints_no_truncate BEFORE TRUNCATE ON audit_chain_checkpoints
      FOR EACH STATEMENT EXECUTE FUNCTION audit_chain_checkpoints_append_only()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_chain_checkpoints`);
    await q.query(`DROP FUNCTION audit_chain_checkpoints_append_only()`);
  }
}
