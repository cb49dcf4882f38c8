import { Client, Connection } from '@temporalio/client';
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { isolatedStackEnv, launchStack, portIsFree, TestLoadBalancer, type LaunchedStack } from '../src';

/**
 * Two api, two worker and two gateway processes on one Temporal and one PostgreSQL, Temporal run the way
 * infra/temporal tells a production install (temporal-server on PostgreSQL, schema by temporal-sql-tool), behind
 * the test's own load balancers. Under steady load through the official `openai` client and through GraphQL, one
 * process of each kind is killed (SIGKILL, no goodbye) in turn.
 */

/** A run of `count` consecutive free ports on 127.0.0.1 (a service's processes take consecutive ports). */
async function consecutiveFreePorts(count: number, avoid: ReadonlySet<number>): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if (ports.some((port) => avoid.has(port))) continue;
    const free = await Promise.all(ports.map(portIsFree));
    if (free.every(Boolean)) return base;
  }
}

interface GraphQLOutcome {
  readonly status: number;
  readonly body: {
    data?: Record<string, unknown>;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
}

async function graphql(url: string, token: string, query: string, variables?: Record<string, unknown>) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(120_000),
  });
  const text = await response.text();
  let body: GraphQLOutcome['body'];
  try {
    body = JSON.parse(text) as GraphQLOutcome['body'];
  } catch {
    body = { errors: [{ message: `not JSON: ${text.slice(0, 200)}` }] };
  }
  return { status: response.status, body };
}

/** The pid of one service of the launcher's run record (<dataDir>/run/stack.json). */
function servicePid(dataDir: string, name: string): number {
  const record = JSON.parse(readFileSync(join(dataDir, 'run', 'stack.json'), 'utf8')) as {
    services: { name: string; pid: number }[];
  };
  const service = record.services.find((s) => s.name === name);
  if (!service) throw new Error(`no service ${name} in the run record`);
  return service.pid;
}

function killHard(pid: number): void {
  // Each service leads its own process group; SIGKILL gives it no chance to drain or deregister.
  process.kill(-pid, 'SIGKILL');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('losing any one process: 2 api, 2 worker, 2 gateway processes on temporal-server with PostgreSQL', function () {
  this.timeout(900_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'lunanexa-loss-'));
  let stack: LaunchedStack | undefined;
  let apiBalancer: TestLoadBalancer;
  let gatewayBalancer: TestLoadBalancer;
  let temporalAddress = '';
  let operatorToken = '';
  let demoKey = '';

  before(async () => {
    const env = await isolatedStackEnv(dataDir);
    const taken = new Set(Object.values(env).map(Number).filter(Number.isInteger));
    const apiPort = await consecutiveFreePorts(2, taken);
    const gatewayPort = await consecutiveFreePorts(2, new Set([...taken, apiPort, apiPort + 1]));
    const workerPort = await consecutiveFreePorts(
      2,
      new Set([...taken, apiPort, apiPort + 1, gatewayPort, gatewayPort + 1]),
    );
    apiBalancer = await TestLoadBalancer.start([apiPort, apiPort + 1]);
    gatewayBalancer = await TestLoadBalancer.start([gatewayPort, gatewayPort + 1]);
    Object.assign(env, {
      LUNANEXA_TEMPORAL_MODE: 'server',
      LUNANEXA_API_PROCESSES: '2',
      LUNANEXA_WORKER_PROCESSES: '2',
      LUNANEXA_GATEWAY_PROCESSES: '2',
      LUNANEXA_API_PORT: String(apiPort),
      LUNANEXA_GATEWAY_PORT: String(gatewayPort),
      LUNANEXA_WORKER_PORT: String(workerPort),
      LUNANEXA_AGENTS: '2',
      // Agents reach the controller through the balancer, as nodes of a multi-machine install do.
      LUNANEXA_CONTROLLER_URL: apiBalancer.url,
      // A healing pass every 5 s, so the test sees the standing loop carry on after its worker dies.
      LUNANEXA_HEAL_INTERVAL_SECONDS: '5',
    });
    temporalAddress = `127.0.0.1:${env['LUNANEXA_TEMPORAL_PORT']}`;
    stack = await launchStack(env, 600_000);
    operatorToken = readFileSync(join(dataDir, 'controller', 'operator.token'), 'utf8').trim();
    demoKey = readFileSync(join(dataDir, 'controller', 'demo.key'), 'utf8').trim();
  });

  after(async function () {
    if (stack && stack.child.exitCode === null) {
      stack.child.kill('SIGINT');
      await stack.exited;
    }
    await apiBalancer?.close();
    await gatewayBalancer?.close();
    if (this.currentTest?.state !== 'failed') rmSync(dataDir, { recursive: true, force: true });
  });

  it('the launcher ran Temporal as temporal-server on PostgreSQL, not the dev server', () => {
    const output = stack!.output();
    expect(output).to.include('starting temporal-server on PostgreSQL');
    expect(output).to.match(/Temporal\s+127\.0\.0\.1:\d+ {2}\(temporal-server on PostgreSQL; no web UI\)/);
    expect(output).to.match(/api ×2\s+http:\/\/127\.0\.0\.1:\d+, http:\/\/127\.0\.0\.1:\d+/);
    const log = readFileSync(join(dataDir, 'logs', 'temporal-server.log'), 'utf8');
    expect(log).to.include('Temporal schema is up to date', 'setup-schema.sh ran temporal-sql-tool');
    expect(log).to.include('--env production');
    expect(log).not.to.include('start-dev');
  });

  it('under steady load, api, worker and gateway each lose a process: no failed call, no workflow run twice, no desired state lost', async () => {
    const adminPassword =
      /generated password is shown this once; store it now:\s*\n\[lunanexa\]\s+(\S+)/.exec(
        stack!.output(),
      )?.[1];
    expect(adminPassword, 'the first admin password in the launcher output').to.be.a('string');
    // A console session: what the browser holds after signing in (a bearer session token, no server affinity).
    const login = await graphql(
      apiBalancer.url,
      '',
      'mutation($input: LoginInput!) { login(input: $input) { accessToken } }',
      { input: { username: 'admin', password: adminPassword } },
    );
    const sessionToken = (login.body.data?.['login'] as { accessToken: string }).accessToken;

    const desiredStateQuery =
      '{ deployments { name desiredReplicas generation } aliases { name currentRevision current { modelRef } } }';
    const before = await graphql(apiBalancer.url, operatorToken, desiredStateQuery);
    expect(before.body.errors).to.equal(undefined);

    const openai = new OpenAI({ baseURL: `${gatewayBalancer.url}/v1`, apiKey: demoKey, maxRetries: 0 });
    const inference = { ok: 0, failed: [] as string[], streamsCut: 0, streamsOk: 0 };
    const control = { ok: 0, failed: [] as string[], pingKeys: [] as string[], sessionChecks: 0 };
    let running = true;

    const nonStreamedCaller = async () => {
      while (running) {
        try {
          const answer = await openai.chat.completions.create({
            model: 'demo-chat',
            messages: [{ role: 'user', content: 'Say hello.' }],
            max_tokens: 4,
          });
          if (answer.choices[0]?.message) inference.ok++;
          else inference.failed.push(`no message: ${JSON.stringify(answer).slice(0, 200)}`);
        } catch (error) {
          inference.failed.push(`${new Date().toISOString()} non-streamed: ${String(error)}`);
        }
      }
    };
    const streamedCaller = async () => {
      while (running) {
        let started = false;
        try {
          const stream = await openai.chat.completions.create({
            model: 'demo-chat',
            messages: [{ role: 'user', content: 'Tell a short story.' }],
            max_tokens: 24,
            stream: true,
          });
          for await (const chunk of stream) if (chunk.choices.length > 0) started = true;
          inference.streamsOk++;
        } catch (error) {
          // A stream already flowing when its gateway died may be cut; one that never started must not fail.
          if (started) inference.streamsCut++;
          else
            inference.failed.push(`${new Date().toISOString()} stream before first token: ${String(error)}`);
        }
      }
    };
    let pingSequence = 0;
    const controlCaller = async () => {
      while (running) {
        const key = `loss-${process.pid}-${pingSequence++}`;
        const ping = await graphql(
          apiBalancer.url,
          operatorToken,
          'mutation($input: PingInput!) { ping(input: $input) { workflowId } }',
          { input: { idempotencyKey: key, message: 'process-loss steady load' } },
        ).catch((error: unknown) => ({ status: 0, body: { errors: [{ message: String(error) }] } }));
        if (ping.status === 200 && !ping.body.errors) {
          control.ok++;
          control.pingKeys.push(key);
        } else control.failed.push(`ping ${key}: ${ping.status} ${JSON.stringify(ping.body.errors)}`);
        const session = await graphql(
          apiBalancer.url,
          sessionToken,
          '{ me { operator { username } } }',
        ).catch((error: unknown) => ({ status: 0, body: { errors: [{ message: String(error) }] } }));
        if (session.status === 200 && !session.body.errors) control.sessionChecks++;
        else control.failed.push(`session: ${session.status} ${JSON.stringify(session.body.errors)}`);
        await sleep(200);
      }
    };

    const callers = [
      nonStreamedCaller(),
      nonStreamedCaller(),
      streamedCaller(),
      controlCaller(),
      controlCaller(),
    ];
    const killed: { name: string; at: Date }[] = [];
    try {
      await sleep(5_000);
      for (const name of ['api', 'worker', 'gateway']) {
        killHard(servicePid(dataDir, name));
        killed.push({ name, at: new Date() });
        await sleep(10_000);
      }
    } finally {
      running = false;
      await Promise.all(callers);
    }

    const summary = JSON.stringify({
      inference: { ...inference, failed: inference.failed.length },
      control: { ...control, failed: control.failed.length, pingKeys: control.pingKeys.length },
      resent: { api: apiBalancer.resent, gateway: gatewayBalancer.resent },
    });
    console.log(`      load: ${summary}`);
    console.log(`      killed: ${JSON.stringify(killed)}`);
    expect(inference.failed, summary).to.deep.equal([]);
    expect(control.failed, summary).to.deep.equal([]);
    expect(inference.ok, 'non-streamed answers').to.be.greaterThan(20);
    expect(inference.streamsOk, 'streams finished').to.be.greaterThan(3);
    expect(control.pingKeys.length, 'pings answered').to.be.greaterThan(10);
    expect(control.sessionChecks, 'the console session answered throughout').to.be.greaterThan(10);

    const connection = await Connection.connect({ address: temporalAddress });
    try {
      const temporal = new Client({ connection, namespace: 'lunanexa' });
      // Every ping the callers sent ran as exactly one workflow execution (a re-sent request met the same id).
      const runsPerId = new Map<string, number>();
      for await (const run of temporal.workflow.list({ query: `WorkflowType = 'pingWorkflow'` })) {
        if (run.workflowId.includes(`loss-${process.pid}-`))
          runsPerId.set(run.workflowId, (runsPerId.get(run.workflowId) ?? 0) + 1);
      }
      const twice = [...runsPerId].filter(([, runs]) => runs > 1);
      expect(twice, 'ping workflows executed more than once').to.deep.equal([]);
      for (const key of control.pingKeys) expect(runsPerId.get(`ping/${key}`), key).to.equal(1);

      // The standing healing loop: one running execution, and it kept running passes after its worker died.
      const running: string[] = [];
      for await (const run of temporal.workflow.list({
        query: `WorkflowType = 'healingLoopWorkflow' AND ExecutionStatus = 'Running'`,
      }))
        running.push(run.runId);
      expect(running, 'running healing loops').to.have.length(1);
      const workerKilledAt = killed.find((k) => k.name === 'worker')!.at;
      let passesAfter = 0;
      for await (const pass of temporal.workflow.list({
        query: `WorkflowType = 'healingWorkflow' AND StartTime > '${workerKilledAt.toISOString()}'`,
      }))
        if (pass.workflowId.startsWith('healingPass/')) passesAfter++;
      expect(passesAfter, 'healing passes after the worker was killed').to.be.greaterThan(0);
    } finally {
      await connection.close();
    }

    const after = await graphql(apiBalancer.url, operatorToken, desiredStateQuery);
    expect(after.body, 'desired state after the losses').to.deep.equal(before.body);
    const nodes = await graphql(apiBalancer.url, operatorToken, '{ nodes { name lifecycle readiness } }');
    expect(nodes.body.data?.['nodes']).to.deep.include.members([
      { name: 'dgx-1', lifecycle: 'Active', readiness: 'Ready' },
      { name: 'dgx-2', lifecycle: 'Active', readiness: 'Ready' },
    ]);
  });
});
