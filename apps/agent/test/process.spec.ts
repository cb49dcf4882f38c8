import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { expect } from 'chai';
import { FIXTURES_DIR, MIB, freePort } from './support';

/** The built entry point, as an operator (or systemd) would start it. */
const MAIN = join(__dirname, '..', 'src', 'main.js');

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function run(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { child: ChildProcess; exited: Promise<Exit> } {
  const child = spawn(process.execPath, [MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<Exit>((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, exited };
}

/** Polls until the agent answers or exits; an early exit fails with its stderr. */
async function waitForHealth(
  url: string,
  exited: Promise<Exit>,
  timeoutMs = 15_000,
): Promise<Record<string, unknown>> {
  let exit: Exit | undefined;
  void exited.then((value) => (exit = value));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exit !== undefined) throw new Error(`agent exited early (${String(exit.code)}): ${exit.stderr}`);
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) return (await response.json()) as Record<string, unknown>;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`agent did not answer ${url}/health within ${timeoutMs} ms`);
}

describe('lunanexa-agent process', function () {
  this.timeout(30_000);
  let dir: string;
  let running: ChildProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lunanexa-agent-process-'));
  });
  afterEach(() => {
    if (running !== undefined && running.exitCode === null && running.signalCode === null)
      running.kill('SIGKILL');
    running = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves /health for a simulated DGX Spark, creates dataDir, and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      [
        'nodeName: spark-03',
        `listen: { host: 127.0.0.1, port: ${port} }`,
        'dataDir: ./state',
        'inventory: { source: simulated, profile: dgx-spark }',
        'labels: { rack: r1 }',
      ].join('\n'),
    );
    const { child, exited } = run(['--config', file]);
    running = child;

    const health = await waitForHealth(`http://127.0.0.1:${port}`, exited);
    expect(health).to.deep.include({ status: 'ok', nodeName: 'spark-03', protocol: 'lunanexa-agent-v1' });
    expect(health['inventory']).to.deep.include({ architecture: 'arm64', gpuCount: 1 });
    expect(existsSync(join(dir, 'state'))).to.equal(true);

    child.kill('SIGTERM');
    const exit = await exited;
    expect(exit.code, exit.stderr).to.equal(0);
    expect(exit.stdout).to.contain('"msg":"stopped"');
  });

  it('also stops cleanly on SIGINT, with the config file named by LUNANEXA_AGENT_CONFIG', async () => {
    const port = await freePort();
    const file = join(dir, 'agent.json');
    writeFileSync(
      file,
      JSON.stringify({
        nodeName: 'hopper-01',
        listen: { host: '127.0.0.1', port },
        dataDir: join(dir, 'data'),
        inventory: { source: 'simulated', profile: 'h100-8x' },
      }),
    );
    const { child, exited } = run([], { ...process.env, LUNANEXA_AGENT_CONFIG: file });
    running = child;
    const health = await waitForHealth(`http://127.0.0.1:${port}`, exited);
    expect(health['inventory']).to.deep.include({ architecture: 'amd64', gpuCount: 8 });
    child.kill('SIGINT');
    expect((await exited).code).to.equal(0);
  });

  it('runs nvidia-smi from PATH with only the fixed arguments', async function () {
    // Uses the real /proc/meminfo and a fake nvidia-smi script, so Linux only.
    if (process.platform !== 'linux') this.skip();
    const bin = join(dir, 'bin');
    const argvLog = join(dir, 'nvidia-smi.argv');
    mkdirSync(bin);
    const fake = join(bin, 'nvidia-smi');
    // Answers the two allowed command lines from the captures and fails anything else.
    writeFileSync(
      fake,
      [
        '#!/bin/sh',
        `printf '<%s>\\n' "$*" >> '${argvLog}'`,
        'if [ "$*" = "--query-gpu=index,name,uuid,memory.total,memory.used,memory.free,compute_cap,driver_version,mig.mode.current --format=csv,noheader,nounits" ]; then',
        `  exec cat '${join(FIXTURES_DIR, 'h100-8x-query-gpu.csv')}'`,
        'elif [ "$#" -eq 0 ]; then',
        `  exec cat '${join(FIXTURES_DIR, 'h100-8x-nvidia-smi.txt')}'`,
        'fi',
        'echo "unexpected arguments: $*" >&2',
        'exit 2',
        '',
      ].join('\n'),
    );
    chmodSync(fake, 0o755);
    const port = await freePort();
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      `nodeName: hopper-02\nlisten: { host: 127.0.0.1, port: ${port} }\ndataDir: ./state\ninventory: { source: nvidia-smi }\n`,
    );
    const { child, exited } = run(['--config', file], {
      ...process.env,
      PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}`,
    });
    running = child;

    const health = await waitForHealth(`http://127.0.0.1:${port}`, exited);
    expect(health['status']).to.equal('ok');
    const inventory = health['inventory'] as { gpuCount: number; gpus: Record<string, unknown>[] };
    expect(inventory.gpuCount).to.equal(8);
    expect(inventory.gpus[0]).to.deep.equal({
      name: 'NVIDIA H100 80GB HBM3',
      memoryModel: 'discrete',
      totalMemoryBytes: 81_559 * MIB,
      memorySource: 'nvml',
    });
    child.kill('SIGTERM');
    expect((await exited).code).to.equal(0);
    expect(readFileSync(argvLog, 'utf8').trim().split('\n')).to.deep.equal([
      '<--query-gpu=index,name,uuid,memory.total,memory.used,memory.free,compute_cap,driver_version,mig.mode.current --format=csv,noheader,nounits>',
      '<>',
    ]);
  });

  it('exits 78 naming the field and the file for a bad config', async () => {
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      'nodeName: Not_A_Label\nlisten: { host: 127.0.0.1, port: 9464 }\ndataDir: ./state\ninventory: { source: simulated }\n',
    );
    const exit = await run(['--config', file]).exited;
    expect(exit.code).to.equal(78);
    expect(exit.stderr).to.contain(file);
    expect(exit.stderr).to.match(/^\s+nodeName: /m);
    expect(existsSync(join(dir, 'state')), 'no state is created from a rejected config').to.equal(false);
  });

  it('exits 78 naming dataDir when it cannot be created', async () => {
    const blocker = join(dir, 'not-a-directory');
    writeFileSync(blocker, '');
    const file = join(dir, 'agent.yaml');
    writeFileSync(
      file,
      `nodeName: spark-04\nlisten: { host: 127.0.0.1, port: 9464 }\ndataDir: ${join(blocker, 'state')}\ninventory: { source: simulated }\n`,
    );
    const exit = await run(['--config', file]).exited;
    expect(exit.code).to.equal(78);
    expect(exit.stderr).to.match(/^\s+dataDir: /m);
  });

  it('exits 78 when no config file is named, and 64 for an unknown option', async () => {
    const env = { ...process.env };
    delete env['LUNANEXA_AGENT_CONFIG'];
    const missing = await run([], env).exited;
    expect(missing.code).to.equal(78);
    expect(missing.stderr).to.contain('--config / LUNANEXA_AGENT_CONFIG');
    const usage = await run(['--conifg', 'x.yaml'], env).exited;
    expect(usage.code).to.equal(64);
    expect(usage.stderr).to.contain('usage: lunanexa-agent --config <file>');
  });
});
