import { readFileSync, readdirSync } from 'node:fs';
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { DEFAULT_TEMPORAL_NAMESPACE, SEARCH_ATTRIBUTES } from '@lunanexa/contracts';
import { lowerCpuPriority } from '@lunanexa/observability';

/**
 * The variable the test harness (`npm test`) sets to the pinned Temporal CLI it
 * installed. Tests never download a server at run time.
 */
export const TEMPORAL_CLI_VARIABLE = 'LUNANEXA_TEMPORAL_CLI';

export function temporalCliPath(): string {
  const path = process.env[TEMPORAL_CLI_VARIABLE];
  if (!path) {
    throw new Error(
      `${TEMPORAL_CLI_VARIABLE} is not set: run tests through \`npm test\`, which installs the pinned CLI`,
    );
  }
  return path;
}

export const LUNANEXA_SEARCH_ATTRIBUTE_KEYS = Object.values(SEARCH_ATTRIBUTES).map((name) =>
  defineSearchAttributeKey(name, SearchAttributeType.KEYWORD),
);

/** This process's children running `temporal server start-dev` (empty without /proc). */
function devServerChildren(): Set<number> {
  const found = new Set<number>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parentPid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parentPid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('start-dev'))
        found.add(Number(entry));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}

/**
 * A real Temporal dev server (the pinned CLI's `server start-dev`, in-memory)
 * with LunaNexa's namespace and search attributes, for one test file. With
 * `nice`, the server's threads run at that CPU priority, as `npm start` runs
 * it (LUNANEXA_TEMPORAL_NICE).
 */
export async function startTestTemporal(
  options: { uiPort?: number; nice?: number } = {},
): Promise<TestWorkflowEnvironment> {
  quietTemporalRuntime();
  const before = devServerChildren();
  const env = await createTestTemporal(options);
  if (options.nice !== undefined && options.nice > 0) {
    for (const pid of devServerChildren()) if (!before.has(pid)) lowerCpuPriority(options.nice, pid);
  }
  return env;
}

function createTestTemporal(options: { uiPort?: number }): Promise<TestWorkflowEnvironment> {
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalCliPath() },
      namespace: DEFAULT_TEMPORAL_NAMESPACE,
      ip: '127.0.0.1',
      // The UI only when a test follows workflow links into it: it costs a second or two of startup.
      ...(options.uiPort === undefined ? { ui: false } : { ui: true, uiPort: options.uiPort }),
      searchAttributes: LUNANEXA_SEARCH_ATTRIBUTE_KEYS,
      log: { format: 'pretty', level: 'error' },
    },
  });
}

let runtimeInstalled = false;

/** Worker lifecycle chatter drowns test output; warnings and errors still show. */
function quietTemporalRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Another test file in this process installed the runtime first.
  }
}

/** Re-exported for tests that assert a workflow's typed failure code. */
export { typedFailureCode } from '@lunanexa/contracts';
