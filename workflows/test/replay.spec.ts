import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import * as workflows from '../src';

/**
 * Replays every committed workflow history against today's workflow code.
 * A change that alters the commands a workflow issues for an existing history
 * (non-determinism) fails here before it can break running workflows.
 * Refresh them from the real stack with
 * `LUNANEXA_RECORD_HISTORIES=1 npm test -- --only integration --only e2e`
 * (integration writes ping, evaluate, benchmark-run and retention-expiry; every e2e fleet
 * writes `<type>.recorded.binpb` for each workflow type it ran).
 */
const HISTORIES = join(__dirname, '..', '..', 'test', 'histories');

function workflowTypeOf(history: temporal.api.history.v1.IHistory): string {
  const name = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
  if (!name) throw new Error('a history must begin with WorkflowExecutionStarted');
  return name;
}

describe('committed workflow histories replay deterministically', function () {
  this.timeout(180_000);
  const files = readdirSync(HISTORIES)
    .filter((f) => f.endsWith('.binpb'))
    .sort();
  const histories = new Map(
    files.map((file) => [file, temporal.api.history.v1.History.decode(readFileSync(join(HISTORIES, file)))]),
  );
  let bundle: WorkflowBundle;

  before(async () => {
    try {
      // A replay starts and stops a worker per history; its state changes would drown the output.
      Runtime.install({ logger: new DefaultLogger('WARN') });
    } catch {
      // Another spec in this process installed the runtime first.
    }
    // One bundle for every history: bundling is the slow part of a replay.
    bundle = await bundleWorkflowCode({ workflowsPath: require.resolve('../src'), logger: quietLogger });
  });

  it('has at least one recorded history for every workflow type the worker registers', () => {
    const recorded = new Set([...histories.values()].map(workflowTypeOf));
    const registered = Object.keys(workflows).sort();
    expect(registered).to.include('pingWorkflow');
    expect(
      registered.filter((type) => !recorded.has(type)),
      'workflow types with no recorded history',
    ).to.deep.equal([]);
  });

  for (const file of files) {
    it(`replays ${file}`, async () => {
      const history = histories.get(file)!;
      await Worker.runReplayHistory({ workflowBundle: bundle, replayName: file }, history);
    });
  }
});

/**
 * The worker bundles the OpenTelemetry workflow interceptors only with tracing
 * on; they add headers and spans, never commands, so every history must replay
 * the same with them bundled (a worker can be restarted with tracing on mid-run).
 */
describe('committed workflow histories replay with the tracing interceptors bundled', function () {
  this.timeout(180_000);
  const files = readdirSync(HISTORIES)
    .filter((f) => f.endsWith('.binpb'))
    .sort();
  let bundle: WorkflowBundle;

  before(async () => {
    bundle = await bundleWorkflowCode({
      workflowsPath: require.resolve('../src'),
      workflowInterceptorModules: [require.resolve('../src/tracing-interceptors')],
      logger: quietLogger,
    });
  });

  it('replays one history of every workflow type', async () => {
    // One per type: the interceptors are the same code for every run, and replaying all twice is slow.
    const byType = new Map<string, { file: string; history: temporal.api.history.v1.IHistory }>();
    for (const file of files) {
      const history = temporal.api.history.v1.History.decode(readFileSync(join(HISTORIES, file)));
      if (!byType.has(workflowTypeOf(history))) byType.set(workflowTypeOf(history), { file, history });
    }
    expect(byType.size).to.be.greaterThan(5);
    for (const { file, history } of byType.values()) {
      await Worker.runReplayHistory(
        {
          workflowBundle: bundle,
          replayName: `${file} (traced)`,
          // The worker's span sink; a replay must not export the spans it re-creates.
          sinks: { exporter: { export: { fn: () => undefined, callDuringReplay: false } } },
        },
        history,
      );
    }
  });
});

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
