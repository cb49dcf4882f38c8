import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sshFingerprintOfBlob } from '@lunanexa/agent-protocol';
import { expect } from 'chai';
import { Client } from 'ssh2';
import { freePort } from './support';
import { makeControllerKey } from './ssh-support';

const MAIN = join(__dirname, '..', 'src', 'main.js');

interface Exit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(configFile: string) {
  const child = spawn(process.execPath, [MAIN, '--config', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Exit>((resolve) =>
    child.on('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, exited, stdout: () => stdout };
}

describe('lunanexa-agent process with ssh', function () {
  this.timeout(90_000);
  const controller = makeControllerKey('controller-1');
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lunanexa-agent-ssh-process-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  async function writeConfig(): Promise<{ file: string; httpPort: number; sshPort: number }> {
    const httpPort = await freePort();
    const sshPort = await freePort();
    const file = join(dir, 'agent.json');
    writeFileSync(
      file,
      JSON.stringify({
        nodeName: 'spark-04',
        listen: { host: '127.0.0.1', port: httpPort },
        dataDir: './state',
        inventory: { source: 'simulated' },
        ssh: {
          host: '127.0.0.1',
          port: sshPort,
          authorizedControllerKeys: [{ keyId: controller.keyId, publicKey: controller.publicLine }],
        },
      }),
    );
    return { file, httpPort, sshPort };
  }

  it('generates its keys, logs the host key fingerprint, accepts the controller, and exits 0 on SIGTERM', async () => {
    const { file, httpPort, sshPort } = await writeConfig();
    const agent = run(file);
    try {
      let health: Record<string, unknown> | undefined;
      // A node process starting on a loaded 2-core machine has taken over 25 s to answer.
      const deadline = Date.now() + 50_000;
      // /health answers as soon as HTTP listens; `ssh` is null there until the SSH server (its host key made) is up.
      while ((health?.['ssh'] ?? null) === null && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        health = await fetch(`http://127.0.0.1:${httpPort}/health`)
          .then((response) => response.json() as Promise<Record<string, unknown>>)
          .catch(() => undefined);
      }
      const ssh = health?.['ssh'] as { port: number; hostKeyFingerprint: string; controllerKeyIds: string[] };
      expect(ssh).to.deep.include({ port: sshPort, controllerKeyIds: ['controller-1'] });
      expect(agent.stdout()).to.contain(ssh.hostKeyFingerprint);

      const client = new Client();
      await new Promise<void>((resolve, reject) => {
        client.once('ready', resolve).once('error', reject);
        client.connect({
          host: '127.0.0.1',
          port: sshPort,
          username: 'lunanexa-controller',
          privateKey: controller.sshPrivateKey,
          hostVerifier: (key: Buffer) => sshFingerprintOfBlob(key) === ssh.hostKeyFingerprint,
        });
      });
      const refused = await new Promise<Error | undefined>((resolve) =>
        client.exec('id', (error) => resolve(error)),
      );
      expect(refused).to.be.instanceOf(Error);
      client.end();
    } finally {
      agent.child.kill('SIGTERM');
    }
    expect((await agent.exited).code).to.equal(0);
  });

  it('exits 78 naming ssh.hostKeyFile when the host key is readable by others', async () => {
    const { file } = await writeConfig();
    const first = run(file);
    // Let it generate its keys, then stop it.
    for (let i = 0; i < 150 && !first.stdout().includes('agent listening'); i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    first.child.kill('SIGTERM');
    expect((await first.exited).code).to.equal(0);
    chmodSync(join(dir, 'state', 'ssh_host_ed25519_key'), 0o644);
    const second = await run(file).exited;
    expect(second.code).to.equal(78);
    expect(second.stderr).to.contain('ssh.hostKeyFile');
    expect(second.stderr).to.contain('chmod 600');
  });
});
