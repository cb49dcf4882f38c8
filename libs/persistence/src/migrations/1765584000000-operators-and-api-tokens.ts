import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Operator identity: accounts and API tokens.
 *
 * Sessions are stateless (short-lived Ed25519-signed JWTs, see
 * apps/api/src/auth/auth.service.ts), so there is no sessions table; an
 * operator's `session_epoch` is part of every session token and bumping it
 * revokes all of that operator's sessions at once (logout, role change,
 * disable).
 */
export class OperatorsAndApiTokens1765584000000 implements MigrationInterface {
  name = 'OperatorsAndApiTokens1765584000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION lunanexa_role_rank(role text) RETURNS integer
      LANGUAGE sql IMMUTABLE STRICT AS $$
        SELECT CASE role WHEN 'viewer' THEN 0 WHEN 'operator' THEN 1 WHEN 'admin' THEN 2 END
      $$`);
    await q.query(`
      CREATE TABLE operators (
        id uuid PRIMARY KEY,
        -- Stored lower-case, so the unique constraint is case-insensitive (citext-like).
        username text NOT NULL UNIQUE
          CHECK (username = lower(username) AND username ~ '^[a-z][a-z0-9._-]{1,63}$'),
        -- scrypt$N$r$p$<salt base64url>$<hash base64url>; never a clear-text password.
        password_hash text NOT NULL
          CHECK (password_hash ~ '^scrypt\\$[0-9]+\\$[0-9]+\\$[0-9]+\\$[A-Za-z0-9_-]{22}\\$[A-Za-z0-9_-]{43}$'),
        role text NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
        session_epoch integer NOT NULL DEFAULT 0 CHECK (session_epoch >= 0),
        disabled_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE api_tokens (
        id uuid PRIMARY KEY,
        operator_id uuid NOT NULL REFERENCES operators (id) ON DELETE RESTRICT,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
        -- sha256 (hex) of the whole token; the token itself is shown once and never stored.
        token_hash char(64) NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
        -- The first characters of the token, for display and for the audit actor token:<prefix>.
        prefix text NOT NULL CHECK (prefix ~ '^lnx_[A-Za-z0-9_-]{8}$'),
        role text NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz CHECK (expires_at IS NULL OR expires_at > created_at),
        revoked_at timestamptz,
        last_used_at timestamptz
      )`);
    await q.query(`CREATE INDEX api_tokens_operator_id ON api_tokens (operator_id)`);
    // A token never carries more than its owner's role at issue time. (An owner
    // demoted later is handled at use: the API takes the lower of the two.)
    await q.query(`
      CREATE FUNCTION api_tokens_role_within_owner() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        owner_role text;
      BEGIN
        SELECT role INTO owner_role FROM operators WHERE id = NEW.operator_id;
        IF owner_role IS NOT NULL AND lunanexa_role_rank(NEW.role) > lunanexa_role_rank(owner_role) THEN
          RAISE EXCEPTION 'api token role % exceeds its owner''s role %', NEW.role, owner_role
            USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
      END $$`);
    await q.query(`
      CREATE TRIGGER api_tokens_role_within_owner BEFORE INSERT OR UPDATE OF role, operator_id ON api_tokens
      FOR EACH ROW EXECUTE FUNCTION api_tokens_role_within_owner()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE api_tokens`);
    await q.query(`DROP FUNCTION api_tokens_role_within_owner()`);
    await q.query(`DROP TABLE operators`);
    await q.query(`DROP FUNCTION lunanexa_role_rank(text)`);
  }
}
