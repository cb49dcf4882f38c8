import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { PROBLEM_CONTENT_TYPE, ProblemDetailsSchema } from '@lunanexa/contracts';
import {
  generateGatewayKey,
  hashBearerSecret,
  signSessionToken,
  SESSION_ISSUER,
} from '@lunanexa/credentials';
import { keyFingerprint } from '@lunanexa/persistence';
import type { GatewayCredentialSnapshot } from '@lunanexa/persistence';
import { StaticCredentialTable } from '../src/credential-table';
import { StaticRouteTable } from '../src/route-table';
import {
  FIXED_NOW,
  FakeRuntime,
  TEST_OPERATOR_ID,
  TEST_OPERATOR_TOKEN,
  call,
  openAiChatCompletion,
  postJson,
  route,
  startGateway,
  testCredentials,
  type RawResponse,
  type StartedGateway,
} from './support';

const ACME_KEY = generateGatewayKey();
const OTHER_KEY = generateGatewayKey();
const EXPIRED_KEY = generateGatewayKey();
const REVOKED_KEY = generateGatewayKey();
const VIEWER_TOKEN = `lnx_${'v'.repeat(43)}`;
const VIEWER_ID = '7b3c0d9e-3c4d-4e5f-8a0b-2c3d4e5f6071';
const controller = generateKeyPairSync('ed25519');
const FINGERPRINT = keyFingerprint(controller.publicKey);

const KEY_IDS = new Map<string, string>();

function key(
  generated: ReturnType<typeof generateGatewayKey>,
  tenantId: string,
  aliases: string[],
  expiresAt: Date | null = null,
): GatewayCredentialSnapshot['gatewayKeys'][number] {
  let id = KEY_IDS.get(generated.keyHash);
  if (id === undefined) {
    id = `00000000-0000-4000-8000-${String(KEY_IDS.size + 1).padStart(12, '0')}`;
    KEY_IDS.set(generated.keyHash, id);
  }
  return {
    id,
    tenantId,
    keyHash: generated.keyHash,
    prefix: generated.prefix,
    aliases,
    expiresAt,
  };
}

function fullSnapshot(): Partial<GatewayCredentialSnapshot> {
  const base = testCredentials();
  return {
    operators: [
      base.operator(TEST_OPERATOR_ID)!,
      { id: VIEWER_ID, username: 'read-only', role: 'viewer', sessionEpoch: 3, disabled: false },
    ],
    operatorTokens: [
      base.operatorToken(hashBearerSecret(TEST_OPERATOR_TOKEN))!,
      {
        id: '8c4d1e0f-4d5e-4f60-9b1c-3d4e5f607182',
        tokenHash: hashBearerSecret(VIEWER_TOKEN),
        prefix: VIEWER_TOKEN.slice(0, 12),
        operatorId: VIEWER_ID,
        role: 'viewer',
        expiresAt: null,
      },
    ],
    tenants: [
      { tenantId: 'acme', requestsPerMinute: null, tokensPerMinute: null, maxConcurrentRequests: null },
    ],
    gatewayKeys: [
      key(ACME_KEY, 'acme', ['chat']),
      key(OTHER_KEY, 'globex', ['summarize']),
      key(EXPIRED_KEY, 'acme', ['chat'], new Date(FIXED_NOW.getTime() - 1000)),
    ],
    controllerKeys: [CONTROLLER_PUBLIC_KEY],
  };
}

const CONTROLLER_PUBLIC_KEY = {
  fingerprint: FINGERPRINT,
  publicKeyPem: controller.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
};

function session(operatorId: string, role: 'operator' | 'viewer', epoch: number, expOffset = 600): string {
  const iat = Math.floor(FIXED_NOW.getTime() / 1000) - 10;
  return signSessionToken(
    { privateKey: controller.privateKey, fingerprint: FINGERPRINT },
    { iss: SESSION_ISSUER, sub: operatorId, role, epoch, iat, exp: iat + expOffset },
  );
}

function expectProblem(response: RawResponse, status: number, code: string, openAi = true): void {
  expect(response.status, response.text).to.equal(status);
  expect(response.headers['content-type']).to.equal(PROBLEM_CONTENT_TYPE);
  const problem = ProblemDetailsSchema.parse(response.json());
  expect(problem.code).to.equal(code);
  // The OpenAI SDKs read `error`; its code is the same, lower-cased. The generic endpoint has none.
  const openAiError = response.json<{ error?: { code?: string } }>().error;
  if (openAi) expect(openAiError?.code).to.equal(code.toLowerCase());
  else expect(openAiError).to.equal(undefined);
}

const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'hi' }] });

describe('gateway caller identity', () => {
  let runtime: FakeRuntime;
  let gw: StartedGateway;
  let table: StaticCredentialTable;

  before(async () => {
    runtime = await new FakeRuntime((_call, res: ServerResponse) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(openAiChatCompletion('ok', 'served')));
    }).start();
    const endpoints = [{ baseUrl: runtime.baseUrl, servedModel: 'served' }];
    table = new StaticCredentialTable(fullSnapshot());
    gw = await startGateway({
      credentials: table,
      routes: new StaticRouteTable([
        { id: 'chat', createdAt: FIXED_NOW.toISOString(), route: route(endpoints, { alias: 'chat' }) },
        {
          id: 'summarize',
          createdAt: FIXED_NOW.toISOString(),
          route: route(endpoints, { alias: 'summarize' }),
        },
        {
          id: 'llama@v1',
          createdAt: FIXED_NOW.toISOString(),
          route: route(endpoints, { alias: null, modelVersion: 'llama@v1' }),
        },
      ]),
    });
  });

  after(async () => {
    await gw.stop();
    await runtime.stop();
  });

  const as = (secret: string) => ({ authorization: `Bearer ${secret}` });

  it('401 UNAUTHENTICATED with WWW-Authenticate and the OpenAI error for a call without a credential', async () => {
    const response = await call(gw.url, 'POST', '/v1/chat/completions', {
      anonymous: true,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chat('chat')),
    });
    expectProblem(response, 401, 'UNAUTHENTICATED');
    expect(response.headers['www-authenticate']).to.match(/^Bearer/);
    expect(runtime.calls).to.have.length(0);
  });

  it('401 for malformed, unknown and revoked keys; TOKEN_EXPIRED (401) for an expired one', async () => {
    for (const authorization of [
      'Basic YWxhZGRpbjpvcGVuc2VzYW1l',
      'Bearer',
      'Bearer lnxk_short',
      `Bearer ${REVOKED_KEY.key}`,
    ])
      expectProblem(
        await postJson(gw.url, '/v1/chat/completions', chat('chat'), { authorization }),
        401,
        'UNAUTHENTICATED',
      );
    expectProblem(
      await postJson(gw.url, '/v1/chat/completions', chat('chat'), as(EXPIRED_KEY.key)),
      401,
      'TOKEN_EXPIRED',
    );
    expect(runtime.calls).to.have.length(0);
  });

  it('a tenant key calls the aliases it lists, and its tenant is the one recorded', async () => {
    const response = await postJson(gw.url, '/v1/chat/completions', chat('chat'), as(ACME_KEY.key));
    expect(response.status, response.text).to.equal(200);
    expect(table.used.has(key(ACME_KEY, 'acme', []).id)).to.equal(true);
  });

  it('403 FORBIDDEN for an alias the key does not list and for a pinned model@version', async () => {
    expectProblem(
      await postJson(gw.url, '/v1/chat/completions', chat('summarize'), as(ACME_KEY.key)),
      403,
      'FORBIDDEN',
    );
    expectProblem(
      await postJson(gw.url, '/v1/chat/completions', chat('llama@v1'), as(ACME_KEY.key)),
      403,
      'FORBIDDEN',
    );
    // An alias that does not exist answers the same, so a key cannot probe for others' aliases.
    expectProblem(
      await postJson(gw.url, '/v1/chat/completions', chat('nope'), as(ACME_KEY.key)),
      403,
      'FORBIDDEN',
    );
  });

  it('403 when a tenant key names another tenant in the header or the generic body', async () => {
    expectProblem(
      await postJson(gw.url, '/v1/chat/completions', chat('chat'), {
        ...as(ACME_KEY.key),
        'x-lunanexa-tenant-id': 'globex',
      }),
      403,
      'FORBIDDEN',
    );
    const generic = {
      apiVersion: 'lunanexa.v1',
      kind: 'chat',
      target: { alias: 'chat' },
      messages: [{ role: 'user', content: 'hi' }],
      dataClass: 'internal',
      correlation: { tenantId: 'globex' },
    };
    expectProblem(
      await postJson(gw.url, '/v1/workloads', generic, as(ACME_KEY.key)),
      403,
      'FORBIDDEN',
      false,
    );
  });

  it('operators call model@version with an API token or a session; viewers and ended sessions may not', async () => {
    const before = runtime.calls.length;
    expect(
      (await postJson(gw.url, '/v1/chat/completions', chat('llama@v1'), as(TEST_OPERATOR_TOKEN))).status,
    ).to.equal(200);
    const operatorSession = session(TEST_OPERATOR_ID, 'operator', 0);
    expect(
      (await postJson(gw.url, '/v1/chat/completions', chat('llama@v1'), as(operatorSession))).status,
    ).to.equal(200);
    expect(runtime.calls.length).to.equal(before + 2);
    expectProblem(
      await postJson(gw.url, '/v1/chat/completions', chat('llama@v1'), as(VIEWER_TOKEN)),
      403,
      'FORBIDDEN',
    );
    expectProblem(
      await postJson(gw.url, '/v1/chat/completions', chat('llama@v1'), as(session(VIEWER_ID, 'viewer', 3))),
      403,
      'FORBIDDEN',
    );
    // A session from before a logout (epoch bumped), one that expired, and one signed by a foreign key.
    expectProblem(
      await postJson(
        gw.url,
        '/v1/chat/completions',
        chat('llama@v1'),
        as(session(TEST_OPERATOR_ID, 'operator', 1)),
      ),
      401,
      'UNAUTHENTICATED',
    );
    expectProblem(
      await postJson(
        gw.url,
        '/v1/chat/completions',
        chat('llama@v1'),
        as(session(TEST_OPERATOR_ID, 'operator', 0, 5)),
      ),
      401,
      'TOKEN_EXPIRED',
    );
    const foreign = generateKeyPairSync('ed25519');
    const forged = signSessionToken(
      { privateKey: foreign.privateKey, fingerprint: FINGERPRINT },
      { iss: SESSION_ISSUER, sub: TEST_OPERATOR_ID, role: 'operator', epoch: 0, iat: 1, exp: 2 ** 31 },
    );
    expectProblem(
      await postJson(gw.url, '/v1/chat/completions', chat('llama@v1'), as(forged)),
      401,
      'UNAUTHENTICATED',
    );
    expect(runtime.calls.length).to.equal(before + 2);
  });

  it('a revoked key or a disabled operator stops working at the next credential load', async () => {
    const operatorSession = session(TEST_OPERATOR_ID, 'operator', 0);
    expect(
      (await postJson(gw.url, '/v1/chat/completions', chat('llama@v1'), as(operatorSession))).status,
    ).to.equal(200);
    const full = fullSnapshot();
    // What the snapshot reads once the key is revoked, the operator disabled (their tokens drop out with them).
    table.replace({
      ...full,
      operators: full.operators?.map((operator) => ({
        ...operator,
        disabled: operator.id === TEST_OPERATOR_ID,
      })),
      operatorTokens: full.operatorTokens?.filter((token) => token.operatorId !== TEST_OPERATOR_ID),
      gatewayKeys: full.gatewayKeys?.filter((entry) => entry.keyHash !== ACME_KEY.keyHash),
    });
    try {
      expectProblem(
        await postJson(gw.url, '/v1/chat/completions', chat('chat'), as(ACME_KEY.key)),
        401,
        'UNAUTHENTICATED',
      );
      expectProblem(
        await postJson(gw.url, '/v1/chat/completions', chat('llama@v1'), as(operatorSession)),
        401,
        'UNAUTHENTICATED',
      );
      expectProblem(
        await postJson(gw.url, '/v1/chat/completions', chat('llama@v1'), as(TEST_OPERATOR_TOKEN)),
        401,
        'UNAUTHENTICATED',
      );
    } finally {
      table.replace(fullSnapshot());
    }
  });

  it('a key the snapshot does not have yet works on its first call after the table reloads for the miss; a bad key is still 401', async () => {
    const full = fullSnapshot();
    // The key was created a moment ago: the snapshot does not have it, a reload does.
    table.replace({
      ...full,
      gatewayKeys: full.gatewayKeys?.filter((entry) => entry.keyHash !== ACME_KEY.keyHash),
    });
    let reloads = 0;
    table.reloadAfterMiss = () => {
      reloads += 1;
      table.replace(fullSnapshot());
      return Promise.resolve();
    };
    try {
      expect(
        (await postJson(gw.url, '/v1/chat/completions', chat('chat'), as(ACME_KEY.key))).status,
      ).to.equal(200);
      expect(reloads).to.equal(1);
      // Known now: no more reloads for it.
      expect((await call(gw.url, 'GET', '/v1/models', { headers: as(ACME_KEY.key) })).status).to.equal(200);
      expect(reloads).to.equal(1);
      expectProblem(
        await postJson(gw.url, '/v1/chat/completions', chat('chat'), as(`lnxk_${'q'.repeat(43)}`)),
        401,
        'UNAUTHENTICATED',
      );
      expect(reloads).to.equal(2);
    } finally {
      delete table.reloadAfterMiss;
      table.replace(fullSnapshot());
    }
  });

  it('GET /v1/models needs a credential and shows a tenant only its own aliases', async () => {
    expectProblem(await call(gw.url, 'GET', '/v1/models', { anonymous: true }), 401, 'UNAUTHENTICATED');
    const ids = (response: RawResponse) => response.json<{ data: { id: string }[] }>().data.map((m) => m.id);
    expect(ids(await call(gw.url, 'GET', '/v1/models', { headers: as(OTHER_KEY.key) }))).to.deep.equal([
      'summarize',
    ]);
    expect(ids(await call(gw.url, 'GET', '/v1/models'))).to.deep.equal(['chat', 'summarize', 'llama@v1']);
  });

  it('/health, /ready and /metrics need no credential', async () => {
    for (const path of ['/health', '/ready', '/metrics'])
      expect((await call(gw.url, 'GET', path, { anonymous: true })).status).to.equal(200);
    // Idle connections outlive the clients' own idle timeouts: the client closes first, never mid-request.
    expect((await call(gw.url, 'GET', '/health', { anonymous: true })).headers['keep-alive']).to.equal(
      'timeout=65',
    );
    const metrics = (await call(gw.url, 'GET', '/metrics')).text;
    expect(metrics).to.match(/lunanexa_gateway_auth_refusals_total\{reason="missing"\} [1-9]/);
    expect(metrics).to.not.include(ACME_KEY.key);
  });
});
