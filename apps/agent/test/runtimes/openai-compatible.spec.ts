import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { OpenAiChatChunkSchema, OpenAiModelListSchema } from '@lunanexa/contracts';
import {
  OpenAiCompatibleRuntimeAdapter,
  RuntimeError,
  processGroupMembers,
  sha256File,
  waitForReady,
  type RuntimeHandle,
  type RuntimeSpec,
} from '../../src/runtimes';
import {
  SERVED_MODEL,
  capturedLogger,
  delay,
  fakeAsOpenAiCompatible,
  get,
  isAlive,
  post,
  scratchModel,
  specFor,
  sseData,
} from './support';

const STUBBORN = join(__dirname, 'fixtures', 'stubborn-runtime.js');
const EXIT_CONFIG = 78;
const EXIT_CRASH = 70;

describe('openai-compatible runtime adapter (against the fake runtime binary)', function () {
  this.timeout(20_000);
  const adapter = new OpenAiCompatibleRuntimeAdapter();
  const started: RuntimeHandle[] = [];
  let nodeDigest = '';
  let model: ReturnType<typeof scratchModel>;

  before(async () => {
    nodeDigest = await sha256File(process.execPath);
    model = scratchModel();
  });

  afterEach(async () => {
    await Promise.all(started.splice(0).map((handle) => handle.stop({ graceMs: 1000 })));
  });

  after(() => model.cleanup());

  async function start(spec: RuntimeSpec, logger = capturedLogger().logger): Promise<RuntimeHandle> {
    const handle = await adapter.start(spec, { host: '127.0.0.1', logger });
    started.push(handle);
    return handle;
  }

  it('starts, becomes ready, streams a completion, and stops leaving no process', async () => {
    const { logger, log } = capturedLogger();
    const handle = await start(
      specFor(fakeAsOpenAiCompatible(nodeDigest), model.modelPath, {
        env: {
          LUNANEXA_FAKE_STARTUP_DELAY_MS: '400',
          LUNANEXA_FAKE_TTFT_MS: '10',
          LUNANEXA_FAKE_TOKENS_PER_SECOND: '500',
        },
      }),
      logger,
    );
    expect(handle.endpoint).to.match(/^http:\/\/127\.0\.0\.1:[0-9]+$/);
    expect(await processGroupMembers(handle.pid)).to.deep.equal([handle.pid]);

    // Model "loading": the runtime answers, but not ready yet.
    let first = await adapter.health(handle);
    for (let i = 0; i < 50 && first.reason !== null && first.reason.includes('ECONNREFUSED'); i += 1) {
      await delay(20);
      first = await adapter.health(handle);
    }
    expect(first.status).to.equal('starting');
    expect(first.reason).to.equal('GET /health answered 503');
    expect((await adapter.metrics(handle)).state).to.equal('Starting');

    const ready = await waitForReady(adapter, handle);
    expect(ready).to.include({ status: 'ready', reason: null, exit: null });

    const res = await post(handle.endpoint, '/v1/chat/completions', {
      model: SERVED_MODEL,
      messages: [{ role: 'user', content: 'hello' }],
      stream: true,
      max_tokens: 5,
    });
    expect(res.status).to.equal(200);
    const events = sseData(res.text);
    expect(events.at(-1)).to.equal('[DONE]');
    const chunks = events.slice(0, -1).map((data) => OpenAiChatChunkSchema.parse(JSON.parse(data)));
    expect(chunks.filter((chunk) => chunk.choices[0]?.delta.content !== undefined)).to.have.length(5);

    const metrics = await adapter.metrics(handle);
    expect(metrics).to.include({ pid: handle.pid, state: 'Running', exitCode: null, processes: 1 });
    expect(metrics.rssBytes).to.be.greaterThan(1024 * 1024);
    expect(metrics.healthProbes).to.be.at.least(2);

    const exit = await handle.stop({ graceMs: 5000 });
    // The fake runtime finishes gracefully on SIGTERM.
    expect(exit).to.include({ code: 0, signal: null, status: 0 });
    expect(isAlive(handle.pid)).to.equal(false);
    expect(await processGroupMembers(handle.pid)).to.deep.equal([]);
    expect((await adapter.metrics(handle)).state).to.equal('Exited');
    expect((await adapter.health(handle)).status).to.equal('failing');
    expect(log.messages()).to.include.members([
      'runtime process started',
      'stopping runtime',
      'runtime process exited',
    ]);
  });

  it('falls back to /v1/models when the health path does not exist', async () => {
    const handle = await start(
      specFor(fakeAsOpenAiCompatible(nodeDigest), model.modelPath, {
        health: { path: '/v2/health/ready', startupTimeoutMs: 10_000, intervalMs: 100 },
      }),
    );
    expect((await waitForReady(adapter, handle)).status).to.equal('ready');
    // /v1/models is also what answered: the runtime lists the served model.
    const models = await get(handle.endpoint, '/v1/models');
    expect(OpenAiModelListSchema.parse(JSON.parse(models.text)).data[0]?.id).to.equal(SERVED_MODEL);
    expect((await get(handle.endpoint, '/v2/health/ready')).status).to.equal(404);
  });

  it('reports a runtime that exits during startup as failing, with its exit status', async () => {
    // The fake runtime refuses this configuration and exits 78 before listening.
    const handle = await start(
      specFor(fakeAsOpenAiCompatible(nodeDigest), model.modelPath, {
        env: { LUNANEXA_FAKE_TOKENS_PER_SECOND: '0' },
      }),
    );
    const health = await waitForReady(adapter, handle);
    expect(health.status).to.equal('failing');
    expect(health.exit).to.include({ code: EXIT_CONFIG, signal: null, status: EXIT_CONFIG });
    expect(health.reason).to.equal(`runtime process exited with status ${EXIT_CONFIG}`);
    expect((await adapter.metrics(handle)).exitCode).to.equal(EXIT_CONFIG);
  });

  it('reports a runtime that crashes after becoming ready as failing', async () => {
    const handle = await start(
      specFor(fakeAsOpenAiCompatible(nodeDigest), model.modelPath, {
        env: { LUNANEXA_FAKE_CRASH_AFTER_REQUESTS: '1', LUNANEXA_FAKE_TTFT_MS: '0' },
      }),
    );
    expect((await waitForReady(adapter, handle)).status).to.equal('ready');
    expect(
      (await post(handle.endpoint, '/v1/completions', { model: SERVED_MODEL, prompt: 'x' })).status,
    ).to.equal(200);
    const exit = await handle.exited;
    expect(exit.status).to.equal(EXIT_CRASH);
    const health = await adapter.health(handle);
    expect(health).to.deep.include({ status: 'failing', exit });
  });

  it('declares failing when the runtime is not ready within the startup timeout', async () => {
    const handle = await start(
      specFor(fakeAsOpenAiCompatible(nodeDigest), model.modelPath, {
        env: { LUNANEXA_FAKE_STARTUP_DELAY_MS: '60000' },
        health: { path: '/health', startupTimeoutMs: 1000, intervalMs: 100 },
      }),
    );
    const health = await waitForReady(adapter, handle);
    expect(health.status).to.equal('failing');
    expect(health.exit).to.equal(null);
    expect(health.reason).to.match(/^not ready within 1000 ms: /);
    expect(isAlive(handle.pid)).to.equal(true);
  });

  it('kills a runtime that ignores SIGTERM, and the workers it forked', async () => {
    const runtime = fakeAsOpenAiCompatible(nodeDigest);
    const handle = await start(
      specFor(
        { ...runtime, launch: { ...runtime.launch, args: [STUBBORN, '--port', '{{port}}'] } },
        model.modelPath,
      ),
    );
    expect((await waitForReady(adapter, handle)).status).to.equal('ready');
    const members = (await processGroupMembers(handle.pid)) ?? [];
    expect(members).to.have.length(2);
    const startedAt = Date.now();
    const exit = await handle.stop({ graceMs: 300 });
    expect(Date.now() - startedAt).to.be.at.least(300);
    expect(exit).to.include({ signal: 'SIGKILL', status: 137 });
    for (const pid of members) expect(isAlive(pid), `pid ${pid}`).to.equal(false);
    expect(await processGroupMembers(handle.pid)).to.deep.equal([]);
  });

  it('refuses a shell launch spec before anything is spawned', async () => {
    const marker = join(model.dir, 'shell-ran');
    for (const executable of ['sh', '/bin/sh', 'bash']) {
      const runtime = fakeAsOpenAiCompatible(nodeDigest);
      const error = await adapter
        .start(
          specFor(
            {
              ...runtime,
              launch: { ...runtime.launch, executable, args: ['-c', `touch ${marker}`, '{{port}}'] },
            },
            model.modelPath,
          ),
          { host: '127.0.0.1', logger: capturedLogger().logger },
        )
        .then(
          () => null,
          (caught: unknown) => caught,
        );
      expect(error).to.be.instanceOf(RuntimeError);
      expect((error as RuntimeError).reason).to.equal('LAUNCH_SPEC_INVALID');
      expect((error as RuntimeError).violations.map((violation) => violation.path)).to.include(
        'runtime.launch.executable',
      );
    }
    await delay(100);
    expect(existsSync(marker)).to.equal(false);
  });

  it('refuses a binary whose digest is not the pinned one, and one that is not installed', async () => {
    const wrongDigest = `sha256:${'0'.repeat(64)}`;
    const mismatch = await adapter
      .start(specFor(fakeAsOpenAiCompatible(wrongDigest), model.modelPath), {
        host: '127.0.0.1',
        logger: capturedLogger().logger,
      })
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect((mismatch as RuntimeError).reason).to.equal('DIGEST_MISMATCH');
    const runtime = fakeAsOpenAiCompatible(nodeDigest);
    const missing = await adapter
      .start(
        specFor(
          { ...runtime, launch: { ...runtime.launch, executable: 'lunanexa-no-such-runtime' } },
          model.modelPath,
        ),
        { host: '127.0.0.1', logger: capturedLogger().logger },
      )
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect((missing as RuntimeError).reason).to.equal('EXECUTABLE_NOT_FOUND');
  });

  it('passes allowlisted values to the runtime without logging them', async () => {
    const { logger, log } = capturedLogger();
    const handle = await start(
      specFor(fakeAsOpenAiCompatible(nodeDigest), model.modelPath, {
        env: { LUNANEXA_FAKE_SEED: '424242' },
      }),
      logger,
    );
    expect((await waitForReady(adapter, handle)).status).to.equal('ready');
    // The seed reached the process: with it, the fake runtime's output differs from the default seed's.
    const ask = async (endpoint: string) =>
      (
        JSON.parse(
          (await post(endpoint, '/v1/completions', { model: SERVED_MODEL, prompt: 'same' })).text,
        ) as {
          choices: { text: string }[];
        }
      ).choices[0]?.text;
    const seeded = await ask(handle.endpoint);
    const plain = await start(specFor(fakeAsOpenAiCompatible(nodeDigest), model.modelPath));
    expect((await waitForReady(adapter, plain)).status).to.equal('ready');
    expect(await ask(plain.endpoint)).to.not.equal(seeded);
    expect(log.raw).to.not.include('424242');
  });
});
