import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { dataOf, startTestApi, type TestApi } from './api-test-support';

interface Bucket {
  start: string;
  requests: number;
  errors: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  latencyP99Ms: number | null;
  ttftP50Ms: number | null;
  meanConcurrency: number;
  requestsPerSecond: number;
}

const BUCKET =
  'start requests errors latencyP50Ms latencyP95Ms latencyP99Ms ttftP50Ms meanConcurrency requestsPerSecond';
const TRAFFIC = `query($w: Int, $b: Int, $d: String) { traffic(windowMinutes: $w, bucketSeconds: $b, deployment: $d) {
  windowStart windowEnd bucketSeconds inFlightNow queuedNow buckets { ${BUCKET} } totals { ${BUCKET} }
  deployments { deploymentId deploymentName modelRef inFlightNow queuedNow totals { ${BUCKET} } } } }`;
const RECORDS = `query($first: Int, $before: String, $filter: RequestRecordFilter) {
  requestRecords(first: $first, before: $before, filter: $filter) {
    nextBefore items { id requestId correlationId deploymentName modelRef outcome errorCode httpStatus durationMs timeToFirstTokenMs }
  } }`;
const SEARCH = 'query($term: String!) { search(term: $term) { kind title detail route temporalUiUrl } }';

/** A stand-in gateway: answers the playground's relay with a slow SSE stream and remembers what it was sent. */
class StubGateway {
  readonly calls: { headers: IncomingMessage['headers']; body: Record<string, unknown> }[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => {
        this.calls.push({ headers: req.headers, body: JSON.parse(text) as Record<string, unknown> });
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'x-request-id': String(req.headers['x-request-id']),
        });
        const words = ['Hel', 'lo', ' there'];
        let index = 0;
        const tick = setInterval(() => {
          if (index < words.length) {
            res.write(
              `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: words[index] } }] })}\n\n`,
            );
            index += 1;
            return;
          }
          clearInterval(tick);
          res.end('data: [DONE]\n\n');
        }, 150);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

describe('requests, traffic, search, workflow alerts and the playground relay on real PostgreSQL and Temporal', function () {
  this.timeout(120_000);
  let api: TestApi;
  let viewer = '';
  let operator = '';
  let deploymentId = '';
  const gateway = new StubGateway();
  const correlation = `corr-${randomUUID()}`;

  async function insertRecord(values: {
    requestId: string;
    outcome: string;
    durationMs: number;
    ttftMs?: number | null;
    secondsAgo?: number;
    errorCode?: string | null;
    deployment?: string | null;
    correlationId?: string;
  }): Promise<void> {
    const ago = values.secondsAgo ?? 5;
    await api.fixture.ds.query(
      `INSERT INTO request_records (request_id, correlation_id, received_at, finished_at, kind, dialect, requested_model,
         model_ref, deployment_id, stream, outcome, error_code, http_status, ttft_ms, duration_ms, prompt_tokens, completion_tokens)
       VALUES ($1, $2, now() - make_interval(secs => $3), now() - make_interval(secs => $3) + make_interval(secs => $4 / 1000.0),
         'chat', 'openai', 'demo@v1', 'demo@v1', $5, true, $6, $7, $8, $9, $4, 3, 12)`,
      [
        values.requestId,
        values.correlationId ?? `corr-${values.requestId}`,
        ago,
        values.durationMs,
        values.deployment === undefined ? deploymentId : values.deployment,
        values.outcome,
        values.errorCode ?? null,
        values.outcome === 'Completed' ? 200 : 502,
        values.ttftMs === undefined ? values.durationMs / 10 : values.ttftMs,
      ],
    );
  }

  before(async () => {
    await gateway.start();
    api = await startTestApi('requests', { LUNANEXA_GATEWAY_URL: gateway.url });
    viewer = await api.operator('requests-viewer', 'viewer');
    operator = await api.operator('requests-operator', 'operator');
    const version = dataOf<{ id: string }>(
      await api.graphql(
        'mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { id } }',
        { input: { model: 'demo', version: 'v1' } },
        api.admin,
      ),
      'registerModelVersion',
    );
    deploymentId = `dep-${randomUUID()}`;
    await api.fixture.ds.query(
      `INSERT INTO deployments (id, name, model_version_id, model_ref, state, generation, desired_replicas, workflow_id, created_by, created_at, updated_at)
       VALUES ($1, 'chat-a', $2, 'demo@v1', 'Ready', 1, 1, $3, 'operator:test', now(), now())`,
      [deploymentId, version.id, `deployment/${deploymentId}`],
    );
    // Ten requests to chat-a: 100 ms … 1000 ms; two end badly (Failed, TimedOut); one caller cancelled (not an error).
    for (let i = 1; i <= 10; i++) {
      const outcome = i === 3 ? 'Failed' : i === 7 ? 'TimedOut' : i === 9 ? 'Cancelled' : 'Completed';
      await insertRecord({
        requestId: `req-${i}`,
        outcome,
        durationMs: i * 100,
        errorCode:
          outcome === 'Failed' ? 'UPSTREAM_FAILED' : outcome === 'TimedOut' ? 'DEADLINE_EXCEEDED' : null,
        correlationId: i === 5 ? correlation : `corr-req-${i}`,
      });
    }
    // One for a model nobody serves, and one outside a 5-minute window.
    await insertRecord({
      requestId: 'req-unknown',
      outcome: 'Rejected',
      durationMs: 1,
      ttftMs: null,
      deployment: null,
      errorCode: 'MODEL_NOT_FOUND',
    });
    await insertRecord({ requestId: 'req-old', outcome: 'Completed', durationMs: 100, secondsAgo: 20 * 60 });
  });

  after(async () => {
    await api?.stop();
    await gateway.stop();
  });

  it('traffic: totals, percentiles and error counts over the window; empty buckets included; a viewer may read', async () => {
    const report = dataOf<{
      windowStart: string;
      windowEnd: string;
      bucketSeconds: number;
      inFlightNow: number;
      buckets: Bucket[];
      totals: Bucket;
      deployments: { deploymentId: string | null; deploymentName: string | null; totals: Bucket }[];
    }>(await api.graphql(TRAFFIC, { w: 5, b: 30 }, viewer), 'traffic');
    expect(report.bucketSeconds).to.equal(30);
    expect(report.buckets).to.have.length(10);
    expect(new Date(report.windowEnd).getTime() - new Date(report.windowStart).getTime()).to.equal(300_000);
    expect(report.buckets.reduce((sum, bucket) => sum + bucket.requests, 0)).to.equal(11);
    expect(report.totals.requests).to.equal(11);
    expect(report.totals.errors, 'Failed, TimedOut and Rejected count; Cancelled does not').to.equal(3);
    const chat = report.deployments.find((entry) => entry.deploymentName === 'chat-a');
    expect(chat?.deploymentId).to.equal(deploymentId);
    expect(chat?.totals.requests).to.equal(10);
    expect(chat?.totals.errors).to.equal(2);
    // Continuous percentiles over 100, 200, … 1000 ms.
    expect(chat?.totals.latencyP50Ms).to.be.closeTo(550, 0.001);
    expect(chat?.totals.latencyP95Ms).to.be.closeTo(955, 0.001);
    expect(chat?.totals.latencyP99Ms).to.be.closeTo(991, 0.001);
    expect(chat?.totals.ttftP50Ms).to.be.closeTo(55, 0.001);
    expect(chat?.totals.meanConcurrency).to.be.closeTo(5500 / 300_000, 1e-9);
    expect(report.deployments.find((entry) => entry.deploymentId === null)?.totals.errors).to.equal(1);
    expect(report.inFlightNow).to.equal(0);
  });

  it('traffic: queue depth is what live gateways published, summed per deployment; a gateway gone quiet is not counted', async () => {
    const publish = (gateway: string, queued: number, secondsAgo: number) =>
      api.fixture.ds.query(
        `INSERT INTO gateway_load (gateway_id, group_key, deployment_id, in_flight, queued, capacity, updated_at)
         VALUES ($1, $2, $3, 4, $4, 4, now() - make_interval(secs => $5))`,
        [gateway, `deployment:${deploymentId}`, deploymentId, queued, secondsAgo],
      );
    await publish('gw-a:4100', 3, 1);
    await publish('gw-b:4100', 5, 1);
    await publish('gw-gone:4100', 40, 600);
    try {
      const report = dataOf<{
        queuedNow: number;
        deployments: { deploymentId: string | null; queuedNow: number }[];
      }>(await api.graphql(TRAFFIC, { w: 5, b: 30 }, viewer), 'traffic');
      expect(report.deployments.find((entry) => entry.deploymentId === deploymentId)?.queuedNow).to.equal(8);
      expect(report.queuedNow).to.equal(8);
      const other = dataOf<{ queuedNow: number }>(
        await api.graphql(TRAFFIC, { w: 5, b: 30, d: 'chat-a' }, viewer),
        'traffic',
      );
      expect(other.queuedNow).to.equal(8);
    } finally {
      await api.fixture.ds.query(`DELETE FROM gateway_load`);
    }
  });

  it('traffic for one deployment by name; unknown deployment is NOT_FOUND; a window of too many buckets is VALIDATION_FAILED', async () => {
    const scoped = dataOf<{ totals: Bucket }>(
      await api.graphql(TRAFFIC, { w: 60, b: 60, d: 'chat-a' }, viewer),
      'traffic',
    );
    expect(scoped.totals.requests).to.equal(
      11,
      'ten recent ones and the 20-minute-old one; the unknown-model request is not chat-a’s',
    );
    const missing = await api.graphql(TRAFFIC, { d: 'nope' }, viewer);
    expect(missing.errors?.[0]?.extensions.code).to.equal('NOT_FOUND');
    const tooMany = await api.graphql(TRAFFIC, { w: 1440, b: 5 }, viewer);
    expect(tooMany.errors?.[0]?.extensions.code).to.equal('VALIDATION_FAILED');
    const tooSmall = await api.graphql(TRAFFIC, { w: 5, b: 1 }, viewer);
    expect(tooSmall.errors?.[0]?.extensions.code).to.equal('VALIDATION_FAILED');
  });

  it('requestRecords: newest first, keyset pages cover every record once, filters narrow', async () => {
    const seen: string[] = [];
    let before: string | null = null;
    do {
      const page: { nextBefore: string | null; items: { requestId: string }[] } = dataOf(
        await api.graphql(RECORDS, { first: 5, before }, viewer),
        'requestRecords',
      );
      seen.push(...page.items.map((item) => item.requestId));
      before = page.nextBefore;
    } while (before !== null);
    expect(seen).to.deep.equal([
      'req-old',
      'req-unknown',
      ...Array.from({ length: 10 }, (_, i) => `req-${10 - i}`),
    ]);
    const errors = dataOf<{ items: { requestId: string; errorCode: string }[] }>(
      await api.graphql(RECORDS, { filter: { errorsOnly: true } }, viewer),
      'requestRecords',
    );
    expect(errors.items.map((item) => `${item.requestId}:${item.errorCode}`)).to.deep.equal([
      'req-unknown:MODEL_NOT_FOUND',
      'req-7:DEADLINE_EXCEEDED',
      'req-3:UPSTREAM_FAILED',
    ]);
    const byDeployment = dataOf<{ items: { deploymentName: string }[] }>(
      await api.graphql(
        RECORDS,
        { first: 200, filter: { deployment: 'chat-a', outcome: 'Completed' } },
        viewer,
      ),
      'requestRecords',
    );
    expect(byDeployment.items).to.have.length(8);
    expect(new Set(byDeployment.items.map((item) => item.deploymentName))).to.deep.equal(new Set(['chat-a']));
    const one = dataOf<{ items: { requestId: string }[] }>(
      await api.graphql(RECORDS, { filter: { correlationId: correlation } }, viewer),
      'requestRecords',
    );
    expect(one.items.map((item) => item.requestId)).to.deep.equal(['req-5']);
  });

  it('requestRecords refuses a forged cursor, an oversized page and an unknown outcome with VALIDATION_FAILED; anonymous callers with UNAUTHENTICATED', async () => {
    for (const variables of [
      { before: '1; DROP TABLE request_records' },
      { first: 201 },
      { filter: { outcome: 'Exploded' } },
    ]) {
      const answer = await api.graphql(RECORDS, variables, viewer);
      expect(answer.errors?.[0]?.extensions.code, JSON.stringify(variables)).to.equal('VALIDATION_FAILED');
    }
    const anonymous = await api.graphql(RECORDS, {});
    expect(anonymous.errors?.[0]?.extensions.code).to.equal('UNAUTHENTICATED');
    const [{ n }] = await api.fixture.ds.query<{ n: number }[]>(
      'SELECT count(*)::int AS n FROM request_records',
    );
    expect(n).to.equal(12);
  });

  it('search finds a request id, a correlation id, a workflow id, an audit seq, a deployment and a model by name', async () => {
    const search = async (term: string) =>
      dataOf<{ kind: string; title: string; route: string; temporalUiUrl: string | null }[]>(
        await api.graphql(SEARCH, { term }, viewer),
        'search',
      );
    expect((await search('req-5')).map((hit) => [hit.kind, hit.route])).to.deep.include([
      'request',
      '/requests?requestId=req-5',
    ]);
    const byCorrelation = await search(correlation);
    expect(byCorrelation.map((hit) => hit.kind)).to.deep.equal(['correlation']);
    expect(byCorrelation[0]?.route).to.equal(`/audit?correlationId=${correlation}`);
    const workflow = (await search(`deployment/${deploymentId}`)).find((hit) => hit.kind === 'workflow');
    expect(workflow?.route).to.equal('/deployments/chat-a');
    expect(workflow?.temporalUiUrl).to.equal(
      `http://temporal-ui.test:8233/namespaces/${api.fixture.env.namespace}/workflows/${encodeURIComponent(`deployment/${deploymentId}`)}`,
    );
    expect((await search('1')).map((hit) => hit.route)).to.include('/audit?seq=1');
    expect((await search('chat')).map((hit) => [hit.kind, hit.route])).to.deep.include([
      'deployment',
      '/deployments/chat-a',
    ]);
    expect((await search('dem')).map((hit) => hit.title)).to.include('Model demo@v1');
    expect(await search('nothing-has-this-name')).to.deep.equal([]);
    const blank = await api.graphql(SEARCH, { term: '   ' }, viewer);
    expect(blank.errors?.[0]?.extensions.code).to.equal('VALIDATION_FAILED');
  });

  it('workflowAlerts lists a workflow that ended badly (here: terminated), with its Temporal link', async () => {
    const key = `alert/${randomUUID()}`;
    // Nobody polls this queue; an operator gives up on the stuck workflow and terminates it.
    const handle = await api.fixture.env.client.workflow.start('pingWorkflow', {
      taskQueue: `nobody-${randomUUID()}`,
      workflowId: key,
      args: [],
    });
    await handle.terminate('stuck: nobody polls its task queue');
    type Alert = { workflowId: string; status: string; workflowType: string; temporalUiUrl: string };
    // Temporal's visibility store catches up with a closed workflow a moment later.
    let alerts: Alert[] = [];
    for (let attempt = 0; attempt < 40; attempt++) {
      alerts = dataOf<Alert[]>(
        await api.graphql(
          '{ workflowAlerts { workflowId runId status workflowType closedAt temporalUiUrl } }',
          {},
          viewer,
        ),
        'workflowAlerts',
      );
      if (alerts.some((alert) => alert.workflowId === key)) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const failed = alerts.find((alert) => alert.workflowId === key);
    expect(failed, JSON.stringify(alerts)).to.not.equal(undefined);
    expect(failed?.status).to.equal('TERMINATED');
    expect(failed?.workflowType).to.equal('pingWorkflow');
    expect(failed?.temporalUiUrl).to.match(
      /^http:\/\/temporal-ui\.test:8233\/namespaces\/.+\/workflows\/alert%2F.+\/history$/,
    );
  });

  it('usage per tenant: requests, tokens, errors and 429s over time, top models, the tenant on each record and as a filter; bad tenants refused', async () => {
    for (const id of ['acme', 'globex']) {
      dataOf(
        await api.graphql(
          'mutation($input: CreateTenantInput!) { createTenant(input: $input) { id } }',
          { input: { id } },
          api.admin,
        ),
        'createTenant',
      );
    }
    // acme: 4 to its alias (one refused by its quota with 429), 1 to a second model; globex: 2.
    const rows: [string, string, string, number, number][] = [
      ['acme', 'chat-prod', 'Completed', 200, 40],
      ['acme', 'chat-prod', 'Completed', 200, 60],
      ['acme', 'chat-prod', 'Failed', 502, 0],
      ['acme', 'chat-prod', 'Rejected', 429, 0],
      ['acme', 'demo@v1', 'Completed', 200, 10],
      ['globex', 'chat-prod', 'Completed', 200, 5],
      ['globex', 'chat-prod', 'Completed', 200, 5],
    ];
    for (const [i, [tenant, model, outcome, status, completion]] of rows.entries()) {
      await api.fixture.ds.query(
        `INSERT INTO request_records (request_id, correlation_id, received_at, finished_at, kind, dialect,
           requested_model, model_ref, deployment_id, stream, outcome, error_code, http_status, ttft_ms, duration_ms,
           prompt_tokens, completion_tokens, tenant_id, caller)
         VALUES ($1, $1, now() - interval '30 seconds', now() - interval '29 seconds', 'chat', 'openai', $2, NULL, NULL,
           false, $3, NULL, $4, NULL, 1000, 7, $5, $6, 'lnxk_test')`,
        [`tenant-req-${i}`, model, outcome, status, completion, tenant],
      );
    }
    const TENANT_TRAFFIC = `query($t: String) { traffic(windowMinutes: 5, bucketSeconds: 60, tenant: $t) {
      buckets { requests rateLimited } totals { requests errors rateLimited promptTokens completionTokens }
      tenants { tenantId totals { requests errors rateLimited } topModels { requestedModel requests errors } } } }`;
    const acme = dataOf<{
      buckets: { requests: number; rateLimited: number }[];
      totals: {
        requests: number;
        errors: number;
        rateLimited: number;
        promptTokens: number;
        completionTokens: number;
      };
      tenants: {
        tenantId: string | null;
        topModels: { requestedModel: string; requests: number; errors: number }[];
      }[];
    }>(await api.graphql(TENANT_TRAFFIC, { t: 'acme' }, viewer), 'traffic');
    expect(acme.totals).to.deep.equal({
      requests: 5,
      errors: 2,
      rateLimited: 1,
      promptTokens: 35,
      completionTokens: 110,
    });
    expect(acme.buckets.reduce((sum, b) => sum + b.rateLimited, 0)).to.equal(1);
    expect(acme.tenants.map((t) => t.tenantId)).to.deep.equal(['acme']);
    expect(acme.tenants[0]?.topModels).to.deep.equal([
      { requestedModel: 'chat-prod', requests: 4, errors: 2 },
      { requestedModel: 'demo@v1', requests: 1, errors: 0 },
    ]);
    const all = dataOf<{ tenants: { tenantId: string | null; totals: { requests: number } }[] }>(
      await api.graphql(TENANT_TRAFFIC, {}, viewer),
      'traffic',
    );
    const byTenant = new Map(all.tenants.map((t) => [t.tenantId, t.totals.requests]));
    expect([byTenant.get('acme'), byTenant.get('globex')]).to.deep.equal([5, 2]);
    expect(byTenant.get(null), 'the requests no tenant key made').to.be.greaterThan(0);

    const records = dataOf<{ items: { requestId: string; tenantId: string | null }[] }>(
      await api.graphql(
        'query($filter: RequestRecordFilter) { requestRecords(filter: $filter) { items { requestId tenantId } } }',
        { filter: { tenant: 'globex' } },
        viewer,
      ),
      'requestRecords',
    );
    expect(records.items.map((r) => [r.requestId, r.tenantId])).to.deep.equal([
      ['tenant-req-6', 'globex'],
      ['tenant-req-5', 'globex'],
    ]);
    const unknown = await api.graphql(TENANT_TRAFFIC, { t: 'initech' }, viewer);
    expect(unknown.errors?.[0]?.extensions.code).to.equal('NOT_FOUND');
    const tooLong = await api.graphql(TENANT_TRAFFIC, { t: 'x'.repeat(129) }, viewer);
    expect(tooLong.errors?.[0]?.extensions.code).to.equal('VALIDATION_FAILED');
  });

  describe('playground relay (POST /console/v1/playground/chat)', () => {
    const path = '/console/v1/playground/chat';
    const post = (body: unknown, bearer?: string, headers: Record<string, string> = {}) =>
      fetch(`${api.base}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(bearer ? { authorization: bearer } : {}),
          ...headers,
        },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const message = {
      deployment: 'chat-a',
      messages: [{ role: 'user', content: 'hello' }],
      maxTokens: 16,
      seed: 7,
    };

    it('streams the gateway’s reply incrementally under the caller’s request and correlation ids, for the deployment’s model', async () => {
      const response = await post(message, operator, {
        'x-request-id': 'req-play-1',
        'x-correlation-id': 'corr-play-1',
      });
      expect(response.status).to.equal(200);
      expect(response.headers.get('content-type')).to.match(/^text\/event-stream/);
      expect(response.headers.get('x-request-id')).to.equal('req-play-1');
      const arrivals: number[] = [];
      let text = '';
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        arrivals.push(Date.now());
        text += Buffer.from(chunk).toString('utf8');
      }
      expect(text).to.contain('"Hel"').and.contain('" there"').and.contain('data: [DONE]');
      expect(arrivals.length, 'chunks arrive as the gateway sends them').to.be.at.least(3);
      expect(arrivals[arrivals.length - 1] - arrivals[0]).to.be.at.least(250);
      const call = gateway.calls.at(-1)!;
      expect(call.headers['x-request-id']).to.equal('req-play-1');
      expect(call.headers['x-correlation-id']).to.equal('corr-play-1');
      // The operator's own credential travels along: the gateway authenticates it again.
      expect(call.headers['authorization']).to.equal(operator);
      expect(call.body).to.deep.equal({
        model: 'demo@v1',
        messages: [{ role: 'user', content: 'hello' }],
        max_tokens: 16,
        seed: 7,
        stream: true,
        stream_options: { include_usage: true },
      });
    });

    it('refuses a viewer (FORBIDDEN), no credential (UNAUTHENTICATED), a malformed body (VALIDATION_FAILED) and an unknown deployment (NOT_FOUND) as problem+json, without calling the gateway', async () => {
      const before = gateway.calls.length;
      const cases: [unknown, string | undefined, number, string][] = [
        [message, viewer, 403, 'FORBIDDEN'],
        [message, undefined, 401, 'UNAUTHENTICATED'],
        [{ ...message, messages: [] }, operator, 400, 'VALIDATION_FAILED'],
        [{ ...message, command: 'rm -rf /' }, operator, 400, 'VALIDATION_FAILED'],
        ['{"deployment": ', operator, 400, 'MALFORMED_REQUEST'],
        [{ ...message, deployment: 'nope' }, operator, 404, 'NOT_FOUND'],
      ];
      for (const [body, bearer, status, code] of cases) {
        const response = await post(body, bearer);
        expect(response.status, `${code} ${JSON.stringify(body)}`).to.equal(status);
        expect(response.headers.get('content-type')).to.match(/^application\/problem\+json/);
        expect(((await response.json()) as { code: string }).code).to.equal(code);
      }
      expect(gateway.calls.length).to.equal(before);
    });
  });
});

describe('playground relay with the gateway down', function () {
  this.timeout(120_000);
  let api: TestApi;

  before(async () => {
    api = await startTestApi('playground_down', { LUNANEXA_GATEWAY_URL: 'http://127.0.0.1:9' });
    const version = dataOf<{ id: string }>(
      await api.graphql(
        'mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { id } }',
        { input: { model: 'demo', version: 'v1' } },
        api.admin,
      ),
      'registerModelVersion',
    );
    await api.fixture.ds.query(
      `INSERT INTO deployments (id, name, model_version_id, model_ref, state, generation, desired_replicas, workflow_id, created_by, created_at, updated_at)
       VALUES ('dep-down', 'chat-down', $1, 'demo@v1', 'Ready', 1, 1, 'deployment/dep-down', 'operator:test', now(), now())`,
      [version.id],
    );
  });

  after(async () => {
    await api?.stop();
  });

  it('answers 503 DEPENDENCY_UNAVAILABLE as problem+json with both ids', async () => {
    const response = await fetch(`${api.base}/console/v1/playground/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: api.admin, 'x-request-id': 'req-down-1' },
      body: JSON.stringify({ deployment: 'chat-down', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).to.equal(503);
    const problem = (await response.json()) as { code: string; requestId: string; correlationId: string };
    expect(problem.code).to.equal('DEPENDENCY_UNAVAILABLE');
    expect(problem.requestId).to.equal('req-down-1');
    expect(problem.correlationId).to.be.a('string').and.not.equal('');
  });
});
