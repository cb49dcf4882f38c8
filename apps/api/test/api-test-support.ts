import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { expect } from 'chai';
import { startControlPlaneFixture, type ControlPlaneFixture } from '@lunanexa/e2e';
import { createLogger, findRepoRoot } from '@lunanexa/observability';
import { ApiConfigSchema, createApiApp } from '../src';
import { ensureFirstAdmin } from '../src/auth/first-admin';

export interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions: { code: string; [key: string]: unknown } }[];
}

/**
 * One in-process API on a real control plane (scratch PostgreSQL, the test
 * Temporal server and a worker), signed in as its first admin, for
 * integration tests that drive GraphQL and REST over real HTTP.
 */
export interface TestApi {
  readonly fixture: ControlPlaneFixture;
  readonly app: INestApplication;
  readonly base: string;
  /** `Bearer …` of the first admin. */
  readonly admin: string;
  graphql(query: string, variables?: Record<string, unknown>, authorization?: string): Promise<GraphQLBody>;
  /** Signs in a new operator of `role` and returns its `Bearer …`. */
  operator(username: string, role: 'viewer' | 'operator' | 'admin'): Promise<string>;
  /**
   * Starts another api app on the same PostgreSQL and Temporal with the same config (as a second api process
   * behind a load balancer would be); stopped with `stop()` too, or by its own.
   */
  another(): Promise<AnotherApi>;
  stop(): Promise<void>;
}

export interface AnotherApi {
  readonly app: INestApplication;
  readonly base: string;
  stop(): Promise<void>;
}

/** The answer's `field`, asserting there were no errors. */
export function dataOf<T>(answer: GraphQLBody, field: string): T {
  expect(answer.errors, JSON.stringify(answer.errors)).to.equal(undefined);
  return answer.data?.[field] as T;
}

export async function startTestApi(name: string, env: Record<string, string> = {}): Promise<TestApi> {
  const fixture = await startControlPlaneFixture(name);
  const adminPassword = randomBytes(18).toString('base64url');
  await ensureFirstAdmin(fixture.ds, { username: `${name}-admin`, password: adminPassword });
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
    ...env,
  });
  const logger = createLogger({ service: `${name}-test`, level: 'silent' });
  const listening = async (): Promise<AnotherApi> => {
    const started = await createApiApp(config, logger, { version: '0.0.0-test', commit: 'test' });
    await started.listen(0, '127.0.0.1');
    const port = (started.getHttpServer() as { address(): AddressInfo }).address().port;
    let closed = false;
    return {
      app: started,
      base: `http://127.0.0.1:${port}`,
      async stop() {
        if (closed) return;
        closed = true;
        await started.close();
      },
    };
  };
  const first = await listening();
  const { app, base } = first;
  const others: AnotherApi[] = [];

  const graphql = async (
    query: string,
    variables?: Record<string, unknown>,
    authorization?: string,
  ): Promise<GraphQLBody> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (authorization) headers['authorization'] = authorization;
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as GraphQLBody;
  };
  const login = async (username: string, password: string): Promise<string> => {
    const answer = await graphql('mutation($input: LoginInput!) { login(input: $input) { accessToken } }', {
      input: { username, password },
    });
    return `Bearer ${dataOf<{ accessToken: string }>(answer, 'login').accessToken}`;
  };
  const admin = await login(`${name}-admin`, adminPassword);
  return {
    fixture,
    app,
    base,
    admin,
    graphql,
    async operator(username, role) {
      const password = randomBytes(18).toString('base64url');
      dataOf(
        await graphql(
          'mutation($input: CreateOperatorInput!) { createOperator(input: $input) { id } }',
          { input: { username, password, role } },
          admin,
        ),
        'createOperator',
      );
      return login(username, password);
    },
    async another() {
      const other = await listening();
      others.push(other);
      return other;
    },
    async stop() {
      for (const other of others) await other.stop();
      await first.stop();
      await fixture.stop();
    },
  };
}

const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/**
 * What a deployable version needs in the registry, registered by `operator` through the API: an Apache-2.0 license,
 * a vLLM runtime (1.0.0) and `<model>@1` on them, needing one GPU and `minMemoryBytesPerReplica`. Answers the ref.
 */
export async function registerDeployableVersion(
  api: TestApi,
  operator: string,
  model: string,
  minMemoryBytesPerReplica: number,
): Promise<string> {
  const hardware = {
    architectures: ['arm64', 'amd64'],
    memoryModels: ['unified', 'discrete'],
    minComputeCapability: '8.0',
    gpusPerReplica: 1,
  };
  dataOf(
    await api.graphql(
      `mutation { createLicense(input: { name: "apache-2-0", kind: "spdx", spdxId: "Apache-2.0",
         commercialUse: true, allowedDataClasses: ["internal"] }) { id } }`,
      {},
      operator,
    ),
    'createLicense',
  );
  dataOf(
    await api.graphql(
      `mutation($input: RegisterRuntimeInput!) { registerRuntime(input: $input) { id } }`,
      {
        input: {
          name: 'vllm',
          version: '1.0.0',
          kind: 'openai-compatible',
          packaging: { type: 'binary', digest: digestOf('vllm-binary') },
          launch: {
            executable: 'vllm',
            args: ['serve', '{{modelPath}}', '--port', '{{port}}'],
            envAllowlist: [],
          },
          health: { path: '/health', startupTimeoutMs: 60_000, intervalMs: 1_000 },
          supportedHardware: hardware,
        },
      },
      operator,
    ),
    'registerRuntime',
  );
  const displayName = `${model[0]?.toUpperCase() ?? ''}${model.slice(1)}`;
  dataOf(
    await api.graphql(
      `mutation($input: CreateModelInput!) { createModel(input: $input) { id } }`,
      { input: { name: model, displayName } },
      operator,
    ),
    'createModel',
  );
  const { ref } = dataOf<{ ref: string }>(
    await api.graphql(
      `mutation($input: CreateModelVersionInput!) { createModelVersion(input: $input) { ref } }`,
      {
        input: {
          model,
          version: '1',
          artifact: {
            uri: `s3://models/${model}/1/model.safetensors`,
            digest: digestOf(`weights of ${model}@1`),
            sizeBytes: 4096,
            format: 'safetensors',
            source: `hf://example/${model}`,
          },
          license: 'apache-2-0',
          runtime: 'runtime-vllm-1.0.0',
          requirements: { ...hardware, minMemoryBytesPerReplica },
        },
      },
      operator,
    ),
    'createModelVersion',
  );
  return ref;
}
