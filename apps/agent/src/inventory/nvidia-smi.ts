/**
 * Parsers for the two nvidia-smi outputs the agent reads. Both commands are
 * fixed argv vectors run without a shell; nothing from configuration or the
 * network is ever appended to them.
 */

/** Column order of {@link NVIDIA_SMI_QUERY_ARGS}; the CSV parser depends on it. */
export const NVIDIA_SMI_QUERY_FIELDS = [
  'index',
  'name',
  'uuid',
  'memory.total',
  'memory.used',
  'memory.free',
  'compute_cap',
  'driver_version',
  'mig.mode.current',
] as const;

export const NVIDIA_SMI_QUERY_ARGS: readonly string[] = [
  `--query-gpu=${NVIDIA_SMI_QUERY_FIELDS.join(',')}`,
  '--format=csv,noheader,nounits',
];

/** Plain `nvidia-smi`: its banner is the only place the CUDA version is printed. */
export const NVIDIA_SMI_SUMMARY_ARGS: readonly string[] = [];

export class NvidiaSmiParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NvidiaSmiParseError';
  }
}

/** One GPU as `--query-gpu` reports it; `null` means nvidia-smi did not give a figure. */
export interface NvidiaSmiGpuRow {
  readonly index: number;
  readonly name: string;
  readonly uuid: string;
  readonly memoryTotalMiB: number | null;
  readonly memoryUsedMiB: number | null;
  readonly memoryFreeMiB: number | null;
  readonly computeCapability: string | null;
  readonly driverVersion: string | null;
  /** `null` when the GPU has no MIG support (GB10 prints `[N/A]`). */
  readonly migMode: 'enabled' | 'disabled' | null;
}

/**
 * nvidia-smi prints placeholders instead of values when a field is unavailable:
 * `[N/A]`, `N/A`, `[Not Supported]`, `Not Supported`, and for broken devices
 * `[Unknown Error]`, `[Insufficient Permissions]`, `[GPU requires reset]`.
 * Every bracketed value is such a placeholder, so brackets alone decide it;
 * the two unbracketed spellings are listed because older drivers and the
 * table view use them. Treating any of these as 0 is the bug that makes GB10
 * look like "no GPU memory", so they become `null` here and stay `null`.
 */
const UNBRACKETED_PLACEHOLDERS = new Set(['n/a', 'not supported', '']);

export function nvidiaSmiValue(raw: string): string | null {
  const value = raw.trim();
  if (value.startsWith('[') && value.endsWith(']')) return null;
  return UNBRACKETED_PLACEHOLDERS.has(value.toLowerCase()) ? null : value;
}

function mebibytes(raw: string, field: string, line: number): number | null {
  const value = nvidiaSmiValue(raw);
  if (value === null) return null;
  if (!/^\d+$/.test(value)) {
    throw new NvidiaSmiParseError(
      `line ${line}: ${field} is not a whole number of MiB: ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

function migMode(raw: string, line: number): NvidiaSmiGpuRow['migMode'] {
  const value = nvidiaSmiValue(raw);
  if (value === null) return null;
  switch (value.toLowerCase()) {
    case 'enabled':
      return 'enabled';
    case 'disabled':
      return 'disabled';
    default:
      throw new NvidiaSmiParseError(
        `line ${line}: mig.mode.current is neither Enabled nor Disabled: ${JSON.stringify(value)}`,
      );
  }
}

/**
 * Parses the output of `nvidia-smi` with {@link NVIDIA_SMI_QUERY_ARGS}. A
 * malformed row is an error rather than a skipped GPU: silently dropping a GPU
 * would under-report the node, which is worse than refusing to report.
 */
export function parseNvidiaSmiGpuCsv(text: string): NvidiaSmiGpuRow[] {
  const rows: NvidiaSmiGpuRow[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((rawLine, offset) => {
    const lineNumber = offset + 1;
    if (rawLine.trim() === '') return;
    // GPU names and UUIDs never contain commas, and nvidia-smi does not quote.
    const cells = rawLine.split(',');
    if (cells.length !== NVIDIA_SMI_QUERY_FIELDS.length) {
      throw new NvidiaSmiParseError(
        `line ${lineNumber}: expected ${NVIDIA_SMI_QUERY_FIELDS.length} columns (${NVIDIA_SMI_QUERY_FIELDS.join(', ')}), got ${cells.length}`,
      );
    }
    const [index, name, uuid, total, used, free, computeCap, driver, mig] = cells.map((cell) =>
      cell.trim(),
    ) as [string, string, string, string, string, string, string, string, string];
    if (!/^\d+$/.test(index)) {
      throw new NvidiaSmiParseError(`line ${lineNumber}: index is not a number: ${JSON.stringify(index)}`);
    }
    const gpuName = nvidiaSmiValue(name);
    const gpuUuid = nvidiaSmiValue(uuid);
    if (gpuName === null || gpuUuid === null) {
      throw new NvidiaSmiParseError(`line ${lineNumber}: GPU ${index} has no name or UUID`);
    }
    rows.push({
      index: Number(index),
      name: gpuName,
      uuid: gpuUuid,
      memoryTotalMiB: mebibytes(total, 'memory.total', lineNumber),
      memoryUsedMiB: mebibytes(used, 'memory.used', lineNumber),
      memoryFreeMiB: mebibytes(free, 'memory.free', lineNumber),
      computeCapability: nvidiaSmiValue(computeCap),
      driverVersion: nvidiaSmiValue(driver),
      migMode: migMode(mig, lineNumber),
    });
  });
  return rows;
}

export interface NvidiaSmiSummary {
  readonly driverVersion: string | null;
  readonly cudaVersion: string | null;
}

/**
 * Reads the banner of plain `nvidia-smi`
 * (`| NVIDIA-SMI 580.95.05   Driver Version: 580.95.05   CUDA Version: 13.0 |`).
 * Only the banner is parsed: the per-GPU table is column-aligned for humans,
 * changes layout between driver branches, and everything it shows is available
 * from the CSV query in a stable form.
 */
export function parseNvidiaSmiSummary(text: string): NvidiaSmiSummary {
  const banner = text.split(/\r?\n/).find((line) => /Driver Version:/.test(line));
  if (banner === undefined) {
    throw new NvidiaSmiParseError('nvidia-smi output has no "Driver Version:" banner');
  }
  const driver = /Driver Version:\s*(\S+)/.exec(banner)?.[1];
  const cuda = /CUDA Version:\s*(\S+)/.exec(banner)?.[1];
  return {
    driverVersion: driver === undefined ? null : nvidiaSmiValue(driver),
    cudaVersion: cuda === undefined ? null : nvidiaSmiValue(cuda),
  };
}
