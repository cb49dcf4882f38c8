import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { OpenAiCompletionResponseSchema } from '@lunanexa/contracts';
import { FAKE_RUNTIME_LAUNCH_ARGS, FAKE_RUNTIME_MAIN } from '@lunanexa/fake-runtime';
import {
  OpenAiCompatibleRuntimeAdapter,
  freePort,
  processGroupMembers,
  waitForReady,
  type AssignedRuntime,
  type RuntimeHandle,
} from '../../src/runtimes';
import { SERVED_MODEL, capturedLogger, isAlive, post, scratchModel, specFor } from './support';

const STAND_IN_ENGINE = join(__dirname, 'fixtures', 'stand-in-engine.js');

interface RunRecord {
  readonly argv: string[];
  readonly forwarded: Record<string, string>;
  readonly cliPid: number;
  readonly containerPid: number;
}

/**
 * The container path end to end, with a stand-in for the engine CLI (no
 * docker daemon on test machines): the adapter's argv is parsed by it, the
 * "container" is the fake runtime listening on the container port, and the
 * published host port is proxied to it.
 */
describe('openai-compatible runtime adapter, container packaging', function () {
  this.timeout(20_000);
  let state: string;
  let model: ReturnType<typeof scratchModel>;
  const started: RuntimeHandle[] = [];

  before(() => {
    chmodSync(STAND_IN_ENGINE, 0o755);
    state = mkdtempSync(join(tmpdir(), 'lunanexa-engine-'));
    writeFileSync(
      join(state, 'entrypoints.json'),
      JSON.stringify({ 'lunanexa-fake-runtime': FAKE_RUNTIME_MAIN }),
    );
    model = scratchModel();
  });

  afterEach(async () => {
    await Promise.all(started.splice(0).map((handle) => handle.stop({ graceMs: 1000 })));
  });

  after(() => {
    rmSync(state, { recursive: true, force: true });
    model.cleanup();
  });

  function containerRuntime(containerPort: number): AssignedRuntime {
    return {
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
        envAllowlist: ['LUNANEXA_FAKE_TTFT_MS', 'LUNANEXA_FAKE_SEED'],
        containerPort,
      },
    };
  }

  it('runs, publishes, forwards env by name, and stops through the engine by container name', async () => {
    const containerPort = await freePort('127.0.0.1');
    const adapter = new OpenAiCompatibleRuntimeAdapter({
      containerEngine: STAND_IN_ENGINE,
      agentEnv: {
        PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`,
        DOCKER_CONFIG: state,
        AGENT_ONLY_SECRET: 'must-not-travel',
      },
    });
    const spec = specFor(containerRuntime(containerPort), model.modelPath, {
      assignmentId: 'asg-container-1',
      env: { LUNANEXA_FAKE_TTFT_MS: '0', LUNANEXA_FAKE_SEED: '5' },
    });
    const handle = await adapter.start(spec, { host: '127.0.0.1', logger: capturedLogger().logger });
    started.push(handle);
    expect(handle.endpoint).to.not.include(String(containerPort));
    expect(await waitForReady(adapter, handle)).to.include({ status: 'ready', exit: null });

    const recordFile = join(state, 'lunanexa-asg-container-1.json');
    const record = JSON.parse(readFileSync(recordFile, 'utf8')) as RunRecord;
    expect(record.cliPid).to.equal(handle.pid);
    expect(record.argv.slice(0, 4)).to.deep.equal(['run', '--rm', '--name', 'lunanexa-asg-container-1']);
    expect(record.argv.slice(-11)).to.deep.equal([
      '--entrypoint',
      'lunanexa-fake-runtime',
      `registry.example.internal/lunanexa/fake-runtime@sha256:${'c'.repeat(64)}`,
      '--host',
      '0.0.0.0',
      '--port',
      String(containerPort),
      '--model',
      SERVED_MODEL,
      '--weights',
      '/lunanexa/models/model.fake',
    ]);
    // Values reach the container through the CLI's environment, named in argv, never written there.
    expect(record.forwarded).to.deep.equal({ LUNANEXA_FAKE_TTFT_MS: '0', LUNANEXA_FAKE_SEED: '5' });
    expect(record.argv.join(' ')).to.not.include('must-not-travel');

    // Through the published port, to the runtime inside.
    const res = await post(handle.endpoint, '/v1/completions', {
      model: SERVED_MODEL,
      prompt: 'ping',
      max_tokens: 2,
    });
    expect(OpenAiCompletionResponseSchema.parse(JSON.parse(res.text)).usage.completion_tokens).to.equal(2);

    const exit = await handle.stop({ graceMs: 2000 });
    expect(JSON.parse(readFileSync(join(state, 'lunanexa-asg-container-1.stopped'), 'utf8'))).to.deep.equal({
      args: ['--time', '2', 'lunanexa-asg-container-1'],
    });
    // The "container" got SIGTERM from `stop`, shut down cleanly, and `run --rm` exited with its status.
    expect(exit).to.include({ code: 0, status: 0 });
    expect(isAlive(record.containerPid)).to.equal(false);
    expect(await processGroupMembers(handle.pid)).to.deep.equal([]);
    expect(existsSync(recordFile)).to.equal(false);
  });
});
