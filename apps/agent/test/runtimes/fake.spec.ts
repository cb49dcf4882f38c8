import { expect } from 'chai';
import { OpenAiChatResponseSchema } from '@lunanexa/contracts';
import {
  FakeRuntimeAdapter,
  RuntimeError,
  createRuntimeAdapters,
  processGroupMembers,
  runtimeSpecFromAssignment,
  waitForReady,
  type RuntimeHandle,
} from '../../src/runtimes';
import {
  ASSIGNMENT,
  FAKE_RECORD,
  SERVED_MODEL,
  assignedRuntime,
  capturedLogger,
  post,
  scratchModel,
} from './support';

describe('fake runtime adapter', function () {
  this.timeout(20_000);
  const adapter = new FakeRuntimeAdapter();
  const started: RuntimeHandle[] = [];
  let model: ReturnType<typeof scratchModel>;

  before(() => {
    model = scratchModel();
  });

  afterEach(async () => {
    await Promise.all(started.splice(0).map((handle) => handle.stop({ graceMs: 1000 })));
  });

  after(() => model.cleanup());

  /** The registry's fake runtime record in an assignment, as the agent receives it. */
  function fakeAssignment(env: Record<string, string> = {}) {
    const record = FAKE_RECORD();
    return runtimeSpecFromAssignment(
      { ...ASSIGNMENT(), gpuUuids: [], env, runtime: assignedRuntime(record) },
      { modelPath: model.modelPath, health: { ...record.health, intervalMs: 100 } },
    );
  }

  async function chat(handle: RuntimeHandle): Promise<string | null | undefined> {
    const res = await post(handle.endpoint, '/v1/chat/completions', {
      model: SERVED_MODEL,
      messages: [{ role: 'user', content: 'Which replicas are ready?' }],
    });
    return OpenAiChatResponseSchema.parse(JSON.parse(res.text)).choices[0]?.message.content;
  }

  it('runs the fake runtime from its registry record: args from the record, settings from the allowlist', async () => {
    const spec = fakeAssignment({ LUNANEXA_FAKE_TTFT_MS: '0', LUNANEXA_FAKE_TOKENS_PER_SECOND: '1000' });
    const first = await adapter.start(spec, { host: '127.0.0.1', logger: capturedLogger().logger });
    started.push(first);
    expect((await waitForReady(adapter, first)).status).to.equal('ready');
    const second = await adapter.start(spec, { host: '127.0.0.1', logger: capturedLogger().logger });
    started.push(second);
    expect((await waitForReady(adapter, second)).status).to.equal('ready');
    // Two replicas of the same assignment answer the same prompt identically: the runtime is deterministic.
    const answer = await chat(first);
    expect(answer).to.be.a('string').and.not.equal('');
    expect(await chat(second)).to.equal(answer);

    const exit = await first.stop();
    expect(exit.status).to.equal(0);
    expect(await processGroupMembers(first.pid)).to.deep.equal([]);
  });

  it('refuses records of another kind and foreign handles', async () => {
    const spec = fakeAssignment();
    const error = await new FakeRuntimeAdapter()
      .start(
        { ...spec, runtime: { ...spec.runtime, kind: 'openai-compatible' } },
        {
          host: '127.0.0.1',
          logger: capturedLogger().logger,
        },
      )
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect((error as RuntimeError).reason).to.equal('WRONG_RUNTIME_KIND');

    const foreign: RuntimeHandle = {
      assignmentId: 'a',
      runtimeId: 'r',
      endpoint: 'http://127.0.0.1:1',
      pid: 1,
      startedAt: new Date(),
      healthCheck: { path: '/health', startupTimeoutMs: 1000, intervalMs: 100 },
      exited: new Promise(() => undefined),
      stop: () => Promise.reject(new Error('not ours')),
    };
    const refused = await adapter.health(foreign).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(refused).to.be.instanceOf(RuntimeError).with.property('reason', 'FOREIGN_HANDLE');
  });

  it('has one adapter per runtime kind', () => {
    const adapters = createRuntimeAdapters();
    expect(Object.keys(adapters).sort()).to.deep.equal(['fake', 'openai-compatible']);
    for (const [kind, each] of Object.entries(adapters)) expect(each.kind).to.equal(kind);
  });
});
