import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { GpuInventory, NodeInventory } from '@lunanexa/contracts';
import type { CommandOutput, TelemetryProbe } from './collect';
import { COMPUTE_APPS_QUERY_ARGS, TELEMETRY_QUERY_ARGS } from './nvidia-smi-telemetry';

/**
 * nvidia-smi for simulated nodes: the same CSV text a real driver prints,
 * computed from the node's load, so simulated telemetry goes through the real
 * parsers and collector. Faults come from a file in the agent's data dir that
 * a test or an operator rehearsing an incident writes (see
 * {@link SIMULATED_GPU_FAULTS_FILE}).
 */

/** What the node's runtimes are doing, read at every sample. */
export interface SimulatedLoad {
  readonly readyRuntimes: number;
  readonly inFlightRequests: number;
  /** Runtime processes to list as GPU compute apps. */
  readonly pids: readonly number[];
}

/**
 * `<dataDir>/simulated-gpu-faults.json`: per GPU index, an Xid to log and/or
 * whether the GPU fell off the bus, e.g. `{"0": {"xid": 79, "lost": true}}`.
 * Read at every sample; delete it to heal the GPUs.
 */
export const SIMULATED_GPU_FAULTS_FILE = 'simulated-gpu-faults.json';

export interface SimulatedGpuFault {
  readonly xid?: number;
  readonly message?: string;
  readonly lost?: boolean;
}

export class SimulatedFaultsError extends Error {
  constructor(message: string) {
    super(`${SIMULATED_GPU_FAULTS_FILE}: ${message}`);
    this.name = 'SimulatedFaultsError';
  }
}

const MIB = 1024 * 1024;
/** What one Ready runtime holds on its GPU: a mid-sized model plus KV cache. */
const RUNTIME_MEMORY_BYTES = 20 * 1024 * MIB;
/** The OS, the agent and the page cache that MemAvailable does not give back, on a unified node. */
const UNIFIED_BASELINE_BYTES = 6 * 1024 * MIB;
const DISCRETE_BASELINE_MIB = 4;

interface Electrical {
  readonly idleWatts: number;
  readonly peakWatts: number;
  /** Null where the driver does not report a limit (GB10). */
  readonly limitWatts: number | null;
  readonly idleCelsius: number;
}

/** GB10 idles at 11.17 W / 35 °C (HARDWARE.md); H100 SXM at ~70 W with a 700 W limit. */
const GB10: Electrical = { idleWatts: 11.17, peakWatts: 95, limitWatts: null, idleCelsius: 35 };
const H100: Electrical = { idleWatts: 69.8, peakWatts: 690, limitWatts: 700, idleCelsius: 30 };

function busIdOf(gpu: GpuInventory): string {
  const bus = gpu.memoryModel === 'unified' ? 0x01 : 0x18 + gpu.index * 0x10;
  const domain = gpu.memoryModel === 'unified' ? '0000000F' : '00000000';
  return `${domain}:${bus.toString(16).toUpperCase().padStart(2, '0')}:00.0`;
}

function kernelAddressOf(gpu: GpuInventory): string {
  const [domain, bus, device] = busIdOf(gpu).toLowerCase().split(/[:.]/) as [string, string, string];
  return `${domain.slice(-4)}:${bus}:${device}`;
}

/** Round-robin: the n-th Ready runtime sits on GPU n mod count, as placement spreads replicas. */
function share(total: number, gpus: number, position: number): number {
  return Math.floor(total / gpus) + (position < total % gpus ? 1 : 0);
}

export interface SimulatedTelemetryOptions {
  readonly inventory: () => NodeInventory;
  readonly dataDir: string;
  readonly load: () => SimulatedLoad;
}

export function simulatedTelemetryProbe(options: SimulatedTelemetryOptions): TelemetryProbe {
  const faults = () => readFaults(options.dataDir);
  const memoryUsedBytes = (load: SimulatedLoad): number => load.readyRuntimes * RUNTIME_MEMORY_BYTES;
  return {
    async nvidiaSmi(args) {
      const inventory = options.inventory();
      const load = options.load();
      const fault = await faults();
      const healthy = inventory.gpus.filter((gpu) => fault.get(gpu.index)?.lost !== true);
      if (same(args, TELEMETRY_QUERY_ARGS)) return telemetryCsv(inventory, healthy, fault, load);
      if (same(args, COMPUTE_APPS_QUERY_ARGS)) {
        const lines = load.pids.map((pid, n) => {
          const gpu = healthy[n % healthy.length];
          return gpu === undefined ? '' : `${gpu.uuid}, ${pid}, ${RUNTIME_MEMORY_BYTES / MIB}`;
        });
        return { stdout: lines.filter((line) => line !== '').join('\n') + '\n', stderr: '', exitCode: 0 };
      }
      // The real binary prints usage for an unknown query; a simulated node never sends one.
      return {
        stdout: '',
        stderr: `simulated nvidia-smi: unsupported arguments ${args.join(' ')}`,
        exitCode: 2,
      };
    },
    readProcMeminfo() {
      const { totalBytes } = options.inventory().systemMemory;
      const used = UNIFIED_BASELINE_BYTES + memoryUsedBytes(options.load());
      const available = Math.max(0, totalBytes - used);
      return Promise.resolve(
        `MemTotal:       ${Math.floor(totalBytes / 1024)} kB\nMemFree:        ${Math.floor(available / 2048)} kB\n` +
          `MemAvailable:   ${Math.floor(available / 1024)} kB\n`,
      );
    },
    async readKernelLog() {
      const inventory = options.inventory();
      const fault = await faults();
      const lines: string[] = [];
      for (const gpu of inventory.gpus) {
        const entry = fault.get(gpu.index);
        if (entry?.xid === undefined) continue;
        const message =
          entry.message ?? (entry.xid === 79 ? 'GPU has fallen off the bus.' : 'simulated fault');
        lines.push(
          `3,${1000 + gpu.index},0,-;NVRM: Xid (PCI:${kernelAddressOf(gpu)}): ${entry.xid}, pid='<unknown>', name=<unknown>, ${message}`,
        );
      }
      return lines.join('\n');
    },
  };
}

function telemetryCsv(
  inventory: NodeInventory,
  healthy: readonly GpuInventory[],
  fault: ReadonlyMap<number, SimulatedGpuFault>,
  load: SimulatedLoad,
): CommandOutput {
  const lines: string[] = [];
  let lost = false;
  for (const gpu of inventory.gpus) {
    if (fault.get(gpu.index)?.lost === true) {
      lost = true;
      lines.push(
        `Unable to determine the device handle for GPU${busIdOf(gpu).replace(/^0000/, '')}: Unknown Error`,
      );
      continue;
    }
    const position = healthy.indexOf(gpu);
    const ready = share(load.readyRuntimes, healthy.length, position);
    // Requests reach only the GPUs that hold a Ready runtime.
    const busy = Math.min(load.readyRuntimes, healthy.length);
    const inFlight = position < busy ? share(load.inFlightRequests, busy, position) : 0;
    // A loaded replica keeps the GPU busy between requests (KV cache, batching); each request adds more.
    const utilization = ready === 0 ? 0 : Math.min(100, 20 + 10 * inFlight);
    const electrical = gpu.memoryModel === 'unified' ? GB10 : H100;
    const watts = electrical.idleWatts + ((electrical.peakWatts - electrical.idleWatts) * utilization) / 100;
    const celsius = Math.round(electrical.idleCelsius + 0.45 * utilization);
    // Throttling as real parts do it: idle clocks when idle, the power cap near the limit.
    const throttle = utilization === 0 ? 0x1 : watts >= 0.95 * (electrical.limitWatts ?? Infinity) ? 0x4 : 0;
    const memory =
      gpu.memoryModel === 'unified'
        ? ['[N/A]', '[N/A]']
        : (() => {
            const totalMiB = Math.floor((gpu.totalMemoryBytes ?? 0) / MIB);
            const usedMiB = Math.min(totalMiB, DISCRETE_BASELINE_MIB + (ready * RUNTIME_MEMORY_BYTES) / MIB);
            return [String(usedMiB), String(totalMiB)];
          })();
    lines.push(
      [
        gpu.index,
        gpu.uuid,
        busIdOf(gpu),
        utilization,
        ...memory,
        celsius,
        watts.toFixed(2),
        electrical.limitWatts === null ? '[N/A]' : electrical.limitWatts.toFixed(2),
        `0x${throttle.toString(16).padStart(16, '0')}`,
        gpu.memoryModel === 'unified' ? '[N/A]' : '0',
      ].join(', '),
    );
  }
  return { stdout: lines.join('\n') + '\n', stderr: '', exitCode: lost ? 15 : 0 };
}

async function readFaults(dataDir: string): Promise<Map<number, SimulatedGpuFault>> {
  let text: string;
  try {
    text = await readFile(join(dataDir, SIMULATED_GPU_FAULTS_FILE), 'utf8');
  } catch (error: unknown) {
    if (error instanceof Error && (error as NodeJS.ErrnoException).code === 'ENOENT') return new Map();
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SimulatedFaultsError('is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SimulatedFaultsError('must be an object keyed by GPU index');
  }
  const faults = new Map<number, SimulatedGpuFault>();
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!/^\d{1,2}$/.test(key)) throw new SimulatedFaultsError(`${JSON.stringify(key)} is not a GPU index`);
    if (typeof value !== 'object' || value === null)
      throw new SimulatedFaultsError(`GPU ${key}: not an object`);
    const { xid, message, lost } = value as Record<string, unknown>;
    if (xid !== undefined && !(Number.isInteger(xid) && (xid as number) >= 1 && (xid as number) <= 9999))
      throw new SimulatedFaultsError(`GPU ${key}: xid must be a whole number 1-9999`);
    if (message !== undefined && (typeof message !== 'string' || message === '' || message.length > 200))
      throw new SimulatedFaultsError(`GPU ${key}: message must be 1-200 characters`);
    if (lost !== undefined && typeof lost !== 'boolean')
      throw new SimulatedFaultsError(`GPU ${key}: lost must be true or false`);
    faults.set(Number(key), {
      ...(xid === undefined ? {} : { xid: xid as number }),
      ...(message === undefined ? {} : { message: message }),
      ...(lost === undefined ? {} : { lost: lost }),
    });
  }
  return faults;
}

function same(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}
