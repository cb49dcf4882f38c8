import {
  type DerivedFigures,
  type ScenarioFigures,
  type TargetCheck,
  type TargetEvaluation,
  TARGETS,
} from './stats';

/** bench/results/data-plane.json. */
export interface DataPlaneResult {
  readonly benchmark: 'data-plane';
  readonly generatedAt: string;
  readonly command: string;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly machine: Readonly<Record<string, unknown>>;
  readonly processes: Readonly<Record<string, unknown>>;
  readonly scenarios: readonly (ScenarioFigures & { readonly name: string })[];
  readonly derived: readonly DerivedFigures[];
  readonly targets: TargetEvaluation;
  readonly requestRecords: Readonly<Record<string, unknown>> | null;
}

export function scenarioName(stream: boolean): string {
  return stream ? 'chat, streamed (16 tokens)' : 'chat, not streamed (16 tokens)';
}

function fixed(value: number | null | undefined, digits = 3): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);
}

function signed(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  return `${value >= 0 ? '+' : ''}${value.toFixed(3)}`;
}

/** Columns padded to their widest cell; numbers right-aligned, the first three columns left-aligned. */
function layout(rows: readonly (readonly string[])[], leftColumns: number): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, i) => (i < leftColumns ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function checkLine(check: TargetCheck): string {
  const mode = check.stream ? 'streamed' : 'not streamed';
  const what =
    check.figure === 'throughputVsNginx'
      ? `throughput gateway/nginx at c=${check.concurrency}, ${mode}: ${fixed(check.value)}x (>= ${check.limit}x)`
      : `added ${check.figure === 'addedLatencyP50Ms' ? 'p50' : 'p99'} at c=${check.concurrency}, ${mode}: ` +
        `${signed(check.value)} ms (<= ${check.limit} ms)`;
  const verdict = check.met === null ? 'not measured' : check.met ? 'met' : 'MISSED';
  return `  ${verdict.padEnd(12)} ${what}`;
}

/**
 * The compact table `npm run bench` prints: per scenario and target the
 * median-of-rounds percentiles (ms), req/s and errors, then what the gateway
 * and nginx add over direct and the gateway's throughput ratios, then the
 * issue's targets.
 */
export function renderTable(result: Pick<DataPlaneResult, 'scenarios' | 'derived' | 'targets'>): string {
  const header = [
    'scenario',
    'c',
    'target',
    'p50',
    'p95',
    'p99',
    'fb p50',
    'fb p99',
    'req/s',
    'err',
    '+p50',
    '+p99',
    'gw/ngx',
    'gw/dir',
    'cpu/req',
    'cpu gw/ngx',
  ];
  const rows: string[][] = [header];
  for (const scenario of result.scenarios) {
    const derived = result.derived.find(
      (d) => d.stream === scenario.stream && d.concurrency === scenario.concurrency,
    );
    for (const target of TARGETS) {
      const figures = scenario.targets[target];
      if (figures === undefined) continue;
      const addedOver = target === 'direct' ? undefined : derived?.addedLatencyMs[target];
      const isGateway = target === 'gateway';
      rows.push([
        scenario.stream ? 'streamed' : 'not streamed',
        String(scenario.concurrency),
        target,
        fixed(figures.totalMs.p50),
        fixed(figures.totalMs.p95),
        fixed(figures.totalMs.p99),
        fixed(figures.firstByteMs.p50),
        fixed(figures.firstByteMs.p99),
        fixed(figures.requestsPerSecond, 1),
        String(figures.errors),
        addedOver === undefined ? '' : signed(addedOver.totalP50),
        addedOver === undefined ? '' : signed(addedOver.totalP99),
        isGateway ? fixed(derived?.throughputRatio.gatewayOverNginx) : '',
        isGateway ? fixed(derived?.throughputRatio.gatewayOverDirect) : '',
        figures.cpuMsPerRequest == null ? '' : fixed(figures.cpuMsPerRequest),
        isGateway && figures.cpuMsPerRequest != null
          ? fixed(derived?.cpuPerRequestRatio.gatewayOverNginx)
          : '',
      ]);
    }
  }
  const lines = [
    'milliseconds, median of rounds; fb = first body byte; +p50/+p99 = total time added over direct; ' +
      'cpu/req = CPU ms of all the target’s processes per request',
    layout(rows, 3),
  ];
  if (result.targets.checks.length > 0) {
    const overall =
      result.targets.allMet === null ? 'not all measured' : result.targets.allMet ? 'all met' : 'not met';
    lines.push(`issue 11 and 23 targets (${overall}):`, ...result.targets.checks.map(checkLine));
  }
  return `${lines.join('\n')}\n`;
}
