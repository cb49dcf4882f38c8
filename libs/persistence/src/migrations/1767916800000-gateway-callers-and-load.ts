import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the gateway needs for caller identity and admission, besides the
 * tenants and gateway keys themselves (1767830400000):
 *
 * - `controller_keys`: the controller's Ed25519 public key(s), recorded by the
 *   API at start, so a gateway can verify operator session tokens without
 *   ever holding the private key.
 * - change notifications on `operators`, `api_tokens` and `controller_keys`
 *   on the same channel as tenants and gateway keys, so a disabled operator
 *   or a revoked token stops working at the gateway at once.
 * - `request_records.tenant_id` and `caller` (a gateway key's display prefix
 *   or an operator actor): who sent each request, never a secret.
 * - `gateway_load`: each gateway instance's admission state per replica group
 *   (requests running, waiting, capacity), replaced every few seconds; the
 *   console's queue depth. Rows of a gateway that stopped are ignored once stale.
 */
export class GatewayCallersAndLoad1767916800000 implements MigrationInterface {
  name = 'GatewayCallersAndLoad1767916800000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE controller_keys (
        fingerprint text PRIMARY KEY CHECK (fingerprint ~ '^[A-Za-z0-9_-]{43}$'),
        public_key text NOT NULL CHECK (public_key LIKE '-----BEGIN PUBLIC KEY-----%'),
        first_seen_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE OR REPLACE FUNCTION notify_gateway_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('lunanexa_gateway_credentials', TG_TABLE_NAME);
        RETURN NULL;
      END $$`);
    // The API's own last_used_at writes (at most once a minute per token) are left out: they change
    // nothing a gateway checks, and each would make every gateway reload.
    const watched: Readonly<Record<string, string>> = {
      operators: 'UPDATE',
      api_tokens:
        'UPDATE OF id, operator_id, name, token_hash, prefix, role, created_at, expires_at, revoked_at',
      controller_keys: 'UPDATE OF fingerprint, public_key',
    };
    for (const [table, update] of Object.entries(watched)) {
      await q.query(`
        CREATE TRIGGER ${table}_notify_gateway AFTER INSERT OR ${update} OR DELETE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION notify_gateway_credentials_changed()`);
    }
    await q.query(`
      ALTER TABLE request_records
        ADD COLUMN tenant_id text CHECK (tenant_id IS NULL OR length(tenant_id) BETWEEN 1 AND 128),
        ADD COLUMN caller text CHECK (caller IS NULL OR length(caller) BETWEEN 1 AND 160)`);
    await q.query(`CREATE INDEX request_records_tenant ON request_records (tenant_id, received_at)`);
    await q.query(`
      CREATE TABLE gateway_load (
        gateway_id text NOT NULL CHECK (length(gateway_id) BETWEEN 1 AND 128),
        group_key text NOT NULL CHECK (length(group_key) BETWEEN 1 AND 300),
        deployment_id text NOT NULL,
        in_flight integer NOT NULL CHECK (in_flight >= 0),
        queued integer NOT NULL CHECK (queued >= 0),
        capacity integer NOT NULL CHECK (capacity >= 0),
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (gateway_id, group_key)
      )`);
    await q.query(`CREATE INDEX gateway_load_updated ON gateway_load (updated_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE gateway_load`);
    await q.query(`ALTER TABLE request_records DROP COLUMN caller, DROP COLUMN tenant_id`);
    for (const table of ['operators', 'api_tokens', 'controller_keys'])
      await q.query(`DROP TRIGGER ${table}_notify_gateway ON ${table}`);
    await q.query(`DROP TABLE controller_keys`);
  }
}
