import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';

/**
 * Replays every committed workflow history against today's workflow code.
 * A change that alters the commands a workflow issues for an existing history
 * (non-determinism) fails here before it can break running workflows.
 * Refresh with `LUNANEXA_RECORD_HISTORIES=1 npm test -- --only integration`.
 */
const HISTORIES = join(__dirname, '..', '..', 'test', 'histories');

describe('committed workflow histories replay deterministically', function () {
  this.timeout(120_000);
  const files = readdirSync(HISTORIES).filter((f) => f.endsWith('.binpb'));

  it('has at least one recorded history per workflow type', () => {
    expect(files).to.include('ping.completed.binpb');
  });

  for (const file of files) {
    it(`replays ${file}`, async () => {
      const history = temporal.api.history.v1.History.decode(readFileSync(join(HISTORIES, file)));
      await Worker.runReplayHistory({ workflowsPath: require.resolve('../src'), replayName: file }, history);
    });
  }
});
