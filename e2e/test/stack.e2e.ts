import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import OpenAI from 'openai';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { threadNiceValues } from '@lunanexa/observability';
import {
  REPO_ROOT,
  describeProblems,
  expectVisible,
  formatLeakFinding,
  launchBrowser,
  openPage,
  signIn,
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
  return {
    api: `http://127.0.0.1:${env['LUNANEXA_API_PORT']}`,
    gateway: `http://127.0.0.1:${env['LUNANEXA_GATEWAY_PORT']}`,
    temporalUi: `http://127.0.0.1:${env['LUNANEXA_TEMPORAL_UI_PORT']}`,
    temporal: `127.0.0.1:${env['LUNANEXA_TEMPORAL_PORT']}`,
    agents: [],
  };
}

/** The agents' URLs as the launcher's banner prints them (their ports are the launcher's to choose). */
function agentUrlsFrom(output: string): string[] {
  const line = /^\s+Agents\s+(.*)$/m.exec(output)?.[1] ?? '';
  return [...line.matchAll(/dgx-\d+ (http:\/\/\S+?)(?:,|$)/g)].map((match) => match[1]);
}

/** Listens on `port` on every address, like NATS does on 4222; null when something listens there already. */
function occupy(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen({ port, host: '0.0.0.0' }, () => resolve(server));
  });
}

const closeServer = (server: Server | null) =>
  server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();

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
  let adminPassword = '';
  const responses: { source: string; text: string }[] = [];

  before(async () => {
    env = await isolatedStackEnv(dataDir);
    // The simulated nodes' ports are internal: left to the launcher, which starts from 4201… and 4221….
    delete env['LUNANEXA_AGENT_BASE_PORT'];
    urls = urlsFrom(env);
  });

  after(async function () {
    if (stack && stack.child.exitCode === null) {
      stack.child.kill('SIGINT');
      await stack.exited;
    }
    if (this.currentTest?.state !== 'failed') rmSync(dataDir, { recursive: true, force: true });
  });

  it('a busy port the user chose stops the start within seconds, before any build step, naming the variable that moves it; nothing is left running', async () => {
    const busyPort = Number(env['LUNANEXA_GATEWAY_PORT']);
    const other = await new Promise<Server>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen({ port: busyPort, host: '0.0.0.0' }, () => resolve(server));
    });
    try {
      const started = Date.now();
      const failure = await launchStack(env).then(
        () => null,
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );
      expect(failure, 'the launcher started although a port was busy').to.be.a('string');
      expect(failure).to.include(
        `[lunanexa] start failed: port ${busyPort} (gateway) is already in use by another process; set LUNANEXA_GATEWAY_PORT to move it\n`,
      );
      expect(failure).not.to.include('building TypeScript');
      expect(failure).not.to.include('starting PostgreSQL');
      expect(Date.now() - started, 'reported within seconds').to.be.lessThan(15_000);
      expect(processesUsing(dataDir)).to.deep.equal([]);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('first start with 4201 and 4222 taken (another stack, NATS): the nodes get other ports and all are Ready; every service answers, the system check ran, the CLI reads the API', async () => {
    // Held here unless something listens there already (NATS often does on 4222): busy either way.
    const held = await Promise.all([4201, 4222].map(occupy));
    try {
      stack = await launchStack(env);
    } finally {
      await Promise.all(held.map(closeServer));
    }
    expect(stack.output()).to.include('System check ping/startup-');
    expect(stack.output()).to.match(/port 4201 \(simulated agent dgx-1 HTTP\) is in use; took \d+ instead/);
    expect(stack.output()).to.match(/port 4222 \(simulated agent dgx-2 SSH\) is in use; took \d+ instead/);
    urls.agents = agentUrlsFrom(stack.output());
    expect(urls.agents, stack.output()).to.have.length(4);
    expect(urls.agents).not.to.include('http://127.0.0.1:4201');
    const kept = JSON.parse(readFileSync(join(dataDir, 'ports.json'), 'utf8')) as Record<string, number>;
    expect(kept['dgx-2-ssh']).to.be.a('number').and.not.equal(4222);
    const nodes = await graphql(
      urls.api,
      '{ nodes { name lifecycle readiness } }',
      undefined,
      readFileSync(tokenFile, 'utf8').trim(),
    );
    expect(
      (
        JSON.parse(nodes.text) as {
          data: { nodes: { name: string; lifecycle: string; readiness: string }[] };
        }
      ).data.nodes
        .filter((n) => /^dgx-[1-4]$/.test(n.name))
        .map((n) => `${n.name} ${n.lifecycle} ${n.readiness}`)
        .sort(),
    ).to.deep.equal(['dgx-1 Active Ready', 'dgx-2 Active Ready', 'dgx-3 Active Ready', 'dgx-4 Active Ready']);
    // The first admin's generated password is shown once, on the launcher's terminal only.
    const password = /its generated password is shown this once[^\n]*\n\S*\s+(\S+)/i.exec(
      stack.output(),
    )?.[1];
    expect(password, stack.output()).to.be.a('string');
    adminPassword = password!;
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

  it('a first call in two commands: the demo key (0600) streams from demo-chat with the official openai client', async () => {
    const keyFile = join(dataDir, 'controller', 'demo.key');
    expect(statSync(keyFile).mode & 0o777).to.equal(0o600);
    expect(stack!.output()).to.include(`curl -N ${urls.gateway}/v1/chat/completions`);
    expect(stack!.output()).to.include(`baseURL: '${urls.gateway}/v1'`);
    const client = new OpenAI({
      baseURL: `${urls.gateway}/v1`,
      apiKey: readFileSync(keyFile, 'utf8').trim(),
    });
    const stream = await client.chat.completions.create({
      model: 'demo-chat',
      stream: true,
      messages: [{ role: 'user', content: 'Hello!' }],
    });
    let text = '';
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(chunks).to.be.greaterThan(2);
    expect(text.trim()).not.to.equal('');
    // The real path left its receipts: registered, evaluated, approved, rolled out; the tenant and its key.
    const token = readFileSync(tokenFile, 'utf8').trim();
    const version = await graphql(
      urls.api,
      '{ modelVersion(ref: "demo-model@1") { state } alias(alias: "demo-chat") { currentRevision current { modelRef } } tenant(id: "demo") { id } }',
      undefined,
      token,
    );
    expect(JSON.parse(version.text)).to.deep.equal({
      data: {
        modelVersion: { state: 'Approved' },
        alias: { currentRevision: 1, current: { modelRef: 'demo-model@1' } },
        tenant: { id: 'demo' },
      },
    });
    // The console's Overview offers the same first call.
    const browser = await launchBrowser();
    try {
      const recorded = await openPage(browser, { width: 1440, height: 900 });
      await signIn(urls.api, recorded, { username: 'admin', password: adminPassword });
      const card = recorded.page.getByRole('region', { name: 'Try it' });
      await expectVisible(recorded.page, card.getByText(`curl -N ${urls.gateway}/v1/chat/completions`));
      await expectVisible(recorded.page, card.getByText('.data/controller/demo.key').first());
      expect(recorded.problems, describeProblems(recorded.problems)).to.deep.equal([]);
    } finally {
      await browser.close();
    }
  });

  it('the worker and Temporal yield the CPU: every thread of theirs at nice 10, the api, gateway and PostgreSQL as started', () => {
    // What this process runs at is what the stack was started at (0 unless the test run itself was niced).
    const started = getPriority();
    const run = JSON.parse(readFileSync(join(dataDir, 'run', 'stack.json'), 'utf8')) as {
      services: { name: string; pid: number }[];
    };
    const niceOf = (name: string): number[] => {
      const service = run.services.find((s) => s.name === name);
      expect(service, `${name} in stack.json: ${JSON.stringify(run.services)}`).to.not.equal(undefined);
      return [...new Set(threadNiceValues(service!.pid))];
    };
    expect(niceOf('temporal')).to.deep.equal([Math.max(10, started)]);
    expect(niceOf('worker')).to.deep.equal([Math.max(10, started)]);
    for (const name of ['api', 'gateway', 'postgres']) expect(niceOf(name), name).to.deep.equal([started]);
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
    expect(
      runtimes,
      'the runtime processes of this deployment and of demo-chat, found by their owner tag',
    ).to.have.length(2);
    await interrupt(stack!, dataDir);
  });

  it('second start reuses the data: the first run’s ping is still in Temporal and PostgreSQL; the nodes keep their ports; the demo is not made again', async () => {
    const keptBefore = readFileSync(join(dataDir, 'ports.json'), 'utf8');
    const demoKey = readFileSync(join(dataDir, 'controller', 'demo.key'), 'utf8').trim();
    stack = await launchStack(env);
    expect(agentUrlsFrom(stack.output())).to.deep.equal(urls.agents);
    expect(readFileSync(join(dataDir, 'ports.json'), 'utf8')).to.equal(keptBefore);
    expect(stack.output()).not.to.include('preparing the demo');
    expect(readFileSync(join(dataDir, 'controller', 'demo.key'), 'utf8').trim()).to.equal(demoKey);
    const answer = await fetch(`${urls.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demoKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-chat', messages: [{ role: 'user', content: 'Hello again' }] }),
    });
    expect(answer.status, await answer.clone().text()).to.equal(200);
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
