import { expect } from 'chai';
import { runCli } from '../src/cli';
import { HEALTH_QUERY } from '../src/commands/status';
import { PING_MUTATION } from '../src/commands/ping';
import {
  DEGRADED,
  HEALTHY,
  UUID_PATTERN,
  captureIo,
  cannedApi,
  closedPort,
  json,
  notReadyProblem,
  type Route,
} from './support';

type Api = Awaited<ReturnType<typeof cannedApi>>;

const PING_RESULT = {
  workflowId: 'ping/cli-7d1c',
  runId: '0193a7f2-8c1e-7b44-9a0e-2f6d8c1b5e77',
  pingId: '5b0f8a8e-3c55-4b8e-8d7e-1f2a3b4c5d6e',
  message: 'ping',
  correlationId: 'corr-1',
  temporalUiUrl:
    'http://127.0.0.1:8233/namespaces/lunanexa/workflows/ping%2Fcli-7d1c/0193a7f2-8c1e-7b44-9a0e-2f6d8c1b5e77/history',
  receiptHash: 'a'.repeat(64),
};

describe('lunanexa commands against a canned API', () => {
  let api: Api | undefined;
  async function serve(routes: Readonly<Record<string, Route>>): Promise<Api> {
    api = await cannedApi(routes);
    return api;
  }
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  describe('version', () => {
    it('prints CLI, contracts and API versions', async () => {
      const { url } = await serve({
        'GET /version': () => json(200, { version: '0.1.0', commit: '4f2a9c1', contracts: 'v1' }),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'version'], io, '9.8.7')).to.equal(0);
      expect(io.out()).to.equal(
        `lunanexa   9.8.7\ncontracts  v1\napi        0.1.0 (commit 4f2a9c1) at ${url}\n`,
      );
      expect(io.err()).to.equal('');
    });

    it('warns when the API speaks another contracts version', async () => {
      const { url } = await serve({
        'GET /version': () => json(200, { version: '2.0.0', commit: 'abc', contracts: 'v2' }),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'version'], io, '0.1.0')).to.equal(0);
      expect(io.err()).to.contain('contracts v2');
    });

    it('marks the API unreachable and still exits 0', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'version'], io, '0.1.0')).to.equal(0);
      expect(io.out()).to.match(
        /^api {8}unreachable at http:\/\/127\.0\.0\.1:\d+: error\[API_UNREACHABLE\]: cannot reach .*ECONNREFUSED/m,
      );
    });

    it('gives scripts the same facts as JSON', async () => {
      const url = `http://127.0.0.1:${await closedPort()}`;
      const io = captureIo();
      await runCli(['--json', '--api-url', url, 'version'], io, '0.1.0');
      const report = JSON.parse(io.out()) as {
        cli: unknown;
        api: { url: string; reachable: boolean; error: { code: string; requestId: string } };
      };
      expect(report.cli).to.deep.equal({ version: '0.1.0', contracts: 'v1' });
      expect(report.api).to.deep.include({ url, reachable: false });
      expect(report.api.error.code).to.equal('API_UNREACHABLE');
      expect(report.api.error.requestId).to.match(UUID_PATTERN);
    });
  });

  describe('status', () => {
    it('exits 0 and prints the checks when ready', async () => {
      const { url, requests } = await serve({
        'POST /graphql': () => json(200, HEALTHY),
        'GET /ready': () => json(200, { status: 'ready', checks: HEALTHY.data.health.checks }),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'status'], io, '0.1.0')).to.equal(0);
      expect(io.out()).to.contain('ready    yes\n');
      expect(io.out()).to.contain('postgresql  ok      1.4 ms');
      const graphql = requests.find((r) => r.path === '/graphql');
      expect(JSON.parse(graphql?.body ?? '{}')).to.deep.equal({ query: HEALTH_QUERY });
      expect(graphql?.headers['content-type']).to.equal('application/json');
    });

    it('exits 1 when /ready answers 503, showing the failing check', async () => {
      const { url } = await serve({
        'POST /graphql': () => json(200, DEGRADED),
        'GET /ready': (request) =>
          json(503, notReadyProblem(String(request.headers['x-request-id'])), 'application/problem+json'),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'status'], io, '0.1.0')).to.equal(1);
      expect(io.out()).to.match(
        /^ready {4}no: not ready: temporal failing \(DEPENDENCY_UNAVAILABLE, request [0-9a-f-]{36}\)$/m,
      );
      expect(io.out()).to.contain('temporal    failing  -        no answer within 3000 ms');
    });

    it('reports not ready as JSON for scripts', async () => {
      const { url } = await serve({
        'POST /graphql': () => json(200, DEGRADED),
        'GET /ready': (request) =>
          json(503, notReadyProblem(String(request.headers['x-request-id'])), 'application/problem+json'),
      });
      const io = captureIo();
      expect(await runCli(['--json', '--api-url', url, 'status'], io, '0.1.0')).to.equal(1);
      const report = JSON.parse(io.out()) as {
        ready: { ready: boolean; code: string };
        health: { status: string };
      };
      expect(report.ready).to.deep.include({ ready: false, code: 'DEPENDENCY_UNAVAILABLE' });
      expect(report.health.status).to.equal('degraded');
    });

    it('exits 69 when the API is unreachable', async () => {
      const io = captureIo();
      expect(
        await runCli(['--api-url', `http://127.0.0.1:${await closedPort()}`, 'status'], io, '0.1.0'),
      ).to.equal(69);
      expect(io.err()).to.match(
        /^error\[API_UNREACHABLE\]: cannot reach http:\/\/127\.0\.0\.1:\d+\/\S+: connect ECONNREFUSED \S+ \(request [0-9a-f-]{36}\)\n$/,
      );
    });

    it('exits 69 when the API does not answer within --timeout', async () => {
      const { url } = await serve({
        'POST /graphql': () => ({ status: 200, body: '', hang: true }),
        'GET /ready': () => ({ status: 200, body: '', hang: true }),
      });
      const io = captureIo();
      expect(await runCli(['--timeout', '150', '--api-url', url, 'status'], io, '0.1.0')).to.equal(69);
      expect(io.err()).to.contain('no answer within 150 ms');
    });

    it('exits with the GraphQL error code mapping (UNAUTHENTICATED → 77), naming the request', async () => {
      const { url } = await serve({
        'POST /graphql': () =>
          json(200, {
            errors: [{ message: 'sign in first', extensions: { code: 'UNAUTHENTICATED' } }],
            data: null,
          }),
        'GET /ready': () => json(200, { status: 'ready', checks: [] }),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'status'], io, '0.1.0')).to.equal(77);
      expect(io.err()).to.match(/^error\[UNAUTHENTICATED\]: sign in first \(request [0-9a-f-]{36}\)\n$/);
    });

    it('treats an HTML error page on /ready as HTTP_<status>', async () => {
      const { url } = await serve({
        'POST /graphql': () => json(200, HEALTHY),
        'GET /ready': () => ({
          status: 500,
          contentType: 'text/html',
          body: '<h1>Internal Server Error</h1>',
        }),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'status'], io, '0.1.0')).to.equal(69);
      expect(io.err()).to.contain('error[HTTP_500]: <h1>Internal Server Error</h1>');
    });
  });

  describe('ping', () => {
    it('sends the mutation with a generated cli-<uuid> key and prints the workflow and Temporal link', async () => {
      const { url, requests } = await serve({
        'POST /graphql': () => json(200, { data: { ping: PING_RESULT } }),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'ping'], io, '0.1.0')).to.equal(0);

      const sent = JSON.parse(requests[0]?.body ?? '{}') as {
        query: string;
        variables: { input: { idempotencyKey: string; message?: string } };
      };
      expect(sent.query).to.equal(PING_MUTATION);
      expect(sent.variables.input.idempotencyKey).to.match(/^cli-[0-9a-f-]{36}$/);
      expect(sent.variables.input).to.not.have.property('message');
      expect(io.out()).to.match(/^workflow {9}ping\/cli-7d1c$/m);
      expect(io.out()).to.contain(`temporal ui      ${PING_RESULT.temporalUiUrl}\n`);
      expect(io.out()).to.contain(`idempotency key  ${sent.variables.input.idempotencyKey}\n`);
    });

    it('generates a different key on every run', async () => {
      const { url, requests } = await serve({
        'POST /graphql': () => json(200, { data: { ping: PING_RESULT } }),
      });
      await runCli(['--api-url', url, 'ping'], captureIo(), '0.1.0');
      await runCli(['--api-url', url, 'ping'], captureIo(), '0.1.0');
      const keys = requests.map(
        (r) =>
          (JSON.parse(r.body) as { variables: { input: { idempotencyKey: string } } }).variables.input
            .idempotencyKey,
      );
      expect(new Set(keys).size).to.equal(2);
    });

    it('passes --key and --message through and prints JSON with --json', async () => {
      const { url, requests } = await serve({
        'POST /graphql': () => json(200, { data: { ping: { ...PING_RESULT, message: 'hello' } } }),
      });
      const io = captureIo();
      expect(
        await runCli(
          ['--json', '--api-url', url, 'ping', '--key', 'deploy-42', '--message', 'hello'],
          io,
          '0.1.0',
        ),
      ).to.equal(0);
      expect((JSON.parse(requests[0]?.body ?? '{}') as { variables: unknown }).variables).to.deep.equal({
        input: { idempotencyKey: 'deploy-42', message: 'hello' },
      });
      const printed = JSON.parse(io.out()) as Record<string, unknown>;
      expect(printed).to.deep.include({ ...PING_RESULT, message: 'hello', idempotencyKey: 'deploy-42' });
      expect(printed['requestId']).to.equal(requests[0]?.headers['x-request-id']);
    });

    it('sends a fresh UUID x-request-id on every call', async () => {
      const { url, requests } = await serve({
        'POST /graphql': () => json(200, { data: { ping: PING_RESULT } }),
        'GET /version': () => json(200, { version: '0.1.0', commit: 'x' }),
      });
      await runCli(['--api-url', url, 'ping'], captureIo(), '0.1.0');
      await runCli(['--api-url', url, 'ping', '--key', 'same'], captureIo(), '0.1.0');
      await runCli(['--api-url', url, 'version'], captureIo(), '0.1.0');
      const ids = requests.map((r) => r.headers['x-request-id']);
      expect(ids).to.have.length(3);
      for (const id of ids) expect(id).to.match(UUID_PATTERN);
      expect(new Set(ids).size).to.equal(3);
    });

    it('exits 65 on VALIDATION_FAILED, printing each field violation', async () => {
      const { url } = await serve({
        'POST /graphql': () =>
          json(200, {
            errors: [
              {
                message: 'input failed validation',
                extensions: {
                  code: 'VALIDATION_FAILED',
                  violations: [
                    { path: 'message', message: 'message must be shorter than or equal to 200 characters' },
                  ],
                },
              },
            ],
            data: null,
          }),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'ping'], io, '0.1.0')).to.equal(65);
      expect(io.err()).to.match(
        /^error\[VALIDATION_FAILED\]: input failed validation \(request [0-9a-f-]{36}\)\n {2}message: message must be shorter than or equal to 200 characters\n$/,
      );
      expect(io.out()).to.equal('');
    });

    it('prints the request id the API logged, from its x-request-id echo', async () => {
      const { url, requests } = await serve({
        'POST /graphql': () =>
          json(200, { errors: [{ message: 'key reused', extensions: { code: 'IDEMPOTENCY_KEY_REUSED' } }] }),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'ping', '--key', 'k1'], io, '0.1.0')).to.equal(1);
      expect(io.err()).to.equal(
        `error[IDEMPOTENCY_KEY_REUSED]: key reused (request ${String(requests[0]?.headers['x-request-id'])})\n`,
      );
    });

    it('reads a problem+json answer (413 PAYLOAD_TOO_LARGE → 65)', async () => {
      const { url } = await serve({
        'POST /graphql': (request) =>
          json(
            413,
            {
              type: 'urn:lunanexa:error:payload-too-large',
              title: 'Payload too large',
              status: 413,
              code: 'PAYLOAD_TOO_LARGE',
              detail: 'request body too large',
              requestId: request.headers['x-request-id'],
            },
            'application/problem+json',
          ),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'ping'], io, '0.1.0')).to.equal(65);
      expect(io.err()).to.match(
        /^error\[PAYLOAD_TOO_LARGE\]: request body too large \(request [0-9a-f-]{36}\)\n$/,
      );
    });

    it('exits 69 when the API says a dependency is down', async () => {
      const { url } = await serve({
        'POST /graphql': () =>
          json(200, {
            errors: [{ message: 'temporal unavailable', extensions: { code: 'DEPENDENCY_UNAVAILABLE' } }],
          }),
      });
      expect(await runCli(['--api-url', url, 'ping'], captureIo(), '0.1.0')).to.equal(69);
    });

    it('exits 76 when the data does not have the v1 shape', async () => {
      const { url } = await serve({
        'POST /graphql': () => json(200, { data: { ping: { workflowId: 'w' } } }),
      });
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'ping'], io, '0.1.0')).to.equal(76);
      expect(io.err()).to.match(
        /^error\[BAD_RESPONSE\]: GraphQL data has an unexpected shape \(ping\.runId: /,
      );
    });

    it('exits 76 when something other than LunaNexa answers (404 page)', async () => {
      const { url } = await serve({});
      const io = captureIo();
      expect(await runCli(['--api-url', url, 'ping'], io, '0.1.0')).to.equal(76);
      expect(io.err()).to.contain('error[HTTP_404]: no such canned route');
    });
  });
});
