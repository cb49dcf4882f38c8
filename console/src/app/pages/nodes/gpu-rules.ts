import type { GpuThrottleReason } from '@lunanexa/contracts/telemetry';

import { formatBytes } from './node-rules';
import type { GpuSeries, GpuTelemetry, NodeCondition } from './nodes.queries';

/** As the status badges' tones (shared/status-badge), kept here so this file compiles for Node without the UI. */
export type StatusTone = 'ok' | 'warn' | 'error' | 'neutral';

/** What shared/chart's TimeSeriesChart draws (its ChartSeries), restated so this file needs no browser types. */
export interface ChartSeries {
  readonly label: string;
  readonly values: readonly (number | null)[];
  readonly unit: string;
  readonly color: string;
  readonly line?: 'solid' | 'dashed' | 'dotted';
}

/*
 * How the Nodes view reads GPU figures and node conditions. The thresholds
 * that decide a condition live in libs/domain/src/node-conditions.ts; the
 * console only shows what the API concluded, with the reason it gave.
 */

/**
 * Temperature from which a figure is shown as a warning: where data-centre
 * GPUs start slowing their clocks. The GpuTemperatureHigh alert
 * (infra/prometheus/alerts.yml) uses the same figure.
 */
export const GPU_HOT_CELSIUS = 85;

/** "96 %"; "—" when the driver did not report it. */
export function formatPercent(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : `${Math.round(value)} %`;
}

/** "62 °C"; "—" when the driver did not report it. */
export function formatCelsius(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : `${Math.round(value)} °C`;
}

function watts(value: number): string {
  return value >= 100 ? Math.round(value).toString() : value.toFixed(1).replace(/\.0$/, '');
}

/** "78.4 / 300 W", "78.4 W" without a limit (GB10 reports none), "—" without a draw. */
export function formatPower(draw: number | null | undefined, limit: number | null | undefined): string {
  if (draw === null || draw === undefined || !Number.isFinite(draw)) {
    return '—';
  }
  return limit === null || limit === undefined || !Number.isFinite(limit)
    ? `${watts(draw)} W`
    : `${watts(draw)} / ${watts(limit)} W`;
}

/**
 * "27.9 GiB / 119.7 GiB"; "—" when neither is reported. Where the figure comes
 * from /proc/meminfo (unified memory, GB10: NVML has no figure), a note says
 * so: that memory is the whole system's, shared with the CPU.
 */
export function formatGpuMemory(gpu: Pick<GpuTelemetry, 'memoryUsedBytes' | 'memoryTotalBytes'>): string {
  if (gpu.memoryUsedBytes === null && gpu.memoryTotalBytes === null) {
    return '—';
  }
  return `${formatBytes(gpu.memoryUsedBytes)} / ${formatBytes(gpu.memoryTotalBytes)}`;
}

/** What to add after a memory figure about where it comes from; '' for NVML's own figure. */
export function memorySourceNote(source: string | null | undefined): string {
  switch (source) {
    case 'proc-meminfo':
      return 'unified, from /proc/meminfo';
    case 'simulated':
      return 'simulated';
    default:
      return '';
  }
}

/** " (unified, from /proc/meminfo)" after a memory figure, '' for NVML's own. */
export function memoryNoteText(source: string | null | undefined): string {
  const note = memorySourceNote(source);
  return note === '' ? '' : ` (${note})`;
}

/**
 * "2 processes using 18.7 GiB", "no processes": the summed per-process memory
 * the agent reported (pids stay on the node). On unified memory this is what
 * the GPU's processes hold of the memory they share with the CPU.
 */
export function formatProcesses(gpu: Pick<GpuTelemetry, 'processCount' | 'processMemoryBytes'>): string {
  if (gpu.processCount === 0) {
    return 'no processes';
  }
  const noun = gpu.processCount === 1 ? 'process' : 'processes';
  return `${gpu.processCount} ${noun} using ${formatBytes(gpu.processMemoryBytes)}`;
}

/** "Xid 79", "no Xid seen" (null also when the agent cannot read the kernel log: it says so in its docs). */
export function formatXid(lastXid: number | null): string {
  return lastXid === null ? 'no Xid seen' : `Xid ${lastXid}`;
}

/** "ECC: 2 uncorrected", "ECC: 0 uncorrected", "ECC: not reported" (GB10, or ECC off). */
export function formatEcc(uncorrected: number | null): string {
  return uncorrected === null ? 'ECC: not reported' : `ECC: ${uncorrected} uncorrected`;
}

/** One GPU's latest figures as the Nodes list shows them, each part with whether it needs attention. */
export interface GpuFigures {
  readonly label: string;
  readonly utilization: string;
  readonly memory: string;
  readonly memoryNote: string;
  readonly temperature: string;
  readonly hot: boolean;
  readonly power: string;
  /** Lost, throttled, an Xid or ECC errors: what the operator should look at, '' when nothing. */
  readonly trouble: string;
}

/**
 * Throttle reasons that mean the GPU is being slowed against the workload's
 * will (heat, a hardware or power-brake slowdown). The others are routine: an
 * idle GPU, clocks an operator set, the power cap under load, sync boost.
 */
const SLOWDOWN_REASONS: ReadonlySet<string> = new Set<GpuThrottleReason>([
  'HwSlowdown',
  'SwThermalSlowdown',
  'HwThermalSlowdown',
  'HwPowerBrakeSlowdown',
]);

export function isSlowdown(reason: string): boolean {
  return SLOWDOWN_REASONS.has(reason);
}

export function gpuTrouble(gpu: GpuTelemetry): string {
  const parts: string[] = [];
  if (gpu.lost) {
    parts.push('lost (fell off the bus)');
  }
  if (gpu.lastXid !== null) {
    parts.push(`Xid ${gpu.lastXid}`);
  }
  if (gpu.eccUncorrectedErrors !== null && gpu.eccUncorrectedErrors > 0) {
    parts.push(`${gpu.eccUncorrectedErrors} uncorrected ECC`);
  }
  const slowdowns = (gpu.throttleReasons ?? []).filter(isSlowdown);
  if (slowdowns.length > 0) {
    parts.push(`slowed: ${slowdowns.join(', ')}`);
  }
  return parts.join('; ');
}

export function gpuFigures(gpu: GpuTelemetry): GpuFigures {
  return {
    label: gpu.index === null ? gpu.uuid.slice(0, 12) : `GPU ${gpu.index}`,
    utilization: formatPercent(gpu.utilizationPercent),
    memory: formatGpuMemory(gpu),
    memoryNote: memorySourceNote(gpu.memorySource),
    temperature: formatCelsius(gpu.temperatureCelsius),
    hot: gpu.temperatureCelsius !== null && gpu.temperatureCelsius >= GPU_HOT_CELSIUS,
    power: formatPower(gpu.powerWatts, gpu.powerLimitWatts),
    trouble: gpuTrouble(gpu),
  };
}

/** GPUs in index order (telemetry from agents before v1.1 has no index: last, by uuid). */
export function sortedTelemetry(telemetry: readonly GpuTelemetry[]): GpuTelemetry[] {
  return [...telemetry].sort(
    (a, b) =>
      (a.index ?? Number.MAX_SAFE_INTEGER) - (b.index ?? Number.MAX_SAFE_INTEGER) ||
      a.uuid.localeCompare(b.uuid),
  );
}

/**
 * The status each condition should have: MemoryPressure and DiskPressure are
 * bad when True, the others when False. A type this console does not know is
 * shown neutral, as sent.
 */
const GOOD_STATUS: Readonly<Record<string, 'True' | 'False'>> = {
  Ready: 'True',
  GpuHealthy: 'True',
  ClockSynchronized: 'True',
  ControllerKeyTrusted: 'True',
  MemoryPressure: 'False',
  DiskPressure: 'False',
};

export function conditionTone(condition: Pick<NodeCondition, 'type' | 'status'>): StatusTone {
  const good = GOOD_STATUS[condition.type];
  if (good === undefined) {
    return 'neutral';
  }
  if (condition.status === 'Unknown') {
    return 'warn';
  }
  return condition.status === good ? 'ok' : 'error';
}

/** "GpuHealthy False: GpuLost — GPU 0 fell off the bus (since 2026-12-06 12:00:00 UTC)": a badge's hover and focus text. */
export function conditionDescription(condition: NodeCondition): string {
  const since = new Date(condition.lastTransitionAt);
  const when = Number.isNaN(since.getTime())
    ? ''
    : ` (since ${since.toISOString().replace('T', ' ').slice(0, 19)} UTC)`;
  const message = condition.message ? ` — ${condition.message}` : '';
  return `${condition.type} ${condition.status}: ${condition.reason}${message}${when}`;
}

export interface ConditionBadge {
  readonly type: string;
  readonly text: string;
  readonly tone: StatusTone;
  readonly description: string;
}

/**
 * The Nodes list's condition badges: every condition not in its good state,
 * worst first, then one badge counting the good ones (named in its
 * description). `Ready` is left out: the Readiness column shows it.
 */
export function conditionBadges(conditions: readonly NodeCondition[]): {
  readonly problems: readonly ConditionBadge[];
  readonly healthy: ConditionBadge | null;
} {
  const shown = conditions.filter((condition) => condition.type !== 'Ready');
  const rank: Readonly<Record<StatusTone, number>> = { error: 0, warn: 1, neutral: 2, ok: 3 };
  const badges = shown.map((condition): ConditionBadge => ({
    type: condition.type,
    text: `${condition.type} ${condition.status}`,
    tone: conditionTone(condition),
    description: conditionDescription(condition),
  }));
  const problems = badges
    .filter((badge) => badge.tone !== 'ok')
    .sort((a, b) => rank[a.tone] - rank[b.tone] || a.type.localeCompare(b.type));
  const good = badges.filter((badge) => badge.tone === 'ok');
  return {
    problems,
    healthy:
      good.length === 0
        ? null
        : {
            type: 'healthy',
            text: problems.length === 0 ? 'All OK' : `${good.length} OK`,
            tone: 'ok',
            description: good.map((badge) => badge.description).join('; '),
          },
  };
}

/** The window the node page charts: Node.gpuSeries keeps 24 h, the page shows the last hour. */
export const GPU_SERIES_MINUTES = 60;

/**
 * When the controller changes each condition, in words, as
 * libs/domain/src/node-conditions.ts decides it (a spec checks the figures
 * against that file). Each enters its bad state at one figure and leaves it
 * only at a safer one held for several heartbeats (5 s apart), so a figure
 * that hovers at a threshold does not flap the condition.
 */
export const CONDITION_THRESHOLDS: readonly { readonly type: string; readonly text: string }[] = [
  {
    type: 'MemoryPressure',
    text:
      "True when available memory (MemAvailable; on unified-memory GB10 also the GPU's) is below 5 % or 4 GiB; " +
      'False again at 8 % and 6 GiB or more for 3 heartbeats. The scheduler places nothing on it while True.',
  },
  {
    type: 'DiskPressure',
    text:
      "True when the model store's volume has less than 5 % or 16 GiB free; False again at 8 % and 24 GiB for " +
      '3 heartbeats. The scheduler places nothing on it while True.',
  },
  {
    type: 'GpuHealthy',
    text:
      'False at once on a GPU fault (lost from the bus, missing from the inventory, uncorrected ECC errors, an Xid ' +
      'other than the application Xids 13, 31, 43, 45) and on thermal throttling held for 6 heartbeats (≈ 30 s); ' +
      'True again after 12 clean heartbeats (≈ 1 min). Healing cordons the node while False.',
  },
  {
    type: 'ClockSynchronized',
    text:
      "False when the node's clock and the controller's differ by more than 2 s in 2 heartbeats in a row; " +
      'True again after 3 heartbeats within 1 s.',
  },
  {
    type: 'ControllerKeyTrusted',
    text:
      "False when the node trusts none of the controller's accepted keys (it missed a key rotation); the message " +
      'names the fingerprint to pin and the command to run on the node. The scheduler places nothing on it while False.',
  },
  {
    type: 'Ready',
    text: 'From the heartbeat lease on every read: the node heartbeats and its lease has not expired.',
  },
];

const GIB = 1024 ** 3;

/** One GPU's charts: utilisation with memory, and temperature with power, over the same times. */
export interface GpuCharts {
  readonly uuid: string;
  readonly label: string;
  readonly x: readonly number[];
  readonly load: readonly ChartSeries[];
  readonly heat: readonly ChartSeries[];
}

type SeriesPoint = GpuSeries['points'][number];

/**
 * Chart series from Node.gpuSeries: memory in GiB, so its axis reads like the
 * figures beside it. With `window` the charts span it whatever the samples
 * cover (a gap, not a stretched axis, where there are none): the first minutes
 * of a node, with one sample, still read as "the last hour".
 */
export function gpuCharts(
  series: readonly GpuSeries[],
  window?: { readonly fromMs: number; readonly toMs: number },
): GpuCharts[] {
  const blank = (ms: number): SeriesPoint => ({
    at: new Date(ms).toISOString(),
    utilizationPercent: null,
    memoryUsedBytes: null,
    memoryTotalBytes: null,
    temperatureCelsius: null,
    powerWatts: null,
  });
  return series.map((gpu) => {
    const points = [...gpu.points].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
    if (window !== undefined) {
      const first = points[0];
      const last = points[points.length - 1];
      if (first === undefined || Date.parse(first.at) > window.fromMs) points.unshift(blank(window.fromMs));
      if (last === undefined || Date.parse(last.at) < window.toMs) points.push(blank(window.toMs));
    }
    return {
      uuid: gpu.uuid,
      label: gpu.index === null ? gpu.uuid : `GPU ${gpu.index}`,
      x: points.map((point) => Date.parse(point.at)),
      load: [
        {
          label: 'Utilisation',
          unit: '%',
          color: 'var(--mat-sys-primary)',
          values: points.map((point) => point.utilizationPercent),
        },
        {
          label: 'Memory used',
          unit: 'GiB',
          color: 'var(--mat-sys-tertiary)',
          line: 'dashed',
          values: points.map((point) =>
            point.memoryUsedBytes === null ? null : point.memoryUsedBytes / GIB,
          ),
        },
      ],
      heat: [
        {
          label: 'Temperature',
          unit: '°C',
          color: 'var(--mat-sys-error)',
          values: points.map((point) => point.temperatureCelsius),
        },
        {
          label: 'Power',
          unit: 'W',
          color: 'var(--mat-sys-secondary)',
          line: 'dashed',
          values: points.map((point) => point.powerWatts),
        },
      ],
    };
  });
}
