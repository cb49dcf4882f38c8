import {
  AGENT_PROTOCOL_VERSION,
  NodeInventorySchema,
  type GpuInventory,
  type NodeInventory,
} from '@lunanexa/contracts';
import { architectureOf, cpuModelSummary, parseOsRelease, type HostProbe } from './host';
import { parseMeminfo } from './meminfo';
import { gpusFromNvidiaSmi } from './nvidia-gpus';
import {
  NVIDIA_SMI_QUERY_ARGS,
  NVIDIA_SMI_SUMMARY_ARGS,
  parseNvidiaSmiGpuCsv,
  parseNvidiaSmiSummary,
} from './nvidia-smi';

/** An inventory plus what kept it from being complete. */
export interface InventoryReport {
  readonly inventory: NodeInventory;
  /** Empty when every GPU nvidia-smi listed made it into the inventory. */
  readonly problems: readonly string[];
}

export interface CollectOptions {
  readonly agentVersion: string;
  readonly now: () => Date;
}

/**
 * Collects the inventory of a real node. `/proc/meminfo` failing is fatal
 * (it sizes unified GPUs and the node itself); nvidia-smi failing is not: the
 * node then reports no GPUs and says why, because a node whose driver broke
 * must stay visible to the operator rather than vanish.
 */
export async function collectNvidiaInventory(
  probe: HostProbe,
  options: CollectOptions,
): Promise<InventoryReport> {
  const architecture = architectureOf(probe.nodeArch);
  const meminfo = parseMeminfo(await probe.readProcMeminfo());
  const problems: string[] = [];
  let gpus: GpuInventory[] = [];
  try {
    // One call at a time: a struggling driver answers two concurrent queries worse than two serial ones.
    const csv = await probe.nvidiaSmi(NVIDIA_SMI_QUERY_ARGS);
    const banner = await probe.nvidiaSmi(NVIDIA_SMI_SUMMARY_ARGS);
    const rows = parseNvidiaSmiGpuCsv(csv);
    if (rows.length === 0) problems.push('nvidia-smi listed no GPUs');
    const conversion = gpusFromNvidiaSmi({
      architecture,
      rows,
      summary: parseNvidiaSmiSummary(banner),
      meminfo,
    });
    gpus = conversion.gpus;
    problems.push(...conversion.problems);
  } catch (error: unknown) {
    problems.push(`nvidia-smi: ${describeFailure(error)}`);
  }
  const osRelease = await probe.readOsRelease();
  const os = osRelease === null ? { name: null, version: null } : parseOsRelease(osRelease);
  const cpuModels = probe.cpuModels();
  const inventory = NodeInventorySchema.parse({
    architecture,
    cpu: { model: cpuModelSummary(cpuModels), cores: cpuModels.length },
    systemMemory: {
      totalBytes: meminfo.memTotalBytes,
      availableBytes: meminfo.memAvailableBytes,
      source: 'proc-meminfo',
    },
    gpus,
    os: { name: os.name ?? 'unknown', version: os.version ?? 'unknown', kernel: probe.kernelRelease() },
    agentVersion: options.agentVersion,
    agentProtocol: AGENT_PROTOCOL_VERSION,
    collectedAt: options.now().toISOString(),
  });
  return { inventory, problems };
}

/**
 * execFile errors carry the whole command line and stderr; the operator needs
 * the cause (not installed, driver not loaded, timed out), on one line.
 */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const details = error as NodeJS.ErrnoException & { stderr?: unknown; killed?: boolean; signal?: unknown };
  if (details.code === 'ENOENT') return 'not found on PATH (is the NVIDIA driver installed?)';
  if (details.killed === true) return `did not finish in time (killed with ${String(details.signal)})`;
  const stderr = typeof details.stderr === 'string' ? details.stderr.trim().split('\n')[0] : undefined;
  if (stderr !== undefined && stderr !== '') return stderr;
  return error.message.split('\n')[0] ?? error.name;
}
