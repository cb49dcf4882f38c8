import { GPU_THROTTLE_REASONS, type GpuThrottleReason } from '@lunanexa/contracts';
import { NvidiaSmiParseError, nvidiaSmiValue } from '../inventory/nvidia-smi';

/**
 * The two nvidia-smi queries behind GPU telemetry, and their parsers. Like the
 * inventory queries they are fixed argv vectors run without a shell. `index`
 * labels the metrics and `pci.bus_id` ties a "fallen off the bus" line and a
 * kernel Xid (both name the bus, never the UUID) to a GPU.
 */
export const TELEMETRY_QUERY_FIELDS = [
  'index',
  'uuid',
  'pci.bus_id',
  'utilization.gpu',
  'memory.used',
  'memory.total',
  'temperature.gpu',
  'power.draw',
  'power.limit',
  'clocks_throttle_reasons.active',
  'ecc.errors.uncorrected.volatile.total',
] as const;

export const TELEMETRY_QUERY_ARGS: readonly string[] = [
  `--query-gpu=${TELEMETRY_QUERY_FIELDS.join(',')}`,
  '--format=csv,noheader,nounits',
];

export const COMPUTE_APPS_QUERY_ARGS: readonly string[] = [
  '--query-compute-apps=gpu_uuid,pid,used_memory',
  '--format=csv,noheader,nounits',
];

/** A PCI address as domain:bus:device, in numbers, so `0000:9a:00` (kernel) and `00000000:9A:00.0` (nvidia-smi) match. */
export type PciKey = string;

export function pciKey(domain: string, bus: string, device: string): PciKey {
  return [domain, bus, device].map((part) => parseInt(part, 16).toString(16)).join(':');
}

/** `00000000:9A:00.0` → key; null when nvidia-smi printed no usable bus id. */
export function pciKeyOfBusId(raw: string | null): PciKey | null {
  const match = raw === null ? null : /^([0-9a-f]{4,8}):([0-9a-f]{2}):([0-9a-f]{2})\.[0-9a-f]$/i.exec(raw);
  return match?.[1] === undefined || match[2] === undefined || match[3] === undefined
    ? null
    : pciKey(match[1], match[2], match[3]);
}

/** One GPU's row; `null` means nvidia-smi gave no figure (`[N/A]`, `Not Supported`). */
export interface TelemetryRow {
  readonly index: number;
  readonly uuid: string;
  readonly pci: PciKey | null;
  readonly utilizationPercent: number | null;
  readonly memoryUsedMiB: number | null;
  readonly memoryTotalMiB: number | null;
  readonly temperatureCelsius: number | null;
  readonly powerWatts: number | null;
  readonly powerLimitWatts: number | null;
  readonly throttleReasons: GpuThrottleReason[] | null;
  readonly eccUncorrectedErrors: number | null;
  /** The row itself says the GPU is lost (`[GPU is lost]` in its cells) though nvidia-smi still had its UUID. */
  readonly lost: boolean;
}

/** A GPU nvidia-smi could not open: it names the bus and the driver's words, not the UUID. */
export interface LostDevice {
  readonly pci: PciKey;
  readonly message: string;
}

export interface TelemetryQueryResult {
  readonly rows: TelemetryRow[];
  readonly lost: LostDevice[];
}

/**
 * NVML's documented clocks-throttle (clocks event) reason bits, in bit order.
 * Any other set bit reads as `Unknown`: a newer driver's reason must still
 * show that the GPU is held back.
 */
const THROTTLE_BITS: readonly (readonly [bigint, GpuThrottleReason])[] = [
  [0x1n, 'GpuIdle'],
  [0x2n, 'ApplicationsClocksSetting'],
  [0x4n, 'SwPowerCap'],
  [0x8n, 'HwSlowdown'],
  [0x10n, 'SyncBoost'],
  [0x20n, 'SwThermalSlowdown'],
  [0x40n, 'HwThermalSlowdown'],
  [0x80n, 'HwPowerBrakeSlowdown'],
  [0x100n, 'DisplayClockSetting'],
];
const KNOWN_THROTTLE_MASK = THROTTLE_BITS.reduce((mask, [bit]) => mask | bit, 0n);

/** `0x0000000000000044` → ['SwPowerCap', 'HwThermalSlowdown']; a placeholder → null. */
export function decodeThrottleReasons(raw: string, line = 0): GpuThrottleReason[] | null {
  const value = nvidiaSmiValue(raw);
  if (value === null) return null;
  if (!/^0x[0-9a-f]{1,16}$/i.test(value)) {
    throw new NvidiaSmiParseError(
      `line ${line}: clocks_throttle_reasons.active is not a hex bit mask: ${JSON.stringify(value)}`,
    );
  }
  const mask = BigInt(value);
  const reasons = THROTTLE_BITS.filter(([bit]) => (mask & bit) !== 0n).map(([, reason]) => reason);
  if ((mask & ~KNOWN_THROTTLE_MASK) !== 0n) reasons.push('Unknown');
  // The contract's order, so equal masks compare equal whatever the bit order.
  return GPU_THROTTLE_REASONS.filter((reason) => reasons.includes(reason));
}

function number(raw: string, field: string, line: number, whole: boolean): number | null {
  const value = nvidiaSmiValue(raw);
  if (value === null) return null;
  const pattern = whole ? /^\d+$/ : /^-?\d+(\.\d+)?$/;
  if (!pattern.test(value)) {
    throw new NvidiaSmiParseError(`line ${line}: ${field} is not a number: ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** `[GPU is lost]`, the placeholder nvidia-smi prints in the cells of a GPU it still lists but cannot reach. */
const LOST_CELL = /^\[GPU is lost\]$/i;

/**
 * Lines nvidia-smi prints instead of a row for a GPU that fell off the bus:
 * `Unable to determine the device handle for GPU0000:9A:00.0: Unknown Error`
 * (or `…: GPU is lost`), and on some drivers `GPU 00000000:9A:00.0: GPU is lost. Reboot …`.
 */
const LOST_LINES = [
  /^Unable to determine the device handle for GPU\s*([0-9a-f]{4,8}):([0-9a-f]{2}):([0-9a-f]{2})\.[0-9a-f]:\s*(.+)$/i,
  /^GPU\s+([0-9a-f]{4,8}):([0-9a-f]{2}):([0-9a-f]{2})\.[0-9a-f]:\s*(GPU is lost.*)$/i,
];

function lostDeviceOf(line: string): LostDevice | null {
  for (const pattern of LOST_LINES) {
    const match = pattern.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined && match[3] !== undefined) {
      return { pci: pciKey(match[1], match[2], match[3]), message: (match[4] ?? line).trim() };
    }
  }
  return null;
}

/** The lost-GPU lines in nvidia-smi's stderr, where some drivers print them; every other line there is ignored. */
export function parseLostDevices(text: string): LostDevice[] {
  return text
    .split(/\r?\n/)
    .map((line) => lostDeviceOf(line.trim()))
    .filter((device): device is LostDevice => device !== null);
}

/**
 * Parses {@link TELEMETRY_QUERY_ARGS} stdout: rows, and the lost-GPU lines
 * drivers print in place of a row. A malformed row is an error, as for the
 * inventory: a wrong figure is worse than none.
 */
export function parseTelemetryCsv(text: string): TelemetryQueryResult {
  const rows: TelemetryRow[] = [];
  const lost: LostDevice[] = [];
  text.split(/\r?\n/).forEach((rawLine, offset) => {
    const line = offset + 1;
    const trimmed = rawLine.trim();
    if (trimmed === '') return;
    const device = lostDeviceOf(trimmed);
    if (device !== null) {
      lost.push(device);
      return;
    }
    const cells = trimmed.split(',').map((cell) => cell.trim());
    if (cells.length !== TELEMETRY_QUERY_FIELDS.length) {
      throw new NvidiaSmiParseError(
        `line ${line}: expected ${TELEMETRY_QUERY_FIELDS.length} columns (${TELEMETRY_QUERY_FIELDS.join(', ')}), got ${cells.length}`,
      );
    }
    const [index, uuid, bus, util, used, total, temp, power, limit, throttle, ecc] = cells as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    if (!/^\d+$/.test(index)) {
      throw new NvidiaSmiParseError(`line ${line}: index is not a number: ${JSON.stringify(index)}`);
    }
    const gpuUuid = nvidiaSmiValue(uuid);
    if (gpuUuid === null) throw new NvidiaSmiParseError(`line ${line}: GPU ${index} has no UUID`);
    rows.push({
      index: Number(index),
      uuid: gpuUuid,
      pci: pciKeyOfBusId(nvidiaSmiValue(bus)),
      utilizationPercent: number(util, 'utilization.gpu', line, false),
      memoryUsedMiB: number(used, 'memory.used', line, true),
      memoryTotalMiB: number(total, 'memory.total', line, true),
      temperatureCelsius: number(temp, 'temperature.gpu', line, false),
      powerWatts: number(power, 'power.draw', line, false),
      powerLimitWatts: number(limit, 'power.limit', line, false),
      throttleReasons: decodeThrottleReasons(throttle, line),
      eccUncorrectedErrors: number(ecc, 'ecc.errors.uncorrected.volatile.total', line, true),
      lost: cells.some((cell) => LOST_CELL.test(cell)),
    });
  });
  return { rows, lost };
}

export interface ComputeApp {
  readonly gpuUuid: string;
  readonly pid: number;
  /** Null when nvidia-smi did not say (it does for some processes, e.g. without permission). */
  readonly usedMemoryMiB: number | null;
}

/** Parses {@link COMPUTE_APPS_QUERY_ARGS} output; "No running processes found" and blank output mean none. */
export function parseComputeAppsCsv(text: string): ComputeApp[] {
  const apps: ComputeApp[] = [];
  text.split(/\r?\n/).forEach((rawLine, offset) => {
    const line = offset + 1;
    const trimmed = rawLine.trim();
    if (trimmed === '' || /^No running (compute )?processes found/i.test(trimmed)) return;
    const cells = trimmed.split(',').map((cell) => cell.trim());
    const [uuid, pid, used] = cells;
    if (cells.length !== 3 || uuid === undefined || pid === undefined || used === undefined) {
      throw new NvidiaSmiParseError(`line ${line}: expected 3 columns (gpu_uuid, pid, used_memory)`);
    }
    if (!/^[1-9]\d*$/.test(pid)) {
      throw new NvidiaSmiParseError(`line ${line}: pid is not a number: ${JSON.stringify(pid)}`);
    }
    const gpuUuid = nvidiaSmiValue(uuid);
    if (gpuUuid === null) return; // a process of a GPU nvidia-smi cannot name belongs to no telemetry entry
    apps.push({ gpuUuid, pid: Number(pid), usedMemoryMiB: number(used, 'used_memory', line, true) });
  });
  return apps;
}
