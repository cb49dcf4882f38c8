import {
  GpuTelemetrySchema,
  type GpuMemorySource,
  type GpuTelemetry,
  type NodeInventory,
} from '@lunanexa/contracts';
import { parseMeminfo, type Meminfo } from '../inventory/meminfo';
import { parseKernelXids, type XidEvent } from './kernel-xid';
import {
  COMPUTE_APPS_QUERY_ARGS,
  TELEMETRY_QUERY_ARGS,
  parseComputeAppsCsv,
  parseLostDevices,
  parseTelemetryCsv,
  type ComputeApp,
  type LostDevice,
  type PciKey,
  type TelemetryRow,
} from './nvidia-smi-telemetry';

/** What nvidia-smi printed, whatever its exit status: with a GPU lost it exits non-zero yet still lists the others. */
export interface CommandOutput {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
}

/**
 * Everything telemetry reads from the machine. The system implementation runs
 * the real nvidia-smi; the simulated one emits the same text from the node's
 * load, so both go through the parsers below.
 */
export interface TelemetryProbe {
  /** nvidia-smi with a fixed argv; rejects only when it could not run (not installed, timed out). */
  nvidiaSmi(args: readonly string[]): Promise<CommandOutput>;
  readProcMeminfo(): Promise<string>;
  /** Kernel log text to find Xids in, or null when the agent may not read it (Xids are then "not reported"). */
  readKernelLog(): Promise<string | null>;
}

export interface TelemetryReport {
  readonly telemetry: GpuTelemetry[];
  /** Why a GPU is missing or a figure could not be read; empty when nothing is. */
  readonly problems: string[];
}

export interface TelemetryCollectorOptions {
  readonly probe: TelemetryProbe;
  /** The current inventory: which GPUs the node has, their index and memory model. */
  readonly inventory: () => NodeInventory;
  readonly now: () => Date;
  /** Simulated nodes label their memory figures `simulated` so nothing downstream takes them for measurements. */
  readonly simulated?: boolean;
}

const MIB = 1024 * 1024;
const MAX_PROCESSES_PER_GPU = 1024;

interface KnownGpu {
  readonly uuid: string;
  readonly index: number;
}

/**
 * Reads GPU telemetry for one heartbeat. It remembers which GPU sat on which
 * PCI address, because nvidia-smi reports a GPU that fell off the bus by
 * address only; until it has seen the address (a GPU already lost when the
 * agent started), a lost line is put on the inventory's GPUs that nvidia-smi
 * no longer lists.
 */
export class GpuTelemetryCollector {
  private readonly byPci = new Map<PciKey, KnownGpu>();

  constructor(private readonly options: TelemetryCollectorOptions) {}

  async collect(): Promise<TelemetryReport> {
    const { probe } = this.options;
    const problems: string[] = [];
    // One call at a time, as for the inventory: a struggling driver answers serial queries better.
    const query = await probe.nvidiaSmi(TELEMETRY_QUERY_ARGS);
    const sampledAt = this.options.now().toISOString();
    const { rows, lost } = parseTelemetryCsv(query.stdout);
    lost.push(...parseLostDevices(query.stderr));
    if (query.exitCode !== 0 && lost.length === 0 && rows.length === 0) {
      throw new Error(`nvidia-smi exited with ${String(query.exitCode)}: ${firstLine(query.stderr)}`);
    }
    for (const row of rows)
      if (row.pci !== null) this.byPci.set(row.pci, { uuid: row.uuid, index: row.index });

    let apps: ComputeApp[] = [];
    if (rows.length > 0) {
      try {
        const output = await probe.nvidiaSmi(COMPUTE_APPS_QUERY_ARGS);
        apps = parseComputeAppsCsv(output.stdout);
      } catch (error: unknown) {
        problems.push(`per-process GPU memory not read: ${describe(error)}`);
      }
    }
    const inventory = this.options.inventory();
    const unified = new Set(
      inventory.gpus.filter((gpu) => gpu.memoryModel === 'unified').map((gpu) => gpu.uuid),
    );
    let meminfo: Meminfo | null = null;
    if (rows.some((row) => unified.has(row.uuid) && row.memoryTotalMiB === null)) {
      try {
        meminfo = parseMeminfo(await probe.readProcMeminfo());
      } catch (error: unknown) {
        problems.push(`unified GPU memory not read from /proc/meminfo: ${describe(error)}`);
      }
    }
    let xids = new Map<PciKey, XidEvent>();
    try {
      const log = await probe.readKernelLog();
      if (log !== null) xids = parseKernelXids(log);
    } catch (error: unknown) {
      problems.push(`kernel log not read for Xids: ${describe(error)}`);
    }

    const telemetry: GpuTelemetry[] = [];
    const add = (candidate: GpuTelemetry): void => {
      const parsed = GpuTelemetrySchema.safeParse(candidate);
      if (parsed.success) telemetry.push(parsed.data);
      else
        problems.push(
          `GPU ${candidate.index ?? '?'} (${candidate.uuid}) telemetry not reported: ${parsed.error.issues
            .map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`)
            .join('; ')}`,
        );
    };
    for (const row of rows) {
      const memory = this.memoryOf(row, unified.has(row.uuid) ? meminfo : null);
      const xid = row.pci === null ? undefined : xids.get(row.pci);
      add({
        uuid: row.uuid,
        index: row.index,
        sampledAt,
        utilizationPercent: row.utilizationPercent,
        ...memory,
        temperatureCelsius: row.temperatureCelsius,
        powerWatts: row.powerWatts,
        powerLimitWatts: row.powerLimitWatts,
        throttleReasons: row.throttleReasons,
        eccUncorrectedErrors: row.eccUncorrectedErrors,
        lastXid: xid?.xid ?? null,
        lastError: row.lost ? 'GPU is lost' : (xid?.message ?? null),
        lost: row.lost,
        processes: processesOf(row.uuid, apps),
      });
    }
    for (const [gpu, device] of this.attributeLost(lost, rows, inventory, problems)) {
      const xid = xids.get(device.pci);
      add({
        uuid: gpu.uuid,
        index: gpu.index,
        sampledAt,
        utilizationPercent: null,
        memoryUsedBytes: null,
        memoryTotalBytes: null,
        memorySource: null,
        temperatureCelsius: null,
        powerWatts: null,
        powerLimitWatts: null,
        throttleReasons: null,
        eccUncorrectedErrors: null,
        lastXid: xid?.xid ?? null,
        lastError: (xid?.message ?? device.message).slice(0, 1024),
        lost: true,
        processes: [],
      });
    }
    const reported = new Set(telemetry.map((entry) => entry.uuid));
    for (const gpu of inventory.gpus) {
      if (!reported.has(gpu.uuid)) problems.push(`GPU ${gpu.index} (${gpu.uuid}) is missing from nvidia-smi`);
    }
    return { telemetry, problems };
  }

  /** NVML's figures when it has them; a unified GPU's from /proc/meminfo when NVML says [N/A]. */
  private memoryOf(
    row: TelemetryRow,
    meminfo: Meminfo | null,
  ): Pick<GpuTelemetry, 'memoryUsedBytes' | 'memoryTotalBytes' | 'memorySource'> {
    const label = (source: GpuMemorySource): GpuMemorySource =>
      this.options.simulated ? 'simulated' : source;
    if (row.memoryTotalMiB !== null) {
      return {
        memoryTotalBytes: row.memoryTotalMiB * MIB,
        memoryUsedBytes: row.memoryUsedMiB === null ? null : row.memoryUsedMiB * MIB,
        memorySource: label('nvml'),
      };
    }
    if (meminfo !== null) {
      return {
        memoryTotalBytes: meminfo.memTotalBytes,
        memoryUsedBytes: Math.max(0, meminfo.memTotalBytes - meminfo.memAvailableBytes),
        memorySource: label('proc-meminfo'),
      };
    }
    return { memoryTotalBytes: null, memoryUsedBytes: null, memorySource: null };
  }

  /**
   * Which GPU each lost line is about: the one last seen at that address, else
   * (in index order) an inventory GPU nvidia-smi no longer lists. A line that
   * fits neither is a problem to log; a telemetry entry needs a UUID.
   */
  private attributeLost(
    lost: readonly LostDevice[],
    rows: readonly TelemetryRow[],
    inventory: NodeInventory,
    problems: string[],
  ): [KnownGpu, LostDevice][] {
    const listed = new Set(rows.map((row) => row.uuid));
    const unlisted = inventory.gpus
      .filter((gpu) => !listed.has(gpu.uuid))
      .map((gpu) => ({ uuid: gpu.uuid, index: gpu.index }))
      .sort((a, b) => a.index - b.index);
    const taken = new Set<string>();
    const result: [KnownGpu, LostDevice][] = [];
    const unknown: LostDevice[] = [];
    for (const device of lost) {
      const known = this.byPci.get(device.pci);
      if (known !== undefined && !listed.has(known.uuid) && !taken.has(known.uuid)) {
        taken.add(known.uuid);
        result.push([known, device]);
      } else unknown.push(device);
    }
    for (const device of unknown) {
      const gpu = unlisted.find((candidate) => !taken.has(candidate.uuid));
      if (gpu === undefined) {
        problems.push(`nvidia-smi reports a GPU at PCI ${device.pci} it cannot reach (${device.message})`);
        continue;
      }
      taken.add(gpu.uuid);
      result.push([gpu, device]);
    }
    return result;
  }
}

function processesOf(uuid: string, apps: readonly ComputeApp[]): GpuTelemetry['processes'] {
  return apps
    .filter((app) => app.gpuUuid === uuid && app.usedMemoryMiB !== null)
    .slice(0, MAX_PROCESSES_PER_GPU)
    .map((app) => ({ pid: app.pid, usedMemoryBytes: (app.usedMemoryMiB ?? 0) * MIB }));
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

function describe(error: unknown): string {
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.name) : String(error);
}
