import { Agent, get, type IncomingHttpHeaders } from 'node:http';
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { ErrorCode, ProblemDetailsSchema } from '@lunanexa/contracts';
import { startControlPlaneFixture, type ControlPlaneFixture } from '@lunanexa/e2e';
import { createLogger, findRepoRoot } from '@lunanexa/observability';
import type { ScratchDatabase } from '@lunanexa/persistence';
import type { DataSource } from 'typeorm';
import {
  ApiConfigSchema,
  createApiApp,
  formatSchemaFile,
  COMMITTED_SCHEMA_PATH,
  type ApiConfig,
} from '../src';
import { ensureFirstAdmin } from '../src/auth/first-admin';

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: {
    message: string;
    extensions: { code: string; requestId?: string; violations?: { path: string }[] };
  }[];
}

describe('api on real Temporal and PostgreSQL', function () {
  this.timeout(120_000);
  let fixture: ControlPlaneFixture;
  let taskQueue: string;
  const logger = createLogger({ service: 'api-test', level: 'silent' });
  let env: TestWorkflowEnvironment;
  let db: ScratchDatabase;
  let workerDb: DataSource;
  let app: INestApplication;
  let base: string;
  let keyDir: string;
  /** Every call below runs as this admin unless a test says otherwise. */
  let authorization = '';
  const adminPassword = randomBytes(18).toString('base64url');

  function configFor(overrides: Record<string, string>): ApiConfig {
    return ApiConfigSchema.parse({
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: env.namespace,
      LUNANEXA_TASK_QUEUE: taskQueue,
      LUNANEXA_API_PORT: '1',
      LUNANEXA_CONSOLE_DIR: join(findRepoRoot(), 'no-console-here'),
      LUNANEXA_CONTROLLER_KEY_FILE: join(keyDir, 'controller-ed25519.pem'),
      ...overrides,
    });
  }

  async function listen(config: ApiConfig): Promise<{ app: INestApplication; base: string }> {
    const created = await createApiApp(config, logger, { version: '0.0.0-test', commit: 'test' });
    await created.listen(0, '127.0.0.1');
    const server = created.getHttpServer() as { address(): AddressInfo };
    const { port } = server.address();
    return { app: created, base: `http://127.0.0.1:${port}` };
  }

  async function graphql(
    query: string,
    variables?: Record<string, unknown>,
    headers: Record<string, string> = {},
  ) {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(authorization ? { authorization } : {}),
        ...headers,
      },
      body: JSON.stringify({ query, variables }),
    });
    return { response, body: (await response.json()) as GraphQLBody };
  }

  const PING = `mutation($input: PingInput!) { ping(input: $input) { workflowId runId pingId message receiptHash receiptSeq temporalUiUrl correlationId } }`;

  before(async () => {
    fixture = await startControlPlaneFixture('api');
    ({ env, db, ds: workerDb, taskQueue } = fixture);
    keyDir = mkdtempSync(join(tmpdir(), 'lunanexa-api-key-'));
    await ensureFirstAdmin(workerDb, { username: 'api-admin', password: adminPassword });
    ({ app, base } = await listen(configFor({})));
    const login = await graphql('mutation($input: LoginInput!) { login(input: $input) { accessToken } }', {
      input: { username: 'api-admin', password: adminPassword },
    });
    authorization = `Bearer ${(login.body.data?.['login'] as { accessToken: string }).accessToken}`;
  });

  after(async () => {
    await app?.close();
    await fixture?.stop();
    if (keyDir) rmSync(keyDir, { recursive: true, force: true });
  });

  it('serves liveness, readiness and version over REST', async () => {
    const health = await fetch(`${base}/health`);
    expect(health.status).to.equal(200);
    expect(await health.json()).to.deep.equal({ status: 'ok', version: '0.0.0-test', commit: 'test' });
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).to.equal(200);
    const readyBody = (await ready.json()) as { status: string; checks: { name: string; status: string }[] };
    expect(readyBody.status).to.equal('ready');
    expect(readyBody.checks.map((c) => [c.name, c.status])).to.deep.equal([
      ['postgresql', 'ok'],
      ['temporal', 'ok'],
    ]);
    expect(await (await fetch(`${base}/version`)).json()).to.deep.equal({
      version: '0.0.0-test',
      commit: 'test',
      contracts: 'v1',
    });
  });

  it('keeps an idle connection open longer than clients do, and says so (Keep-Alive: timeout=65)', async () => {
    const agent = new Agent({ keepAlive: true });
    try {
      const headers = await new Promise<IncomingHttpHeaders>((resolve, reject) =>
        get(`${base}/health`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers));
        }).on('error', reject),
      );
      expect(headers['keep-alive']).to.equal('timeout=65');
    } finally {
      agent.destroy();
    }
  });

  it('answers the GraphQL health query', async () => {
    const { body } = await graphql('{ health { status version commit checks { name status } } }');
    expect(body.errors).to.equal(undefined);
    expect(body.data?.['health']).to.deep.include({ status: 'ok', version: '0.0.0-test', commit: 'test' });
  });

  it('echoes caller ids and generates missing ones', async () => {
    const echoed = await fetch(`${base}/health`, {
      headers: { 'x-request-id': 'req-123', 'x-correlation-id': 'flow-9' },
    });
    expect(echoed.headers.get('x-request-id')).to.equal('req-123');
    expect(echoed.headers.get('x-correlation-id')).to.equal('flow-9');
    expect(echoed.headers.get('traceparent')).to.match(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const generated = await fetch(`${base}/health`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(generated.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });

  it('runs ping through Temporal into PostgreSQL and returns the same run for the same key', async () => {
    const key = `api-${randomUUID()}`;
    const first = await graphql(
      PING,
      { input: { idempotencyKey: key, message: 'hello' } },
      { 'x-correlation-id': 'flow-ping' },
    );
    expect(first.body.errors).to.equal(undefined);
    const result = first.body.data?.['ping'] as Record<string, string | number>;
    expect(result['workflowId']).to.equal(`ping/${key}`);
    expect(result['correlationId']).to.equal('flow-ping');
    expect(result['temporalUiUrl']).to.match(/\/namespaces\/.+\/workflows\/ping%2F/);
    const rows = await workerDb.query<{ id: string; correlation_id: string }[]>(
      'SELECT id, correlation_id FROM ping_records WHERE workflow_id = $1',
      [`ping/${key}`],
    );
    expect(rows).to.deep.equal([{ id: result['pingId'], correlation_id: 'flow-ping' }]);
    const again = await graphql(PING, { input: { idempotencyKey: key, message: 'hello' } });
    expect(again.body.data?.['ping']).to.deep.include({
      runId: result['runId'],
      pingId: result['pingId'],
      receiptHash: result['receiptHash'],
    });
    const recent = await graphql('{ recentPings(limit: 5) { workflowId correlationId } }');
    expect(recent.body.data?.['recentPings']).to.deep.include({
      workflowId: `ping/${key}`,
      correlationId: 'flow-ping',
    });
  });

  it('refuses a reused idempotency key with a different message and changes nothing', async () => {
    const key = `api-${randomUUID()}`;
    await graphql(PING, { input: { idempotencyKey: key, message: 'one' } });
    const before = await workerDb.query<{ n: string }[]>('SELECT count(*) AS n FROM audit_events');
    const { body } = await graphql(PING, { input: { idempotencyKey: key, message: 'two' } });
    expect(body.errors?.[0]?.extensions.code).to.equal(ErrorCode.IDEMPOTENCY_KEY_REUSED);
    const after = await workerDb.query<{ n: string }[]>('SELECT count(*) AS n FROM audit_events');
    expect(after).to.deep.equal(before);
  });

  it('rejects bad GraphQL input with typed codes and writes nothing', async () => {
    const count = async () =>
      (await workerDb.query<{ n: string }[]>('SELECT count(*) AS n FROM ping_records'))[0].n;
    const before = await count();
    const badKey = await graphql(PING, { input: { idempotencyKey: 'has spaces', message: 'x' } });
    expect(badKey.body.errors?.[0]?.extensions.code).to.equal(ErrorCode.VALIDATION_FAILED);
    expect(badKey.body.errors?.[0]?.extensions.requestId).to.be.a('string');
    const tooLong = await graphql(PING, { input: { idempotencyKey: 'k', message: 'x'.repeat(201) } });
    expect(tooLong.body.errors?.[0]?.extensions.violations?.[0]?.path).to.equal('message');
    const unknownField = await graphql('{ nope }');
    expect(unknownField.body.errors?.[0]?.extensions.code).to.equal(ErrorCode.VALIDATION_FAILED);
    const syntax = await graphql('{ health { ');
    expect(syntax.body.errors?.[0]?.extensions.code).to.equal(ErrorCode.MALFORMED_REQUEST);
    const limit = await graphql('{ recentPings(limit: 1000) { id } }');
    expect(limit.body.errors?.[0]?.extensions.code).to.equal(ErrorCode.VALIDATION_FAILED);
    expect(await count()).to.equal(before);
  });

  it('answers malformed bodies and unknown routes with problem+json', async () => {
    const malformed = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(malformed.status).to.equal(400);
    expect(malformed.headers.get('content-type')).to.match(/^application\/problem\+json/);
    expect(ProblemDetailsSchema.parse(await malformed.json())).to.include({
      code: ErrorCode.MALFORMED_REQUEST,
      status: 400,
    });
    const missing = await fetch(`${base}/no/such/route`, { headers: { 'x-request-id': 'req-404' } });
    expect(missing.status).to.equal(404);
    expect(await missing.json()).to.include({
      code: ErrorCode.NOT_FOUND,
      requestId: 'req-404',
      type: 'urn:lunanexa:error:not-found',
    });
  });

  it('exposes Prometheus metrics with bounded route labels', async () => {
    await fetch(`${base}/some/random/${randomUUID()}`);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).to.match(
      /lunanexa_http_requests_total\{service="api",route="\/graphql",method="POST",status="200"\} \d+/,
    );
    expect(text).to.include('route="(unmatched)"');
    expect(text).not.to.match(/route="\/some\/random/);
  });

  it('serves exactly the committed schema (apps/api/schema.gql)', () => {
    const running = formatSchemaFile(printSchema(lexicographicSortSchema(app.get(GraphQLSchemaHost).schema)));
    const committed = readFileSync(join(findRepoRoot(), COMMITTED_SCHEMA_PATH), 'utf8');
    expect(running, 'schema drifted: run `npm run schema:print` and commit apps/api/schema.gql').to.equal(
      committed,
    );
  });

  it('reports not-ready and refuses mutations with DEPENDENCY_UNAVAILABLE when Temporal is down', async () => {
    const down = await listen(
      configFor({ TEMPORAL_ADDRESS: '127.0.0.1:1', LUNANEXA_WORKFLOW_WAIT_MS: '3000' }),
    );
    try {
      const ready = await fetch(`${down.base}/ready`);
      expect(ready.status).to.equal(503);
      // The body is exactly the v1 problem contract, including the readiness checks.
      const problem = ProblemDetailsSchema.parse(await ready.json());
      expect(problem.code).to.equal(ErrorCode.DEPENDENCY_UNAVAILABLE);
      expect(problem.checks?.find((c) => c.name === 'temporal')?.status).to.equal('failing');
      const response = await fetch(`${down.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization },
        body: JSON.stringify({
          query: PING,
          variables: { input: { idempotencyKey: `down-${randomUUID()}`, message: 'x' } },
        }),
      });
      const body = (await response.json()) as GraphQLBody;
      expect(body.errors?.[0]?.extensions.code).to.equal(ErrorCode.DEPENDENCY_UNAVAILABLE);
    } finally {
      await down.app.close();
    }
  });
});
