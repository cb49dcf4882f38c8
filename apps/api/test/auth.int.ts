import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Get, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  ErrorCode,
  ProblemDetailsSchema,
  REGISTRY_MUTATION_PERMISSIONS,
  TENANCY_MUTATION_PERMISSIONS,
  SIGNING_MUTATION_PERMISSIONS,
} from '@lunanexa/contracts';
import { startControlPlaneFixture, type ControlPlaneFixture } from '@lunanexa/e2e';
import { createLogger, findRepoRoot, type Logger } from '@lunanexa/observability';
import {
  createDataSource,
  createScratchDatabase,
  runMigrations,
  verifyAuditChain,
  type ScratchDatabase,
} from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import { ApiConfigSchema, createApiApp, type ApiConfig } from '../src';
import { AuthModule } from '../src/auth/auth.module';
import { loadOrCreateControllerKey, type ControllerKey } from '../src/auth/controller-key';
import { Roles } from '../src/auth/decorators';
import { ensureFirstAdmin } from '../src/auth/first-admin';
import { verifyPassword } from '../src/auth/password';
import { SESSION_ISSUER, signSessionToken, type SessionClaims } from '@lunanexa/credentials';
import { ProblemJsonFilter } from '../src/common/problem.filter';
import { requestIdsMiddleware } from '../src/common/request-ids';
import { InfrastructureModule } from '../src/infrastructure/infrastructure.module';

interface GraphQLError {
  message: string;
  path?: string[];
  extensions: { code: string; requestId?: string; correlationId?: string };
}
interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: GraphQLError[];
}
interface Answer {
  status: number;
  body: GraphQLBody;
}

/** Introspection shapes the table test needs. */
interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface InputValue {
  name: string;
  type: TypeRef;
  defaultValue: string | null;
}
interface FieldInfo {
  name: string;
  args: InputValue[];
  type: TypeRef;
}
interface TypeInfo {
  kind: string;
  name: string;
  fields: FieldInfo[] | null;
  inputFields: InputValue[] | null;
  enumValues: { name: string }[] | null;
}

const TYPE_REF =
  'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
const INTROSPECTION = `{ __schema {
  queryType { name } mutationType { name }
  types { kind name
    fields { name args { name defaultValue type { ${TYPE_REF} } } type { ${TYPE_REF} } }
    inputFields { name defaultValue type { ${TYPE_REF} } }
    enumValues { name } } } }`;

const LOGIN = `mutation($input: LoginInput!) { login(input: $input) { accessToken expiresAt operator { id username role } } }`;
const ME = `{ me { role credential tokenPrefix expiresAt operator { id username role disabledAt } } }`;
const PING = `mutation($input: PingInput!) { ping(input: $input) { workflowId pingId } }`;
const CREATE_OPERATOR = `mutation($input: CreateOperatorInput!) { createOperator(input: $input) { id username role disabledAt } }`;
const SET_ROLE = `mutation($input: SetOperatorRoleInput!) { setOperatorRole(input: $input) { id username role } }`;
const DISABLE = `mutation($id: ID!) { disableOperator(id: $id) { id username disabledAt } }`;
const CREATE_TOKEN = `mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token apiToken { id name prefix role ownerId ownerUsername createdAt expiresAt revokedAt lastUsedAt } } }`;
const REVOKE_TOKEN = `mutation($id: ID!) { revokeApiToken(id: $id) { id prefix revokedAt } }`;

const DENIAL_CODES: readonly string[] = [
  ErrorCode.FORBIDDEN,
  ErrorCode.UNAUTHENTICATED,
  ErrorCode.TOKEN_EXPIRED,
];

/** A route without @Public or @Roles, and one open to viewers: the REST side of deny-by-default. */
@Controller('probe')
class ProbeController {
  @Get('undeclared')
  undeclared() {
    return { reached: true };
  }

  @Roles('viewer')
  @Get('viewers')
  viewers() {
    return { reached: true };
  }
}

describe('operator identity and roles on real Temporal and PostgreSQL', function () {
  this.timeout(180_000);
  let fixture: ControlPlaneFixture;
  let taskQueue: string;
  /** Everything the API logs, at every level, to search for secrets afterwards. */
  const logLines: string[] = [];
  const logger: Logger = createLogger({
    service: 'auth-test',
    level: 'trace',
    destination: { write: (line: string) => void logLines.push(line) },
  });
  /** Every password, API token and session token this file uses: none may be stored or logged. */
  const secrets = new Set<string>();
  const secret = (value: string) => {
    secrets.add(value);
    return value;
  };
  const newPassword = () => secret(`pw-${randomBytes(15).toString('base64url')}`);
  const passwords = { root: newPassword(), vera: newPassword(), otto: newPassword() };

  let env: TestWorkflowEnvironment;
  let db: ScratchDatabase;
  let ds: DataSource;
  let app: INestApplication;
  let base: string;
  let keyDir: string;
  let config: ApiConfig;
  let controllerKey: ControllerKey;
  let rootId: string;
  const ids: Record<string, string> = {};

  async function gql(query: string, variables?: Record<string, unknown>, bearer?: string): Promise<Answer> {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
      },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as GraphQLBody };
  }

  const codeOf = (answer: Answer) => answer.body.errors?.[0]?.extensions.code;

  function data<T>(answer: Answer, field: string): T {
    expect(answer.body.errors, JSON.stringify(answer.body.errors)).to.equal(undefined);
    return answer.body.data?.[field] as T;
  }

  async function login(username: string, password: string): Promise<string> {
    const answer = await gql(LOGIN, { input: { username, password } });
    return secret(data<{ accessToken: string }>(answer, 'login').accessToken);
  }

  async function createOperator(admin: string, username: string, role: string, password: string) {
    const answer = await gql(CREATE_OPERATOR, { input: { username, password, role } }, admin);
    return data<{ id: string; username: string; role: string; disabledAt: string | null }>(
      answer,
      'createOperator',
    );
  }

  async function createToken(bearer: string, input: Record<string, unknown>) {
    const answer = await gql(CREATE_TOKEN, { input }, bearer);
    const created = data<{
      token: string;
      apiToken: { id: string; prefix: string; role: string; expiresAt: string | null; ownerUsername: string };
    }>(answer, 'createApiToken');
    secret(created.token);
    return created;
  }

  async function auditEvents(action: string, sinceSeq = 0) {
    return ds.query<
      { seq: string; actor: string; decision: string; result: string; evidence: Record<string, unknown> }[]
    >(
      `SELECT seq, actor, decision, result, evidence FROM audit_events WHERE action = $1 AND seq > $2 ORDER BY seq`,
      [action, sinceSeq],
    );
  }

  async function lastSeq(): Promise<number> {
    const rows = await ds.query<{ seq: string | null }[]>('SELECT max(seq) AS seq FROM audit_events');
    return Number(rows[0]?.seq ?? 0);
  }

  async function listen(settings: ApiConfig): Promise<{ app: INestApplication; base: string }> {
    const created = await createApiApp(settings, logger, { version: '0.0.0-test', commit: 'test' });
    await created.listen(0, '127.0.0.1');
    const { port } = (created.getHttpServer() as { address(): AddressInfo }).address();
    return { app: created, base: `http://127.0.0.1:${port}` };
  }

  before(async () => {
    fixture = await startControlPlaneFixture('auth');
    ({ env, db, ds, taskQueue } = fixture);
    keyDir = mkdtempSync(join(tmpdir(), 'lunanexa-auth-key-'));
    config = ApiConfigSchema.parse({
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: env.namespace,
      LUNANEXA_TASK_QUEUE: taskQueue,
      LUNANEXA_API_PORT: '1',
      LUNANEXA_CONSOLE_DIR: join(findRepoRoot(), 'no-console-here'),
      LUNANEXA_CONTROLLER_KEY_FILE: join(keyDir, 'controller', 'controller-ed25519.pem'),
      LUNANEXA_LOG_LEVEL: 'trace',
    });
    const first = await ensureFirstAdmin(ds, { username: 'Root', password: passwords.root });
    if (!first.created) throw new Error('a fresh database has no admin');
    rootId = first.operatorId;
    ({ app, base } = await listen(config));
    controllerKey = loadOrCreateControllerKey(join(keyDir, 'controller', 'controller-ed25519.pem'));
    const root = await login('root', passwords.root);
    ids['vera'] = (await createOperator(root, 'vera', 'viewer', passwords.vera)).id;
    ids['otto'] = (await createOperator(root, 'otto', 'operator', passwords.otto)).id;
  });

  after(async () => {
    await app?.close();
    await fixture?.stop();
    if (keyDir) rmSync(keyDir, { recursive: true, force: true });
  });

  it('first admin: created once (lower-cased, audited), then left alone', async () => {
    expect(await ensureFirstAdmin(ds, { username: 'someone-else' })).to.deep.equal({
      created: false,
      existingAdmin: 'root',
    });
    const rows = await ds.query<{ username: string; role: string }[]>(
      `SELECT username, role FROM operators WHERE role = 'admin'`,
    );
    expect(rows).to.deep.equal([{ username: 'root', role: 'admin' }]);
    const [created] = await auditEvents('operator.create');
    expect(created).to.deep.include({
      actor: 'system:first-admin',
      decision: 'allowed',
      result: 'succeeded',
    });
    expect(created?.evidence).to.deep.include({ operatorId: rootId, passwordSource: 'provided' });
  });

  it('login returns a 15-minute EdDSA session; me and receipts name operator:<username>', async () => {
    const answer = await gql(LOGIN, { input: { username: 'ROOT', password: passwords.root } });
    const result = data<{ accessToken: string; expiresAt: string; operator: Record<string, string> }>(
      answer,
      'login',
    );
    secret(result.accessToken);
    expect(result.operator).to.deep.equal({ id: rootId, username: 'root', role: 'admin' });
    const lifetime = Date.parse(result.expiresAt) - Date.now();
    expect(lifetime).to.be.within(14 * 60_000, 15 * 60_000 + 1000);
    const header = JSON.parse(
      Buffer.from(result.accessToken.split('.')[0] ?? '', 'base64url').toString('utf8'),
    ) as Record<string, string>;
    expect(header).to.deep.equal({ alg: 'EdDSA', typ: 'JWT', kid: controllerKey.fingerprint });

    const me = data<Record<string, unknown>>(await gql(ME, undefined, result.accessToken), 'me');
    expect(me).to.deep.include({ role: 'admin', credential: 'session', tokenPrefix: null });
    expect(me['operator']).to.deep.include({ id: rootId, username: 'root', disabledAt: null });

    const key = `auth-${randomUUID()}`;
    const ping = data<{ workflowId: string }>(
      await gql(PING, { input: { idempotencyKey: key } }, result.accessToken),
      'ping',
    );
    const rows = await ds.query<{ actor: string }[]>(
      'SELECT actor FROM ping_records WHERE workflow_id = $1',
      [ping.workflowId],
    );
    expect(rows).to.deep.equal([{ actor: 'operator:root' }]);
    const logins = await auditEvents('auth.login');
    expect(logins.at(-1)).to.deep.include({
      actor: 'operator:root',
      decision: 'allowed',
      result: 'succeeded',
    });
  });

  it('login failures are indistinguishable: unknown user, wrong password, disabled account', async () => {
    const root = await login('root', passwords.root);
    const doraPassword = newPassword();
    const dora = await createOperator(root, 'dora', 'operator', doraPassword);
    data(await gql(DISABLE, { id: dora.id }, root), 'disableOperator');
    const since = await lastSeq();
    const attempts = [
      { username: 'nobody-here', password: newPassword() },
      { username: 'root', password: newPassword() },
      { username: 'dora', password: doraPassword },
    ];
    const answers = [];
    for (const input of attempts) answers.push(await gql(LOGIN, { input }));
    const comparable = answers.map((a) => ({
      status: a.status,
      data: a.body.data,
      errors: a.body.errors?.map((e) => ({ message: e.message, path: e.path, code: e.extensions.code })),
    }));
    expect(comparable[0]?.errors?.[0]?.code).to.equal(ErrorCode.UNAUTHENTICATED);
    expect(comparable[1]).to.deep.equal(comparable[0]);
    expect(comparable[2]).to.deep.equal(comparable[0]);

    const refusals = await auditEvents('auth.login', since);
    expect(refusals.map((e) => [e.actor, e.decision, e.result, e.evidence['reason']])).to.deep.equal([
      ['anonymous', 'denied', 'refused', 'operator-unknown'],
      ['anonymous', 'denied', 'refused', 'password-mismatch'],
      ['anonymous', 'denied', 'refused', 'operator-disabled'],
    ]);
    // An unknown name may be a mistyped password: it is kept only as a digest.
    expect(refusals[0]?.evidence).not.to.have.property('username');
    expect(refusals[0]?.evidence['usernameSha256']).to.equal(
      createHash('sha256').update('nobody-here').digest('hex'),
    );
    expect(refusals[1]?.evidence).to.deep.include({ username: 'root', operatorId: rootId });
  });

  it('an expired session answers TOKEN_EXPIRED; forged, tampered and missing credentials UNAUTHENTICATED', async () => {
    const [row] = await ds.query<{ session_epoch: number }[]>(
      'SELECT session_epoch FROM operators WHERE id = $1',
      [rootId],
    );
    const now = Math.floor(Date.now() / 1000);
    const claims: SessionClaims = {
      iss: SESSION_ISSUER,
      sub: rootId,
      role: 'admin',
      epoch: row?.session_epoch ?? 0,
      iat: now - 900,
      exp: now - 60,
    };
    const since = await lastSeq();
    const expired = secret(signSessionToken(controllerKey, claims));
    expect(codeOf(await gql(ME, undefined, expired))).to.equal(ErrorCode.TOKEN_EXPIRED);

    // A token for the same claims, valid in time, signed by a key this controller never had.
    const rogue = generateKeyPairSync('ed25519').privateKey;
    const live = { ...claims, iat: now, exp: now + 600 };
    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const input = `${b64({ alg: 'EdDSA', typ: 'JWT', kid: controllerKey.fingerprint })}.${b64(live)}`;
    const forged = secret(`${input}.${sign(null, Buffer.from(input), rogue).toString('base64url')}`);
    expect(codeOf(await gql(ME, undefined, forged))).to.equal(ErrorCode.UNAUTHENTICATED);

    const genuine = await login('otto', passwords.otto);
    const [h, , s] = genuine.split('.');
    const promoted = `${h}.${b64({ ...live, sub: ids['otto'] })}.${s}`;
    expect(codeOf(await gql(ME, undefined, promoted))).to.equal(ErrorCode.UNAUTHENTICATED);
    expect(codeOf(await gql(ME, undefined, 'not-a-token'))).to.equal(ErrorCode.UNAUTHENTICATED);
    expect(codeOf(await gql(ME))).to.equal(ErrorCode.UNAUTHENTICATED);

    const denials = await auditEvents('auth.authorize', since);
    expect(denials.map((e) => [e.actor, e.decision, e.result, e.evidence['reason']])).to.deep.equal([
      ['anonymous', 'denied', 'refused', 'session-expired'],
      ['anonymous', 'denied', 'refused', 'session-bad-signature'],
      ['anonymous', 'denied', 'refused', 'session-bad-signature'],
      ['anonymous', 'denied', 'refused', 'malformed-credentials'],
      ['anonymous', 'denied', 'refused', 'no-credentials'],
    ]);
    expect(denials[0]?.evidence).to.deep.include({
      operation: 'Query.me',
      errorCode: ErrorCode.TOKEN_EXPIRED,
      operatorId: rootId,
    });
  });

  it('logout ends every session of that operator, and only theirs', async () => {
    const first = await login('otto', passwords.otto);
    const second = await login('otto', passwords.otto);
    const vera = await login('vera', passwords.vera);
    expect(data(await gql('mutation { logout }', undefined, first), 'logout')).to.equal(true);
    expect(codeOf(await gql(ME, undefined, first))).to.equal(ErrorCode.UNAUTHENTICATED);
    expect(codeOf(await gql(ME, undefined, second))).to.equal(ErrorCode.UNAUTHENTICATED);
    expect(data<{ role: string }>(await gql(ME, undefined, vera), 'me').role).to.equal('viewer');
    const again = await login('otto', passwords.otto);
    expect(data<{ role: string }>(await gql(ME, undefined, again), 'me').role).to.equal('operator');
    const [logout] = (await auditEvents('auth.logout')).slice(-1);
    expect(logout).to.deep.include({ actor: 'operator:otto', decision: 'allowed', result: 'succeeded' });
  });

  it('API tokens: shown once, stored as sha256, act as token:<prefix>, refused once revoked', async () => {
    const root = await login('root', passwords.root);
    const created = await createToken(root, { name: 'ci pipeline', role: 'operator', expiresInDays: 30 });
    const { token, apiToken } = created;
    expect(token).to.match(/^lnx_[A-Za-z0-9_-]{43}$/);
    expect(apiToken).to.deep.include({ prefix: token.slice(0, 12), role: 'operator', ownerUsername: 'root' });
    expect(Date.parse(apiToken.expiresAt ?? '') - Date.now()).to.be.within(29 * 86_400_000, 30 * 86_400_000);
    const [stored] = await ds.query<{ token_hash: string; prefix: string }[]>(
      'SELECT token_hash, prefix FROM api_tokens WHERE id = $1',
      [apiToken.id],
    );
    expect(stored).to.deep.equal({
      token_hash: createHash('sha256').update(token).digest('hex'),
      prefix: apiToken.prefix,
    });

    const me = data<Record<string, unknown>>(await gql(ME, undefined, token), 'me');
    expect(me).to.deep.include({ role: 'operator', credential: 'apiToken', tokenPrefix: apiToken.prefix });
    const ping = data<{ workflowId: string }>(
      await gql(PING, { input: { idempotencyKey: `tok-${randomUUID()}` } }, token),
      'ping',
    );
    const rows = await ds.query<{ actor: string }[]>(
      'SELECT actor FROM ping_records WHERE workflow_id = $1',
      [ping.workflowId],
    );
    expect(rows).to.deep.equal([{ actor: `token:${apiToken.prefix}` }]);
    // The token carries operator, not its owner's admin.
    expect(codeOf(await gql('{ operators { id } }', undefined, token))).to.equal(ErrorCode.FORBIDDEN);
    expect(codeOf(await gql('mutation { logout }', undefined, token))).to.equal(ErrorCode.VALIDATION_FAILED);

    const listed = data<{ id: string; lastUsedAt: string | null }[]>(
      await gql('{ apiTokens { id lastUsedAt } }', undefined, root),
      'apiTokens',
    );
    expect(listed.find((t) => t.id === apiToken.id)?.lastUsedAt).to.be.a('string');

    const revoked = data<{ revokedAt: string }>(
      await gql(REVOKE_TOKEN, { id: apiToken.id }, root),
      'revokeApiToken',
    );
    expect(revoked.revokedAt).to.be.a('string');
    const since = await lastSeq();
    expect(codeOf(await gql(ME, undefined, token))).to.equal(ErrorCode.UNAUTHENTICATED);
    const [denial] = await auditEvents('auth.authorize', since);
    expect(denial?.evidence).to.deep.include({ reason: 'api-token-revoked', tokenId: apiToken.id });
    const again = data<{ revokedAt: string }>(
      await gql(REVOKE_TOKEN, { id: apiToken.id }, root),
      'revokeApiToken',
    );
    expect(again.revokedAt).to.equal(revoked.revokedAt);
    expect(codeOf(await gql(REVOKE_TOKEN, { id: randomUUID() }, root))).to.equal(ErrorCode.NOT_FOUND);
    expect(codeOf(await gql(REVOKE_TOKEN, { id: 'not-a-uuid' }, root))).to.equal(ErrorCode.VALIDATION_FAILED);
    const revocations = await auditEvents('apiToken.revoke');
    expect(
      revocations.map((e) => [e.result, e.evidence['changed'] ?? e.evidence['errorCode']]),
    ).to.deep.equal([
      ['succeeded', true],
      ['succeeded', false],
      ['failed', ErrorCode.NOT_FOUND],
    ]);
  });

  it('an expired API token answers TOKEN_EXPIRED', async () => {
    const root = await login('root', passwords.root);
    const { token, apiToken } = await createToken(root, { name: 'short-lived', expiresInDays: 1 });
    expect(data<{ role: string }>(await gql(ME, undefined, token), 'me').role).to.equal('admin');
    await ds.query(
      `UPDATE api_tokens SET created_at = now() - interval '2 days', expires_at = now() - interval '1 second' WHERE id = $1`,
      [apiToken.id],
    );
    expect(codeOf(await gql(ME, undefined, token))).to.equal(ErrorCode.TOKEN_EXPIRED);
  });

  it('a demoted owner takes their API tokens down with them, and their sessions end', async () => {
    const root = await login('root', passwords.root);
    const adaPassword = newPassword();
    const ada = await createOperator(root, 'ada', 'admin', adaPassword);
    const adaSession = await login('ada', adaPassword);
    const { token } = await createToken(adaSession, { name: 'ada automation' });
    const visible = data<unknown[]>(await gql('{ operators { id } }', undefined, token), 'operators');
    expect(visible.length).to.be.greaterThan(0);
    data(await gql(SET_ROLE, { input: { operatorId: ada.id, role: 'viewer' } }, root), 'setOperatorRole');
    expect(codeOf(await gql(ME, undefined, adaSession))).to.equal(ErrorCode.UNAUTHENTICATED);
    const me = data<{ role: string; operator: { role: string } }>(await gql(ME, undefined, token), 'me');
    expect(me.role).to.equal('viewer');
    expect(me.operator.role).to.equal('viewer');
    expect(codeOf(await gql('{ operators { id } }', undefined, token))).to.equal(ErrorCode.FORBIDDEN);
    expect(codeOf(await gql(PING, { input: { idempotencyKey: `ada-${randomUUID()}` } }, token))).to.equal(
      ErrorCode.FORBIDDEN,
    );
    const [change] = (await auditEvents('operator.setRole')).slice(-1);
    expect(change?.evidence).to.deep.include({ operatorId: ada.id, role: 'viewer', previousRole: 'admin' });
  });

  it('a disabled operator is refused everywhere: sessions, API tokens and login', async () => {
    const root = await login('root', passwords.root);
    const evePassword = newPassword();
    const eve = await createOperator(root, 'eve', 'admin', evePassword);
    const session = await login('eve', evePassword);
    const { token } = await createToken(session, { name: 'eve automation', role: 'viewer' });
    expect(data<{ role: string }>(await gql(ME, undefined, token), 'me').role).to.equal('viewer');
    const disabled = data<{ disabledAt: string | null }>(
      await gql(DISABLE, { id: eve.id }, root),
      'disableOperator',
    );
    expect(disabled.disabledAt).to.be.a('string');
    const since = await lastSeq();
    expect(codeOf(await gql(ME, undefined, session))).to.equal(ErrorCode.UNAUTHENTICATED);
    expect(codeOf(await gql(ME, undefined, token))).to.equal(ErrorCode.UNAUTHENTICATED);
    expect(codeOf(await gql(LOGIN, { input: { username: 'eve', password: evePassword } }))).to.equal(
      ErrorCode.UNAUTHENTICATED,
    );
    const reasons = (await auditEvents('auth.authorize', since)).map((e) => e.evidence['reason']);
    expect(reasons).to.deep.equal(['operator-disabled', 'operator-disabled']);
  });

  it('the last enabled admin can be neither demoted nor disabled (audited as failed)', async () => {
    const admins = await ds.query<{ id: string }[]>(
      `SELECT id FROM operators WHERE role = 'admin' AND disabled_at IS NULL`,
    );
    expect(admins).to.deep.equal([{ id: rootId }]);
    const root = await login('root', passwords.root);
    const since = await lastSeq();
    expect(codeOf(await gql(SET_ROLE, { input: { operatorId: rootId, role: 'operator' } }, root))).to.equal(
      ErrorCode.CONFLICT,
    );
    expect(codeOf(await gql(DISABLE, { id: rootId }, root))).to.equal(ErrorCode.CONFLICT);
    expect(data<{ role: string }>(await gql(ME, undefined, root), 'me').role).to.equal('admin');
    const failed = [
      ...(await auditEvents('operator.setRole', since)),
      ...(await auditEvents('operator.disable', since)),
    ];
    expect(failed.map((e) => [e.decision, e.result, e.evidence['errorCode']])).to.deep.equal([
      ['allowed', 'failed', ErrorCode.CONFLICT],
      ['allowed', 'failed', ErrorCode.CONFLICT],
    ]);
  });

  it('usernames are unique regardless of case and stored lower-case', async () => {
    const root = await login('root', passwords.root);
    const answer = await gql(
      CREATE_OPERATOR,
      { input: { username: 'VERA', password: newPassword(), role: 'viewer' } },
      root,
    );
    expect(codeOf(answer)).to.equal(ErrorCode.CONFLICT);
    const mixed = await createOperator(root, 'Mixed.Case', 'viewer', newPassword());
    expect(mixed.username).to.equal('mixed.case');
    const short = await gql(
      CREATE_OPERATOR,
      { input: { username: 'shorty', password: 'tiny', role: 'viewer' } },
      root,
    );
    expect(codeOf(short)).to.equal(ErrorCode.VALIDATION_FAILED);
  });

  it('deny by default on REST: a route with neither @Public nor @Roles is refused for everyone', async () => {
    @Module({
      imports: [
        InfrastructureModule.forRoot(config, logger, { version: '0.0.0-test', commit: 'test' }),
        AuthModule,
      ],
      controllers: [ProbeController],
    })
    class ProbeModule {}
    const probe = await NestFactory.create(ProbeModule, { logger: false });
    probe.use(requestIdsMiddleware);
    probe.useGlobalFilters(new ProblemJsonFilter(logger));
    await probe.listen(0, '127.0.0.1');
    try {
      const { port } = (probe.getHttpServer() as { address(): AddressInfo }).address();
      const url = (path: string) => `http://127.0.0.1:${port}/probe/${path}`;
      const root = await login('root', passwords.root);
      const vera = await login('vera', passwords.vera);
      const as = (bearer?: string) => (bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {});

      const anonymous = await fetch(url('undeclared'));
      expect(anonymous.status).to.equal(401);
      expect(anonymous.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(ProblemDetailsSchema.parse(await anonymous.json()).code).to.equal(ErrorCode.UNAUTHENTICATED);
      const admin = await fetch(url('undeclared'), as(root));
      expect(admin.status).to.equal(403);
      expect(ProblemDetailsSchema.parse(await admin.json()).code).to.equal(ErrorCode.FORBIDDEN);

      expect((await fetch(url('viewers'))).status).to.equal(401);
      const viewer = await fetch(url('viewers'), as(vera));
      expect(viewer.status).to.equal(200);
      expect(await viewer.json()).to.deep.equal({ reached: true });
    } finally {
      await probe.close();
    }
    const [undeclared] = (await auditEvents('auth.authorize')).filter(
      (e) => e.evidence['reason'] === 'no-roles-declared',
    );
    expect(undeclared).to.deep.include({ actor: 'operator:root', decision: 'denied', result: 'refused' });
    expect(undeclared?.evidence).to.deep.include({ operation: 'GET /probe/undeclared' });
  });

  describe('every operation of the running schema, for every role (generated from introspection)', () => {
    /** Token and user administration: admin only. */
    const ADMINISTRATION = new Set([
      'createOperator',
      'setOperatorRole',
      'disableOperator',
      'resetOperatorPassword',
      'endOperatorSessions',
      'createApiToken',
      'revokeApiToken',
      'operators',
      'apiTokens',
      // Bootstrap tokens are credentials too: who can mint one can add a node to the fleet.
      'createBootstrapToken',
      'revokeBootstrapToken',
      'bootstrapTokens',
      // Payload privacy: what is kept of tenants' prompts, and deleting it on demand.
      'setDataPolicy',
      'purgePayloadCaptures',
      // License review and the runtime allowlist decide what may run on the fleet at all.
      ...Object.entries(REGISTRY_MUTATION_PERMISSIONS)
        .filter(([, permission]) => permission === 'administer')
        .map(([mutation]) => mutation),
      // Tenants and gateway keys decide who may call the data plane.
      ...Object.entries(TENANCY_MUTATION_PERMISSIONS)
        .filter(([, permission]) => permission === 'administer')
        .map(([mutation]) => mutation),
      // Which keys vouch for artifacts, and whether a tenant accepts unsigned versions.
      ...Object.keys(SIGNING_MUTATION_PERMISSIONS),
      // The controller's own key: who rotates it decides what every agent trusts.
      'rotateControllerKey',
    ]);
    /** Reachable without credentials. */
    const PUBLIC = new Set(['login', 'health']);
    /** The caller's own session: any authenticated role. */
    const SELF = new Set(['logout', 'me', 'changePassword']);
    type Caller = 'anonymous' | 'viewer' | 'operator' | 'admin';
    const CALLERS: readonly Caller[] = ['anonymous', 'viewer', 'operator', 'admin'];

    /**
     * What the guard must decide. Anything not listed above is a fleet/system
     * operation: mutations need operator, queries viewer. A new operation
     * lands in that default, so adding one without the right decorator fails
     * here.
     */
    function expected(kind: 'Query' | 'Mutation', field: string, caller: Caller): string {
      if (PUBLIC.has(field)) return 'allowed';
      if (caller === 'anonymous') return ErrorCode.UNAUTHENTICATED;
      if (SELF.has(field)) return 'allowed';
      if (ADMINISTRATION.has(field)) return caller === 'admin' ? 'allowed' : ErrorCode.FORBIDDEN;
      if (kind === 'Query') return 'allowed';
      return caller === 'viewer' ? ErrorCode.FORBIDDEN : 'allowed';
    }

    let types: Map<string, TypeInfo>;
    let operations: { kind: 'Query' | 'Mutation'; field: FieldInfo }[];

    function unwrap(ref: TypeRef): TypeRef {
      return ref.ofType ? unwrap(ref.ofType) : ref;
    }

    function typeString(ref: TypeRef): string {
      if (ref.kind === 'NON_NULL' && ref.ofType) return `${typeString(ref.ofType)}!`;
      if (ref.kind === 'LIST' && ref.ofType) return `[${typeString(ref.ofType)}]`;
      return ref.name ?? '';
    }

    /** A value of the right GraphQL type, so the request passes GraphQL validation and reaches the guard. */
    function sample(ref: TypeRef): unknown {
      if (ref.kind === 'NON_NULL' && ref.ofType) return sample(ref.ofType);
      if (ref.kind === 'LIST' && ref.ofType) return [sample(ref.ofType)];
      const named = types.get(ref.name ?? '');
      if (!named) throw new Error(`unknown type ${ref.name}`);
      if (named.kind === 'ENUM') return named.enumValues?.[0]?.name;
      if (named.kind === 'INPUT_OBJECT') {
        const value: Record<string, unknown> = {};
        for (const f of named.inputFields ?? []) {
          if (f.type.kind === 'NON_NULL' && f.defaultValue === null) value[f.name] = sample(f.type);
        }
        return value;
      }
      switch (named.name) {
        case 'ID':
          return randomUUID();
        case 'Int':
        case 'Float':
          return 1;
        case 'Boolean':
          return false;
        case 'DateTime':
          return new Date().toISOString();
        default:
          return `t${randomBytes(4).toString('hex')}`;
      }
    }

    function documentFor(kind: 'Query' | 'Mutation', field: FieldInfo, overrides: Record<string, unknown>) {
      const required = field.args.filter((a) => a.type.kind === 'NON_NULL' && a.defaultValue === null);
      const variables: Record<string, unknown> = {};
      const declared = required.map((a, i) => `$a${i}: ${typeString(a.type)}`);
      const passed = required.map((a, i) => {
        variables[`a${i}`] = overrides[a.name] ?? sample(a.type);
        return `${a.name}: $a${i}`;
      });
      const target = types.get(unwrap(field.type).name ?? '');
      const selection = target?.kind === 'OBJECT' ? ' { __typename }' : '';
      const operation = kind === 'Query' ? 'query' : 'mutation';
      const head = declared.length ? `${operation}(${declared.join(', ')})` : operation;
      const args = passed.length ? `(${passed.join(', ')})` : '';
      return { query: `${head} { ${field.name}${args}${selection} }`, variables };
    }

    before(async () => {
      const root = await login('root', passwords.root);
      const schema = data<{
        queryType: { name: string };
        mutationType: { name: string };
        types: TypeInfo[];
      }>(await gql(INTROSPECTION, undefined, root), '__schema');
      types = new Map(schema.types.map((t) => [t.name, t]));
      const of = (kind: 'Query' | 'Mutation', name: string) =>
        (types.get(name)?.fields ?? []).map((field) => ({ kind, field }));
      operations = [...of('Mutation', schema.mutationType.name), ...of('Query', schema.queryType.name)];
    });

    it('finds every operation this issue added, and the existing ones', () => {
      const names = operations.map((o) => `${o.kind}.${o.field.name}`);
      expect(names).to.include.members([
        'Mutation.login',
        'Mutation.logout',
        'Mutation.ping',
        'Mutation.createOperator',
        'Mutation.setOperatorRole',
        'Mutation.disableOperator',
        'Mutation.createApiToken',
        'Mutation.revokeApiToken',
        'Query.health',
        'Query.me',
        'Query.recentPings',
        'Query.operators',
        'Query.apiTokens',
        'Mutation.createBootstrapToken',
        'Mutation.revokeBootstrapToken',
        'Mutation.approveNode',
        'Mutation.rejectNode',
        'Mutation.setNodeLabels',
        'Mutation.setNodeTaints',
        'Mutation.cordonNode',
        'Mutation.uncordonNode',
        'Mutation.drainNode',
        'Mutation.rotateNodeCredential',
        'Mutation.registerModelVersion',
        'Mutation.createDeployment',
        'Mutation.stopDeployment',
        'Query.nodes',
        'Query.node',
        'Query.bootstrapTokens',
        'Query.modelVersions',
        'Query.deployments',
        'Query.deployment',
      ]);
    });

    it('anonymous, viewer, operator and admin get exactly the decisions of the role table, each refusal audited', async () => {
      const credentials: Partial<Record<Caller, string>> = {};
      const users: Record<Exclude<Caller, 'anonymous'>, [string, string]> = {
        viewer: ['vera', passwords.vera],
        operator: ['otto', passwords.otto],
        admin: ['root', passwords.root],
      };
      const bearer = async (caller: Caller): Promise<string | undefined> => {
        if (caller === 'anonymous') return undefined;
        credentials[caller] ??= await login(...users[caller]);
        return credentials[caller];
      };
      const deniedBefore = (await auditEvents('auth.authorize')).length;
      const mismatches: string[] = [];
      let refusals = 0;
      let checked = 0;
      for (const { kind, field } of operations) {
        for (const caller of CALLERS) {
          const overrides: Record<string, unknown> =
            field.name === 'login' ? { input: { username: 'vera', password: passwords.vera } } : {};
          const { query, variables } = documentFor(kind, field, overrides);
          const answer = await gql(query, variables, await bearer(caller));
          if (field.name === 'logout' && caller !== 'anonymous') delete credentials[caller];
          if (field.name === 'login') {
            const issued = answer.body.data?.['login'] as { accessToken?: string } | undefined;
            if (issued?.accessToken) secret(issued.accessToken);
          }
          const want = expected(kind, field.name, caller);
          const got = codeOf(answer);
          checked += 1;
          if (want === 'allowed') {
            if (
              PUBLIC.has(field.name) ? got !== undefined : got !== undefined && DENIAL_CODES.includes(got)
            ) {
              mismatches.push(`${kind}.${field.name} as ${caller}: expected allowed, got ${got}`);
            }
          } else {
            refusals += 1;
            if (got !== want)
              mismatches.push(
                `${kind}.${field.name} as ${caller}: expected ${want}, got ${got ?? 'no error'}`,
              );
          }
        }
      }
      expect(mismatches, mismatches.join('\n')).to.deep.equal([]);
      expect(checked).to.equal(operations.length * CALLERS.length);
      expect(refusals).to.be.greaterThan(operations.length);
      // Exactly one denied/refused audit event per refused call.
      const denied = (await auditEvents('auth.authorize')).slice(deniedBefore);
      expect(denied).to.have.length(refusals);
      expect(denied.every((e) => e.decision === 'denied' && e.result === 'refused')).to.equal(true);
    });
  });

  it('the generated-password path: first-admin-main prints the password once and only on stdout', async () => {
    const fresh = await createScratchDatabase('first_admin');
    try {
      await runMigrations(fresh.url);
      const main = join(__dirname, '..', 'src', 'first-admin-main.js');
      const run = (extra: Record<string, string> = {}) =>
        spawnSync(process.execPath, [main], {
          env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: fresh.url, ...extra },
          encoding: 'utf8',
          timeout: 60_000,
        });
      const tooShort = 'tiny-secret';
      const refused = run({ LUNANEXA_ADMIN_PASSWORD: tooShort });
      expect(refused.status).to.equal(78);
      expect(refused.stderr).to.include('LUNANEXA_ADMIN_PASSWORD');
      expect(refused.stderr + refused.stdout).not.to.include(tooShort);

      const first = run();
      expect(first.status, first.stderr).to.equal(0);
      expect(first.stderr).to.equal('');
      const printed = /^ {2}(\S{32})$/m.exec(first.stdout)?.[1];
      expect(printed, first.stdout).to.be.a('string');
      const generated = secret(printed ?? '');
      expect(first.stdout.split(generated)).to.have.length(2); // exactly once
      const freshDs = createDataSource({ url: fresh.url, applicationName: 'auth-test-first-admin' });
      await freshDs.initialize();
      try {
        const [admin] = await freshDs.query<{ username: string; role: string; password_hash: string }[]>(
          'SELECT username, role, password_hash FROM operators',
        );
        expect(admin).to.deep.include({ username: 'admin', role: 'admin' });
        expect(await verifyPassword(generated, admin?.password_hash ?? '')).to.equal(true);
        const dump = await freshDs.query<{ j: string }[]>(
          `SELECT row_to_json(t)::text AS j FROM operators t UNION ALL SELECT row_to_json(a)::text FROM audit_events a`,
        );
        expect(dump.map((r) => r.j).join('\n')).not.to.include(generated);
        const audit = await freshDs.query<{ evidence: Record<string, unknown> }[]>(
          `SELECT evidence FROM audit_events WHERE action = 'operator.create'`,
        );
        expect(audit.map((a) => a.evidence['passwordSource'])).to.deep.equal(['generated']);
      } finally {
        await freshDs.destroy();
      }
      const second = run();
      expect(second.status, second.stderr).to.equal(0);
      expect(second.stdout).to.match(/an enabled admin exists \(admin\); nothing to do/);
      expect(second.stdout).not.to.include(generated);
    } finally {
      await fresh.drop();
    }
  });

  it('throttles failed sign-ins per account and per address: RATE_LIMITED with an audit event, the right password works once the block ends, nothing is locked forever', async () => {
    await ds.query('DELETE FROM sign_in_throttle');
    const root = await login('root', passwords.root);
    const tessPassword = newPassword();
    await createOperator(root, 'tess', 'viewer', tessPassword);
    // A second api on the same database with short blocks: what one api counts, every api sees.
    const tuned = await listen({
      ...config,
      LUNANEXA_SIGN_IN_ACCOUNT_FAILURES: 3,
      LUNANEXA_SIGN_IN_ADDRESS_FAILURES: 12,
      LUNANEXA_SIGN_IN_BLOCK_SECONDS: 1,
      LUNANEXA_SIGN_IN_MAX_BLOCK_SECONDS: 2,
    });
    const attempt = async (username: string, password: string) => {
      const response = await fetch(`${tuned.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: LOGIN, variables: { input: { username, password } } }),
      });
      const body = (await response.json()) as GraphQLBody;
      return { code: body.errors?.[0]?.extensions.code ?? 'OK', message: body.errors?.[0]?.message ?? '' };
    };
    const blockEnds = async (username: string) => {
      const [row] = await ds.query<{ blocked_until: Date | null }[]>(
        `SELECT blocked_until FROM sign_in_throttle WHERE scope = 'account' AND key_sha256 = $1`,
        [createHash('sha256').update(username).digest('hex')],
      );
      return row?.blocked_until ?? null;
    };
    try {
      const since = await lastSeq();
      // A burst of wrong passwords, all at once: every one is counted under its row lock.
      const burst = await Promise.all(Array.from({ length: 4 }, () => attempt('tess', newPassword())));
      expect(burst.map((a) => a.code)).to.deep.equal(Array(4).fill(ErrorCode.UNAUTHENTICATED));
      const until = await blockEnds('tess');
      expect(until, 'the fourth failure started a block').to.not.equal(null);
      expect((until?.getTime() ?? 0) - Date.now()).to.be.at.most(1_000);
      // During the block even the right password is refused, before it is checked, and says when to retry.
      const blocked = await attempt('tess', tessPassword);
      expect(blocked.code).to.equal(ErrorCode.RATE_LIMITED);
      expect(blocked.message).to.match(/^Too many failed sign-ins for this account; try again in [12] s\.$/);
      // The other api refuses it too: the count lives in PostgreSQL.
      expect(codeOf(await gql(LOGIN, { input: { username: 'tess', password: tessPassword } }))).to.equal(
        ErrorCode.RATE_LIMITED,
      );
      const refusals = await auditEvents('auth.login', since);
      expect(refusals.filter((e) => e.evidence['reason'] === 'password-mismatch')).to.have.length(4);
      const throttled = refusals.filter((e) => e.evidence['reason'] === 'throttled');
      expect(throttled).to.have.length(2);
      expect(throttled[0]?.evidence).to.include({ scope: 'account', clientAddress: '127.0.0.1' });
      expect(refusals.some((e) => typeof e.evidence['accountBlockedUntil'] === 'string')).to.equal(true);

      // The block ends on its own, and the right password then works and clears the count.
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, (until?.getTime() ?? 0) - Date.now()) + 50),
      );
      expect((await attempt('tess', tessPassword)).code).to.equal('OK');
      expect(await blockEnds('tess'), 'a sign-in clears the account').to.equal(null);

      // Nothing is locked forever: however many failures, a block is at most the maximum (2 s here).
      for (let i = 0; i < 6; i++) await attempt('tess', newPassword());
      const longest = await blockEnds('tess');
      expect((longest?.getTime() ?? 0) - Date.now()).to.be.within(0, 2_000);
      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, (longest?.getTime() ?? 0) - Date.now()) + 50),
      );
      expect((await attempt('tess', tessPassword)).code).to.equal('OK');

      // Per address: 12 may fail; the 13th, spread over many names, blocks the address for every account, root's too.
      await ds.query(`DELETE FROM sign_in_throttle`);
      for (let i = 0; i < 13; i++) await attempt(`sprayed-${i}`, newPassword());
      const sprayed = await attempt('root', passwords.root);
      expect(sprayed.code).to.equal(ErrorCode.RATE_LIMITED);
      expect(sprayed.message).to.match(/from this address/);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await attempt('root', passwords.root)).code).to.equal('OK');
    } finally {
      await tuned.app.close();
      await ds.query('DELETE FROM sign_in_throttle');
    }
  });

  it('passwords: an operator changes their own (current one required, every session ends, a fresh one returned); an admin resets one and ends another operator’s sessions; all audited', async () => {
    const root = await login('root', passwords.root);
    const first = newPassword();
    const pia = await createOperator(root, 'pia', 'operator', first);
    const oldSession = await login('pia', first);
    const otherSession = await login('pia', first);
    const CHANGE = `mutation($input: ChangePasswordInput!) { changePassword(input: $input) { accessToken operator { username } } }`;
    const since = await lastSeq();

    const wrong = await gql(
      CHANGE,
      { input: { currentPassword: newPassword(), newPassword: newPassword() } },
      oldSession,
    );
    expect(codeOf(wrong)).to.equal(ErrorCode.VALIDATION_FAILED);
    const same = await gql(CHANGE, { input: { currentPassword: first, newPassword: first } }, oldSession);
    expect(codeOf(same)).to.equal(ErrorCode.VALIDATION_FAILED);
    const short = await gql(CHANGE, { input: { currentPassword: first, newPassword: 'short' } }, oldSession);
    expect(codeOf(short)).to.equal(ErrorCode.VALIDATION_FAILED);

    const second = newPassword();
    const changed = data<{ accessToken: string; operator: { username: string } }>(
      await gql(CHANGE, { input: { currentPassword: first, newPassword: second } }, oldSession),
      'changePassword',
    );
    secret(changed.accessToken);
    expect(changed.operator.username).to.equal('pia');
    expect(
      codeOf(await gql('{ me { operator { username } } }', undefined, oldSession)),
      'the old session',
    ).to.equal(ErrorCode.UNAUTHENTICATED);
    expect(
      codeOf(await gql('{ me { operator { username } } }', undefined, otherSession)),
      'another session',
    ).to.equal(ErrorCode.UNAUTHENTICATED);
    expect(
      data<{ operator: { username: string } }>(
        await gql('{ me { operator { username } } }', undefined, changed.accessToken),
        'me',
      ).operator.username,
    ).to.equal('pia');
    expect(codeOf(await gql(LOGIN, { input: { username: 'pia', password: first } }))).to.equal(
      ErrorCode.UNAUTHENTICATED,
    );
    await login('pia', second);

    // An admin resets it (a forgotten password): pia's sessions end, the new one works.
    const third = newPassword();
    const RESET = `mutation($input: ResetOperatorPasswordInput!) { resetOperatorPassword(input: $input) { username } }`;
    expect(
      codeOf(await gql(RESET, { input: { operatorId: pia.id, newPassword: third } }, changed.accessToken)),
    ).to.equal(ErrorCode.FORBIDDEN);
    data(
      await gql(RESET, { input: { operatorId: pia.id, newPassword: third } }, root),
      'resetOperatorPassword',
    );
    expect(codeOf(await gql('{ me { operator { username } } }', undefined, changed.accessToken))).to.equal(
      ErrorCode.UNAUTHENTICATED,
    );
    const afterReset = await login('pia', third);
    expect(
      codeOf(await gql(RESET, { input: { operatorId: randomUUID(), newPassword: third } }, root)),
    ).to.equal(ErrorCode.NOT_FOUND);

    // Ending another operator's sessions leaves their password alone.
    const END = `mutation($id: ID!) { endOperatorSessions(id: $id) { username } }`;
    data(await gql(END, { id: pia.id }, root), 'endOperatorSessions');
    expect(codeOf(await gql('{ me { operator { username } } }', undefined, afterReset))).to.equal(
      ErrorCode.UNAUTHENTICATED,
    );
    await login('pia', third);

    const actions = (
      await ds.query<{ action: string; result: string }[]>(
        `SELECT action, result FROM audit_events WHERE seq > $1 AND action IN ('auth.changePassword', 'operator.resetPassword', 'operator.endSessions') ORDER BY seq`,
        [since],
      )
    ).map((e) => `${e.action} ${e.result}`);
    expect(actions).to.include.members([
      'auth.changePassword refused',
      'auth.changePassword succeeded',
      'operator.resetPassword succeeded',
      'operator.endSessions succeeded',
    ]);
    await ds.query('DELETE FROM sign_in_throttle');
  });

  // Mocha runs a suite's own tests before its nested suites; these must see everything above.
  describe('after every scenario', () => {
    it('keeps one verifiable audit chain across logins, refusals and account changes', async () => {
      expect(await verifyAuditChain(ds.manager)).to.include({ valid: true });
      const actions = await ds.query<{ action: string }[]>(
        'SELECT DISTINCT action FROM audit_events ORDER BY action',
      );
      expect(actions.map((a) => a.action)).to.include.members([
        'apiToken.create',
        'apiToken.revoke',
        'auth.authorize',
        'auth.login',
        'auth.logout',
        'operator.create',
        'operator.disable',
        'operator.setRole',
        'system.ping',
      ]);
    });

    it('never stores or logs a password, API token or session token in clear', async () => {
      expect(secrets.size).to.be.greaterThan(10);
      const dump = await ds.query<{ j: string }[]>(
        `SELECT row_to_json(t)::text AS j FROM operators t
         UNION ALL SELECT row_to_json(t)::text FROM api_tokens t
         UNION ALL SELECT row_to_json(t)::text FROM audit_events t
         UNION ALL SELECT row_to_json(t)::text FROM ping_records t`,
      );
      const stored = dump.map((r) => r.j).join('\n');
      expect(stored).to.include('scrypt$32768$8$1$');
      expect(logLines.length, 'the API logged nothing: the log capture is not wired').to.be.greaterThan(0);
      const logged = logLines.join('');
      for (const value of secrets) {
        expect(stored.includes(value), `a secret (${value.slice(0, 6)}…) is stored in clear`).to.equal(false);
        expect(logged.includes(value), `a secret (${value.slice(0, 6)}…) was logged`).to.equal(false);
      }
      const hashes = await ds.query<{ password_hash: string }[]>('SELECT password_hash FROM operators');
      for (const { password_hash } of hashes) {
        expect(password_hash).to.match(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
      }
    });
  });
});
