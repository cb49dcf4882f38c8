/** The two `/proc/meminfo` figures that size a unified-memory GPU. */
export interface Meminfo {
  readonly memTotalBytes: number;
  readonly memAvailableBytes: number;
}

export class MeminfoParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MeminfoParseError';
  }
}

/**
 * Parses `/proc/meminfo`. The kernel prints `kB` but means KiB (1024 bytes).
 * MemAvailable rather than MemFree is the free figure because page cache is
 * reclaimable: on a DGX Spark MemFree drops far below what a model can still
 * allocate, while MemTotal − MemAvailable tracks real GPU+CPU usage closely.
 */
export function parseMeminfo(text: string): Meminfo {
  const kib = new Map<string, number>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^([A-Za-z0-9_()]+):\s+(\d+)\s+kB\s*$/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) kib.set(match[1], Number(match[2]));
  }
  const total = kib.get('MemTotal');
  const available = kib.get('MemAvailable');
  if (total === undefined || available === undefined) {
    throw new MeminfoParseError('/proc/meminfo has no MemTotal or MemAvailable line');
  }
  if (total === 0) {
    // A zero total is exactly the misreading that hides a GB10; refuse it loudly.
    throw new MeminfoParseError('/proc/meminfo reports MemTotal 0 kB');
  }
  return { memTotalBytes: total * 1024, memAvailableBytes: available * 1024 };
}
