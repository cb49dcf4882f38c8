import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SouthboundClient, exchangeEnvelope, southboundTarget } from '@lunanexa/activities';
import {
  createEnvelope,
  ed25519KeyId,
  openSshPrivateKey,
  parseEd25519PublicKey,
  signEnvelope,
} from '@lunanexa/agent-protocol';
import { AssignmentSchema, ErrorCode, LunaNexaError, type Assignment } from '@lunanexa/contracts';
import { findNode } from '@lunanexa/persistence';
import {
  FleetHarness,
  REPO_ROOT,
  fakeRuntimeProcesses,
  freePort,
  startEnrollmentAnswerLoss,
  waitUntil,
  type AgentProcess,
} from '../src';

const run = promisify(execFile);

interface NodeView {
  id: string;
  name: string;
  lifecycle: string;
  readiness: string;
  cordoned: boolean;
  gpus: { name: string; memoryModel: string }[];
}

interface DeploymentView {
  id: string;
  state: string;
  stateReason: string | null;
  generation: number;
  readyReplicas: number;
  assignments: {
    id: string;
    nodeName: string;
    generation: number;
    intent: string;
    observedState: string | null;
    endpointPort: number | null;
  }[];
}

const NODE_FIELDS = 'id name lifecycle readiness cordoned gpus { name memoryModel }';
const DEPLOYMENT_FIELDS =
  'id state stateReason generation readyReplicas assignments { id nodeName generation intent observedState endpointPort }';

/** Chunk arrival times of one streamed response: what proves the client got tokens as they were generated. */
interface StreamTiming {
  readonly chunks: number;
  readonly firstMs: number;
  readonly lastMs: number;
  readonly text: string;
}

async function streamTimings(url: string, body: unknown, token: string): Promise<StreamTiming> {
  const started = Date.now();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  // Reading a clone for the message would drain the stream before the timing starts: only on failure.
  if (response.status !== 200) expect.fail(`${response.status}: ${await response.text()}`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  let chunks = 0;
  let firstMs = -1;
  let lastMs = -1;
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline = buffered.indexOf('\n\n');
    while (newline >= 0) {
      const event = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 2);
      newline = buffered.indexOf('\n\n');
      const data = event
        .split('\n')
        .find((line) => line.startsWith('data: '))
        ?.slice(6);
      if (!data || data === '[DONE]') continue;
      const parsed = JSON.parse(data) as {
        choices?: { delta?: string | { content?: string } }[];
      };
      const delta = parsed.choices?.[0]?.delta;
      // OpenAI chunks carry `delta.content`; generic v1 chunks carry the text as `delta` itself.
      const piece = (typeof delta === 'string' ? delta : delta?.content) ?? '';
      if (piece === '') continue;
      chunks += 1;
      text += piece;
      const at = Date.now() - started;
      if (firstMs < 0) firstMs = at;
      lastMs = at;
    }
  }
  return { chunks, firstMs, lastMs, text };
}

describe('node lifecycle and the one-node slice on real Temporal, PostgreSQL, agents and runtimes', function () {
  this.timeout(900_000);
  let h: FleetHarness;
  const models: string[] = [];

  async function node(name: string): Promise<NodeView | null> {
    return (
      await h.graphql<{ node: NodeView | null }>(`query($n: String!) { node(node: $n) { ${NODE_FIELDS} } }`, {
        n: name,
      })
    ).node;
  }

  async function deployment(name: string): Promise<DeploymentView | null> {
    return (
      await h.graphql<{ deployment: DeploymentView | null }>(
        `query($d: String!) { deployment(deployment: $d) { ${DEPLOYMENT_FIELDS} } }`,
        { d: name },
      )
    ).deployment;
  }

  async function registerModel(model: string, version: string, tokensPerSecond = 25): Promise<string> {
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model, version, ttftMs: 250, tokensPerSecond } },
    );
    const ref = `${model}@${version}`;
    models.push(ref);
    return ref;
  }

  async function deployAndWait(name: string, ref: string, nodeName: string): Promise<DeploymentView> {
    await h.graphql(
      `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId workflowId } }`,
      {
        // Freshly registered, never evaluated: only a candidate deployment may run it.
        input: { name, model: ref, node: nodeName, replicas: 1, purpose: 'Candidate' },
      },
    );
    return waitUntil(
      `deployment ${name} Ready`,
      async () => {
        const view = await deployment(name);
        return view?.state === 'Ready' ? view : null;
      },
      120_000,
    );
  }

  async function enrollAndApprove(name: string): Promise<AgentProcess> {
    const token = await h.createBootstrapToken(name);
    const agent = await h.startAgent(name, token);
    await waitUntil(`${name} Pending`, async () => (await node(name))?.lifecycle === 'Pending', 30_000);
    const approved = await h.graphql<{ approveNode: { node: NodeView; receiptHash: string } }>(
      `mutation($n: String!) { approveNode(node: $n) { node { ${NODE_FIELDS} } receiptHash } }`,
      { n: name },
    );
    expect(approved.approveNode.node.lifecycle).to.equal('Active');
    expect(approved.approveNode.receiptHash).to.match(/^[0-9a-f]{64}$/);
    await waitUntil(`${name} Ready`, async () => (await node(name))?.readiness === 'Ready', 30_000);
    return agent;
  }

  async function restartController(): Promise<void> {
    await h.startWorker();
    await h.startApi();
  }

  before(async () => {
    h = await FleetHarness.start('lifecycle', { leaseSeconds: 60 });
  });

  let failed = false;
  afterEach(function () {
    if (this.currentTest?.state === 'failed') failed = true;
  });

  after(async () => {
    if (failed || process.env['LUNANEXA_E2E_VERBOSE']) {
      for (const name of [
        'api',
        'worker',
        'gateway',
        ...[...(h?.agents.keys() ?? [])].map((a) => `agent-${a}`),
      ]) {
        process.stderr.write(`--- ${name} ---\n${h?.logsOf(name) ?? ''}\n`);
      }
    }
    await h?.stop();
    // Runtimes are the agents' children in their own process groups; end any the test left.
    for (const ref of models) for (const pid of fakeRuntimeProcesses(ref)) process.kill(pid, 'SIGKILL');
  });

  it('API: enrolls a node, approves it, deploys the fake model, streams tokens incrementally through the gateway, stops it', async () => {
    await enrollAndApprove('dgx-api');
    const view = await node('dgx-api');
    expect(view?.gpus.map((gpu) => gpu.memoryModel)).to.deep.equal(['unified']);
    const ref = await registerModel('demo', 'v1');
    const ready = await deployAndWait('demo-api', ref, 'dgx-api');
    expect(ready.assignments).to.have.length(1);
    expect(ready.assignments[0]).to.deep.include({
      nodeName: 'dgx-api',
      intent: 'Run',
      observedState: 'Ready',
    });
    expect(fakeRuntimeProcesses(ref)).to.have.length(1);

    const chat = await waitUntil(
      'a route to demo@v1',
      async () => {
        const models = (await (await fetch(`${h.gatewayUrl}/v1/models`, h.asOperator())).json()) as {
          data: { id: string }[];
        };
        return models.data.some((m) => m.id === ref);
      },
      15_000,
    ).then(() =>
      streamTimings(
        `${h.gatewayUrl}/v1/chat/completions`,
        {
          model: ref,
          stream: true,
          max_tokens: 16,
          messages: [{ role: 'user', content: 'Say hello to the fleet.' }],
        },
        h.operatorToken,
      ),
    );
    expect(chat.chunks).to.be.at.least(8);
    // 16 tokens at 25 tokens/s take ~600 ms: a client that got them all at once would see them within a few ms.
    expect(chat.lastMs - chat.firstMs, JSON.stringify(chat)).to.be.greaterThan(300);

    const generic = await streamTimings(
      `${h.gatewayUrl}/v1/workloads`,
      {
        apiVersion: 'lunanexa.v1',
        kind: 'chat',
        dataClass: 'internal',
        correlation: {},
        priority: 'normal',
        target: { model: ref },
        messages: [{ role: 'user', content: 'Say hello to the fleet.' }],
        parameters: { maxTokens: 16 },
        stream: true,
      },
      h.operatorToken,
    );
    expect(generic.chunks).to.be.at.least(8);
    expect(generic.lastMs - generic.firstMs).to.be.greaterThan(300);

    // The gateway recorded both requests (metadata only) for the Requests view, against this deployment.
    const records = await waitUntil('the gateway to record both requests', async () => {
      const answer = await h.graphql<{
        requestRecords: {
          items: { dialect: string; outcome: string; deploymentName: string; completionTokens: number }[];
        };
      }>(
        '{ requestRecords(filter: { deployment: "demo-api" }) { items { dialect outcome deploymentName completionTokens } } }',
      );
      return answer.requestRecords.items.length >= 2 ? answer.requestRecords.items : null;
    });
    expect(records.map((r) => `${r.dialect}:${r.outcome}:${r.deploymentName}`).sort()).to.deep.equal([
      'generic:Completed:demo-api',
      'openai:Completed:demo-api',
    ]);

    const stopped = await h.graphql<{ stopDeployment: { deployment: DeploymentView } }>(
      `mutation($d: String!) { stopDeployment(deployment: $d) { deployment { ${DEPLOYMENT_FIELDS} } } }`,
      { d: 'demo-api' },
    );
    expect(stopped.stopDeployment.deployment.state).to.equal('Stopped');
    expect(stopped.stopDeployment.deployment.assignments[0]).to.deep.include({
      intent: 'Stop',
      observedState: 'Stopped',
    });
    await waitUntil(
      'the runtime gone',
      () => Promise.resolve(fakeRuntimeProcesses(ref).length === 0),
      30_000,
    );

    const actions = (await h.sql<{ action: string }>(`SELECT action FROM audit_events ORDER BY seq`)).map(
      (r) => r.action,
    );
    expect(actions).to.include.members([
      'bootstrap-token.create',
      'node.enroll',
      'node.approve',
      'node.credential.issue',
      'node.activate',
      'model-version.register',
      'deployment.create',
      'deployment.place',
      'deployment.ready',
      'deployment.stop',
      'deployment.finish',
    ]);
  });

  it('CLI: enrolls a node and completes one streamed request, tokens printed as they arrive', async () => {
    const tokenFile = join(h.dataDir, 'controller', 'operator.token');
    const adminTokenFile = join(h.dataDir, 'controller', 'admin.token');
    const cliWith = async (file: string, ...args: string[]): Promise<string> => {
      try {
        const { stdout } = await run(
          process.execPath,
          [join(REPO_ROOT, 'apps/cli/dist/src/main.js'), '--api-url', h.apiUrl, ...args],
          {
            env: { ...process.env, LUNANEXA_TOKEN_FILE: file, LUNANEXA_GATEWAY_URL: h.gatewayUrl },
            timeout: 180_000,
          },
        );
        return stdout;
      } catch (error) {
        const failed = error as { stdout?: string; stderr?: string; code?: number };
        throw new Error(
          `lunanexa ${args.join(' ')} exited ${failed.code}: ${failed.stderr ?? ''}${failed.stdout ?? ''}`,
        );
      }
    };
    const cli = (...args: string[]): Promise<string> => cliWith(tokenFile, ...args);
    // Minting a bootstrap token is admin work: the operator's token is refused, the admin's works.
    const refused = await cli('node', 'token', 'create', '--node-name', 'dgx-cli').then(
      () => 'allowed',
      (error: Error) => error.message,
    );
    expect(refused).to.include('exited 77').and.include('FORBIDDEN');
    const created = JSON.parse(
      await cliWith(adminTokenFile, '--json', 'node', 'token', 'create', '--node-name', 'dgx-cli'),
    ) as { token: string };
    expect(created.token).to.match(/^lnxb_/);
    await h.startAgent('dgx-cli', created.token);
    await waitUntil('dgx-cli Pending', async () => (await node('dgx-cli'))?.lifecycle === 'Pending', 30_000);
    await cli('node', 'approve', 'dgx-cli');
    await waitUntil('dgx-cli Ready', async () => (await node('dgx-cli'))?.readiness === 'Ready', 30_000);
    const listed = JSON.parse(await cli('--json', 'node', 'list')) as
      { name: string; lifecycle: string }[] | { nodes: { name: string; lifecycle: string }[] };
    const nodes = Array.isArray(listed) ? listed : listed.nodes;
    expect(nodes.find((n) => n.name === 'dgx-cli')?.lifecycle).to.equal('Active');
    await cli('model', 'register', 'demo@v2', '--ttft-ms', '250', '--tokens-per-second', '25');
    models.push('demo@v2');
    await cli(
      'deploy',
      'create',
      'demo-cli',
      '--model',
      'demo@v2',
      '--purpose',
      'candidate',
      '--node',
      'dgx-cli',
      '--wait',
      '--wait-timeout',
      '120',
    );
    await waitUntil(
      'a route to demo@v2',
      async () => {
        const listedModels = (await (await fetch(`${h.gatewayUrl}/v1/models`, h.asOperator())).json()) as {
          data: { id: string }[];
        };
        return listedModels.data.some((m) => m.id === 'demo@v2');
      },
      15_000,
    );

    // The CLI streams to stdout: record when each piece of output arrives.
    const child = spawn(
      process.execPath,
      [
        join(REPO_ROOT, 'apps/cli/dist/src/main.js'),
        'invoke',
        'demo@v2',
        '--prompt',
        'Say hello to the fleet.',
        '--max-tokens',
        '16',
        '--gateway-url',
        h.gatewayUrl,
      ],
      { env: { ...process.env, LUNANEXA_TOKEN_FILE: tokenFile } },
    );
    const arrivals: number[] = [];
    let output = '';
    const started = Date.now();
    child.stdout.on('data', (chunk: Buffer) => {
      arrivals.push(Date.now() - started);
      output += chunk.toString('utf8');
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, stderr).to.equal(0);
    expect(output.trim().length).to.be.greaterThan(0);
    expect(arrivals.length, `stdout writes: ${JSON.stringify(arrivals)}`).to.be.at.least(4);
    expect((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)).to.be.greaterThan(300);

    await cli('deploy', 'stop', 'demo-cli');
    expect((await deployment('demo-cli'))?.state).to.equal('Stopped');
  });

  it('rotates a node credential with no gap: new key, next credential, heartbeats never refused', async () => {
    const keyOf = async () =>
      (
        await h.graphql<{ node: { keyId: string; credentialSerial: number; readiness: string } }>(
          `{ node(node: "dgx-cli") { keyId credentialSerial readiness } }`,
        )
      ).node;
    const before = await keyOf();
    const refusedBefore = (await h.sql(`SELECT seq FROM audit_events WHERE action = 'node.heartbeat'`))
      .length;
    const rotated = await h.graphql<{
      rotateNodeCredential: { node: { keyId: string; credentialSerial: number }; receiptHash: string };
    }>(`mutation { rotateNodeCredential(node: "dgx-cli") { node { keyId credentialSerial } receiptHash } }`);
    expect(rotated.rotateNodeCredential.node.keyId).to.not.equal(before.keyId);
    expect(rotated.rotateNodeCredential.node.credentialSerial).to.equal(before.credentialSerial + 1);
    expect(rotated.rotateNodeCredential.receiptHash).to.match(/^[0-9a-f]{64}$/);
    // The agent holds the new credential, for its new key, and keeps heartbeating with it.
    const stateDir = h.agents.get('dgx-cli')?.stateDir ?? '';
    const credential = await waitUntil(
      'the agent storing the new credential',
      () => {
        const held = JSON.parse(readFileSync(join(stateDir, 'credential.json'), 'utf8')) as {
          credential?: { document: { keyId: string; serial: number } };
          document?: { keyId: string; serial: number };
        };
        const document = held.credential?.document ?? held.document;
        return Promise.resolve(document?.serial === before.credentialSerial + 1 ? document : null);
      },
      20_000,
    );
    expect(credential.keyId).to.equal(rotated.rotateNodeCredential.node.keyId);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect((await keyOf()).readiness).to.equal('Ready');
    // No heartbeat was refused during the switch.
    expect(await h.sql(`SELECT seq FROM audit_events WHERE action = 'node.heartbeat'`)).to.have.length(
      refusedBefore,
    );
    const actions = (await h.sql<{ action: string }>(`SELECT action FROM audit_events ORDER BY seq`)).map(
      (r) => r.action,
    );
    expect(actions).to.include.members([
      'node.key.next',
      'node.key.rotated',
      'node.credential.rotate.complete',
    ]);
  });

  it('agent kill -9: on restart it reconciles its assignment from its own store while the controller is down — exactly one runtime', async () => {
    const ref = await registerModel('demo', 'v3');
    await deployAndWait('demo-kill', ref, 'dgx-api');
    expect(fakeRuntimeProcesses(ref)).to.have.length(1);
    // The controller goes silent: nothing can re-push the assignment.
    await h.api?.kill('SIGKILL');
    await h.worker?.kill('SIGKILL');
    const agent = h.agents.get('dgx-api') as AgentProcess;
    await agent.service.kill('SIGKILL');
    await h.startAgent('dgx-api');
    const endpoint = await waitUntil(
      'the runtime serving again after the agent restart',
      async () => {
        const health = (await (await fetch(`http://127.0.0.1:${agent.httpPort}/health`)).json()) as Record<
          string,
          unknown
        >;
        const text = JSON.stringify(health);
        const port = /"endpointPort":(\d+)/.exec(text)?.[1];
        if (!text.includes('"Ready"') || !port) return null;
        const models = await fetch(`http://127.0.0.1:${port}/v1/models`).catch(() => null);
        return models?.ok ? port : null;
      },
      60_000,
    );
    expect(fakeRuntimeProcesses(ref), 'one runtime for the assignment').to.have.length(1);
    // Straight at the runtime (no gateway): the token is sent along and ignored.
    const direct = await streamTimings(
      `http://127.0.0.1:${endpoint}/v1/chat/completions`,
      { model: ref, stream: true, max_tokens: 8, messages: [{ role: 'user', content: 'still there?' }] },
      h.operatorToken,
    );
    expect(direct.chunks).to.be.at.least(4);
    // The agent keeps it exactly one while it reconciles on its timer.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(fakeRuntimeProcesses(ref)).to.have.length(1);

    await restartController();
    await waitUntil(
      'dgx-api Ready again',
      async () => (await node('dgx-api'))?.readiness === 'Ready',
      30_000,
    );
    await waitUntil(
      'demo-kill Ready again',
      async () => (await deployment('demo-kill'))?.state === 'Ready',
      60_000,
    );
    await h.graphql(`mutation { stopDeployment(deployment: "demo-kill") { deploymentId } }`);
    await waitUntil('runtime stopped', () => Promise.resolve(fakeRuntimeProcesses(ref).length === 0), 30_000);
  });

  it('agent restarted on a new SSH port: its signed heartbeat moves the node, audited, and the controller dials the new port', async () => {
    const agent = h.agents.get('dgx-api') as AgentProcess;
    const oldPort = agent.sshPort;
    await agent.service.kill('SIGTERM');
    const newPort = await freePort();
    await h.startAgent('dgx-api', undefined, { sshPort: newPort });
    await waitUntil(
      'the node at its new SSH port',
      async () => {
        const [row] = await h.sql<{ ssh_port: number }>(`SELECT ssh_port FROM nodes WHERE name = 'dgx-api'`);
        return row?.ssh_port === newPort;
      },
      30_000,
    );
    const [moved] = await h.sql<{
      evidence: { previous: { sshPort: number }; current: { sshPort: number } };
    }>(`SELECT evidence FROM audit_events WHERE action = 'node.endpoint.changed' ORDER BY seq DESC LIMIT 1`);
    expect(moved?.evidence.previous.sshPort).to.equal(oldPort);
    expect(moved?.evidence.current.sshPort).to.equal(newPort);
    // Nothing listens on the old port any more: only dialing the new one can deliver this assignment.
    const ref = await registerModel('demo', 'v9');
    await deployAndWait('demo-moved', ref, 'dgx-api');
    expect(fakeRuntimeProcesses(ref)).to.have.length(1);
    await h.graphql(`mutation { stopDeployment(deployment: "demo-moved") { deploymentId } }`);
    await waitUntil('runtime stopped', () => Promise.resolve(fakeRuntimeProcesses(ref).length === 0), 30_000);
  });

  it('an enrollment answer lost on its way back: approval waits until the agent has asked again, instead of failing the node', async () => {
    // What an API killed between committing the Pending node and replying does to the agent, made deterministic.
    const lossy = await startEnrollmentAnswerLoss(h.apiUrl);
    try {
      const token = await h.createBootstrapToken('dgx-lost-answer');
      const agent = await h.startAgent('dgx-lost-answer', token, { controllerUrl: lossy.url });
      await waitUntil(
        'dgx-lost-answer Pending',
        async () => (await node('dgx-lost-answer'))?.lifecycle === 'Pending',
        30_000,
      );
      await waitUntil('the agent asking again', () => Promise.resolve(lossy.enrollRequests() >= 2), 30_000);
      // approveNode answers when EnrollNode has finished, which it cannot until the agent has its answer.
      const approving = h.graphql<{ approveNode: { node: NodeView } }>(
        `mutation { approveNode(node: "dgx-lost-answer") { node { ${NODE_FIELDS} } } }`,
      );
      approving.catch(() => undefined);
      // The reachability check meets an agent that does not trust the controller key yet.
      await waitUntil(
        'the controller key refused by the agent that has no enrollment answer',
        async () => {
          const health = (await (await fetch(`http://127.0.0.1:${agent.httpPort}/health`)).json()) as {
            sshRefusals: { request: string }[];
            enrollment: { enrolled: boolean };
          };
          expect(health.enrollment.enrolled).to.equal(false);
          return health.sshRefusals.some((refusal) => refusal.request === 'auth-publickey');
        },
        30_000,
      );
      expect((await node('dgx-lost-answer'))?.lifecycle).to.equal('Approved');
      lossy.release();
      expect((await approving).approveNode.node.lifecycle).to.equal('Active');
      const [enrolled] = await h.sql<{ lifecycle: string; count: string }>(
        `SELECT n.lifecycle, (SELECT count(*) FROM audit_events a
            WHERE a.action = 'node.activate' AND a.evidence->>'nodeName' = n.name) AS count
           FROM nodes n WHERE n.name = 'dgx-lost-answer'`,
      );
      expect(enrolled).to.deep.equal({ lifecycle: 'Active', count: '1' });
    } finally {
      await lossy.close();
    }
  });

  it('controller restart: api and worker killed mid EnrollNode and mid deploy — both finish, no duplicate assignment or runtime', async () => {
    const token = await h.createBootstrapToken('dgx-restart');
    await h.startAgent('dgx-restart', token);
    await waitUntil(
      'dgx-restart Pending',
      async () => (await node('dgx-restart'))?.lifecycle === 'Pending',
      30_000,
    );
    await h.api?.kill('SIGKILL');
    await h.worker?.kill('SIGKILL');
    await restartController();
    const approved = await h.graphql<{ approveNode: { node: NodeView } }>(
      `mutation { approveNode(node: "dgx-restart") { node { ${NODE_FIELDS} } } }`,
    );
    expect(approved.approveNode.node.lifecycle).to.equal('Active');
    expect(await h.sql(`SELECT id FROM nodes WHERE name = 'dgx-restart'`)).to.have.length(1);
    expect(
      await h.sql(
        `SELECT seq FROM audit_events WHERE action = 'node.activate' AND evidence->>'nodeName' = 'dgx-restart'`,
      ),
    ).to.have.length(1);

    // Slow on purpose: the drain test below needs a request that is still running when DrainNode starts.
    const ref = await registerModel('demo', 'v4', 8);
    await h.graphql(
      `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
      {
        input: { name: 'demo-restart', model: ref, node: 'dgx-restart', replicas: 1, purpose: 'Candidate' },
      },
    );
    // Mid deploy: the record exists, placement and the push are under way.
    await h.worker?.kill('SIGKILL');
    await h.api?.kill('SIGKILL');
    await restartController();
    const ready = await waitUntil(
      'demo-restart Ready after the restart',
      async () => {
        const view = await deployment('demo-restart');
        return view?.state === 'Ready' ? view : null;
      },
      120_000,
    );
    expect(ready.assignments).to.have.length(1);
    expect(await h.sql(`SELECT id FROM assignments WHERE deployment_id = $1`, [ready.id])).to.have.length(1);
    expect(fakeRuntimeProcesses(ref)).to.have.length(1);
    const held = JSON.parse(
      readFileSync(join(h.agents.get('dgx-restart')?.stateDir ?? '', 'assignments.json'), 'utf8'),
    ) as {
      assignments: unknown[];
    };
    expect(held.assignments).to.have.length(1);
  });

  it('hostile southbound input: forged signature and stale generation are refused by the agent, audited, and change nothing', async () => {
    const keyPem = readFileSync(join(h.dataDir, 'controller', 'controller-ed25519.pem'), 'utf8');
    const controllerKey = createPrivateKey(keyPem);
    const controller = { privateKey: controllerKey, keyId: ed25519KeyId(createPublicKey(controllerKey)) };
    const row = await h.sql<{ id: string }>(`SELECT id FROM nodes WHERE name = 'dgx-restart'`);
    const queryable = h.queryable();
    const nodeRow = await findNode(queryable, row[0]?.id ?? '');
    if (!nodeRow) throw new Error('dgx-restart is gone');
    const target = southboundTarget(nodeRow);
    const [held] = await h.sql<{ spec: Assignment; generation: number }>(
      `SELECT a.spec, a.generation FROM assignments a JOIN deployments d ON d.id = a.deployment_id WHERE d.name = 'demo-restart'`,
    );
    if (!held) throw new Error('no assignment for demo-restart');
    const statePath = join(h.agents.get('dgx-restart')?.stateDir ?? '', 'assignments.json');
    const before = readFileSync(statePath, 'utf8');
    const auditBefore = (await h.sql(`SELECT seq FROM audit_events WHERE action = 'agent.refusal'`)).length;

    // Stale generation: correctly signed by the controller, but older than what the agent holds.
    const stale = AssignmentSchema.parse({
      ...held.spec,
      generation: Math.max(0, held.generation - 1),
      intent: 'Stop',
    });
    const client = new SouthboundClient(controller);
    let staleCode: string | undefined;
    await client.pushAssignment(target, stale).catch((error: unknown) => {
      staleCode = error instanceof LunaNexaError ? error.code : String(error);
    });
    expect(staleCode).to.equal(ErrorCode.STALE_GENERATION);

    // Forged: the SSH session authenticates with the controller key, but the envelope is signed by another key under the controller's key id.
    const forger = generateKeyPairSync('ed25519');
    const forged = signEnvelope(
      forger.privateKey,
      controller.keyId,
      createEnvelope('assignment.put', {
        nodeId: nodeRow.id,
        body: { assignment: { ...held.spec, generation: held.generation + 5, intent: 'Stop' } },
      }),
    );
    const reply = await exchangeEnvelope({
      node: target,
      sshPrivateKey: openSshPrivateKey(controllerKey),
      controllerKeyId: controller.keyId,
      request: forged,
      nodeKeys: new Map(
        target.keyIds.map((id, i) => [id, parseEd25519PublicKey(target.publicKeys[i] ?? '')]),
      ),
      connectTimeoutMs: 10_000,
      replyTimeoutMs: 10_000,
      now: () => new Date(),
    });
    expect(reply.type).to.equal('assignment.reject');
    expect((reply.body as { code: string }).code).to.equal(ErrorCode.SIGNATURE_INVALID);

    // Nothing changed on the node; the agent reports both refusals and the controller audits them.
    expect(readFileSync(statePath, 'utf8')).to.equal(before);
    expect(fakeRuntimeProcesses(held.spec.modelVersion)).to.have.length(1);
    const refusals = await waitUntil(
      'the refusals audited',
      async () => {
        const rows = await h.sql<{ evidence: { code: string; kind: string } }>(
          `SELECT evidence FROM audit_events WHERE action = 'agent.refusal' ORDER BY seq`,
        );
        const fresh = rows.slice(auditBefore).map((r) => r.evidence.code);
        return fresh.includes(ErrorCode.STALE_GENERATION) && fresh.includes(ErrorCode.SIGNATURE_INVALID)
          ? fresh
          : null;
      },
      30_000,
    );
    expect(refusals).to.include.members([ErrorCode.STALE_GENERATION, ErrorCode.SIGNATURE_INVALID]);
    expect((await deployment('demo-restart'))?.state).to.equal('Ready');
  });

  it('drain: cordons, waits for in-flight requests, stops the replicas and reports Drained with a receipt', async () => {
    const started = fetch(`${h.gatewayUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.operatorToken}` },
      // This prompt and seed give the fake runtime's longest answer (96 tokens): ~12 s at 8 tokens/s,
      // long enough for a heartbeat to report it in flight.
      body: JSON.stringify({
        model: 'demo@v4',
        stream: false,
        seed: 0,
        max_tokens: 200,
        messages: [{ role: 'user', content: 'long answer please 112' }],
      }),
    });
    await waitUntil(
      'the request reported in flight',
      async () => {
        const rows = await h.sql<{ in_flight: number | null }>(
          `SELECT a.in_flight FROM assignments a JOIN deployments d ON d.id = a.deployment_id WHERE d.name = 'demo-restart'`,
        );
        return (rows[0]?.in_flight ?? 0) > 0;
      },
      15_000,
    );
    // The only node of this slice: its replica has nowhere to go, so a plain drain is refused and changes nothing.
    const refusal = await h
      .graphql(`mutation { drainNode(node: "dgx-restart", timeoutSeconds: 30) { receiptHash } }`)
      .then(
        () => null,
        (error: unknown) => error as Error,
      );
    expect(refusal?.message).to.match(/^DRAIN_WOULD_STRAND_REPLICAS: .*\(demo-restart\)/);
    expect(await h.sql(`SELECT lifecycle, cordoned FROM nodes WHERE name = 'dgx-restart'`)).to.deep.equal([
      { lifecycle: 'Active', cordoned: false },
    ]);
    const reason = 'one-node slice: the test stops its only replica';
    const drained = await h.graphql<{
      drainNode: {
        node: NodeView;
        receiptHash: string;
        replicasAtStart: number;
        inFlightAtStart: number;
        inFlightAtTimeout: number;
      };
    }>(
      `mutation($reason: String!) { drainNode(node: "dgx-restart", timeoutSeconds: 30, force: true, reason: $reason) {
        node { ${NODE_FIELDS} } receiptHash replicasAtStart inFlightAtStart inFlightAtTimeout } }`,
      { reason },
    );
    const [start] = await h.sql<{ evidence: Record<string, unknown> }>(
      `SELECT evidence FROM audit_events WHERE action = 'node.drain.start' ORDER BY seq DESC LIMIT 1`,
    );
    expect(start?.evidence).to.deep.include({
      nodeName: 'dgx-restart',
      forced: true,
      forceReason: reason,
      strandedDeployments: ['demo-restart'],
    });
    expect(drained.drainNode.inFlightAtStart).to.be.at.least(1);
    expect(drained.drainNode.node.lifecycle).to.equal('Drained');
    expect(drained.drainNode.node.cordoned).to.equal(true);
    expect(drained.drainNode.replicasAtStart).to.equal(1);
    expect(drained.drainNode.inFlightAtTimeout).to.equal(0);
    expect(drained.drainNode.receiptHash).to.match(/^[0-9a-f]{64}$/);
    const answer = await started;
    expect(answer.status, 'the in-flight request finished').to.equal(200);
    await waitUntil(
      'the replica stopped',
      () => Promise.resolve(fakeRuntimeProcesses('demo@v4').length === 0),
      30_000,
    );
    const after = await deployment('demo-restart');
    expect(after?.assignments.every((a) => a.intent === 'Stop')).to.equal(true);
    await h.graphql(`mutation { stopDeployment(deployment: "demo-restart") { deploymentId } }`);
    // After maintenance: uncordon returns the Drained node to service.
    const back = await h.graphql<{ uncordonNode: NodeView }>(
      `mutation { uncordonNode(node: "dgx-restart") { ${NODE_FIELDS} } }`,
    );
    expect(back.uncordonNode).to.deep.include({ lifecycle: 'Active', cordoned: false });
  });

  it('no GraphQL field or argument accepts a command line', () => {
    const full = readFileSync(join(REPO_ROOT, 'apps/api/schema.gql'), 'utf8');
    // A runtime's launch spec is the one place with an argv: a list exec'd without a shell, validated by
    // RuntimeSchema (no shells, launchers or inline-code flags) and run only once an admin allowlists it.
    const launchSpecs = /^(?:type LaunchSpec|input LaunchSpecInput) \{[^}]*\}/gm;
    const specs = full.match(launchSpecs) ?? [];
    expect(specs).to.have.length(2);
    for (const spec of specs) expect(spec).to.match(/^\s+args: \[String!\]!$/m);
    const schema = full.replace(launchSpecs, '');
    for (const word of ['command', 'shell', 'exec', 'script', 'cmd', 'args', 'entrypoint']) {
      expect(schema, word).not.to.match(new RegExp(`\\b${word}\\s*[:(]`, 'i'));
    }
  });
});
