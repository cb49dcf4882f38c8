import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  REPO_ROOT,
  formatLeakFinding,
  isolatedStackEnv,
  launchStack,
  processesUsing,
  scanForLeaks,
  temporalCliPath,
  type LaunchedStack,
} from '../src';

const run = promisify(execFile);

interface Urls {
  api: string;
  gateway: string;
  temporalUi: string;
  temporal: string;
  agents: string[];
}

function urlsFrom(env: Record<string, string>): Urls {
  const base = Number(env['LUNANEXA_AGENT_BASE_PORT']);
  return {
    api: `http://127.0.0.1:${env['LUNANEXA_API_PORT']}`,
    gateway: `http://127.0.0.1:${env['LUNANEXA_GATEWAY_PORT']}`,
    temporalUi: `http://127.0.0.1:${env['LUNANEXA_TEMPORAL_UI_PORT']}`,
    temporal: `127.0.0.1:${env['LUNANEXA_TEMPORAL_PORT']}`,
    agents: [1, 2, 3, 4].map((i) => `http://127.0.0.1:${base + i}`),
  };
}

async function graphql(api: string, query: string, variables?: Record<string, unknown>, token?: string) {
  const response = await fetch(`${api}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { text: await response.text(), status: response.status };
}

/** The CLI as an operator runs it on the machine: authenticated by the local operator token file. */
async function cli(
  api: string,
  tokenFile: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      [join(REPO_ROOT, 'apps/cli/dist/src/main.js'), '--api-url', api, ...args],
      { env: { ...process.env, LUNANEXA_TOKEN_FILE: tokenFile } },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** SIGINT (what Ctrl-C sends) to the launcher; it must stop everything and exit 0. */
async function interrupt(stack: LaunchedStack, dataDir: string): Promise<void> {
  stack.child.kill('SIGINT');
  const code = await Promise.race([
    stack.exited,
    new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 120_000)),
  ]);
  expect(code, stack.output()).to.equal(0);
  expect(processesUsing(dataDir), 'processes left behind after Ctrl-C').to.deep.equal([]);
}

describe('the whole stack from `npm start` (embedded PostgreSQL, Temporal dev server, api, worker, gateway, 4 agents)', function () {
  this.timeout(600_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'lunanexa-e2e-'));
  const tokenFile = join(dataDir, 'controller', 'operator.token');
  let env: Record<string, string>;
  let urls: Urls;
  let stack: LaunchedStack | undefined;
  const responses: { source: string; text: string }[] = [];

  before(async () => {
    env = await isolatedStackEnv(dataDir);
    urls = urlsFrom(env);
  });

  after(async function () {
    if (stack && stack.child.exitCode === null) {
      stack.child.kill('SIGINT');
      await stack.exited;
    }
    if (this.currentTest?.state !== 'failed') rmSync(dataDir, { recursive: true, force: true });
  });

  it('a busy port stops the start in one line naming the port and the variable that moves it; nothing is left running', async () => {
    // Like NATS, which listens on 4222 (agent dgx-2's default SSH port) on every address.
    const busyPort = Number(env['LUNANEXA_AGENT_BASE_PORT']) + 22;
    const other = await new Promise<Server>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen({ port: busyPort, host: '0.0.0.0' }, () => resolve(server));
    });
    try {
      const failure = await launchStack(env).then(
        () => null,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      expect(failure, 'the launcher started although a port was busy').to.be.a('string');
      expect(failure).to.include(
        `[lunanexa] start failed: port ${busyPort} (simulated agent dgx-2 SSH) is already in use by another process; set LUNANEXA_AGENT_SSH_BASE_PORT to move it\n`,
      );
      expect(failure).not.to.include('starting PostgreSQL');
      expect(processesUsing(dataDir)).to.deep.equal([]);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('first start: every service answers, the system check ran, the CLI reads the API', async () => {
    stack = await launchStack(env);
    expect(stack.output()).to.include('System check ping/startup-');
    // The first admin's generated password is shown once, on the launcher's terminal only.
    const password = /its generated password is shown this once[^\n]*\n\S*\s+(\S+)/i.exec(
      stack.output(),
    )?.[1];
    expect(password, stack.output()).to.be.a('string');
    for (const log of readdirSync(join(dataDir, 'logs'))) {
      expect(readFileSync(join(dataDir, 'logs', log), 'utf8'), log).not.to.include(password);
    }
    const login = await graphql(
      urls.api,
      'mutation($input: LoginInput!) { login(input: $input) { operator { username role } } }',
      { input: { username: 'admin', password } },
    );
    expect(JSON.parse(login.text)).to.deep.equal({
      data: { login: { operator: { username: 'admin', role: 'admin' } } },
    });
    const anonymous = await graphql(urls.api, '{ recentPings(limit: 1) { workflowId } }');
    expect(
      (JSON.parse(anonymous.text) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions
        .code,
    ).to.equal('UNAUTHENTICATED');

    const consolePage = await fetch(`${urls.api}/`, { headers: { accept: 'text/html' } });
    expect(consolePage.status).to.equal(200);
    const html = await consolePage.text();
    expect(html).to.match(/<app-root|<lnx-root|<lunanexa-root/);

    const health = await graphql(urls.api, '{ health { status version commit checks { name status } } }');
    responses.push({ source: 'graphql health', text: health.text });
    expect((JSON.parse(health.text) as { data: { health: { status: string } } }).data.health.status).to.equal(
      'ok',
    );

    const temporalUi = await fetch(urls.temporalUi);
    expect(temporalUi.status).to.equal(200);

    const gateway = await fetch(`${urls.gateway}/ready`);
    expect(gateway.status).to.equal(200);
    const withoutKey = await fetch(`${urls.gateway}/v1/models`);
    expect(withoutKey.status, 'the gateway asks every caller for a credential').to.equal(401);
    responses.push({ source: 'gateway /v1/models (no credential)', text: await withoutKey.text() });
    const models = await fetch(`${urls.gateway}/v1/models`, {
      headers: { authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}` },
    });
    expect(models.status).to.equal(200);
    responses.push({ source: 'gateway /v1/models', text: await models.text() });

    for (const agentUrl of urls.agents) {
      const agent = await fetch(`${agentUrl}/health`);
      const text = await agent.text();
      responses.push({ source: `agent ${agentUrl}`, text });
      const body = JSON.parse(text) as {
        inventory: { gpus: { name: string; memoryModel: string; totalMemoryBytes: number }[] };
      };
      expect(body.inventory.gpus[0]).to.include({ name: 'NVIDIA GB10', memoryModel: 'unified' });
      expect(body.inventory.gpus[0].totalMemoryBytes).to.be.greaterThan(100 * 1024 ** 3);
    }

    const status = await cli(urls.api, tokenFile, 'status');
    expect(status.code, status.stderr).to.equal(0);
    const ping = await cli(
      urls.api,
      tokenFile,
      'ping',
      '--key',
      'e2e-first-run',
      '--message',
      'before restart',
    );
    expect(ping.code, ping.stderr).to.equal(0);
    expect(ping.stdout).to.include('ping/e2e-first-run');
  });

  it('API responses carry no product names, secrets or machine paths', () => {
    const findings = responses.flatMap((r) => scanForLeaks(r.text, r.source));
    expect(findings.map(formatLeakFinding)).to.deep.equal([]);
  });

  it('Ctrl-C stops everything, a deployment’s runtime included: no LunaNexa, Temporal, PostgreSQL or runtime process is left', async () => {
    const register = await cli(
      urls.api,
      tokenFile,
      'model',
      'register',
      'demo@v1',
      '--ttft-ms',
      '50',
      '--tokens-per-second',
      '50',
    );
    expect(register.code, register.stderr).to.equal(0);
    const deploy = await cli(
      urls.api,
      tokenFile,
      'deploy',
      'create',
      'demo',
      '--model',
      'demo@v1',
      '--purpose',
      'candidate',
      '--node',
      'dgx-1',
      '--wait',
    );
    expect(deploy.code, `${deploy.stdout}${deploy.stderr}`).to.equal(0);
    const runtimes = processesUsing(dataDir).filter((p) => p.command.includes('fake-runtime'));
    expect(runtimes, 'the deployment’s runtime process, found by its owner tag').to.have.length(1);
    await interrupt(stack!, dataDir);
  });

  it('second start reuses the data: the first run’s ping is still in Temporal and PostgreSQL', async () => {
    stack = await launchStack(env);
    const { stdout } = await run(temporalCliPath(), [
      'workflow',
      'describe',
      '--address',
      urls.temporal,
      '--namespace',
      'lunanexa',
      '--workflow-id',
      'ping/e2e-first-run',
      '--output',
      'json',
    ]);
    expect(
      (JSON.parse(stdout) as { workflowExecutionInfo: { status: string } }).workflowExecutionInfo.status,
    ).to.match(/COMPLETED/);
    const recent = await graphql(
      urls.api,
      '{ recentPings(limit: 20) { workflowId } }',
      undefined,
      readFileSync(tokenFile, 'utf8').trim(),
    );
    const ids = (
      JSON.parse(recent.text) as { data: { recentPings: { workflowId: string }[] } }
    ).data.recentPings.map((p) => p.workflowId);
    expect(ids).to.include('ping/e2e-first-run');
    expect(ids.filter((id) => id.startsWith('ping/startup-'))).to.have.length.greaterThanOrEqual(2);
    const launcherLog = readFileSync(join(dataDir, 'logs', 'api.log'), 'utf8');
    expect(launcherLog).not.to.include('before restart');
    await interrupt(stack, dataDir);
  });
});
