import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `sign_in_throttle`: consecutive failed sign-ins per account and per client address (libs/domain
 * sign-in-throttle.ts), so every api process sees the same counts and a restart forgets nothing. Keys are
 * sha256 hex of the normalised username or the address: people type passwords into the username field.
 */
export class SignInThrottle1768700000000 implements MigrationInterface {
  name = 'SignInThrottle1768700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sign_in_throttle (
        scope text NOT NULL CHECK (scope IN ('account', 'address')),
        key_sha256 text NOT NULL CHECK (key_sha256 ~ '^[0-9a-f]{64}$'),
        failures integer NOT NULL CHECK (failures >= 0),
        last_failure_at timestamptz,
        blocked_until timestamptz,
        PRIMARY KEY (scope, key_sha256)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE sign_in_throttle`);
  }
}
