import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource, createScratchDatabase, runMigrations, type ScratchDatabase } from '../src';

/** A syntactically valid scrypt hash (the database checks the shape, the API the content). */
const HASH = `scrypt$32768$8$1$${'A'.repeat(22)}$${'B'.repeat(42)}A`;
const TOKEN_HASH = 'ab'.repeat(32);

describe('operators and api_tokens tables on PostgreSQL', function () {
  this.timeout(30_000);
  let db: ScratchDatabase;
  let ds: DataSource;

  async function failure(sql: string, params: unknown[]): Promise<string> {
    try {
      await ds.query(sql, params);
    } catch (error) {
      return String(error);
    }
    return 'no error';
  }

  const insertOperator = (username: string, role = 'viewer', passwordHash = HASH) =>
    ds.query<{ id: string }[]>(
      `INSERT INTO operators (id, username, password_hash, role) VALUES ($1, $2, $3, $4) RETURNING id`,
      [randomUUID(), username, passwordHash, role],
    );

  const insertToken = (operatorId: string, role: string, prefix = 'lnx_abcdEFGH', tokenHash = TOKEN_HASH) =>
    ds.query(
      `INSERT INTO api_tokens (id, operator_id, name, token_hash, prefix, role) VALUES ($1, $2, 'ci', $3, $4, $5)`,
      [randomUUID(), operatorId, tokenHash, prefix, role],
    );

  before(async () => {
    db = await createScratchDatabase('identity');
    await runMigrations(db.url);
    ds = createDataSource({ url: db.url, applicationName: 'identity-schema-test' });
    await ds.initialize();
  });

  after(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('keeps usernames lower-case and unique, roles to the three names', async () => {
    await insertOperator('alice');
    expect(
      await failure('INSERT INTO operators (id, username, password_hash, role) VALUES ($1, $2, $3, $4)', [
        randomUUID(),
        'Alice',
        HASH,
        'viewer',
      ]),
    ).to.match(/operators_username_check/);
    expect(
      await failure('INSERT INTO operators (id, username, password_hash, role) VALUES ($1, $2, $3, $4)', [
        randomUUID(),
        'alice',
        HASH,
        'viewer',
      ]),
    ).to.match(/duplicate key/);
    expect(
      await failure('INSERT INTO operators (id, username, password_hash, role) VALUES ($1, $2, $3, $4)', [
        randomUUID(),
        'root',
        HASH,
        'superuser',
      ]),
    ).to.match(/operators_role_check/);
  });

  it('refuses anything but a scrypt hash in password_hash', async () => {
    for (const clear of ['hunter2hunter2', 'scrypt$32768$8$1$short$short', `${HASH}x`]) {
      expect(
        await failure('INSERT INTO operators (id, username, password_hash, role) VALUES ($1, $2, $3, $4)', [
          randomUUID(),
          `u${randomUUID().slice(0, 8)}`,
          clear,
          'viewer',
        ]),
        clear,
      ).to.match(/operators_password_hash_check/);
    }
  });

  it("refuses an API token with more than its owner's role, a bad prefix or a bad hash", async () => {
    const [viewer] = await insertOperator('vic', 'viewer');
    const [admin] = await insertOperator('ada', 'admin');
    const viewerId = viewer?.id ?? '';
    expect(
      await failure(
        `INSERT INTO api_tokens (id, operator_id, name, token_hash, prefix, role) VALUES ($1, $2, 'ci', $3, 'lnx_abcdEFGH', 'operator')`,
        [randomUUID(), viewerId, TOKEN_HASH],
      ),
    ).to.match(/exceeds its owner's role/);
    await insertToken(viewerId, 'viewer');
    await insertToken(admin?.id ?? '', 'admin', 'lnx_12345678', 'cd'.repeat(32));
    expect(await failure(`UPDATE api_tokens SET role = 'admin' WHERE operator_id = $1`, [viewerId])).to.match(
      /exceeds its owner's role/,
    );
    expect(
      await failure(
        `INSERT INTO api_tokens (id, operator_id, name, token_hash, prefix, role) VALUES ($1, $2, 'ci', $3, 'ghp_abcdEFGH', 'viewer')`,
        [randomUUID(), viewerId, 'ef'.repeat(32)],
      ),
    ).to.match(/api_tokens_prefix_check/);
    expect(
      await failure(
        `INSERT INTO api_tokens (id, operator_id, name, token_hash, prefix, role) VALUES ($1, $2, 'ci', $3, 'lnx_abcdEFGH', 'viewer')`,
        [randomUUID(), viewerId, 'not-a-sha256'],
      ),
    ).to.match(/api_tokens_token_hash_check/);
    expect(await failure(`DELETE FROM operators WHERE id = $1`, [viewerId])).to.match(/foreign key/);
  });
});
