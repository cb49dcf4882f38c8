import {
  type Outcome,
  log,
  percentile,
  poissonGapMs,
  seeded,
  sendChat,
  sleep,
  startBenchGateway,
} from './traffic';
import { startRuntimes, workDir, writeResult } from './traffic';
import { stopAll } from './processes';
import type { RequestRecord } from '../src/request-log';

/**
 * `npm run bench:fairness`: a quiet tenant at a steady low rate, first alone
 * and then beside a noisy tenant sending 10× the deployment's capacity and
 * asking for `high` priority although an admin capped it at `normal`. The
 * gateway (real server, in-process) fronts real fake-runtime processes.
 * The noisy tenant starts 2 s into the second phase, once the quiet one is
 * under way (a tenant's very first request into a group another tenant
 * already saturates waits for one slot: there is no headroom for a tenant
 * not yet seen). Judged: the quiet tenant's p99 queue wait (the gateway's own figure on
 * each request record) against its value alone, and that none of its
 * requests is shed while the noisy tenant's are. Writes
 * bench/results/fairness.json.
 */

const REPLICAS = 2;
const REPLICA_CONCURRENCY = 8;
/** 25 tokens at 25 tokens/s after a 5 ms first token: about a second per request. */
const RUNTIME_FLAGS = ['--ttft-ms', '5', '--tokens-per-second', '25', '--max-tokens', '25'];
const SERVICE_SECONDS = 1 + 0.005;
const CAPACITY_PER_SECOND = (REPLICAS * REPLICA_CONCURRENCY) / SERVICE_SECONDS;
const QUIET_RATE = Number(process.env['LUNANEXA_BENCH_FAIRNESS_QUIET_RATE'] ?? 1);
const NOISY_RATE = 10 * CAPACITY_PER_SECOND;
const PHASE_MS = Number(process.env['LUNANEXA_BENCH_FAIRNESS_SECONDS'] ?? 60) * 1000;
const RESULTS_FILE = process.env['LUNANEXA_BENCH_FAIRNESS_RESULTS'] ?? 'bench/results/fairness.json';
const NOISY_DELAY_MS = 2_000;
/** Below a millisecond a queue wait is timer granularity, not waiting: compared with this slack. */
const WAIT_SLACK_MS = 1;

interface TenantFigures {
  readonly sent: number;
  readonly ok: number;
  /** Refused with 503 NO_CAPACITY by admission (queue full, shed for a fairer or more urgent one, queue timeout). */
  readonly refused: number;
  readonly otherErrors: number;
  readonly queueWaitMs: { p50: number | null; p99: number | null; max: number | null };
  readonly ttftMs: { p50: number | null; p99: number | null };
  /** Records whose priority was lowered to the tenant's cap. */
  readonly clamped: number;
}

function figuresOf(tenant: string, outcomes: readonly Outcome[], records: readonly RequestRecord[]) {
  const mine = outcomes.filter((outcome) => outcome.tenant === tenant);
  const rows = records.filter((record) => record.tenantId === tenant);
  const waits = rows.flatMap((record) =>
    record.queueWaitMs === null || record.queueWaitMs === undefined ? [] : [record.queueWaitMs],
  );
  const ttfts = mine.flatMap((outcome) => (outcome.ttftMs === null ? [] : [outcome.ttftMs]));
  const figures: TenantFigures = {
    sent: mine.length,
    ok: mine.filter((outcome) => outcome.status === 200).length,
    refused: mine.filter((outcome) => outcome.status === 503).length,
    otherErrors: mine.filter((outcome) => outcome.status !== 200 && outcome.status !== 503).length,
    queueWaitMs: {
      p50: percentile(waits, 50),
      p99: percentile(waits, 99),
      max: waits.length === 0 ? null : Math.round(Math.max(...waits) * 10) / 10,
    },
    ttftMs: { p50: percentile(ttfts, 50), p99: percentile(ttfts, 99) },
    clamped: rows.filter((record) => record.priority !== record.requestedPriority).length,
  };
  return figures;
}

async function phase(urls: readonly string[], withNoisy: boolean) {
  const bench = await startBenchGateway(
    urls,
    'least-loaded',
    { replicaConcurrency: REPLICA_CONCURRENCY, queuePerReplica: 8, maxQueueWaitMs: 10_000 },
    [
      { tenantId: 'quiet', maxPriority: null },
      { tenantId: 'noisy', maxPriority: 'normal' },
    ],
  );
  const outcomes: Promise<Outcome>[] = [];
  const phaseStart = performance.now();
  const send = async (
    tenant: string,
    rate: number,
    seed: number,
    headers: Record<string, string>,
    delayMs: number,
  ) => {
    const random = seeded(seed);
    await sleep(delayMs);
    let nextAt = performance.now();
    let n = 0;
    while (nextAt - phaseStart < PHASE_MS) {
      const wait = nextAt - performance.now();
      if (wait > 1) await sleep(wait);
      outcomes.push(
        sendChat(bench.url, tenant, [{ role: 'user', content: `${tenant} request ${n}` }], headers, 25),
      );
      n += 1;
      nextAt += poissonGapMs(rate, random);
    }
  };
  await Promise.all([
    send('quiet', QUIET_RATE, 7, {}, 0),
    // The burst starts once the quiet tenant is under way, as a steady tenant's neighbour bursts in.
    ...(withNoisy ? [send('noisy', NOISY_RATE, 11, { 'x-lunanexa-priority': 'high' }, NOISY_DELAY_MS)] : []),
  ]);
  const results = await Promise.all(outcomes);
  await bench.stop();
  const records = bench.records.records;
  return {
    quiet: figuresOf('quiet', results, records),
    ...(withNoisy && { noisy: figuresOf('noisy', results, records) }),
  };
}

async function main(): Promise<void> {
  const work = workDir('bench-fairness');
  log(
    `fairness bench: ${REPLICAS} replicas × ${REPLICA_CONCURRENCY}, capacity ≈ ${CAPACITY_PER_SECOND.toFixed(1)} req/s; ` +
      `quiet ${QUIET_RATE} req/s, noisy ${NOISY_RATE.toFixed(0)} req/s, ${PHASE_MS} ms per phase`,
  );
  try {
    const { urls } = await startRuntimes(REPLICAS, RUNTIME_FLAGS, work, 'fairness');
    const alone = await phase(urls, false);
    log(`quiet alone: ${JSON.stringify(alone.quiet)}`);
    const contended = await phase(urls, true);
    log(`quiet with noisy: ${JSON.stringify(contended.quiet)}`);
    log(`noisy: ${JSON.stringify(contended.noisy)}`);
    const aloneP99 = alone.quiet.queueWaitMs.p99 ?? 0;
    const withP99 = contended.quiet.queueWaitMs.p99 ?? Number.POSITIVE_INFINITY;
    const result = {
      bench: 'fairness',
      at: new Date().toISOString(),
      note:
        'Real gateway server (in-process, static tables) over real fake-runtime processes; open-loop seeded Poisson ' +
        'arrivals. Queue waits are the gateway’s own measurement (request_records.queue_wait_ms). The noisy tenant ' +
        'asks for high priority but is capped at normal. Shared 2-CPU machine: absolute timings are noisy.',
      workload: {
        replicas: REPLICAS,
        replicaConcurrency: REPLICA_CONCURRENCY,
        capacityPerSecond: Math.round(CAPACITY_PER_SECOND * 10) / 10,
        quietRatePerSecond: QUIET_RATE,
        noisyRatePerSecond: Math.round(NOISY_RATE),
        phaseMs: PHASE_MS,
      },
      quietAlone: alone.quiet,
      quietWithNoisy: contended.quiet,
      noisy: contended.noisy,
      targets: {
        quietP99QueueWaitWithin1_2xAlone: {
          target: `<= 1.2 × alone (${WAIT_SLACK_MS} ms slack for timer granularity)`,
          alone: aloneP99,
          withNoisy: contended.quiet.queueWaitMs.p99,
          met: withP99 <= 1.2 * aloneP99 + WAIT_SLACK_MS,
        },
        quietNeverShedWhileNoisyIs: {
          quietRefused: contended.quiet.refused,
          noisyRefused: contended.noisy?.refused ?? 0,
          met: contended.quiet.refused === 0 && (contended.noisy?.refused ?? 0) > 0,
        },
        noisyPriorityClamped: {
          clamped: contended.noisy?.clamped ?? 0,
          met: (contended.noisy?.clamped ?? 0) > 0,
        },
      },
    };
    writeResult(RESULTS_FILE, result);
    log(`wrote ${RESULTS_FILE}: ${JSON.stringify(result.targets)}`);
  } finally {
    await stopAll();
  }
}

main().catch(async (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await stopAll();
  process.exit(1);
});
