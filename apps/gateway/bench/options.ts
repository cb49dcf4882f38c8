import { parseArgs } from 'node:util';
import { TARGETS, type Target } from './stats';

/** What one `npm run bench` run measures, from its flags. */
export interface BenchOptions {
  /** Each timed run lasts this long… */
  readonly durationMs: number | null;
  /** …or sends this many requests (exactly one of the two is set). */
  readonly requests: number | null;
  /** Untimed run per target and scenario before its rounds. */
  readonly warmupMs: number;
  readonly rounds: number;
  readonly concurrency: readonly number[];
  readonly targets: readonly Target[];
  /** Streamed and/or non-streamed chat completions, in that order of the list. */
  readonly streams: readonly boolean[];
  /** Run the gateway with `--cpu-prof` into bench/profiles/<timestamp>. */
  readonly cpuProf: boolean;
  /** Gateway worker processes and nginx `worker_processes`: the same number for both. */
  readonly processes: number;
  /** Results file, relative to the repository root. */
  readonly out: string;
}

export const DEFAULT_RESULTS_FILE = 'bench/results/data-plane.json';
/** Where a run with `--processes` above 1 goes unless `--out` says otherwise. */
export const PROCESSES_RESULTS_FILE = 'bench/results/data-plane-processes.json';

export const BENCH_USAGE = `usage: npm run bench -- [options]

Measures direct (the fake runtime), nginx proxy_pass and the gateway against
one fake runtime process, streamed and not, at each concurrency; writes
${DEFAULT_RESULTS_FILE} and prints a table.

  --duration-ms N          length of each timed run (default 3000)
  --requests N             instead: requests per timed run
  --warmup-ms N            untimed run per target and scenario first (default 1000)
  --rounds N               timed runs per target and scenario, targets alternating (default 3)
  --concurrency 1,10,64    concurrent keep-alive connections, one scenario each
  --only direct,nginx,gateway
                           targets to measure (default all three)
  --stream both|yes|no     streamed and/or non-streamed completions (default both)
  --cpu-prof               run the gateway with --cpu-prof into bench/profiles/<timestamp>
  --processes N            gateway worker processes and nginx worker_processes, the same N for
                           both (default 1); above 1 the results default to ${PROCESSES_RESULTS_FILE}
  --out FILE               results file (default ${DEFAULT_RESULTS_FILE})
  --help                   print this help
`;

export class BenchUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BenchUsageError';
  }
}

function positiveInteger(flag: string, value: string, max: number): number {
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 1 || Number(value) > max) {
    throw new BenchUsageError(`--${flag} must be an integer from 1 to ${max} (got "${value}")`);
  }
  return Number(value);
}

function list(flag: string, value: string): string[] {
  const items = value.split(',').map((item) => item.trim());
  if (items.some((item) => item === ''))
    throw new BenchUsageError(`--${flag} must be a comma-separated list`);
  return items;
}

/** Parses the bench's flags; null for --help. Throws BenchUsageError naming the flag. */
export function parseBenchArgs(argv: readonly string[]): BenchOptions | null {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        'duration-ms': { type: 'string' },
        requests: { type: 'string' },
        'warmup-ms': { type: 'string', default: '1000' },
        rounds: { type: 'string', default: '3' },
        concurrency: { type: 'string', default: '1,10,64' },
        only: { type: 'string', default: TARGETS.join(',') },
        stream: { type: 'string', default: 'both' },
        'cpu-prof': { type: 'boolean', default: false },
        processes: { type: 'string', default: '1' },
        out: { type: 'string' },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error: unknown) {
    throw new BenchUsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return null;
  if (values['duration-ms'] !== undefined && values.requests !== undefined) {
    throw new BenchUsageError('--duration-ms and --requests exclude each other');
  }
  const requests =
    values.requests === undefined ? null : positiveInteger('requests', values.requests, 10_000_000);
  const durationMs =
    requests !== null ? null : positiveInteger('duration-ms', values['duration-ms'] ?? '3000', 3_600_000);
  const warmupMs =
    values['warmup-ms'] === '0' ? 0 : positiveInteger('warmup-ms', values['warmup-ms'], 600_000);

  const concurrency = [
    ...new Set(list('concurrency', values.concurrency).map((c) => positiveInteger('concurrency', c, 1024))),
  ];
  const only = new Set(list('only', values.only));
  for (const name of only) {
    if (!(TARGETS as readonly string[]).includes(name)) {
      throw new BenchUsageError(`--only: unknown target "${name}" (one of ${TARGETS.join(', ')})`);
    }
  }
  const streamChoices: Readonly<Record<string, readonly boolean[]>> = {
    both: [false, true],
    yes: [true],
    no: [false],
  };
  const streams = streamChoices[values.stream];
  if (streams === undefined)
    throw new BenchUsageError(`--stream must be both, yes or no (got "${values.stream}")`);
  const processes = positiveInteger('processes', values.processes, 64);
  const out = values.out ?? (processes > 1 ? PROCESSES_RESULTS_FILE : DEFAULT_RESULTS_FILE);
  if (out.trim() === '') throw new BenchUsageError('--out must name a file');
  return {
    durationMs,
    requests,
    warmupMs,
    rounds: positiveInteger('rounds', values.rounds, 100),
    concurrency,
    // Always in the same order, whatever order --only listed them in.
    targets: TARGETS.filter((target) => only.has(target)),
    streams,
    cpuProf: values['cpu-prof'],
    processes,
    out,
  };
}
