import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { AuditEventDraft } from '@lunanexa/audit';
import { startControlPlaneFixture, type ControlPlaneFixture } from '@lunanexa/e2e';
import { createLogger, findRepoRoot } from '@lunanexa/observability';
import { appendAuditEvent, controlPlaneDigest } from '@lunanexa/persistence';
import { ApiConfigSchema, createApiApp } from '../src';
import { ensureFirstAdmin } from '../src/auth/first-admin';

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: { code: string } }[];
}

interface EventView {
  seq: number;
  action: string;
  actor: string;
  decision: string;
  result: string;
  correlationId: string;
  workflowId: string | null;
  temporalUiUrl: string | null;
  evidenceJson: string;
  hash: string;
  prevHash: string;
}

interface PageView {
  events: EventView[];
  nextBefore: number | null;
}

const EVENT_FIELDS =
  'seq action actor decision result correlationId workflowId temporalUiUrl evidenceJson hash prevHash';
const EVENTS = `query($filter: AuditEventFilter, $first: Int, $before: Int) {
  auditEvents(filter: $filter, first: $first, before: $before) { nextBefore events { ${EVENT_FIELDS} } }
}`;

describe('audit log queries on real PostgreSQL', function () {
  this.timeout(120_000);
  let fixture: ControlPlaneFixture;
  let app: INestApplication;
  let base = '';
  let admin = '';
  let viewer = '';
  const adminPassword = randomBytes(18).toString('base64url');
  const viewerPassword = randomBytes(18).toString('base64url');
  const logger = createLogger({ service: 'audit-test', level: 'silent' });
  const workflowCorrelation = `corr-${randomUUID()}`;
  const bootstrapTokens: string[] = [];

  async function graphql(
    query: string,
    variables?: Record<string, unknown>,
    authorization?: string,
    correlationId?: string,
  ): Promise<GraphQLBody> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (authorization) headers['authorization'] = authorization;
    if (correlationId) headers['x-correlation-id'] = correlationId;
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as GraphQLBody;
  }

  function data<T>(answer: GraphQLBody, field: string): T {
    expect(answer.errors, JSON.stringify(answer.errors)).to.equal(undefined);
    return answer.data?.[field] as T;
  }

  async function page(variables: Record<string, unknown>, bearer = admin): Promise<PageView> {
    return data<PageView>(await graphql(EVENTS, variables, bearer), 'auditEvents');
  }

  async function login(username: string, password: string): Promise<string> {
    const answer = await graphql('mutation($input: LoginInput!) { login(input: $input) { accessToken } }', {
      input: { username, password },
    });
    return `Bearer ${data<{ accessToken: string }>(answer, 'login').accessToken}`;
  }

  /** Events the API writes only inside workflows (node and deployment subjects) appended the same way the activities do. */
  async function appendDirect(
    draft: Partial<AuditEventDraft> & Pick<AuditEventDraft, 'action'>,
  ): Promise<void> {
    await fixture.ds.transaction((manager) =>
      appendAuditEvent(manager, {
        id: randomUUID(),
        occurredAt: new Date().toISOString(),
        actor: 'system:test',
        decision: 'allowed',
        evidence: {},
        result: 'succeeded',
        correlationId: randomUUID(),
        workflowId: null,
        ...draft,
      }),
    );
  }

  async function rowCount(where = 'true', params: unknown[] = []): Promise<number> {
    const rows = await fixture.ds.query<{ n: string }[]>(
      `SELECT count(*) AS n FROM audit_events WHERE ${where}`,
      params,
    );
    return Number(rows[0]?.n ?? 0);
  }

  before(async () => {
    fixture = await startControlPlaneFixture('audit');
    await ensureFirstAdmin(fixture.ds, { username: 'audit-admin', password: adminPassword });
    const config = ApiConfigSchema.parse({
      DATABASE_URL: fixture.db.url,
      TEMPORAL_ADDRESS: fixture.env.address,
      TEMPORAL_NAMESPACE: fixture.env.namespace,
      LUNANEXA_TASK_QUEUE: fixture.taskQueue,
      LUNANEXA_API_PORT: '1',
      LUNANEXA_CONSOLE_DIR: join(findRepoRoot(), 'no-console-here'),
      LUNANEXA_CONTROLLER_KEY_FILE: fixture.controllerKeyFile,
      LUNANEXA_TEMPORAL_UI_URL: 'http://temporal-ui.test:8233/',
      LUNANEXA_WORKFLOW_WAIT_MS: '15000',
    });
    app = await createApiApp(config, logger, { version: '0.0.0-test', commit: 'test' });
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer() as { address(): AddressInfo }).address().port}`;
    admin = await login('audit-admin', adminPassword);
    data(
      await graphql(
        'mutation($input: CreateOperatorInput!) { createOperator(input: $input) { id } }',
        { input: { username: 'audit-viewer', password: viewerPassword, role: 'viewer' } },
        admin,
      ),
      'createOperator',
    );
    viewer = await login('audit-viewer', viewerPassword);
    for (let i = 0; i < 3; i++) {
      const created = data<{ token: string }>(
        await graphql(
          'mutation($input: CreateBootstrapTokenInput!) { createBootstrapToken(input: $input) { token } }',
          { input: { autoApprove: false } },
          admin,
        ),
        'createBootstrapToken',
      );
      bootstrapTokens.push(created.token);
    }
    // A refusal: viewers may not mint bootstrap tokens.
    const refused = await graphql(
      'mutation($input: CreateBootstrapTokenInput!) { createBootstrapToken(input: $input) { token } }',
      { input: { autoApprove: false } },
      viewer,
    );
    expect(refused.errors?.[0]?.extensions.code).to.equal('FORBIDDEN');
    await appendDirect({ action: 'node.approve', evidence: { nodeId: 'node-audit-a' } });
    await appendDirect({ action: 'deployment.place', evidence: { deploymentId: 'dep-audit-b' } });
    await appendDirect({
      action: 'ping.record',
      workflowId: 'ping/audit-test',
      correlationId: workflowCorrelation,
    });
  });

  after(async () => {
    await app?.close();
    await fixture?.stop();
  });

  it('pages newest first by seq: first, before and nextBefore cover every event exactly once', async () => {
    const total = await rowCount();
    expect(total).to.be.greaterThan(8);
    const seen: number[] = [];
    let before: number | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const result: PageView = await page({ first: 3, before });
      expect(result.events.length).to.be.at.most(3);
      seen.push(...result.events.map((e) => e.seq));
      if (result.nextBefore === null) break;
      expect(result.nextBefore).to.equal(result.events[result.events.length - 1]?.seq);
      before = result.nextBefore;
    }
    const expected = Array.from({ length: total }, (_, i) => total - i);
    expect(seen).to.deep.equal(expected);
    const last = await page({ first: total });
    expect(last.events).to.have.length(total);
    expect(last.nextBefore).to.equal(null);
  });

  it('refuses first outside 1-200 with VALIDATION_FAILED', async () => {
    for (const first of [0, 201, -1]) {
      const answer = await graphql(EVENTS, { first }, admin);
      expect(answer.errors?.[0]?.extensions.code, `first=${first}`).to.equal('VALIDATION_FAILED');
    }
    expect(
      (await graphql(EVENTS, { filter: { decision: 'maybe' } }, admin)).errors?.[0]?.extensions.code,
    ).to.equal('VALIDATION_FAILED');
  });

  it('filters by exact action and by a prefix ending in *', async () => {
    const exact = await page({ filter: { action: 'bootstrap-token.create' }, first: 200 });
    expect(exact.events).to.have.length(3);
    expect(exact.events.every((e) => e.action === 'bootstrap-token.create')).to.equal(true);
    const prefix = await page({ filter: { action: 'auth.*' }, first: 200 });
    expect(prefix.events.length).to.equal(await rowCount(`action LIKE 'auth.%'`));
    expect(new Set(prefix.events.map((e) => e.action))).to.include.keys('auth.login', 'auth.authorize');
    // The prefix is literal: "_" is not a wildcard.
    expect((await page({ filter: { action: 'auth_*' } })).events).to.have.length(0);
  });

  it('filters by actor, decision, correlation id, workflow id and subject', async () => {
    const byActor = await page({ filter: { actor: 'operator:audit-viewer' }, first: 200 });
    expect(byActor.events.length).to.be.greaterThan(0);
    expect(byActor.events.every((e) => e.actor === 'operator:audit-viewer')).to.equal(true);

    const denied = await page({ filter: { decision: 'denied' }, first: 200 });
    expect(denied.events.length).to.equal(await rowCount(`decision = 'denied'`));
    expect(denied.events.some((e) => e.action === 'auth.authorize' && e.result === 'refused')).to.equal(true);
    const allowed = await page({ filter: { decision: 'allowed' }, first: 200 });
    expect(allowed.events.every((e) => e.decision === 'allowed')).to.equal(true);

    const byCorrelation = await page({ filter: { correlationId: workflowCorrelation } });
    expect(byCorrelation.events.map((e) => e.action)).to.deep.equal(['ping.record']);

    const byWorkflow = await page({ filter: { workflowId: 'ping/audit-test' } });
    expect(byWorkflow.events).to.have.length(1);
    expect(byWorkflow.events[0]?.temporalUiUrl).to.match(
      /^http:\/\/temporal-ui\.test:8233\/namespaces\/[^/]+\/workflows\/ping%2Faudit-test$/,
    );
    expect(byCorrelation.events.length + byWorkflow.events.length).to.equal(2);
    const withoutWorkflow = await page({ filter: { action: 'bootstrap-token.create' }, first: 1 });
    expect(withoutWorkflow.events[0]?.temporalUiUrl).to.equal(null);

    expect((await page({ filter: { subject: 'node-audit-a' } })).events.map((e) => e.action)).to.deep.equal([
      'node.approve',
    ]);
    expect((await page({ filter: { subject: 'dep-audit-b' } })).events.map((e) => e.action)).to.deep.equal([
      'deployment.place',
    ]);

    const combined = await page({
      filter: { action: 'auth.*', decision: 'denied', actor: 'operator:audit-viewer' },
    });
    expect(combined.events.length).to.be.greaterThan(0);
    expect(
      combined.events.every((e) => e.decision === 'denied' && e.actor === 'operator:audit-viewer'),
    ).to.equal(true);
  });

  it('lets a viewer read, and refuses an anonymous caller with UNAUTHENTICATED', async () => {
    const asViewer = await page({ first: 5 }, viewer);
    expect(asViewer.events).to.have.length(5);
    for (const query of [
      EVENTS,
      '{ auditChainStatus { valid } }',
      '{ auditEvent(seq: 1) { seq } }',
      '{ controlPlaneDigest { registry } }',
    ]) {
      const anonymous = await graphql(query, {});
      expect(anonymous.errors?.[0]?.extensions.code, query).to.equal('UNAUTHENTICATED');
      expect(anonymous.data?.['auditEvents'] ?? null).to.equal(null);
    }
  });

  it('shows one event with evidence, hashes and its chain link verified; null for an unknown seq', async () => {
    const [token] = (await page({ filter: { action: 'bootstrap-token.create' }, first: 1 })).events;
    const answer = await graphql(
      `query($seq: Int!) { auditEvent(seq: $seq) { ${EVENT_FIELDS} chain { verified reason } } }`,
      { seq: token?.seq },
      viewer,
    );
    const event = data<EventView & { chain: { verified: boolean; reason: string | null } }>(
      answer,
      'auditEvent',
    );
    expect(event.seq).to.equal(token?.seq);
    expect(event.chain).to.deep.equal({ verified: true, reason: null });
    expect(event.hash).to.match(/^[0-9a-f]{64}$/);
    const previous = await fixture.ds.query<{ hash: string }[]>(
      `SELECT hash FROM audit_events WHERE seq = $1`,
      [event.seq - 1],
    );
    expect(event.prevHash).to.equal(previous[0]?.hash);
    expect(JSON.parse(event.evidenceJson)).to.be.an('object');
    for (const secret of bootstrapTokens) expect(event.evidenceJson).not.to.include(secret);

    const first = data<{ chain: { verified: boolean } }>(
      await graphql('{ auditEvent(seq: 1) { prevHash chain { verified } } }', {}, admin),
      'auditEvent',
    );
    expect(first.chain.verified).to.equal(true);
    const missing = await graphql('{ auditEvent(seq: 999999) { seq } }', {}, admin);
    expect(missing.errors).to.equal(undefined);
    expect(missing.data?.['auditEvent']).to.equal(null);
  });

  it('reports the whole chain valid, having checked every row, then only what came after the checkpoint', async () => {
    const status = async (mode: 'INCREMENTAL' | 'FULL') =>
      data<{
        mode: string;
        valid: boolean;
        checked: number;
        checkpointSeq: number | null;
        firstBrokenSeq: number | null;
        reason: string | null;
      }>(
        await graphql(
          `{ auditChainStatus(mode: ${mode}) { mode valid checked checkpointSeq firstBrokenSeq reason } }`,
          {},
          viewer,
        ),
        'auditChainStatus',
      );
    const rows = await rowCount();
    // The first verification has no checkpoint: it walks everything and leaves one at the last event.
    expect(await status('INCREMENTAL')).to.deep.equal({
      mode: 'INCREMENTAL',
      valid: true,
      checked: rows,
      checkpointSeq: null,
      firstBrokenSeq: null,
      reason: null,
    });
    expect(await status('INCREMENTAL')).to.include({ valid: true, checked: 0, checkpointSeq: rows });
    expect(await status('FULL')).to.include({ valid: true, checked: rows, checkpointSeq: null });
  });

  it('controlPlaneDigest: a viewer reads the digest backup.sh records, the same as the library computes, changing nothing', async () => {
    const before = await rowCount();
    const digest = data<{
      registry: string;
      desiredState: string;
      auditChain: { events: number; headHash: string | null; valid: boolean };
    }>(
      await graphql(
        '{ controlPlaneDigest { registry desiredState auditChain { events headHash valid } } }',
        {},
        viewer,
      ),
      'controlPlaneDigest',
    );
    expect(digest.registry).to.match(/^[0-9a-f]{64}$/);
    expect(digest.desiredState).to.match(/^[0-9a-f]{64}$/);
    expect(digest).to.deep.equal(await controlPlaneDigest(fixture.ds));
    const head = await fixture.ds.query<{ hash: string }[]>(
      `SELECT hash FROM audit_events ORDER BY seq DESC LIMIT 1`,
    );
    expect(digest.auditChain).to.deep.equal({ events: before, headHash: head[0]?.hash, valid: true });
    expect(await rowCount()).to.equal(before);
  });
});
