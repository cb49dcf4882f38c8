import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { OrphanReport } from '@lunanexa/agent-protocol';
import type { Assignment } from '@lunanexa/contracts';
import { FAKE_RUNTIME_LAUNCH_ARGS, FAKE_RUNTIME_MAIN } from '@lunanexa/fake-runtime';
import { expect } from 'chai';
import { RUNTIME_ASSIGNMENT_ENV, RUNTIME_OWNER_ENV } from '../src/reconcile/proc';
import { runtimeOwnerTag, type ReplicaHealth } from '../src/reconcile/reconciler';
import { RUNTIMES_FILE } from '../src/reconcile/records';
import { signalGroup } from '../src/runtimes/process-group';
import { ASSIGNMENTS_FILE, AssignmentStore } from '../src/ssh/assignment-store';
import { eventually } from './controller-support';
import {
  chat,
  fakeAssignment,
  fakeRuntimePids,
  killFakeRuntimes,
  uniqueModelVersion,
} from './reconcile-support';
import { fakeAsOpenAiCompatible, isAlive } from './runtimes/support';
import { NODE_NAME, tempDataDir } from './ssh-support';
import { freePort } from './support';

const AGENT = join(__dirname, 'orphan-agent-process.js');
const STAND_IN_ENGINE = join(__dirname, 'runtimes', 'fixtures', 'stand-in-engine.js');
const WITH_WORKER = join(__dirname, 'runtimes', 'fixtures', 'runtime-with-worker.js');
const SWEEP_MS = 400;
const SETTLE_MS = 3_000;

interface AgentView {
  readonly replicas: ReplicaHealth[];
  readonly orphanReports: OrphanReport[];
}

/**
 * Issue 22 "no orphans": runtimes the agent launched that no assignment slot
 * owns are found by tag (processes) or label (containers) at start and by the
 * periodic sweep, adopted when their assignment still wants them and stopped
 * otherwise, each sweep reported. The agent is a real process killed with
 * SIGKILL; the container path uses the stand-in engine CLI, whose state on
 * disk outlives both the agent and the `run` CLI, as a real engine's does.
 */
describe('agent orphan sweep (kill -9, binaries and containers)', function () {
  this.timeout(90_000);
  const children: ChildProcess[] = [];
  const modelVersions: string[] = [];
  const strays: number[] = [];
  let dir: string;
  let engineState: string;

  before(() => {
    chmodSync(STAND_IN_ENGINE, 0o755);
    dir = mkdtempSync(join(tmpdir(), 'lunanexa-orphans-'));
    engineState = join(dir, 'engine');
    execFileSync('mkdir', ['-p', engineState]);
    writeFileSync(
      join(engineState, 'entrypoints.json'),
      JSON.stringify({ 'lunanexa-fake-runtime': FAKE_RUNTIME_MAIN }),
    );
  });

  after(() => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const name of engine(['ps', '-a', '--format', '{{.ID}}']).split('\n').filter(Boolean))
      engine(['rm', '-f', name]);
    for (const version of modelVersions) killFakeRuntimes(version);
    for (const pid of strays) signalGroup(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  function engine(args: string[]): string {
    return execFileSync(STAND_IN_ENGINE, args, {
      env: { PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`, DOCKER_CONFIG: engineState },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  function inspect(name: string): { Id: string; State: { Running: boolean; Pid: number } } | null {
    try {
      return (JSON.parse(engine(['inspect', '--type', 'container', name])) as never[])[0] ?? null;
    } catch {
      return null;
    }
  }

  async function storeWith(dataDir: string, assignments: readonly Assignment[]): Promise<void> {
    const store = await AssignmentStore.open(join(dataDir, ASSIGNMENTS_FILE), NODE_NAME);
    for (const assignment of assignments)
      await store.apply({
        assignment,
        envelopeId: `env-${assignment.id}`,
        signedBy: 'controller-1',
        now: new Date(),
      });
  }

  async function startAgent(
    dataDir: string,
  ): Promise<{ child: ChildProcess; view: () => Promise<AgentView | null> }> {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        AGENT,
        JSON.stringify({
          dataDir,
          nodeId: NODE_NAME,
          port,
          engine: STAND_IN_ENGINE,
          engineState,
          sweepMs: SWEEP_MS,
          settleMs: SETTLE_MS,
        }),
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
    children.push(child);
    const view = async (): Promise<AgentView | null> => {
      try {
        return (await (await fetch(`http://127.0.0.1:${port}/`)).json()) as AgentView;
      } catch {
        return null;
      }
    };
    return { child, view };
  }

  async function kill9(child: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async function ready(view: () => Promise<AgentView | null>, assignmentId: string): Promise<ReplicaHealth> {
    return eventually(
      async () =>
        (await view())?.replicas.find((r) => r.assignmentId === assignmentId && r.state === 'Ready'),
      30_000,
      `${assignmentId} Ready`,
    );
  }

  /** The fake runtime packaged as a container image, run through the stand-in engine. */
  async function containerAssignment(modelVersion: string, id: string): Promise<Assignment> {
    return {
      ...fakeAssignment({ modelVersion, id }),
      runtime: {
        id: 'runtime-fake-container',
        kind: 'openai-compatible',
        packaging: {
          type: 'container',
          image: 'registry.example.internal/lunanexa/fake-runtime',
          digest: `sha256:${'c'.repeat(64)}`,
        },
        launch: {
          executable: 'lunanexa-fake-runtime',
          args: [...FAKE_RUNTIME_LAUNCH_ARGS],
          envAllowlist: [],
          containerPort: await freePort(),
        },
      },
    };
  }

  /** Children of `pid` that lead a process group of their own. */
  function workersOf(pid: number): number[] {
    return readdirSync('/proc')
      .filter((entry) => /^[0-9]+$/.test(entry))
      .flatMap((entry) => {
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          return Number(fields[1]) === pid && Number(fields[2]) === Number(entry) ? [Number(entry)] : [];
        } catch {
          return [];
        }
      });
  }

  /** A process carrying the agent's owner tag that no assignment owns (what a crash mid-start can leave). */
  function strayTaggedProcess(dataDir: string, assignmentId: string): number {
    const stray = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      detached: true,
      stdio: 'ignore',
      env: { [RUNTIME_OWNER_ENV]: runtimeOwnerTag(dataDir), [RUNTIME_ASSIGNMENT_ENV]: assignmentId },
    });
    stray.unref();
    strays.push(stray.pid as number);
    return stray.pid as number;
  }

  it('binary: adopts the wanted runtime (same pid), stops a stray tagged group at start and one appearing later', async () => {
    const dataDir = tempDataDir();
    const modelVersion = uniqueModelVersion();
    modelVersions.push(modelVersion);
    const assignment = fakeAssignment({ modelVersion, id: 'asg-orphans-binary' });
    await storeWith(dataDir, [assignment]);

    const first = await startAgent(dataDir);
    const before = await ready(first.view, assignment.id);
    const runtimePid = before.pid as number;
    await kill9(first.child);
    expect(isAlive(runtimePid)).to.equal(true);
    const stray = strayTaggedProcess(dataDir, 'asg-nobody-owns');

    const second = await startAgent(dataDir);
    const after = await ready(second.view, assignment.id);
    expect(after).to.deep.include({ pid: runtimePid, adopted: true, restarts: 0 });
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([runtimePid]);
    expect((await chat(after.endpointPort as number, modelVersion)).status).to.equal(200);
    await eventually(() => !isAlive(stray), 10_000, 'the stray tagged process stopped');
    const atStart = (await second.view())?.orphanReports.find((report) => report.trigger === 'start');
    expect(atStart?.adopted).to.deep.equal([
      {
        kind: 'process',
        pid: runtimePid,
        container: null,
        assignmentId: assignment.id,
        reason: 'recorded runtime still wanted by its assignment (same launch digest) and answering',
      },
    ]);
    expect(atStart?.stopped).to.deep.equal([
      {
        kind: 'process',
        pid: stray,
        container: null,
        assignmentId: 'asg-nobody-owns',
        reason: 'assignment asg-nobody-owns is not held by this agent',
      },
    ]);
    expect(atStart?.failed).to.deep.equal([]);

    // While the agent runs: left alone for the settle time (it could be a start in progress), then stopped.
    const late = strayTaggedProcess(dataDir, 'asg-late-stray');
    await new Promise((resolve) => setTimeout(resolve, SWEEP_MS * 2));
    expect(isAlive(late)).to.equal(true);
    await eventually(() => !isAlive(late), 15_000, 'the late stray stopped by the periodic sweep');
    const periodic = await eventually(
      async () =>
        (await second.view())?.orphanReports.find(
          (report) => report.trigger === 'periodic' && report.stopped.some((action) => action.pid === late),
        ),
      5_000,
      'a periodic report naming the late stray',
    );
    expect(periodic.stopped).to.deep.equal([
      {
        kind: 'process',
        pid: late,
        container: null,
        assignmentId: 'asg-late-stray',
        reason: 'assignment asg-late-stray is not held by this agent',
      },
    ]);
    // The adopted runtime is owned by its slot: never swept, never restarted.
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([runtimePid]);
    expect((await second.view())?.replicas[0]).to.deep.include({ pid: runtimePid, restarts: 0 });
    await kill9(second.child);
    killFakeRuntimes(modelVersion);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('container: adopts the wanted container across a restart, removes one nobody wants, and sweeps one appearing later', async () => {
    const dataDir = tempDataDir();
    const modelVersion = uniqueModelVersion();
    modelVersions.push(modelVersion);
    const assignment = await containerAssignment(modelVersion, 'asg-orphans-container');
    await storeWith(dataDir, [assignment]);
    const name = 'lunanexa-asg-orphans-container';

    const first = await startAgent(dataDir);
    const before = await ready(first.view, assignment.id);
    const container = inspect(name);
    expect(container?.State.Running).to.equal(true);
    const cliPid = (JSON.parse(readFileSync(join(engineState, `${name}.json`), 'utf8')) as { cliPid: number })
      .cliPid;
    expect(cliPid).to.equal(before.pid);
    const labels = (
      JSON.parse(readFileSync(join(engineState, `${name}.json`), 'utf8')) as {
        labels: Record<string, string>;
      }
    ).labels;
    expect(labels).to.include({
      'lunanexa.owner': runtimeOwnerTag(dataDir),
      'lunanexa.assignment': assignment.id,
      'lunanexa.endpoint': `http://127.0.0.1:${before.endpointPort as number}`,
    });
    expect(labels['lunanexa.launch-digest']).to.match(/^sha256:[0-9a-f]{64}$/);
    expect(
      (
        JSON.parse(readFileSync(join(dataDir, RUNTIMES_FILE), 'utf8')) as {
          runtimes: { container?: string }[];
        }
      ).runtimes[0]?.container,
    ).to.equal(name);

    // The agent's whole cgroup dies (kill -9 of the agent and of its `run` CLI): the container lives on in the engine.
    await kill9(first.child);
    signalGroup(cliPid, 'SIGKILL');
    await eventually(() => !isAlive(cliPid), 5_000, 'the run CLI gone');
    expect(inspect(name)?.State).to.deep.include({ Running: true, Pid: container?.State.Pid });
    expect((await chat(before.endpointPort as number, modelVersion)).status).to.equal(200);
    // And one of ours that no assignment wants any more.
    const stalePort = await freePort();
    const staleContainerPort = await freePort();
    const staleVersion = uniqueModelVersion();
    modelVersions.push(staleVersion);
    const runDetached = (
      containerName: string,
      assignmentId: string,
      hostPort: number,
      port: number,
      model: string,
    ) =>
      engine([
        'run',
        '-d',
        '--name',
        containerName,
        '--label',
        `lunanexa.owner=${runtimeOwnerTag(dataDir)}`,
        '--label',
        `lunanexa.assignment=${assignmentId}`,
        '--publish',
        `127.0.0.1:${hostPort}:${port}`,
        '--entrypoint',
        'lunanexa-fake-runtime',
        'registry.example.internal/lunanexa/fake-runtime@sha256:' + 'c'.repeat(64),
        '--host',
        '0.0.0.0',
        '--port',
        String(port),
        '--model',
        model,
        '--weights',
        FAKE_RUNTIME_MAIN,
      ]).trim();
    runDetached('lunanexa-asg-gone', 'asg-gone', stalePort, staleContainerPort, staleVersion);
    expect(inspect('lunanexa-asg-gone')?.State.Running).to.equal(true);

    const second = await startAgent(dataDir);
    const after = await ready(second.view, assignment.id);
    expect(after).to.deep.include({ adopted: true, restarts: 0, endpointPort: before.endpointPort });
    // The same container, never restarted.
    expect(inspect(name)).to.deep.include({ Id: container?.Id });
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([container?.State.Pid]);
    expect((await chat(after.endpointPort as number, modelVersion)).status).to.equal(200);
    expect(inspect('lunanexa-asg-gone')).to.equal(null);
    expect(fakeRuntimePids(staleVersion)).to.deep.equal([]);
    const atStart = (await second.view())?.orphanReports.find((report) => report.trigger === 'start');
    expect(atStart?.adopted).to.deep.equal([
      {
        kind: 'container',
        pid: null,
        container: name,
        assignmentId: assignment.id,
        reason: 'still wanted by its assignment (same launch digest), running and answering',
      },
    ]);
    expect(atStart?.stopped).to.deep.equal([
      {
        kind: 'container',
        pid: null,
        container: 'lunanexa-asg-gone',
        assignmentId: 'asg-gone',
        reason: 'assignment asg-gone is not held by this agent',
      },
    ]);

    // A container of ours appears while the agent runs, for an assignment nobody owns: swept after the settle time.
    const latePort = await freePort();
    const lateContainerPort = await freePort();
    const lateVersion = uniqueModelVersion();
    modelVersions.push(lateVersion);
    runDetached('lunanexa-asg-late', 'asg-late', latePort, lateContainerPort, lateVersion);
    await new Promise((resolve) => setTimeout(resolve, SWEEP_MS * 2));
    expect(inspect('lunanexa-asg-late')?.State.Running).to.equal(true);
    await eventually(() => inspect('lunanexa-asg-late') === null, 20_000, 'the late container removed');
    expect(fakeRuntimePids(lateVersion)).to.deep.equal([]);
    const periodic = await eventually(
      async () =>
        (await second.view())?.orphanReports.find(
          (report) =>
            report.trigger === 'periodic' && report.stopped.some((a) => a.container === 'lunanexa-asg-late'),
        ),
      5_000,
      'a periodic report naming the late container',
    );
    expect(periodic.stopped).to.deep.equal([
      {
        kind: 'container',
        pid: null,
        container: 'lunanexa-asg-late',
        assignmentId: 'asg-late',
        reason: 'assignment asg-late is not held by this agent',
      },
    ]);
    // The adopted container is its slot's: the sweep leaves it, and it keeps serving.
    expect(inspect(name)).to.deep.include({ Id: container?.Id });
    expect(engine(['ps', '-a', '--no-trunc', '--format', '{{.ID}}']).trim()).to.equal(container?.Id);
    await kill9(second.child);
    engine(['rm', '-f', name]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('container: adopts by label alone (runtimes.json lost) and leaves the live run CLI alone, which would stop it', async () => {
    const dataDir = tempDataDir();
    const modelVersion = uniqueModelVersion();
    modelVersions.push(modelVersion);
    const assignment = await containerAssignment(modelVersion, 'asg-orphans-cli');
    await storeWith(dataDir, [assignment]);
    const name = 'lunanexa-asg-orphans-cli';
    const first = await startAgent(dataDir);
    const before = await ready(first.view, assignment.id);
    const container = inspect(name);
    await kill9(first.child);
    rmSync(join(dataDir, RUNTIMES_FILE));
    // The CLI (own process group, owner tag) outlived the agent; SIGTERM to it would stop the container.
    expect(isAlive(before.pid as number)).to.equal(true);

    const second = await startAgent(dataDir);
    const after = await ready(second.view, assignment.id);
    expect(after).to.deep.include({ adopted: true, restarts: 0, endpointPort: before.endpointPort });
    expect(inspect(name)).to.deep.include({ Id: container?.Id });
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([container?.State.Pid]);
    expect(isAlive(before.pid as number)).to.equal(true);
    // Several periodic sweeps later, still the same container, still its CLI.
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + SWEEP_MS * 3));
    expect(isAlive(before.pid as number)).to.equal(true);
    expect(inspect(name)?.State).to.deep.include({ Running: true, Pid: container?.State.Pid });
    const reports = (await second.view())?.orphanReports ?? [];
    expect(reports.map((report) => report.trigger)).to.deep.equal(['start']);
    expect(reports[0]?.adopted.map((action) => action.container)).to.deep.equal([name]);
    expect(reports[0]?.stopped).to.deep.equal([]);
    await kill9(second.child);
    engine(['rm', '-f', name]);
    await eventually(() => !isAlive(before.pid as number), 10_000, 'the run CLI ends with its container');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('binary: never sweeps a worker its runtime started in a session of its own', async () => {
    const dataDir = tempDataDir();
    const modelVersion = uniqueModelVersion();
    modelVersions.push(modelVersion);
    const nodeDigest = `sha256:${createHash('sha256').update(readFileSync(process.execPath)).digest('hex')}`;
    const runtime = fakeAsOpenAiCompatible(nodeDigest);
    const assignment = fakeAssignment({
      modelVersion,
      id: 'asg-orphans-worker',
      runtime: {
        ...runtime,
        launch: { ...runtime.launch, args: [WITH_WORKER, ...FAKE_RUNTIME_LAUNCH_ARGS] },
      },
    });
    await storeWith(dataDir, [assignment]);
    const agent = await startAgent(dataDir);
    const { pid } = await ready(agent.view, assignment.id);
    // Its argv names this wrapper, not the fake runtime: the after hook finds it here.
    strays.push(pid as number);
    const worker = await eventually(
      () => workersOf(pid as number)[0],
      10_000,
      "the runtime's worker in its own session",
    );
    strays.push(worker);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + SWEEP_MS * 4));
    expect(isAlive(worker)).to.equal(true);
    expect((await agent.view())?.orphanReports).to.deep.equal([]);
    await kill9(agent.child);
    signalGroup(pid as number, 'SIGKILL');
    signalGroup(worker, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });
});
