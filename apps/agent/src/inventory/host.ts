import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { cpus, release } from 'node:os';
import { promisify } from 'node:util';
import type { Architecture } from '@lunanexa/contracts';

const execFileAsync = promisify(execFile);

/**
 * Everything inventory collection reads from the machine, behind one port so
 * collection logic runs in tests against captured outputs. The production
 * implementation below is the only code that touches the host.
 */
export interface HostProbe {
  /** `process.arch` of the agent (`x64`, `arm64`, …). */
  readonly nodeArch: string;
  /** Runs nvidia-smi with a fixed argv and resolves with its stdout. */
  nvidiaSmi(args: readonly string[]): Promise<string>;
  readProcMeminfo(): Promise<string>;
  /** `/etc/os-release`, or null when the file does not exist. */
  readOsRelease(): Promise<string | null>;
  /** One model string per logical CPU. */
  cpuModels(): readonly string[];
  kernelRelease(): string;
}

/** How long nvidia-smi may take; a hung driver must not hang the agent's refresh loop. */
const NVIDIA_SMI_TIMEOUT_MS = 20_000;
const NVIDIA_SMI_MAX_OUTPUT_BYTES = 1024 * 1024;

export function systemHostProbe(): HostProbe {
  return {
    nodeArch: process.arch,
    async nvidiaSmi(args) {
      // execFile with an argv array: no shell, so nothing can be interpolated.
      const { stdout } = await execFileAsync('nvidia-smi', [...args], {
        timeout: NVIDIA_SMI_TIMEOUT_MS,
        maxBuffer: NVIDIA_SMI_MAX_OUTPUT_BYTES,
        encoding: 'utf8',
        windowsHide: true,
      });
      return stdout;
    },
    readProcMeminfo: () => readFile('/proc/meminfo', 'utf8'),
    async readOsRelease() {
      try {
        return await readFile('/etc/os-release', 'utf8');
      } catch (error: unknown) {
        if (isErrno(error, 'ENOENT')) return null;
        throw error;
      }
    },
    cpuModels: () => cpus().map((cpu) => cpu.model),
    kernelRelease: () => release(),
  };
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

export class UnsupportedArchitectureError extends Error {
  constructor(nodeArch: string) {
    super(`unsupported CPU architecture ${nodeArch}: LunaNexa agents run on arm64 and amd64 (x64)`);
    this.name = 'UnsupportedArchitectureError';
  }
}

/** Node reports `x64`; the contract uses the Go/OCI name `amd64`. */
export function architectureOf(nodeArch: string): Architecture {
  switch (nodeArch) {
    case 'arm64':
      return 'arm64';
    case 'x64':
      return 'amd64';
    default:
      throw new UnsupportedArchitectureError(nodeArch);
  }
}

/** `NAME` and `VERSION_ID` from os-release; values may be quoted. */
export function parseOsRelease(text: string): { name: string | null; version: string | null } {
  const fields = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match?.[1] === undefined || match[2] === undefined) continue;
    fields.set(match[1], match[2].replace(/^(["'])(.*)\1$/, '$2'));
  }
  return { name: fields.get('NAME') || null, version: fields.get('VERSION_ID') || null };
}

/**
 * Big.LITTLE parts report two models; "Cortex-X925 + Cortex-A725" says more
 * than either alone. Some arm64 kernels report no model at all.
 */
export function cpuModelSummary(models: readonly string[]): string {
  const distinct = [
    ...new Set(models.map((model) => model.trim()).filter((model) => model !== '' && model !== 'unknown')),
  ];
  return distinct.length > 0 ? distinct.join(' + ').slice(0, 256) : 'unknown';
}
