import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_HEARTBEAT_INTERVAL_SECONDS, DEFAULT_NODE_LEASE_SECONDS } from '@lunanexa/contracts';
import { FleetHarness, REPO_ROOT, nodeLossEnv, prepareBenchEnvironment, runNodeLoss } from '../src';

/**
 * `npm run bench:recovery`: the NodeRecovery figure of issue 12 — node killed
 * (agent and runtime) → replacement Ready and routed — with a 5 s lease, on
 * the real api, worker, gateway, agents, Temporal and PostgreSQL. Each trial
 * starts a fresh fleet of three nodes (so no trial inherits another's
 * state), deploys two replicas, calls them through the gateway, kills one
 * node and times it. Writes bench/results/node-recovery.json.
 *
 * `npm run bench:recovery:defaults` (`--defaults`): the same with every
 * lease setting left at its default (heartbeat interval, node lease, lost
 * grace, watch interval: nothing set in the environment); target: the killed
 * node's traffic served by a replacement elsewhere within 10 s. Writes
 * bench/results/node-recovery-defaults.json.
 */

const DEFAULTS = process.argv.includes('--defaults');
/** The worker's defaults (apps/worker/src/config.ts), for the record only: in --defaults nothing is set. */
const WORKER_DEFAULT_GRACE_SECONDS = 1;
const WORKER_DEFAULT_WATCH_SECONDS = 1;
const LEASE_SECONDS = DEFAULTS ? DEFAULT_NODE_LEASE_SECONDS : 5;
const GRACE_SECONDS = DEFAULTS ? WORKER_DEFAULT_GRACE_SECONDS : 2;
const TARGET_MS = DEFAULTS ? 10_000 : 15_000;
const RESULT_FILE = DEFAULTS ? 'node-recovery-defaults.json' : 'node-recovery.json';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

async function main(): Promise<void> {
  prepareBenchEnvironment();
  const trials = Number(process.argv[process.argv.indexOf('--trials') + 1] ?? 3) || 3;
  const results = [];
  for (let trial = 1; trial <= trials; trial++) {
    const h = await FleetHarness.start(`recovery-bench-${trial}`, {
      leaseSeconds: 60,
      extraEnv: DEFAULTS ? {} : nodeLossEnv(LEASE_SECONDS, GRACE_SECONDS),
    });
    try {
      for (const name of ['node-a', 'node-b', 'node-c']) await h.startReadyAgent(name);
      const loss = await runNodeLoss(h, 'bench', 'bench');
      const row = {
        trial,
        killToReadyMs: loss.killToReadyMs,
        killToRoutedMs: loss.killToRoutedMs,
        requests: loss.requests,
        clientErrors: loss.errors.length,
        errorSamples: loss.errors.slice(0, 5),
      };
      console.log(`[bench:recovery] trial ${trial}: ${JSON.stringify(row)}`);
      results.push(row);
    } finally {
      await h.stop();
    }
  }
  const routed = results.map((r) => r.killToRoutedMs).sort((a, b) => a - b);
  const ready = results.map((r) => r.killToReadyMs).sort((a, b) => a - b);
  const errors = results.reduce((sum, r) => sum + r.clientErrors, 0);
  const summary = {
    killToReadyMs: { p50: percentile(ready, 50), max: ready.at(-1) },
    killToRoutedMs: { p50: percentile(routed, 50), max: routed.at(-1) },
    clientErrors: errors,
    target: DEFAULTS
      ? `kill -> a replacement on another node serving requests through the gateway <= ${TARGET_MS / 1000} s at default settings; 0 client errors`
      : `replacement Ready and routed <= ${TARGET_MS / 1000} s with a ${LEASE_SECONDS} s lease; 0 client errors`,
    met: (routed.at(-1) ?? Infinity) <= TARGET_MS && errors === 0,
  };
  const out = {
    benchmark: 'node-recovery',
    generatedAt: new Date().toISOString(),
    command: DEFAULTS ? 'npm run bench:recovery:defaults' : 'npm run bench:recovery',
    settings: {
      trials,
      defaults: DEFAULTS
        ? 'no lease setting in the environment of api, worker, gateway or agents: each at its default'
        : false,
      nodeLeaseSeconds: LEASE_SECONDS,
      lostGraceSeconds: GRACE_SECONDS,
      watchIntervalSeconds: DEFAULTS ? WORKER_DEFAULT_WATCH_SECONDS : 1,
      heartbeatIntervalSeconds: DEFAULT_HEARTBEAT_INTERVAL_SECONDS,
      measured:
        'killToRoutedMs: SIGKILL of the node (its agent and its runtime) -> the first request the gateway routed to the replacement replica on the third node was served (the fake runtime counts it); the other replica, on a surviving node, serves the traffic meanwhile (clientErrors counts any request that failed)',
      fleet:
        '3 simulated agents on loopback; deployment of 2 replicas of the fake runtime; one node killed (agent and runtime, SIGKILL)',
      load: 'one client through the gateway, a new non-streamed request every 50 ms (none is streaming when the node dies)',
      baseline:
        'none in-process: without NodeRecovery the replica is never re-placed (issue 12: still 1 of 2 after 65 s)',
    },
    machine: { cpus: cpus().length, loadAverageEnd: loadavg() },
    trials: results,
    summary,
  };
  const dir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, RESULT_FILE), `${JSON.stringify(out, null, 2)}\n`);
  console.log(`[bench:recovery] ${JSON.stringify(summary)}`);
  console.log(`[bench:recovery] wrote bench/results/${RESULT_FILE}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
