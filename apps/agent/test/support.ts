import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { HostProbe } from '../src/inventory/host';
import { NVIDIA_SMI_QUERY_ARGS, NVIDIA_SMI_SUMMARY_ARGS } from '../src/inventory/nvidia-smi';

/** Compiled to dist/test; the captured outputs stay in the source tree. */
export const FIXTURES_DIR = join(__dirname, '..', '..', 'test', 'fixtures');

export function fixture(name: string): string {
  return readFileSync(join(FIXTURES_DIR, name), 'utf8');
}

/**
 * A host whose nvidia-smi and /proc files are captured outputs. It answers
 * only the two argv vectors the agent is allowed to run, so a collector that
 * built any other command line fails here.
 */
export function capturedHost(options: {
  nodeArch: string;
  queryCsv?: string;
  summary?: string;
  meminfo?: string;
  nvidiaSmiError?: Error;
}): HostProbe & { readonly calls: string[][] } {
  const calls: string[][] = [];
  return {
    nodeArch: options.nodeArch,
    calls,
    nvidiaSmi(args) {
      calls.push([...args]);
      if (options.nvidiaSmiError !== undefined) return Promise.reject(options.nvidiaSmiError);
      if (sameArgs(args, NVIDIA_SMI_QUERY_ARGS) && options.queryCsv !== undefined)
        return Promise.resolve(options.queryCsv);
      if (sameArgs(args, NVIDIA_SMI_SUMMARY_ARGS) && options.summary !== undefined)
        return Promise.resolve(options.summary);
      return Promise.reject(new Error(`captured host has no output for nvidia-smi ${args.join(' ')}`));
    },
    readProcMeminfo: () => Promise.resolve(options.meminfo ?? fixture('gb10-proc-meminfo.txt')),
    readOsRelease: () => Promise.resolve('NAME="Ubuntu"\nVERSION_ID="24.04"\nID=ubuntu\n'),
    cpuModels: () => [...Array<string>(10).fill('Cortex-X925'), ...Array<string>(10).fill('Cortex-A725')],
    kernelRelease: () => '6.11.0-1016-nvidia',
  };
}

function sameArgs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i]);
}

export const GB10_HOST = {
  nodeArch: 'arm64',
  queryCsv: fixture('gb10-query-gpu.csv'),
  summary: fixture('gb10-nvidia-smi.txt'),
  meminfo: fixture('gb10-proc-meminfo.txt'),
} as const;

export const H100_HOST = {
  nodeArch: 'x64',
  queryCsv: fixture('h100-8x-query-gpu.csv'),
  summary: fixture('h100-8x-nvidia-smi.txt'),
} as const;

export const MIB = 1024 * 1024;
/** MemTotal / MemAvailable of gb10-proc-meminfo.txt, in bytes. */
export const GB10_MEM_TOTAL_BYTES = 127_600_748 * 1024;
export const GB10_MEM_AVAILABLE_BYTES = 119_245_932 * 1024;

/** A port nothing listens on right now (the OS picks it; we release it for the child). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        reject(new Error('no port'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
