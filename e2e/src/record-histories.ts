import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import type { Client } from '@temporalio/client';
import { REPO_ROOT } from './stack-process';

/** Where workflows/test/replay.spec.ts reads the committed histories from. */
export const HISTORIES_DIR = join(REPO_ROOT, 'workflows', 'test', 'histories');

/** `LUNANEXA_RECORD_HISTORIES=1 npx mocha e2e/dist/test/<file>.e2e.js` refreshes that file's recorded histories from the real stack. */
export function recordingHistories(): boolean {
  return process.env['LUNANEXA_RECORD_HISTORIES'] === '1';
}

/** A history that ran to an end replays every branch the run took; a running one still replays what it did. */
const STATUS_PREFERENCE = ['COMPLETED', 'CONTINUED_AS_NEW', 'FAILED', 'RUNNING'];

/**
 * Writes, for every workflow type that ran on this server, the history of one
 * run as `<type>.<fleet>.binpb` (binary protobuf: the SDK's proto-JSON helpers
 * break when npm installs two protobufjs copies). A run that ended wins over
 * one still running, and the longest history of the best status wins, so the
 * file covers as much of the workflow as the test exercised; one file per
 * fleet keeps the paths each test file takes (a rollout that promotes, one
 * that is refused).
 */
export async function recordWorkflowHistories(client: Client, fleet: string): Promise<string[]> {
  const best = new Map<string, { workflowId: string; runId: string; rank: number; events: number }>();
  for await (const run of client.workflow.list()) {
    const rank = STATUS_PREFERENCE.indexOf(run.status.name);
    if (rank < 0) continue;
    const events = Number(run.historyLength ?? 0);
    const current = best.get(run.type);
    if (!current || rank < current.rank || (rank === current.rank && events > current.events)) {
      best.set(run.type, { workflowId: run.workflowId, runId: run.runId, rank, events });
    }
  }
  mkdirSync(HISTORIES_DIR, { recursive: true });
  const written: string[] = [];
  for (const [type, run] of [...best].sort(([a], [b]) => a.localeCompare(b))) {
    const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
    const file = join(HISTORIES_DIR, `${type}.${fleet}.binpb`);
    writeFileSync(file, temporal.api.history.v1.History.encode(history).finish());
    written.push(file);
  }
  return written;
}
