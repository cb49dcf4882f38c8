import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Caller identity for the gateway (issue 11): tenants with their quotas, and
 * the gateway keys a tenant's applications send as `Authorization: Bearer`.
 *
 * `tenants`: an opaque id (the `x-lunanexa-tenant-id` the data policies
 * already use) and three optional limits; NULL means unlimited. The bounds
 * are those of libs/contracts tenancy-rules.ts (QUOTA_BOUNDS).
 *
 * `gateway_keys`: the key itself (`lnxk_` + 43 base64url characters) is
 * shown once and never stored; the row keeps its sha256 (hex) for lookup
 * and the display prefix (`lnxk_` + 8) for people and audit evidence. A key
 * may call only the aliases it lists (1..100 distinct alias names; that each
 * exists is checked by the API, since an array cannot carry a foreign key).
 * A tenant with keys cannot be deleted (ON DELETE RESTRICT).
 *
 * Every change to either table that a gateway's credential snapshot depends
 * on sends `NOTIFY lunanexa_gateway_credentials` with the table name
 * (statement-level, so a batch is one notification), and gateways reload at
 * once: a revocation takes effect immediately, not one refresh later. The
 * gateway's own `last_used_at` batches are left out (UPDATE OF lists every
 * other column), so they do not make every gateway reload every 30 seconds.
 */
export class TenantsAndGatewayKeys1767830400000 implements MigrationInterface {
  name = 'TenantsAndGatewayKeys1767830400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE tenants (
        id text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'),
        display_name text CHECK (
          display_name IS NULL OR (char_length(display_name) BETWEEN 1 AND 256 AND display_name !~ '[[:cntrl:]]')
        ),
        requests_per_minute integer CHECK (requests_per_minute IS NULL OR requests_per_minute BETWEEN 1 AND 1000000),
        tokens_per_minute bigint CHECK (tokens_per_minute IS NULL OR tokens_per_minute BETWEEN 1 AND 10000000000),
        max_concurrent_requests integer CHECK (
          max_concurrent_requests IS NULL OR max_concurrent_requests BETWEEN 1 AND 100000
        ),
        created_by text NOT NULL CHECK (char_length(created_by) BETWEEN 1 AND 256),
        created_at timestamptz NOT NULL,
        updated_by text NOT NULL CHECK (char_length(updated_by) BETWEEN 1 AND 256),
        updated_at timestamptz NOT NULL,
        CONSTRAINT tenants_updated_after_created CHECK (updated_at >= created_at)
      )`);
    // A CHECK cannot hold a subquery, so the per-element rules of a key's alias list live in a function.
    await q.query(`
      CREATE FUNCTION gateway_key_aliases_valid(aliases text[]) RETURNS boolean
      LANGUAGE sql IMMUTABLE STRICT AS $$
        SELECT array_ndims(aliases) = 1
           AND cardinality(aliases) BETWEEN 1 AND 100
           AND (SELECT bool_and(alias IS NOT NULL AND alias ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$')
                  AND count(DISTINCT alias) = count(*)
                  FROM unnest(aliases) AS alias)
      $$`);
    await q.query(`
      CREATE TABLE gateway_keys (
        id uuid PRIMARY KEY,
        tenant_id text NOT NULL REFERENCES tenants (id) ON DELETE RESTRICT,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100 AND name !~ '[[:cntrl:]]'),
        -- sha256 (hex) of the whole key; the key itself is shown once and never stored.
        key_hash char(64) NOT NULL UNIQUE CHECK (key_hash ~ '^[0-9a-f]{64}$'),
        -- lnxk_ + the first 8 random characters: display and audit evidence.
        prefix text NOT NULL CHECK (prefix ~ '^lnxk_[A-Za-z0-9_-]{8}$'),
        -- Alias names the key may call (model@version is for operators only).
        aliases text[] NOT NULL CHECK (gateway_key_aliases_valid(aliases)),
        created_by text NOT NULL CHECK (char_length(created_by) BETWEEN 1 AND 256),
        created_at timestamptz NOT NULL,
        expires_at timestamptz CHECK (expires_at IS NULL OR expires_at > created_at),
        revoked_at timestamptz CHECK (revoked_at IS NULL OR revoked_at >= created_at),
        revoked_by text CHECK (revoked_by IS NULL OR char_length(revoked_by) BETWEEN 1 AND 256),
        -- Written by the gateway in batches (touchGatewayKeysLastUsed), never moved backwards.
        last_used_at timestamptz,
        CONSTRAINT gateway_keys_revoked_by_whom CHECK ((revoked_at IS NULL) = (revoked_by IS NULL))
      )`);
    await q.query(`CREATE INDEX gateway_keys_tenant ON gateway_keys (tenant_id, created_at)`);
    await q.query(`
      CREATE FUNCTION notify_gateway_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('lunanexa_gateway_credentials', TG_TABLE_NAME);
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER tenants_notify_gateway_credentials
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tenants
        FOR EACH STATEMENT EXECUTE FUNCTION notify_gateway_credentials_changed()`);
    await q.query(`
      CREATE TRIGGER gateway_keys_notify_gateway_credentials
        AFTER INSERT OR DELETE OR TRUNCATE
          OR UPDATE OF id, tenant_id, name, key_hash, prefix, aliases, created_by, created_at, expires_at,
                       revoked_at, revoked_by
        ON gateway_keys
        FOR EACH STATEMENT EXECUTE FUNCTION notify_gateway_credentials_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE gateway_keys`);
    await q.query(`DROP TABLE tenants`);
    await q.query(`DROP FUNCTION notify_gateway_credentials_changed()`);
    await q.query(`DROP FUNCTION gateway_key_aliases_valid(text[])`);
  }
}
