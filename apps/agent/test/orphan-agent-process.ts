/**
 * An agent's reconciler in a process of its own, for the orphan tests: they
 * kill it with SIGKILL (no shutdown code runs) and start it again on the same
 * data directory. It reads the assignments the test wrote, reconciles with
 * the fast test settings, and answers GET / with its replicas and the orphan
 * reports its next heartbeat would carry.
 *
 * argv[2]: JSON { dataDir, nodeId, port, engine, engineState, sweepMs, settleMs }.
 */
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { createLogger } from '@lunanexa/observability';
import { Reconciler } from '../src/reconcile/reconciler';
import { createRuntimeAdapters } from '../src/runtimes';
import { ASSIGNMENTS_FILE, AssignmentStore } from '../src/ssh/assignment-store';
import { FAST_RECONCILE } from './reconcile-support';

interface Settings {
  readonly dataDir: string;
  readonly nodeId: string;
  readonly port: number;
  readonly engine: string;
  readonly engineState: string;
  readonly sweepMs: number;
  readonly settleMs: number;
}

async function main(): Promise<void> {
  const settings = JSON.parse(process.argv[2] ?? '{}') as Settings;
  const store = await AssignmentStore.open(join(settings.dataDir, ASSIGNMENTS_FILE), settings.nodeId);
  const reconciler = new Reconciler({
    store,
    dataDir: settings.dataDir,
    host: '127.0.0.1',
    logger: createLogger({ service: 'orphan-test-agent', level: 'error', destination: process.stderr }),
    adapters: createRuntimeAdapters({
      openAiCompatible: {
        containerEngine: settings.engine,
        agentEnv: {
          PATH: `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`,
          DOCKER_CONFIG: settings.engineState,
        },
      },
    }),
    ...FAST_RECONCILE,
    orphanSweepIntervalMs: settings.sweepMs,
    orphanSettleMs: settings.settleMs,
  });
  await reconciler.start();
  createServer((_request, response) => {
    response.setHeader('content-type', 'application/json');
    response.end(
      JSON.stringify({
        replicas: reconciler.health(),
        orphanReports: reconciler.heartbeatObservations().orphanReports ?? [],
      }),
    );
  }).listen(settings.port, '127.0.0.1', () => process.stdout.write('listening\n'));
}

main().catch((error: unknown) => {
  process.stderr.write(`orphan test agent: ${String(error)}\n`);
  process.exit(1);
});
