import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { verifyEnvelope } from '@lunanexa/agent-protocol';
import { expect } from 'chai';
import { HEARTBEAT_STATE_FILE } from '../src/heartbeat/sequence';
import type { AgentHealth } from '../src/health';
import { eventually } from './controller-support';
import {
  chat,
  fakeAssignment,
  fakeRuntimePids,
  killFakeRuntimes,
  uniqueModelVersion,
} from './reconcile-support';
import { isAlive } from './runtimes/support';
import {
  connect,
  makeControllerKey,
  NODE_NAME,
  nodePublicKey,
  openProtocol,
  signedPut,
  tempDataDir,
  type SshTestAgent,
} from './ssh-support';
import { freePort } from './support';

const MAIN = join(__dirname, '..', 'src', 'main.js');

/**
 * The crash-safety gate: an agent killed with SIGKILL while its deployment
 * runs comes back on its own — no controller — with its runtime still
 * serving and exactly one runtime process for the assignment.
 */
describe('lunanexa-agent crash safety (kill -9)', function () {
  this.timeout(90_000);
  const controller = makeControllerKey('controller-1');
  const modelVersion = uniqueModelVersion();
  let dir: string;
  let child: ChildProcess | null = null;
  let url: string;

  function startProcess(configFile: string): ChildProcess {
    const started = spawn(process.execPath, [MAIN, '--config', configFile], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    started.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    started.once('exit', (code, signal) => {
      if (code !== 0 && signal === null) process.stderr.write(`agent exited ${String(code)}: ${stderr}\n`);
    });
    return started;
  }

  async function health(): Promise<AgentHealth | null> {
    try {
      const response = await fetch(`${url}/health`);
      return response.ok ? ((await response.json()) as AgentHealth) : null;
    } catch {
      return null;
    }
  }

  async function exitOf(
    process: ChildProcess,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (process.exitCode !== null || process.signalCode !== null) {
      return { code: process.exitCode, signal: process.signalCode };
    }
    return new Promise((resolve) => process.once('exit', (code, signal) => resolve({ code, signal })));
  }

  before(() => {
    dir = tempDataDir();
  });
  after(async () => {
    if (child !== null && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exitOf(child);
    }
    killFakeRuntimes(modelVersion);
    rmSync(dir, { recursive: true, force: true });
  });

  it('resumes heartbeats and keeps exactly one serving runtime after SIGKILL, with the controller silent', async () => {
    const listenPort = await freePort();
    const sshPort = await freePort();
    // Nothing listens there: the controller stays silent for the whole test.
    const silentController = `http://127.0.0.1:${await freePort()}`;
    url = `http://127.0.0.1:${listenPort}`;
    const dataDir = join(dir, 'state');
    const configFile = join(dir, 'agent.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        nodeName: NODE_NAME,
        listen: { host: '127.0.0.1', port: listenPort },
        dataDir,
        controllerUrl: silentController,
        heartbeatIntervalSeconds: 1,
        inventory: { source: 'simulated' },
        ssh: {
          host: '127.0.0.1',
          port: sshPort,
          authorizedControllerKeys: [{ keyId: controller.keyId, publicKey: controller.publicLine }],
        },
      }),
    );

    child = startProcess(configFile);
    // /health can answer a moment before the SSH server reports its host key: wait for both.
    const first = await eventually(
      async () => {
        const current = await health();
        return current?.ssh?.hostKeyFingerprint ? current : null;
      },
      15_000,
      'the agent answering /health with its SSH host key',
    );
    const assignment = fakeAssignment({ modelVersion });
    const target = { sshPort, hostKeyFingerprint: first.ssh?.hostKeyFingerprint } as SshTestAgent;
    // The SSH port listens before the agent serves the protocol (it closes channels "still starting" until then).
    const ack = await eventually(
      async () => {
        const client = await connect(target, {
          privateKey: controller.sshPrivateKey,
          authHandler: ['publickey'],
        });
        try {
          const stream = await openProtocol(client);
          stream.send(signedPut(controller, assignment));
          return verifyEnvelope(
            new Map([[first.nodeKeyId as string, nodePublicKey(dataDir)]]),
            await stream.next(),
            {
              now: new Date(),
              nodeId: NODE_NAME,
            },
          );
        } catch (error: unknown) {
          if (error instanceof Error && error.message === 'channel closed') return undefined;
          throw error;
        } finally {
          client.end();
        }
      },
      15_000,
      'the agent serving the protocol channel',
    );
    expect(ack.type).to.equal('assignment.ack');

    const ready = await eventually(
      async () => {
        const replica = (await health())?.replicas[0];
        return replica?.state === 'Ready' ? replica : undefined;
      },
      30_000,
      'the runtime Ready',
    );
    const runtimePid = ready.pid as number;
    const port = ready.endpointPort as number;
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([runtimePid]);
    const beatsBefore = await eventually(
      async () => {
        const beat = (await health())?.heartbeat;
        return beat !== null && beat !== undefined && beat.sequence >= 2 ? beat : undefined;
      },
      15_000,
      'two heartbeats attempted',
    );
    expect(beatsBefore.lastOutcome).to.equal('unreachable');

    // kill -9: no shutdown code runs at all.
    const killed = child;
    killed.kill('SIGKILL');
    expect((await exitOf(killed)).signal).to.equal('SIGKILL');
    const sequenceAtDeath = (
      JSON.parse(readFileSync(join(dataDir, HEARTBEAT_STATE_FILE), 'utf8')) as {
        lastSequence: number;
      }
    ).lastSequence;
    // The runtime is in its own process group: it kept serving while the agent was dead.
    expect(isAlive(runtimePid)).to.equal(true);
    expect((await chat(port, modelVersion)).status).to.equal(200);

    child = startProcess(configFile);
    const resumed = await eventually(
      async () => {
        const replica = (await health())?.replicas[0];
        return replica?.state === 'Ready' ? replica : undefined;
      },
      30_000,
      'the assignment Ready again after the restart',
    );
    expect(resumed).to.deep.include({ pid: runtimePid, endpointPort: port, adopted: true, restarts: 0 });
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([runtimePid]);
    const answer = await chat(port, modelVersion);
    expect(answer.status).to.equal(200);
    expect(answer.content).to.be.a('string').and.not.equal('');
    const beatsAfter = await eventually(
      async () => {
        const beat = (await health())?.heartbeat;
        return beat !== null && beat !== undefined && beat.sequence > sequenceAtDeath ? beat : undefined;
      },
      15_000,
      'heartbeats resumed with a higher sequence',
    );
    expect(beatsAfter.lastOutcome).to.equal('unreachable');

    // A graceful stop (an upgrade) exits 0 and leaves the runtime serving too; the next start adopts it again.
    const stopping = child;
    stopping.kill('SIGTERM');
    expect(await exitOf(stopping)).to.deep.equal({ code: 0, signal: null });
    expect(isAlive(runtimePid)).to.equal(true);
    child = startProcess(configFile);
    const again = await eventually(
      async () => {
        const replica = (await health())?.replicas[0];
        return replica?.state === 'Ready' ? replica : undefined;
      },
      30_000,
      'the assignment Ready after a graceful restart',
    );
    expect(again).to.deep.include({ pid: runtimePid, adopted: true });
    expect(fakeRuntimePids(modelVersion)).to.deep.equal([runtimePid]);
  });
});
