import { randomBytes } from 'node:crypto';
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
  const app = await createApiApp(config, logger, { version: '0.0.0-test', commit: 'test' });
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer() as { address(): AddressInfo }).address().port}`;

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
    async stop() {
      await app.close();
      await fixture.stop();
    },
  };
}
