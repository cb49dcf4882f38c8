import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The audit chain is extended at commit, inside PostgreSQL, instead of by the
 * appending client in the middle of its transaction.
 *
 * Before: appendAuditEvent took the chain's advisory lock, read the head and
 * inserted the event, and the lock stayed held until the client sent COMMIT —
 * across every later statement of the transaction and every stall of the
 * client's event loop. On a loaded machine one worker held it for seconds, and
 * every audited write (with the node rows it had locked, and the heartbeats
 * waiting on those rows) queued behind it.
 *
 * Now a transaction inserts its events into `audit_pending` (no lock), and a
 * deferred constraint trigger links them at commit: lock, read head, insert
 * into audit_events, announce, delete the pending row — all server-side, so the
 * lock is held only while COMMIT runs. The hash is the same as before: the
 * appender stores the hashed material with its two chain positions open
 * (libs/audit chainMaterialParts) and the trigger fills them in.
 *
 * The function is SECURITY DEFINER: the services' role inserts into
 * audit_pending only; audit_events is written by this function alone.
 */
export class AuditChainAtCommit1768150000000 implements MigrationInterface {
  name = 'AuditChainAtCommit1768150000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE audit_pending (
        pending_id bigserial PRIMARY KEY,
        id uuid NOT NULL UNIQUE,
        occurred_at timestamptz NOT NULL,
        actor text NOT NULL,
        action text NOT NULL,
        decision text NOT NULL,
        evidence jsonb NOT NULL,
        result text NOT NULL,
        correlation_id text NOT NULL,
        workflow_id text,
        hash_head text NOT NULL,
        hash_middle text NOT NULL,
        hash_tail text NOT NULL,
        notice jsonb NOT NULL
      )`);
    await q.query(`
      CREATE FUNCTION audit_chain_pending() RETURNS trigger
      LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
      DECLARE
        head_seq bigint;
        head_hash text;
        next_seq bigint;
        next_hash text;
      BEGIN
        -- Same key as the appenders before this migration, so a mixed-version
        -- rollout still serialises on one lock.
        PERFORM pg_advisory_xact_lock(1280202817);
        SELECT seq, hash INTO head_seq, head_hash FROM audit_events ORDER BY seq DESC LIMIT 1;
        next_seq := COALESCE(head_seq, 0) + 1;
        head_hash := COALESCE(head_hash, repeat('0', 64));
        next_hash := encode(sha256(convert_to(
          NEW.hash_head || to_json(head_hash)::text || NEW.hash_middle || next_seq::text || NEW.hash_tail,
          'UTF8')), 'hex');
        INSERT INTO audit_events
          (seq, id, occurred_at, actor, action, decision, evidence, result, correlation_id, workflow_id, prev_hash, hash)
        VALUES
          (next_seq, NEW.id, NEW.occurred_at, NEW.actor, NEW.action, NEW.decision, NEW.evidence, NEW.result,
           NEW.correlation_id, NEW.workflow_id, head_hash, next_hash);
        PERFORM pg_notify('lunanexa_events', (NEW.notice || jsonb_build_object('seq', next_seq))::text);
        DELETE FROM audit_pending WHERE pending_id = NEW.pending_id;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER audit_pending_chain_at_commit AFTER INSERT ON audit_pending
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION audit_chain_pending()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE audit_pending`);
    await q.query(`DROP FUNCTION audit_chain_pending()`);
  }
}
