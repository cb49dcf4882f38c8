import { expect } from 'chai';
import {
  OpenAiModelListSchema,
  PROBLEM_CONTENT_TYPE,
  ProblemDetailsSchema,
  type ProblemDetailsBody,
} from '@lunanexa/contracts';
import { StaticRouteTable } from '../src/route-table';
import {
  TEST_OPERATOR_TOKEN,
  call,
  postJson,
  route,
  startGateway,
  type RawResponse,
  type StartedGateway,
} from './support';

const chatBody = { model: 'chat-default', messages: [{ role: 'user', content: 'hello' }] };
const workloadBody = {
  apiVersion: 'lunanexa.v1',
  kind: 'chat',
  target: { alias: 'chat-default' },
  messages: [{ role: 'user', content: 'hello' }],
  dataClass: 'internal',
};

/** Asserts a problem+json response with `code` and returns the validated body. */
function expectProblem(response: RawResponse, status: number, code: string): ProblemDetailsBody {
  expect(response.status, response.text).to.equal(status);
  expect(response.headers['content-type']).to.equal(PROBLEM_CONTENT_TYPE);
  const problem = ProblemDetailsSchema.parse(response.json());
  expect(problem.code).to.equal(code);
  expect(problem.status).to.equal(status);
  expect(problem.requestId).to.equal(response.headers['x-request-id']);
  return problem;
}

describe('gateway HTTP surface', () => {
  let gw: StartedGateway;

  beforeEach(async () => {
    gw = await startGateway({ maxBodyBytes: 2048 });
  });

  afterEach(async () => {
    await gw.stop();
  });

  describe('request ids', () => {
    it('generates ids when none are sent and echoes them on the response', async () => {
      const response = await call(gw.url, 'GET', '/health');
      expect(response.status).to.equal(200);
      expect(response.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
      expect(response.headers['x-correlation-id']).to.equal(response.headers['x-request-id']);
      expect(response.headers['traceparent']).to.match(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    });

    it('echoes well-formed caller ids, also on errors', async () => {
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const headers = { 'x-request-id': 'req-abc.1', 'x-correlation-id': 'flow-42', traceparent };
      for (const response of [
        await call(gw.url, 'GET', '/health', { headers }),
        await call(gw.url, 'GET', '/nope', { headers }),
      ]) {
        expect(response.headers['x-request-id']).to.equal('req-abc.1');
        expect(response.headers['x-correlation-id']).to.equal('flow-42');
        expect(response.headers['traceparent']).to.equal(traceparent);
      }
      const problem = (await call(gw.url, 'GET', '/nope', { headers })).json();
      expect(problem['requestId']).to.equal('req-abc.1');
      expect(problem['correlationId']).to.equal('flow-42');
    });

    it('replaces a malformed caller id instead of echoing it', async () => {
      const response = await call(gw.url, 'GET', '/health', {
        headers: { 'x-request-id': 'has spaces <script>' },
      });
      expect(response.headers['x-request-id']).to.not.equal('has spaces <script>');
      expect(response.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    });
  });

  describe('operational endpoints', () => {
    it('GET /health reports liveness and the build', async () => {
      const response = await call(gw.url, 'GET', '/health');
      expect(response.json()).to.deep.equal({
        status: 'ok',
        service: 'gateway',
        version: '0.1.0-test',
        commit: 'test',
      });
    });

    it('HEAD /health answers without a body', async () => {
      const response = await call(gw.url, 'HEAD', '/health');
      expect(response.status).to.equal(200);
      expect(response.text).to.equal('');
    });

    it('GET /ready is 200 once the route table has loaded', async () => {
      const response = await call(gw.url, 'GET', '/ready');
      expect(response.status).to.equal(200);
      expect(response.json()).to.deep.equal({ status: 'ready' });
    });

    it('GET /metrics exposes request counts labelled by route template, never by raw path', async () => {
      await call(gw.url, 'GET', '/health');
      await call(gw.url, 'GET', '/does-not-exist-12345');
      await postJson(gw.url, '/v1/chat/completions', chatBody);
      const response = await call(gw.url, 'GET', '/metrics');
      expect(response.status).to.equal(200);
      expect(response.headers['content-type']).to.match(/^text\/plain/);
      expect(response.text).to.include(
        'lunanexa_http_requests_total{service="gateway",route="/health",method="GET",status="200"} 1',
      );
      expect(response.text).to.include(
        'lunanexa_http_requests_total{service="gateway",route="(unmatched)",method="GET",status="404"} 1',
      );
      expect(response.text).to.include('route="/v1/chat/completions",method="POST",status="404"');
      expect(response.text).to.include(
        'lunanexa_gateway_workloads_total{kind="chat",dialect="openai",outcome="Rejected"} 1',
      );
      expect(response.text).to.include('lunanexa_http_request_duration_seconds_bucket');
      expect(response.text).to.include(
        'lunanexa_build_info{service="gateway",version="0.1.0-test",commit="test"} 1',
      );
      expect(response.text).to.not.include('does-not-exist-12345');
    });

    it('labels unknown HTTP methods as OTHER', async () => {
      await call(gw.url, 'PROPFIND', '/health');
      const metrics = await call(gw.url, 'GET', '/metrics');
      expect(metrics.text).to.include('route="/health",method="OTHER",status="405"');
      expect(metrics.text).to.not.include('PROPFIND');
    });

    it('GET /v1/models lists nothing while no deployment exists', async () => {
      const response = await call(gw.url, 'GET', '/v1/models');
      expect(response.status).to.equal(200);
      expect(OpenAiModelListSchema.parse(response.json())).to.deep.equal({ object: 'list', data: [] });
    });
  });

  describe('errors', () => {
    it('404 NOT_FOUND for an unknown path, without the OpenAI member', async () => {
      const problem = expectProblem(await call(gw.url, 'GET', '/v2/chat/completions'), 404, 'NOT_FOUND');
      expect(problem.instance).to.equal('/v2/chat/completions');
      expect(problem.error).to.equal(undefined);
    });

    it('405 METHOD_NOT_ALLOWED with an Allow header', async () => {
      const response = await call(gw.url, 'DELETE', '/health');
      expectProblem(response, 405, 'METHOD_NOT_ALLOWED');
      expect(response.headers['allow']).to.equal('GET, HEAD');
      const post = await call(gw.url, 'GET', '/v1/chat/completions');
      const problem = expectProblem(post, 405, 'METHOD_NOT_ALLOWED');
      expect(post.headers['allow']).to.equal('POST');
      expect(problem.error?.type).to.equal('invalid_request_error');
      expect(problem.error?.code).to.equal('method_not_allowed');
    });

    it('400 MALFORMED_REQUEST for a wrong content type', async () => {
      const response = await call(gw.url, 'POST', '/v1/chat/completions', {
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify(chatBody),
      });
      const problem = expectProblem(response, 400, 'MALFORMED_REQUEST');
      expect(problem.error?.message).to.be.a('string').and.not.equal('');
    });

    it('400 MALFORMED_REQUEST for a missing content type, a body that is not JSON, or an empty body', async () => {
      expectProblem(
        await call(gw.url, 'POST', '/v1/workloads', { body: JSON.stringify(workloadBody) }),
        400,
        'MALFORMED_REQUEST',
      );
      expectProblem(
        await call(gw.url, 'POST', '/v1/workloads', {
          headers: { 'content-type': 'application/json' },
          body: '{"apiVersion":',
        }),
        400,
        'MALFORMED_REQUEST',
      );
      expectProblem(
        await call(gw.url, 'POST', '/v1/workloads', {
          headers: { 'content-type': 'application/json' },
          body: '',
        }),
        400,
        'MALFORMED_REQUEST',
      );
    });

    it('400 MALFORMED_REQUEST for invalid UTF-8 and for a non-UTF-8 charset', async () => {
      const invalid = Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]);
      expectProblem(
        await call(gw.url, 'POST', '/v1/workloads', {
          headers: { 'content-type': 'application/json' },
          body: invalid,
        }),
        400,
        'MALFORMED_REQUEST',
      );
      expectProblem(
        await call(gw.url, 'POST', '/v1/workloads', {
          headers: { 'content-type': 'application/json; charset=latin1' },
          body: JSON.stringify(workloadBody),
        }),
        400,
        'MALFORMED_REQUEST',
      );
    });

    it('accepts application/json with a utf-8 charset', async () => {
      const response = await call(gw.url, 'POST', '/v1/workloads', {
        headers: { 'content-type': 'Application/JSON; charset="UTF-8"' },
        body: JSON.stringify(workloadBody),
      });
      expectProblem(response, 404, 'MODEL_NOT_FOUND');
    });

    it('400 VALIDATION_FAILED lists every violation with its path (generic endpoint)', async () => {
      const response = await postJson(gw.url, '/v1/workloads', {
        ...workloadBody,
        messages: [{ role: 'robot', content: 'x' }],
        extra: true,
      });
      const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
      const paths = problem.violations?.map((violation) => violation.path);
      expect(paths).to.include('messages.0.role');
      expect(paths).to.include('extra');
      for (const violation of problem.violations ?? [])
        expect(violation.message).to.be.a('string').and.not.equal('');
      expect(problem.error).to.equal(undefined);
    });

    it('400 VALIDATION_FAILED with the OpenAI error member naming the parameter', async () => {
      const response = await postJson(gw.url, '/v1/chat/completions', { ...chatBody, tools: [] });
      const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
      expect(problem.violations).to.deep.equal([{ path: 'tools', message: 'is not a known field' }]);
      expect(problem.error).to.deep.include({
        type: 'invalid_request_error',
        code: 'validation_failed',
        param: 'tools',
      });
    });

    it('400 VALIDATION_FAILED for malformed LunaNexa headers on the OpenAI endpoints', async () => {
      const response = await postJson(
        gw.url,
        '/v1/completions',
        { model: 'chat-default', prompt: 'x' },
        {
          'x-lunanexa-data-class': 'top-secret',
          'x-lunanexa-deadline-ms': 'soon',
          'x-lunanexa-tenant-id': 'Acme Corp',
        },
      );
      const problem = expectProblem(response, 400, 'VALIDATION_FAILED');
      expect(problem.violations?.map((violation) => violation.path)).to.deep.equal([
        'x-lunanexa-data-class',
        'x-lunanexa-deadline-ms',
        'x-lunanexa-tenant-id',
      ]);
    });

    it('413 PAYLOAD_TOO_LARGE when Content-Length exceeds the limit', async () => {
      const response = await postJson(gw.url, '/v1/chat/completions', {
        ...chatBody,
        messages: [{ role: 'user', content: 'x'.repeat(4096) }],
      });
      const problem = expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
      expect(problem.error?.type).to.equal('invalid_request_error');
      expect(response.headers['connection']).to.equal('close');
    });

    it('413 PAYLOAD_TOO_LARGE for a chunked body that grows past the limit', async () => {
      const chunk = Buffer.from(`{"pad":"${'y'.repeat(1000)}`);
      const response = await call(gw.url, 'POST', '/v1/workloads', {
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
        chunks: [chunk, chunk, chunk, Buffer.from('"}')],
      });
      expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('accepts a body exactly at the limit', async () => {
      const base = JSON.stringify({ ...workloadBody, messages: [{ role: 'user', content: '' }] });
      const body = JSON.stringify({
        ...workloadBody,
        messages: [{ role: 'user', content: 'z'.repeat(2048 - base.length) }],
      });
      expect(Buffer.byteLength(body)).to.equal(2048);
      expectProblem(
        await call(gw.url, 'POST', '/v1/workloads', {
          headers: { 'content-type': 'application/json' },
          body,
        }),
        404,
        'MODEL_NOT_FOUND',
      );
    });

    it('404 MODEL_NOT_FOUND on all three inference endpoints', async () => {
      const chat = expectProblem(
        await postJson(gw.url, '/v1/chat/completions', chatBody),
        404,
        'MODEL_NOT_FOUND',
      );
      expect(chat.error).to.deep.include({
        type: 'not_found_error',
        code: 'model_not_found',
        param: 'model',
      });
      const completion = expectProblem(
        await postJson(gw.url, '/v1/completions', { model: 'x@1', prompt: 'p' }),
        404,
        'MODEL_NOT_FOUND',
      );
      expect(completion.error?.param).to.equal('model');
      const generic = expectProblem(
        await postJson(gw.url, '/v1/workloads', workloadBody),
        404,
        'MODEL_NOT_FOUND',
      );
      expect(generic.error).to.equal(undefined);
    });
  });

  describe('logging', () => {
    it('logs method, route, status, duration and ids — never bodies or headers', async () => {
      const secret = 'PROMPT-CANARY-7f1e';
      // A well-formed gateway key nobody issued: it is looked up, refused, and never written down.
      const canaryKey = `lnxk_TOKEN-CANARY-99${'x'.repeat(43 - 'TOKEN-CANARY-99'.length)}`;
      await postJson(
        gw.url,
        '/v1/chat/completions',
        { ...chatBody, messages: [{ role: 'user', content: secret }] },
        {
          'x-request-id': 'req-log-1',
          authorization: `Bearer ${canaryKey}`,
        },
      );
      await postJson(
        gw.url,
        '/v1/chat/completions',
        { ...chatBody, messages: [{ role: 'user', content: secret }] },
        { 'x-request-id': 'req-log-2' },
      );
      await postJson(gw.url, '/v1/workloads', {
        ...workloadBody,
        messages: [{ role: 'robot', content: secret }],
      });
      const refused = gw.log.lines.find((entry) => entry['request_id'] === 'req-log-1');
      expect(refused).to.include({
        method: 'POST',
        route: '/v1/chat/completions',
        status: 401,
        correlation_id: 'req-log-1',
      });
      expect(refused).to.not.have.property('caller');
      // The operator's call is read, routed (no such model) and logged with who called — by name, not by token.
      const line = gw.log.lines.find((entry) => entry['request_id'] === 'req-log-2');
      expect(line).to.include({ status: 404, caller: `token:${TEST_OPERATOR_TOKEN.slice(0, 12)}` });
      expect(line?.['durationMs']).to.be.a('number');
      expect(line?.['trace_id']).to.match(/^[0-9a-f]{32}$/);
      expect(gw.log.raw).to.not.include(secret);
      expect(gw.log.raw).to.not.include('TOKEN-CANARY-99');
      expect(gw.log.raw).to.not.include(TEST_OPERATOR_TOKEN);
    });
  });
});

describe('gateway readiness', () => {
  it('answers /ready with 503 problem+json until the route table has loaded', async () => {
    const routes = new StaticRouteTable([], { loaded: false });
    const gw = await startGateway({ routes });
    try {
      expectProblem(await call(gw.url, 'GET', '/ready'), 503, 'DEPENDENCY_UNAVAILABLE');
      expect((await call(gw.url, 'GET', '/health')).status).to.equal(200);
      routes.markLoaded();
      expect((await call(gw.url, 'GET', '/ready')).status).to.equal(200);
    } finally {
      await gw.stop();
    }
  });

  it('answers an alias that exists but has no ready replica with 503 NO_CAPACITY and Retry-After, not 404', async () => {
    const routes = new StaticRouteTable([], { unavailable: ['demo-chat'] });
    const gw = await startGateway({ routes });
    try {
      const ask = (model: string) =>
        postJson(gw.url, '/v1/chat/completions', { model, messages: [{ role: 'user', content: 'hi' }] });
      const moving = await ask('demo-chat');
      const problem = expectProblem(moving, 503, 'NO_CAPACITY');
      expect(moving.headers['retry-after']).to.equal('2');
      expect(JSON.stringify(problem)).to.contain('no replica ready');
      expectProblem(await ask('no-such-alias'), 404, 'MODEL_NOT_FOUND');
      const metrics = (await call(gw.url, 'GET', '/metrics')).text;
      expect(metrics).to.include('lunanexa_gateway_capacity_refusals_total{reason="no-ready-replica"} 1');
    } finally {
      await gw.stop();
    }
  });

  it('answers an unknown model with 503, not 404, while the route table has not loaded (then 404)', async () => {
    const routes = new StaticRouteTable([], { loaded: false });
    const gw = await startGateway({ routes });
    try {
      const before = expectProblem(
        await postJson(gw.url, '/v1/chat/completions', {
          model: 'demo-chat',
          messages: [{ role: 'user', content: 'hi' }],
        }),
        503,
        'DEPENDENCY_UNAVAILABLE',
      );
      expect(JSON.stringify(before)).to.contain('not loaded yet');
      routes.markLoaded();
      expectProblem(
        await postJson(gw.url, '/v1/chat/completions', {
          model: 'demo-chat',
          messages: [{ role: 'user', content: 'hi' }],
        }),
        404,
        'MODEL_NOT_FOUND',
      );
    } finally {
      await gw.stop();
    }
  });

  it('lists the route table models in OpenAI shape', async () => {
    const routes = new StaticRouteTable([
      {
        id: 'chat-default',
        createdAt: '2025-11-20T09:00:00.000Z',
        contextLength: 8192,
        route: route([{ baseUrl: 'http://127.0.0.1:1', servedModel: 'llama-3-1-8b-instruct@2024-07-23' }]),
      },
      {
        id: 'llama-3-1-8b-instruct@2024-07-23',
        createdAt: '2025-11-19T15:00:00.000Z',
        route: route([], { alias: null }),
      },
    ]);
    const gw = await startGateway({ routes });
    const discovery = (kind: string, contextLength: number | null, readyReplicas: number) => ({
      kind,
      modelVersion: 'llama-3-1-8b-instruct@2024-07-23',
      contextLength,
      streaming: true,
      capabilities: ['chat.completions', 'completions'],
      dataClasses: ['public', 'internal'],
      health: {
        state: readyReplicas > 0 ? 'ready' : 'unavailable',
        readyReplicas,
        recentRequests: 0,
        recentErrorRate: 0,
        windowSeconds: 60,
        queued: 0,
        inFlight: 0,
      },
    });
    try {
      const list = OpenAiModelListSchema.parse((await call(gw.url, 'GET', '/v1/models')).json());
      expect(list.data).to.deep.equal([
        {
          id: 'chat-default',
          object: 'model',
          created: 1763629200,
          owned_by: 'lunanexa',
          lunanexa: discovery('alias', 8192, 1),
        },
        {
          id: 'llama-3-1-8b-instruct@2024-07-23',
          object: 'model',
          created: 1763564400,
          owned_by: 'lunanexa',
          lunanexa: discovery('modelVersion', null, 0),
        },
      ]);
    } finally {
      await gw.stop();
    }
  });
});
