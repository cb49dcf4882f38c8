import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Assignment } from '@lunanexa/contracts';
import { expect } from 'chai';
import type { Client } from 'ssh2';
import { RUNTIMES_FILE } from '../src/reconcile/records';
import type { ReplicaHealth } from '../src/reconcile/reconciler';
import { eventually } from './controller-support';
import {
  chat,
  fakeAssignment,
  fakeRuntimePids,
  FAST_RECONCILE,
  killFakeRuntimes,
  uniqueModelVersion,
} from './reconcile-support';
import { fakeAsOpenAiCompatible, isAlive } from './runtimes/support';
import {
  anAssignment,
  connectAs,
  makeControllerKey,
  openProtocol,
  signedPut,
  startSshAgent,
  tempDataDir,
  verifyReply,
  type ControllerKey,
  type ProtocolStream,
  type SshTestAgent,
} from './ssh-support';

const controller = makeControllerKey('controller-1');

async function startAgentWithReconciler(dataDir: string): Promise<SshTestAgent> {
  return startSshAgent(dataDir, [controller], { reconcile: FAST_RECONCILE });
}

async function push(
  agent: SshTestAgent,
  assignment: Assignment,
  key: ControllerKey = controller,
): Promise<void> {
  const client: Client = await connectAs(agent, key);
  try {
    const stream: ProtocolStream = await openProtocol(client);
    stream.send(signedPut(key, assignment));
    verifyReply(agent, await stream.next(), 'assignment.ack');
  } finally {
    client.end();
  }
}

function replica(agent: SshTestAgent, assignmentId: string): ReplicaHealth | undefined {
  return agent.health().replicas.find((entry) => entry.assignmentId === assignmentId);
}

async function replicaIn(
  agent: SshTestAgent,
  assignmentId: string,
  state: ReplicaHealth['state'],
  extra: (replica: ReplicaHealth) => boolean = () => true,
): Promise<ReplicaHealth> {
  return eventually(
    () => {
      const found = replica(agent, assignmentId);
      return found !== undefined && found.state === state && extra(found) ? found : undefined;
    },
    20_000,
    `${assignmentId} ${state}`,
  );
}

function records(dataDir: string): { assignmentId: string; pid: number; generation: number }[] {
  return (JSON.parse(readFileSync(join(dataDir, RUNTIMES_FILE), 'utf8')) as { runtimes: never[] }).runtimes;
}

describe('agent reconciler: one runtime per assignment', function () {
  this.timeout(60_000);
  const modelVersion = uniqueModelVersion();
  let dataDir: string;
  let agent: SshTestAgent;
  let generation = 1;
  const base = (overrides: Partial<Assignment> = {}): Assignment =>
    fakeAssignment({
      modelVersion,
      generation,
      // A slow first token keeps a request in flight long enough to be seen.
      env: { LUNANEXA_FAKE_TTFT_MS: '1500', LUNANEXA_FAKE_TOKENS_PER_SECOND: '1000' },
      ...overrides,
    });

  before(async () => {
    dataDir = tempDataDir();
    agent = await startAgentWithReconciler(dataDir);
  });
  after(async () => {
    await agent.close({ stopRuntimes: true });
    killFakeRuntimes(modelVersion);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts exactly one fake runtime for a pushed assignment, Ready, answering on its port', async () => {
    const assignment = base();
    await push(agent, assignment);
    const ready = await replicaIn(agent, assignment.id, 'Ready');
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([ready.pid]);
    expect(ready).to.deep.include({ generation: 1, restarts: 0, adopted: false, message: null });
    expect(ready.endpointPort).to.be.a('number');
    const answer = await chat(ready.endpointPort as number, modelVersion);
    expect(answer.status).to.equal(200);
    expect(answer.content).to.be.a('string').and.not.equal('');
    const metrics = await (await fetch(`${agent.url}/metrics`)).text();
    expect(metrics).to.match(/^lunanexa_agent_replicas\{state="Ready"\} 1$/m);
    expect(metrics).to.match(/^lunanexa_agent_replicas\{state="Failed"\} 0$/m);
    expect(records(dataDir)).to.have.length(1);
    expect(records(dataDir)[0]).to.deep.include({
      assignmentId: assignment.id,
      pid: ready.pid,
      generation: 1,
    });
    const observed = agent.reconciler.heartbeatObservations();
    expect(observed.observedAssignments).to.deep.equal([
      {
        assignmentId: assignment.id,
        deploymentId: assignment.deploymentId,
        generation: 1,
        state: 'Ready',
        endpointPort: ready.endpointPort,
        restarts: 0,
        message: null,
        inFlightRequests: observed.observedAssignments[0]?.inFlightRequests,
        load: observed.observedAssignments[0]?.load,
      },
    ]);
    // The fake runtime prints vLLM's names; the load is null only if its scrape has not happened yet.
    expect([null, 'vllm']).to.include(observed.observedAssignments[0]?.load?.format ?? null);
    expect(observed.runtimes).to.deep.equal([
      {
        assignmentId: assignment.id,
        runtimeId: assignment.runtime.id,
        pid: ready.pid,
        state: 'Running',
        startedAt: observed.runtimes[0]?.startedAt,
        exitCode: null,
      },
    ]);
  });

  it('reads the requests in flight and the runtime’s load from its vLLM gauges', async () => {
    const assignment = base();
    const { endpointPort } = await replicaIn(
      agent,
      assignment.id,
      'Ready',
      (found) => found.inFlightRequests === 0,
    );
    const request = chat(endpointPort as number, modelVersion);
    const busy = await replicaIn(agent, assignment.id, 'Ready', (found) => found.inFlightRequests === 1);
    expect(busy.load).to.include({ format: 'vllm', running: 1, waiting: 0 });
    expect(busy.load?.cachePressure).to.be.greaterThan(0);
    expect((await request).status).to.equal(200);
    await replicaIn(agent, assignment.id, 'Ready', (found) => found.inFlightRequests === 0);
  });

  it('restarts a runtime that dies, counting the restart, still one process', async () => {
    const assignment = base();
    const before = await replicaIn(agent, assignment.id, 'Ready');
    process.kill(before.pid as number, 'SIGKILL');
    const after = await replicaIn(agent, assignment.id, 'Ready', (found) => found.pid !== before.pid);
    expect(after.restarts).to.equal(1);
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([after.pid]);
    const exited = agent.reconciler
      .heartbeatObservations()
      .runtimes.filter((entry) => entry.state === 'Exited');
    expect(exited.map((entry) => [entry.pid, entry.exitCode])).to.deep.include([before.pid, 137]);
  });

  it('replaces the runtime when a higher generation changes its spec, and keeps it when only the generation moved', async () => {
    const before = await replicaIn(agent, base().id, 'Ready');
    generation = 2;
    await push(agent, base());
    const same = await replicaIn(agent, base().id, 'Ready', (found) => found.generation === 2);
    expect(same.pid).to.equal(before.pid);
    await eventually(() => records(dataDir)[0]?.generation === 2, 5_000, 'runtimes.json at generation 2');
    generation = 3;
    await push(agent, base({ env: { LUNANEXA_FAKE_TTFT_MS: '0' } }));
    const replaced = await replicaIn(agent, base().id, 'Ready', (found) => found.pid !== before.pid);
    expect(replaced).to.deep.include({ generation: 3, restarts: 0 });
    expect(isAlive(before.pid as number)).to.equal(false);
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([replaced.pid]);
  });

  it('stops the runtime on a Stop intent at a higher generation', async () => {
    const before = await replicaIn(agent, base().id, 'Ready');
    generation = 4;
    await push(agent, base({ intent: 'Stop', env: { LUNANEXA_FAKE_TTFT_MS: '0' } }));
    const stopped = await replicaIn(agent, base().id, 'Stopped');
    expect(stopped).to.deep.include({ generation: 4, pid: null, endpointPort: null, message: null });
    expect(isAlive(before.pid as number)).to.equal(false);
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([]);
    expect(records(dataDir)).to.deep.equal([]);
    const exits = agent.reconciler.heartbeatObservations().runtimes;
    // SIGTERM: the fake runtime finishes in-flight work and exits 0.
    expect(exits.find((entry) => entry.pid === before.pid)).to.deep.include({ state: 'Exited', exitCode: 0 });
  });
});

describe('agent reconciler: a serving replica told to Stop drains before it stops', function () {
  this.timeout(60_000);
  const modelVersion = uniqueModelVersion();
  let dataDir: string;
  let agent: SshTestAgent;
  // Each answer takes 3 s to its first token: long enough to overlap the Stop.
  const slow = (overrides: Partial<Assignment> = {}): Assignment =>
    fakeAssignment({ modelVersion, env: { LUNANEXA_FAKE_TTFT_MS: '3000' }, ...overrides });

  before(async () => {
    dataDir = tempDataDir();
    agent = await startSshAgent(dataDir, [controller], {
      reconcile: { ...FAST_RECONCILE, replicaDrain: { deregistrationDelayMs: 1_500, timeoutMs: 20_000 } },
    });
  });
  after(async () => {
    await agent.close({ stopRuntimes: true });
    killFakeRuntimes(modelVersion);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps answering through the deregistration delay and until nothing is in flight, then stops', async () => {
    await push(agent, slow());
    const ready = await replicaIn(agent, slow().id, 'Ready');
    const port = ready.endpointPort as number;
    const inFlight = chat(port, modelVersion);
    await replicaIn(agent, slow().id, 'Ready', (found) => found.inFlightRequests === 1);
    await push(agent, slow({ generation: slow().generation + 1, intent: 'Stop' }));
    await replicaIn(agent, slow().id, 'Stopping');
    // A gateway whose routes are a refresh behind still sends this one: the runtime takes it.
    const late = chat(port, modelVersion);
    expect((await inFlight).status, 'the request in flight at the Stop').to.equal(200);
    expect(isAlive(ready.pid as number), 'not signalled while a request runs').to.equal(true);
    expect((await late).status, 'the request sent during the deregistration delay').to.equal(200);
    const stopped = await replicaIn(agent, slow().id, 'Stopped');
    expect(stopped).to.deep.include({ generation: slow().generation + 1, pid: null });
    expect(isAlive(ready.pid as number)).to.equal(false);
    const exits = agent.reconciler.heartbeatObservations().runtimes;
    expect(exits.find((entry) => entry.pid === ready.pid)).to.deep.include({ state: 'Exited', exitCode: 0 });
  });

  it('does not wait for a replica whose lease lapsed: it is out of every route already', async () => {
    const leaseEnd = Date.now() + 5_000;
    const assignment = slow({ id: `${slow().id}-lease`, leaseExpiresAt: new Date(leaseEnd).toISOString() });
    await push(agent, assignment);
    const ready = await replicaIn(agent, assignment.id, 'Ready');
    await replicaIn(agent, assignment.id, 'Stopped');
    expect(isAlive(ready.pid as number)).to.equal(false);
    expect(Date.now() - leaseEnd, 'stopped without the deregistration delay').to.be.below(1_500);
  });
});

describe('agent reconciler: restarts, leases and artifacts', function () {
  this.timeout(60_000);
  let dataDir: string;
  let agent: SshTestAgent | null;
  let modelVersion: string;

  beforeEach(async () => {
    dataDir = tempDataDir();
    modelVersion = uniqueModelVersion();
    agent = await startAgentWithReconciler(dataDir);
  });
  afterEach(async () => {
    await agent?.close({ stopRuntimes: true });
    killFakeRuntimes(modelVersion);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('adopts its runtime after a graceful restart, without interrupting it, and can still stop it', async () => {
    const assignment = fakeAssignment({ modelVersion });
    await push(agent!, assignment);
    const before = await replicaIn(agent!, assignment.id, 'Ready');
    // A graceful stop (an upgrade) leaves the runtime serving.
    await agent!.close();
    agent = null;
    expect(isAlive(before.pid as number)).to.equal(true);
    expect((await chat(before.endpointPort as number, modelVersion)).status).to.equal(200);
    agent = await startAgentWithReconciler(dataDir);
    const adopted = await replicaIn(agent, assignment.id, 'Ready');
    expect(adopted).to.deep.include({ pid: before.pid, endpointPort: before.endpointPort, adopted: true });
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([before.pid]);
    await push(
      agent,
      fakeAssignment({ modelVersion, generation: assignment.generation + 1, intent: 'Stop' }),
    );
    await replicaIn(agent, assignment.id, 'Stopped');
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([]);
  });

  it('kills a runtime of ours it cannot adopt (not recorded) before starting a fresh one', async () => {
    const assignment = fakeAssignment({ modelVersion });
    await push(agent!, assignment);
    const before = await replicaIn(agent!, assignment.id, 'Ready');
    await agent!.close();
    agent = null;
    rmSync(join(dataDir, RUNTIMES_FILE));
    agent = await startAgentWithReconciler(dataDir);
    // The orphan is gone before anything new starts: never two at once.
    expect(isAlive(before.pid as number)).to.equal(false);
    const fresh = await replicaIn(agent, assignment.id, 'Ready');
    expect(fresh.pid).not.to.equal(before.pid);
    expect(fresh.adopted).to.equal(false);
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([fresh.pid]);
    expect(agent.reconciler.heartbeatObservations().runtimes).to.deep.include({
      assignmentId: assignment.id,
      runtimeId: `orphan-${before.pid}`,
      pid: before.pid,
      state: 'Exited',
      startedAt: null,
      exitCode: null,
    });
  });

  it('stops the runtime when its lease runs out, and says why', async () => {
    const assignment = fakeAssignment({
      modelVersion,
      leaseExpiresAt: new Date(Date.now() + 4_000).toISOString(),
    });
    await push(agent!, assignment);
    const ready = await replicaIn(agent!, assignment.id, 'Ready');
    const stopped = await replicaIn(agent!, assignment.id, 'Stopped');
    expect(stopped.message).to.match(/^lease expired at /);
    expect(isAlive(ready.pid as number)).to.equal(false);
  });

  it('fails an assignment whose model artifact is not on the node and cannot be pulled, and runs it once it is (openai-compatible binary)', async () => {
    const nodeDigest = `sha256:${createHash('sha256').update(readFileSync(process.execPath)).digest('hex')}`;
    const weights = Buffer.from('weights\n');
    const assignment = anAssignment({
      modelVersion,
      gpuUuids: [],
      env: {},
      runtime: fakeAsOpenAiCompatible(nodeDigest),
      artifact: {
        ...anAssignment().artifact,
        digest: `sha256:${createHash('sha256').update(weights).digest('hex')}`,
        sizeBytes: weights.length,
      },
    });
    await push(agent!, assignment);
    const failed = await replicaIn(agent!, assignment.id, 'Failed');
    const artifact = join(dataDir, 'models', assignment.artifact.digest.slice('sha256:'.length));
    // No S3 store is configured for this agent: the pull cannot even start.
    expect(failed.message).to.match(/^DEPENDENCY_UNAVAILABLE: /);
    expect(failed.message).to.contain(artifact);
    mkdirSync(join(dataDir, 'models'), { recursive: true });
    writeFileSync(artifact, 'weights\n');
    const ready = await replicaIn(agent!, assignment.id, 'Ready', (found) => found.inFlightRequests === 0);
    const argv = readFileSync(`/proc/${ready.pid}/cmdline`, 'utf8').split('\0');
    expect(argv).to.include(artifact);
    expect((await chat(ready.endpointPort as number, modelVersion)).status).to.equal(200);
  });
});
