import { readFileSync } from 'node:fs';
import { ROUTING_POLICIES, type RoutingPolicy } from '@lunanexa/contracts';
import { AFFINITY_LOAD_FACTOR } from '@lunanexa/domain';
import { httpCall, stopAll } from './processes';
import {
  type Outcome,
  log,
  percentile,
  poissonGapMs,
  seeded,
  sendChat,
  sleep,
  startBenchGateway,
  startRuntimes,
  workDir,
  writeResult,
} from './traffic';

/**
 * `npm run bench:routing`: round robin, least-loaded and prefix-affinity on
 * one shared-prefix workload — many tenants, each with its own long system
 * prompt, short distinct questions — over 4 fake-runtime replicas whose
 * prefix cache is bounded (each holds about a quarter of the tenants' prompts
 * plus a little) and whose time to first token grows with the prompt tokens
 * the cache does not hold. Every policy gets fresh replicas (cold caches) and
 * the same seeded open-loop arrivals at the same rate, so the load is equal.
 * Writes bench/results/routing.json.
 */

const REPLICAS = 4;
const TENANTS = 32;
const SYSTEM_PROMPT_TOKENS = 1_000;
const PREFILL_TOKENS_PER_SECOND = 5_000;
/**
 * About 20 system prompts: a replica that sees all 32 tenants keeps missing one in three; one that sees its
 * own 8 and the few that spill to it keeps them all.
 */
const PREFIX_CACHE_TOKENS = 20_500;
const RATE_PER_SECOND = Number(process.env['LUNANEXA_BENCH_ROUTING_RATE'] ?? 30);
const DURATION_MS = Number(process.env['LUNANEXA_BENCH_ROUTING_SECONDS'] ?? 30) * 1000;
const WARMUP_MS = 8_000;
const RESULTS_FILE = process.env['LUNANEXA_BENCH_ROUTING_RESULTS'] ?? 'bench/results/routing.json';

function systemPrompt(tenant: number): string {
  const words: string[] = [];
  for (let i = 0; i < SYSTEM_PROMPT_TOKENS; i += 1) words.push(`t${tenant}w${i}`);
  return `You are tenant ${tenant}'s assistant. ${words.join(' ')}`;
}

interface PolicyFigures {
  readonly policy: RoutingPolicy;
  readonly sent: number;
  readonly ok: number;
  readonly errors: number;
  readonly ttftMs: { p50: number | null; p90: number | null; p99: number | null };
  /**
   * Time to first token as the runtimes computed it (base + prefill of the
   * uncached prompt tokens), from their logs: what the routing decides,
   * without the CPU contention of a shared machine that the measured figure carries.
   */
  readonly modeledTtftMs: { p50: number | null; p90: number | null; p99: number | null };
  readonly throughputPerSecond: number;
  /** Mean requests in flight per replica over the measured window (sampled every 5 ms). */
  readonly meanInFlightPerReplica: number[];
  /** Highest replica's mean in flight over the mean of all replicas: 1 is perfectly even. */
  readonly maxOverMeanLoad: number;
  readonly requestsPerReplica: number[];
  /** Prompt tokens each replica found in its prefix cache (its own counter), warm-up included. */
  readonly prefixCacheHitTokens: number[];
  /** System-prompt tokens served from cache over those sent, after the warm-up (about the share of cache hits). */
  readonly measuredPrefixHitRate: number;
  readonly reasons: Record<string, number>;
}

async function runPolicy(policy: RoutingPolicy, prompts: readonly string[], work: string) {
  const { urls, processes, logFiles } = await startRuntimes(
    REPLICAS,
    [
      ...['--ttft-ms', String(BASE_TTFT_MS), '--tokens-per-second', '128', '--max-tokens', '64'],
      ...['--prefill-tokens-per-second', String(PREFILL_TOKENS_PER_SECOND)],
      ...['--prefix-cache-tokens', String(PREFIX_CACHE_TOKENS)],
    ],
    work,
    policy,
    'info',
  );
  const bench = await startBenchGateway(urls, policy, {
    replicaConcurrency: 64,
    queuePerReplica: 256,
    maxQueueWaitMs: 30_000,
  });
  const random = seeded(20_261_206);
  const outcomes: Promise<Outcome>[] = [];
  const loadSums = new Map<string, number>(urls.map((url) => [url, 0]));
  let samples = 0;
  const started = performance.now();
  const measureFrom = started + WARMUP_MS;
  const sampler = setInterval(() => {
    if (performance.now() < measureFrom) return;
    samples += 1;
    const inFlight = bench.gateway.admission.endpointInFlight();
    for (const url of urls) loadSums.set(url, (loadSums.get(url) ?? 0) + (inFlight.get(url) ?? 0));
  }, 5);
  const hitsAtWarmup = sleep(WARMUP_MS).then(() => cacheHitTokens(urls));
  let sent = 0;
  let nextAt = started;
  while (nextAt - started < DURATION_MS) {
    const wait = nextAt - performance.now();
    if (wait > 1) await sleep(wait);
    const tenant = Math.floor(random() * TENANTS);
    const question = `Question ${sent} from tenant ${tenant}: how much is ${Math.floor(random() * 1e6)}?`;
    outcomes.push(
      sendChat(bench.url, `tenant-${tenant}`, [
        { role: 'system', content: prompts[tenant] },
        { role: 'user', content: question },
      ]),
    );
    sent += 1;
    nextAt += poissonGapMs(RATE_PER_SECOND, random);
  }
  const results = await Promise.all(outcomes);
  clearInterval(sampler);
  const finished = performance.now();
  const hitTokens = await cacheHitTokens(urls);
  const atWarmup = await hitsAtWarmup;
  const measuredHits = hitTokens.reduce((sum, value, i) => sum + value - (atWarmup[i] ?? 0), 0);
  await bench.stop();
  for (const runtime of processes) await runtime.stop();

  const modeled = modeledTtfts(logFiles, Date.now() - (finished - measureFrom));
  const measured = results.filter((outcome) => outcome.startedAt >= measureFrom);
  const ok = measured.filter((outcome) => outcome.status === 200 && outcome.ttftMs !== null);
  const ttfts = ok.map((outcome) => outcome.ttftMs as number);
  const meanInFlight = urls.map((url) => (loadSums.get(url) ?? 0) / Math.max(1, samples));
  const mean = meanInFlight.reduce((sum, value) => sum + value, 0) / meanInFlight.length;
  const reasons: Record<string, number> = {};
  const perReplica = new Map<string, number>(urls.map((url) => [url, 0]));
  for (const record of bench.records.records) {
    const reason = record.routingReason ?? 'none';
    reasons[reason] = (reasons[reason] ?? 0) + 1;
    if (record.routedTo) perReplica.set(record.routedTo, (perReplica.get(record.routedTo) ?? 0) + 1);
  }
  const figures: PolicyFigures = {
    policy,
    sent: measured.length,
    ok: ok.length,
    errors: measured.length - ok.length,
    ttftMs: { p50: percentile(ttfts, 50), p90: percentile(ttfts, 90), p99: percentile(ttfts, 99) },
    modeledTtftMs: {
      p50: percentile(modeled, 50),
      p90: percentile(modeled, 90),
      p99: percentile(modeled, 99),
    },
    throughputPerSecond: Math.round((ok.length / Math.max(1, (finished - measureFrom) / 1000)) * 10) / 10,
    meanInFlightPerReplica: meanInFlight.map((value) => Math.round(value * 100) / 100),
    maxOverMeanLoad: mean === 0 ? 1 : Math.round((Math.max(...meanInFlight) / mean) * 100) / 100,
    requestsPerReplica: urls.map((url) => perReplica.get(url) ?? 0),
    prefixCacheHitTokens: hitTokens,
    measuredPrefixHitRate:
      Math.round((measuredHits / Math.max(1, measured.length * SYSTEM_PROMPT_TOKENS)) * 1000) / 1000,
    reasons,
  };
  log(
    `${policy}: ttft p50 ${figures.ttftMs.p50} ms, p90 ${figures.ttftMs.p90} ms, ` +
      `${figures.throughputPerSecond} req/s, load max/mean ${figures.maxOverMeanLoad}, ` +
      `hit rate ${figures.measuredPrefixHitRate}, errors ${figures.errors}`,
  );
  return figures;
}

const BASE_TTFT_MS = 5;

/** Modeled TTFTs of the requests the runtimes finished after `sinceMs` (epoch ms), read from their log lines. */
function modeledTtfts(logFiles: readonly string[], sinceMs: number): number[] {
  const values: number[] = [];
  for (const file of logFiles) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.includes('"prefillMs"')) continue;
      const entry = JSON.parse(line) as { time?: string; prefillMs?: number; durationMs?: number };
      // A request counts when it started in the measured window: finished minus its duration.
      const startedAt = Date.parse(entry.time ?? '') - (entry.durationMs ?? 0);
      if (startedAt >= sinceMs && typeof entry.prefillMs === 'number')
        values.push(BASE_TTFT_MS + entry.prefillMs);
    }
  }
  return values;
}

async function cacheHitTokens(urls: readonly string[]): Promise<number[]> {
  const hits: number[] = [];
  for (const url of urls) {
    const text = (await httpCall(`${url}/metrics`))?.body ?? '';
    const line = /^lunanexa_fake_runtime_prefix_cache_hit_tokens_total (\S+)$/m.exec(text);
    hits.push(line ? Number(line[1]) : 0);
  }
  return hits;
}

async function main(): Promise<void> {
  const work = workDir('bench-routing');
  log(
    `routing bench: ${TENANTS} tenants, ${REPLICAS} replicas, ${RATE_PER_SECOND} req/s for ${DURATION_MS} ms each`,
  );
  const prompts = Array.from({ length: TENANTS }, (_, tenant) => systemPrompt(tenant));
  const policies: PolicyFigures[] = [];
  try {
    const only = process.env['LUNANEXA_BENCH_ROUTING_POLICIES']?.split(',');
    for (const policy of ROUTING_POLICIES.filter((p) => only === undefined || only.includes(p)))
      policies.push(await runPolicy(policy, prompts, work));
  } finally {
    await stopAll();
  }
  const byPolicy = new Map(policies.map((figures) => [figures.policy, figures]));
  const roundRobin = byPolicy.get('round-robin');
  const affinity = byPolicy.get('prefix-affinity');
  const ratio = (pick: (figures: PolicyFigures) => number | null): number | null => {
    const base = roundRobin === undefined ? null : pick(roundRobin);
    const value = affinity === undefined ? null : pick(affinity);
    return base === null || value === null || base === 0 ? null : Math.round((value / base) * 1000) / 1000;
  };
  const measuredRatio = ratio((figures) => figures.ttftMs.p90);
  const modeledRatio = ratio((figures) => figures.modeledTtftMs.p90);
  const result = {
    bench: 'routing',
    at: new Date().toISOString(),
    note:
      'Shared-prefix workload through the real gateway server (in-process, static route table) to real fake-runtime ' +
      'processes with a bounded prefix cache; open-loop seeded Poisson arrivals, the same for every policy. ' +
      'Timings come from a shared 2-CPU machine: compare the policies with each other, not with other runs.',
    workload: {
      replicas: REPLICAS,
      tenants: TENANTS,
      systemPromptTokens: SYSTEM_PROMPT_TOKENS,
      prefillTokensPerSecond: PREFILL_TOKENS_PER_SECOND,
      prefixCacheTokensPerReplica: PREFIX_CACHE_TOKENS,
      ratePerSecond: RATE_PER_SECOND,
      durationMs: DURATION_MS,
      warmupMs: WARMUP_MS,
    },
    policies,
    targets: {
      affinityP90OverRoundRobinP90: {
        target: '<= 0.5',
        value: measuredRatio,
        met: measuredRatio !== null && measuredRatio <= 0.5,
      },
      affinityModeledP90OverRoundRobinModeledP90: {
        target: '<= 0.5',
        value: modeledRatio,
        met: modeledRatio !== null && modeledRatio <= 0.5,
      },
      affinityMaxOverMeanLoad: {
        target: `<= ${AFFINITY_LOAD_FACTOR}`,
        value: affinity?.maxOverMeanLoad ?? null,
        met: affinity !== undefined && affinity.maxOverMeanLoad <= AFFINITY_LOAD_FACTOR,
      },
    },
  };
  writeResult(RESULTS_FILE, result);
  log(`wrote ${RESULTS_FILE}: ${JSON.stringify(result.targets)}`);
}

main().catch(async (error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  await stopAll();
  process.exit(1);
});
