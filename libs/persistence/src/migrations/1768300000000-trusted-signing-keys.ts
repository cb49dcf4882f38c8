import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Artifact signature verification:
 * - `trusted_signing_keys`: Ed25519 public keys an admin registered to vouch
 *   for artifacts. The id is the key's fingerprint (`ed25519:` + 32 hex of
 *   sha256 over the raw key), so a row cannot be re-pointed at another key.
 *   Revoked keys stay (evidence for old audit events) and verify nothing.
 * - `tenants.allow_unsigned_versions`: whether versions without a provenance
 *   signature may be rolled out onto an alias this tenant's gateway keys call.
 *   Defaults to true so existing fleets keep deploying.
 */
export class TrustedSigningKeys1768300000000 implements MigrationInterface {
  name = 'TrustedSigningKeys1768300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE trusted_signing_keys (
        key_id text PRIMARY KEY CHECK (key_id ~ '^ed25519:[0-9a-f]{32}$'),
        algorithm text NOT NULL CHECK (algorithm = 'ed25519'),
        -- Base64 of the raw 32-byte public key.
        public_key text NOT NULL UNIQUE CHECK (public_key ~ '^[A-Za-z0-9+/]{43}=$'),
        label text NOT NULL CHECK (char_length(label) BETWEEN 1 AND 200 AND label !~ '[[:cntrl:]]'),
        created_by text NOT NULL CHECK (char_length(created_by) BETWEEN 1 AND 256),
        created_at timestamptz NOT NULL,
        revoked_at timestamptz CHECK (revoked_at IS NULL OR revoked_at >= created_at),
        revoked_by text CHECK (revoked_by IS NULL OR char_length(revoked_by) BETWEEN 1 AND 256),
        CONSTRAINT trusted_signing_keys_revoked_by_whom CHECK ((revoked_at IS NULL) = (revoked_by IS NULL))
      )`);
    await q.query(`ALTER TABLE tenants ADD COLUMN allow_unsigned_versions boolean NOT NULL DEFAULT true`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE tenants DROP COLUMN allow_unsigned_versions`);
    await q.query(`DROP TABLE trusted_signing_keys`);
  }
}
