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
 * (integration writes ping, evaluate and retention-expiry; every e2e fleet
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

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
