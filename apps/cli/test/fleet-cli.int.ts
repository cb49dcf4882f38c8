import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiConfigSchema, createApiApp } from '@lunanexa/api';
// The API package exports no first-admin helper; its own integration tests use this module too.
import { ensureFirstAdmin } from '@lunanexa/api/dist/src/auth/first-admin';
import { BOOTSTRAP_TOKEN_PREFIX, DEFAULT_BOOTSTRAP_TOKEN_TTL_SECONDS } from '@lunanexa/contracts';
import { startControlPlaneFixture, type ControlPlaneFixture } from '@lunanexa/e2e';
import { createLogger, findRepoRoot } from '@lunanexa/observability';
import { expect } from 'chai';
import { runCli } from '../src/cli';
import { captureIo, type CapturedIo } from './support';

/**
 * The fleet commands against the real API, in-process over the control-plane
 * fixture (real Temporal dev server, migrated PostgreSQL, a worker). No
 * agents: enrollment through deployment with real nodes is the e2e suite's.
 */
describe('lunanexa fleet commands against the real API', function () {
  this.timeout(180_000);
  let fixture: ControlPlaneFixture;
  let app: Awaited<ReturnType<typeof createApiApp>>;
  let apiUrl: string;
  let scratch: string;
  let adminTokenFile: string;
  let viewerToken: string;
  const adminPassword = randomBytes(18).toString('base64url');

  async function graphql<T>(query: string, variables: unknown, bearer?: string): Promise<T> {
    const response = await fetch(`${apiUrl}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: T; errors?: unknown[] };
    if (body.errors !== undefined || body.data === undefined) throw new Error(JSON.stringify(body.errors));
    return body.data;
  }

  /**
   * Runs the CLI in-process against the API: the admin's token from a file
   * (--token-file), the viewer's from LUNANEXA_TOKEN, or no credential.
   */
  async function cli(
    argv: readonly string[],
    as: 'admin' | 'viewer' | 'anonymous' = 'admin',
  ): Promise<CapturedIo & { code: number }> {
    const io = captureIo(as === 'viewer' ? { LUNANEXA_TOKEN: viewerToken } : {});
    const auth = as === 'admin' ? ['--token-file', adminTokenFile] : [];
    const code = await runCli(['--api-url', apiUrl, ...auth, ...argv], io, '0.0.0-test');
    return { ...io, code };
  }

  before(async () => {
    fixture = await startControlPlaneFixture('cli');
    scratch = mkdtempSync(join(tmpdir(), 'lunanexa-cli-int-'));
    await ensureFirstAdmin(fixture.ds, { username: 'cli-admin', password: adminPassword });
    const config = ApiConfigSchema.parse({
      DATABASE_URL: fixture.db.url,
      TEMPORAL_ADDRESS: fixture.env.address,
      TEMPORAL_NAMESPACE: fixture.env.namespace,
      LUNANEXA_TASK_QUEUE: fixture.taskQueue,
      LUNANEXA_API_PORT: '1',
      LUNANEXA_DATA_DIR: scratch,
      LUNANEXA_CONSOLE_DIR: join(findRepoRoot(), 'no-console-here'),
      LUNANEXA_CONTROLLER_KEY_FILE: fixture.controllerKeyFile,
    });
    app = await createApiApp(config, createLogger({ service: 'cli-test', level: 'silent' }), {
      version: '0.0.0-test',
      commit: 'test',
    });
    await app.listen(0, '127.0.0.1');
    const { port } = (app.getHttpServer() as { address(): AddressInfo }).address();
    apiUrl = `http://127.0.0.1:${port}`;

    const { login } = await graphql<{ login: { accessToken: string } }>(
      'mutation($input: LoginInput!) { login(input: $input) { accessToken } }',
      { input: { username: 'cli-admin', password: adminPassword } },
    );
    const createToken = async (name: string, role: string): Promise<string> =>
      (
        await graphql<{ createApiToken: { token: string } }>(
          'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token } }',
          { input: { name, role } },
          login.accessToken,
        )
      ).createApiToken.token;
    adminTokenFile = join(scratch, 'admin.token');
    writeFileSync(adminTokenFile, `${await createToken('cli admin', 'admin')}\n`, { mode: 0o600 });
    viewerToken = await createToken('cli viewer', 'viewer');
  });

  after(async () => {
    await app?.close();
    await fixture?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  let tokenId = '';
  let tokenSecret = '';

  it('node token create --auto-approve --json: an lnxb_ token for 15 minutes, with where the agent connects', async () => {
    const before = Date.now();
    const run = await cli(['--json', 'node', 'token', 'create', '--auto-approve', '--label', 'rack=r1']);
    expect(run.code, run.err()).to.equal(0);
    const created = JSON.parse(run.out()) as {
      token: string;
      agentInvocation: string;
      controllerUrl: string;
      controllerKeyFingerprint: string;
      requestId: string;
      bootstrapToken: {
        id: string;
        prefix: string;
        autoApprove: boolean;
        expiresAt: string;
        labels: unknown;
      };
    };
    expect(created.token.startsWith(BOOTSTRAP_TOKEN_PREFIX)).to.equal(true);
    expect(created.token).to.match(/^lnxb_[A-Za-z0-9_-]{40,}$/);
    expect(created.bootstrapToken.prefix).to.equal(
      created.token.slice(0, created.bootstrapToken.prefix.length),
    );
    expect(created.bootstrapToken.autoApprove).to.equal(true);
    expect(created.bootstrapToken.labels).to.deep.equal([{ key: 'rack', value: 'r1' }]);
    const lifetimeSeconds = (Date.parse(created.bootstrapToken.expiresAt) - before) / 1000;
    expect(lifetimeSeconds).to.be.within(
      DEFAULT_BOOTSTRAP_TOKEN_TTL_SECONDS - 60,
      DEFAULT_BOOTSTRAP_TOKEN_TTL_SECONDS + 5,
    );
    expect(created.agentInvocation).to.contain(created.token);
    expect(created.controllerUrl).to.match(/^https?:\/\//);
    expect(created.controllerKeyFingerprint).to.match(/^SHA256:/);
    expect(created.requestId).to.match(/^[0-9a-f-]{36}$/);
    tokenId = created.bootstrapToken.id;
    tokenSecret = created.token;
  });

  it('node token list shows the token by prefix, never its secret', async () => {
    const json = await cli(['--json', 'node', 'token', 'list']);
    expect(json.code, json.err()).to.equal(0);
    const tokens = JSON.parse(json.out()) as { id: string; revokedAt: string | null }[];
    expect(tokens.map((token) => token.id)).to.include(tokenId);
    expect(json.out()).to.not.contain(tokenSecret);
    const text = await cli(['node', 'token', 'list']);
    expect(text.code).to.equal(0);
    expect(text.out()).to.match(new RegExp(`^${tokenId} +lnxb_\\S+ +usable `, 'm'));
    expect(text.out()).to.not.contain(tokenSecret);
  });

  it('node token revoke marks it revoked', async () => {
    const run = await cli(['node', 'token', 'revoke', tokenId]);
    expect(run.code, run.err()).to.equal(0);
    expect(run.out()).to.match(
      new RegExp(`^bootstrap token lnxb_\\S+… \\(${tokenId}\\) revoked at \\S+Z\\n$`),
    );
    const list = JSON.parse((await cli(['--json', 'node', 'token', 'list'])).out()) as {
      id: string;
      revokedAt: string | null;
    }[];
    expect(list.find((token) => token.id === tokenId)?.revokedAt).to.be.a('string');
  });

  it('node token create as a viewer is FORBIDDEN (exit 77) and creates nothing', async () => {
    const run = await cli(['--json', 'node', 'token', 'create', '--auto-approve'], 'viewer');
    expect(run.code).to.equal(77);
    expect(run.out()).to.equal('');
    expect(run.err()).to.match(/^error\[FORBIDDEN\]: .+ \(request [0-9a-f-]{36}\)\n$/);
    const tokens = JSON.parse((await cli(['--json', 'node', 'token', 'list'])).out()) as unknown[];
    expect(tokens).to.have.length(1);
  });

  it('fleet reads without a credential are UNAUTHENTICATED (exit 77)', async () => {
    const run = await cli(['node', 'list'], 'anonymous');
    expect(run.code).to.equal(77);
    expect(run.err()).to.match(/^error\[UNAUTHENTICATED\]: /);
  });

  it('model register demo@v1 succeeds once; the second time is CONFLICT (exit 1)', async () => {
    const first = await cli([
      'model',
      'register',
      'demo@v1',
      '--ttft-ms',
      '20',
      '--tokens-per-second',
      '200',
    ]);
    expect(first.code, first.err()).to.equal(0);
    expect(first.out()).to.match(/^registered {2}demo@v1$/m);
    expect(first.out()).to.match(/^digest {6}sha256:[0-9a-f]{64}$/m);
    const again = await cli(['model', 'register', 'demo@v1']);
    expect(again.code).to.equal(1);
    expect(again.err()).to.match(
      /^error\[CONFLICT\]: demo@v1 is already registered \(request [0-9a-f-]{36}\)\n$/,
    );
    const list = await cli(['--json', 'model-version', 'list'], 'viewer');
    expect(list.code).to.equal(0);
    expect(
      (JSON.parse(list.out()) as { ref: string; state: string; runtime: { id: string } }[]).map((v) => [
        v.ref,
        v.state,
        v.runtime.id,
      ]),
    ).to.deep.equal([['demo@v1', 'Verified', 'runtime-fake']]);
  });

  it('an out-of-range fake runtime speed is the API validation error (exit 65) with its field', async () => {
    const run = await cli(['model', 'register', 'demo@v2', '--tokens-per-second', '100001']);
    expect(run.code).to.equal(65);
    expect(run.err()).to.match(/^error\[VALIDATION_FAILED\]: /);
    expect(run.err()).to.contain('  tokensPerSecond: must be 1-100000\n');
  });

  it('node list --json is [] on a fleet without nodes (viewers may read)', async () => {
    const run = await cli(['--json', 'node', 'list'], 'viewer');
    expect(run.code, run.err()).to.equal(0);
    expect(JSON.parse(run.out())).to.deep.equal([]);
    const text = await cli(['node', 'list']);
    expect(text.out()).to.contain('No nodes enrolled');
  });

  it('node get nope is NOT_FOUND (exit 1); so are operations on it', async () => {
    const get = await cli(['node', 'get', 'nope']);
    expect(get.code).to.equal(1);
    expect(get.err()).to.match(/^error\[NOT_FOUND\]: node nope does not exist \(request [0-9a-f-]{36}\)\n$/);
    const cordon = await cli(['node', 'cordon', 'nope']);
    expect(cordon.code).to.equal(1);
    expect(cordon.err()).to.match(/^error\[NOT_FOUND\]: /);
  });

  it('deploy create x --model missing@v1 is MODEL_NOT_FOUND (exit 1); deploy list stays empty', async () => {
    const run = await cli(['deploy', 'create', 'x', '--model', 'missing@v1']);
    expect(run.code).to.equal(1);
    expect(run.out()).to.equal('');
    expect(run.err()).to.match(
      /^error\[MODEL_NOT_FOUND\]: model version missing@v1 is not registered \(request /,
    );
    const list = await cli(['--json', 'deploy', 'list']);
    expect(list.code).to.equal(0);
    expect(JSON.parse(list.out())).to.deep.equal([]);
    const get = await cli(['deploy', 'get', 'x']);
    expect(get.code).to.equal(1);
    expect(get.err()).to.match(/^error\[NOT_FOUND\]: deployment x does not exist/);
  });
});
