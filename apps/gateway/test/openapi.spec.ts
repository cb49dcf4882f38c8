import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import {
  GATEWAY_ERROR_CODES,
  GATEWAY_OPERATIONS,
  HTTP_STATUS_BY_CODE,
  type ErrorCode,
} from '@lunanexa/contracts';
import { StaticRouteTable } from '../src/route-table';
import {
  FakeRuntime,
  call,
  openAiChatCompletion,
  postJson,
  route,
  sseData,
  startGateway,
  type RawResponse,
  type StartedGateway,
  type UpstreamCall,
} from './support';

type Dict = Record<string, unknown>;

function streamChat(res: ServerResponse, upstream: UpstreamCall): void {
  const base = {
    id: 'chatcmpl-up',
    object: 'chat.completion.chunk',
    created: 1763629000,
    model: String(upstream.body['model']),
  };
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const event of [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] },
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    { ...base, choices: [], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } },
  ])
    res.write(`data: ${JSON.stringify(event)}\n\n`);
  res.end('data: [DONE]\n\n');
}

/**
 * The OpenAPI description the gateway serves is its real contract: every path
 * it describes answers, and what the gateway really sends — whole responses,
 * stream chunks, refusals — validates against the schemas the description
 * publishes, under the status it documents.
 */
describe('gateway OpenAPI description (/openapi.json)', () => {
  let gw: StartedGateway;
  let runtime: FakeRuntime;
  let doc: Dict;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // The one format the schemas use (ISO instants); checked, not ignored.
  ajv.addFormat(
    'date-time',
    (value: string) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)),
  );

  before(async () => {
    runtime = await new FakeRuntime((upstream, res) => {
      if (upstream.body['stream'] === true) return streamChat(res, upstream);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(openAiChatCompletion('Hi', String(upstream.body['model']))));
    }).start();
    const entry = route([{ baseUrl: runtime.baseUrl, servedModel: 'served-llama' }]);
    gw = await startGateway({
      maxBodyBytes: 4096,
      routes: new StaticRouteTable([
        { id: 'chat-default', createdAt: '2025-11-20T09:00:00.000Z', route: entry },
      ]),
    });
    const response = await call(gw.url, 'GET', '/openapi.json', { anonymous: true });
    expect(response.status, response.text).to.equal(200);
    expect(response.headers['content-type']).to.equal('application/json');
    doc = response.json();
    ajv.addSchema({ $id: 'gateway', components: doc['components'] as Dict });
  });

  after(async () => {
    await gw?.stop();
    await runtime?.stop();
  });

  /** Validates `body` against a component schema of the served document; the errors are the message. */
  function expectValid(component: string, body: unknown): void {
    const validate = ajv.getSchema(`gateway#/components/schemas/${component}`);
    expect(validate, component).to.be.a('function');
    const ok = validate!(body);
    expect(ok, `${component}: ${ajv.errorsText(validate!.errors)}`).to.equal(true);
  }

  /** The response is one the operation documents: its status is listed, and a problem body validates. */
  function expectDocumented(path: string, method: string, response: RawResponse): void {
    const operation = ((doc['paths'] as Dict)[path] as Dict)[method] as Dict;
    const responses = operation['responses'] as Dict;
    expect(Object.keys(responses), `${method} ${path} documents ${response.status}`).to.include(
      String(response.status),
    );
    if (response.status >= 400) expectValid('Problem', response.json());
  }

  it('is OpenAPI 3.1 with the build version, and every body schema compiles as JSON Schema 2020-12', () => {
    expect(doc['openapi']).to.equal('3.1.0');
    expect((doc['info'] as Dict)['version']).to.equal('0.1.0-test');
    const schemas = (doc['components'] as Dict)['schemas'] as Dict;
    expect(Object.keys(schemas)).to.include.members([
      'OpenAiChatRequest',
      'OpenAiChatResponse',
      'OpenAiChatChunk',
      'Problem',
    ]);
    for (const name of Object.keys(schemas)) ajv.getSchema(`gateway#/components/schemas/${name}`);
  });

  it('describes exactly the paths and methods the gateway serves', async () => {
    expect(Object.keys(doc['paths'] as Dict).sort()).to.deep.equal(Object.keys(GATEWAY_OPERATIONS).sort());
    for (const [path, methods] of Object.entries(GATEWAY_OPERATIONS)) {
      expect(Object.keys((doc['paths'] as Dict)[path] as Dict), path).to.deep.equal([...methods]);
      for (const method of methods) {
        const response = await call(gw.url, method.toUpperCase(), path, { anonymous: true });
        expect(response.status, `${method} ${path}`).to.not.equal(404);
      }
      const other = await call(gw.url, methods.includes('get' as never) ? 'DELETE' : 'GET', path);
      expect(other.status, `undocumented method on ${path}`).to.equal(405);
    }
    expect((await call(gw.url, 'GET', '/v2/models')).status).to.equal(404);
  });

  it('real answers validate: model list, whole and streamed chat completions', async () => {
    const models = await call(gw.url, 'GET', '/v1/models');
    expect(models.status).to.equal(200);
    expectValid('OpenAiModelList', models.json());

    const request = { model: 'chat-default', messages: [{ role: 'user', content: 'hello' }], max_tokens: 4 };
    expectValid('OpenAiChatRequest', request);
    const whole = await postJson(gw.url, '/v1/chat/completions', request);
    expect(whole.status, whole.text).to.equal(200);
    expectValid('OpenAiChatResponse', whole.json());

    const streamed = await postJson(gw.url, '/v1/chat/completions', { ...request, stream: true });
    expect(streamed.status, streamed.text).to.equal(200);
    const chunks = sseData(streamed.text).filter((data) => data !== '[DONE]');
    expect(chunks.length).to.be.greaterThan(1);
    for (const chunk of chunks) expectValid('OpenAiChatChunk', JSON.parse(chunk));
  });

  it('refusals are problem+json under a status the operation documents', async () => {
    expectDocumented(
      '/v1/chat/completions',
      'post',
      await call(gw.url, 'POST', '/v1/chat/completions', { anonymous: true, body: '{}' }),
    );
    expectDocumented(
      '/v1/chat/completions',
      'post',
      await postJson(gw.url, '/v1/chat/completions', { model: 'chat-default' }),
    );
    expectDocumented(
      '/v1/chat/completions',
      'post',
      await postJson(gw.url, '/v1/chat/completions', {
        model: 'nope',
        messages: [{ role: 'user', content: 'x' }],
      }),
    );
    expectDocumented(
      '/v1/chat/completions',
      'post',
      await postJson(gw.url, '/v1/chat/completions', {
        model: 'chat-default',
        messages: [{ role: 'user', content: 'x'.repeat(8000) }],
      }),
    );
    expectDocumented('/v1/models', 'get', await call(gw.url, 'GET', '/v1/models', { anonymous: true }));
  });

  it('lists every error code the gateway’s source can raise, each under its own status', () => {
    const sourceDir = join(__dirname, '..', '..', 'src');
    const raised = new Set<string>();
    for (const file of readdirSync(sourceDir).filter((f) => f.endsWith('.ts')))
      for (const match of readFileSync(join(sourceDir, file), 'utf8').matchAll(/ErrorCode\.([A-Z_]+)/g))
        raised.add(match[1]);
    expect([...raised].filter((code) => !GATEWAY_ERROR_CODES.includes(code as ErrorCode))).to.deep.equal([]);
    const documented = Object.keys(
      (((doc['paths'] as Dict)['/v1/chat/completions'] as Dict)['post'] as Dict)['responses'] as Dict,
    );
    for (const code of GATEWAY_ERROR_CODES)
      expect(documented, code).to.include(String(HTTP_STATUS_BY_CODE[code]));
  });
});
