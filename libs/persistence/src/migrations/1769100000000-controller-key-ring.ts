import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The controller key ring (libs/domain controller-key-ring.ts): each recorded
 * controller key gains its state (`next`, `current`, `previous`, `retired`),
 * the ids agents know it by (envelope key id, SSH fingerprint, OpenSSH line,
 * filled in by the first process that holds the key), the rotation that
 * introduced it and, for `previous`, when the overlap ends. At most one key is
 * in each live state. The key seen last becomes `current`, the rest
 * `retired`: before rotation existed, only the key file the api started with
 * ever signed. A state change notifies gateways (which verify session tokens
 * with live keys only) and the api and worker processes (which sign with the
 * ring) on the existing credentials channel.
 */
export class ControllerKeyRing1769100000000 implements MigrationInterface {
  name = 'ControllerKeyRing1769100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE controller_keys
        ADD COLUMN state text NOT NULL DEFAULT 'retired'
          CHECK (state IN ('next', 'current', 'previous', 'retired')),
        ADD COLUMN key_id text UNIQUE CHECK (key_id ~ '^ed25519:[A-Za-z0-9_-]{43}$'),
        ADD COLUMN ssh_fingerprint text CHECK (ssh_fingerprint ~ '^SHA256:[A-Za-z0-9+/]{43}$'),
        ADD COLUMN openssh_public_key text CHECK (openssh_public_key LIKE 'ssh-ed25519 %'),
        ADD COLUMN rotation_id text CHECK (length(rotation_id) BETWEEN 1 AND 128),
        ADD COLUMN state_changed_at timestamptz,
        ADD COLUMN accept_until timestamptz,
        ADD CONSTRAINT controller_keys_previous_until CHECK ((state = 'previous') = (accept_until IS NOT NULL))`);
    await q.query(`
      UPDATE controller_keys SET state = 'current', state_changed_at = last_seen_at
       WHERE fingerprint = (SELECT fingerprint FROM controller_keys ORDER BY last_seen_at DESC, fingerprint LIMIT 1)`);
    await q.query(`
      CREATE UNIQUE INDEX controller_keys_one_per_live_state ON controller_keys (state)
       WHERE state IN ('next', 'current', 'previous')`);
    await q.query(`DROP TRIGGER controller_keys_notify_gateway ON controller_keys`);
    await q.query(`
      CREATE TRIGGER controller_keys_notify_gateway AFTER INSERT OR UPDATE OF fingerprint, public_key, state OR DELETE
        ON controller_keys FOR EACH STATEMENT EXECUTE FUNCTION notify_gateway_credentials_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER controller_keys_notify_gateway ON controller_keys`);
    await q.query(`
      CREATE TRIGGER controller_keys_notify_gateway AFTER INSERT OR UPDATE OF fingerprint, public_key OR DELETE
        ON controller_keys FOR EACH STATEMENT EXECUTE FUNCTION notify_gateway_credentials_changed()`);
    await q.query(`DROP INDEX controller_keys_one_per_live_state`);
    await q.query(`
      ALTER TABLE controller_keys
        DROP CONSTRAINT controller_keys_previous_until,
        DROP COLUMN accept_until, DROP COLUMN state_changed_at, DROP COLUMN rotation_id,
        DROP COLUMN openssh_public_key, DROP COLUMN ssh_fingerprint, DROP COLUMN key_id, DROP COLUMN state`);
  }
}
