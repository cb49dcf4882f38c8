import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import type { CommandOutput, TelemetryProbe } from './collect';

/**
 * Shorter than the inventory's: telemetry runs every heartbeat, and the
 * heartbeat does not wait for it anyway (TelemetrySampler); this only bounds
 * how long a hung driver keeps a child process around.
 */
const NVIDIA_SMI_TIMEOUT_MS = 10_000;
const NVIDIA_SMI_MAX_OUTPUT_BYTES = 1024 * 1024;
/** The kernel ring buffer is a few MiB at most; reading stops here whatever it holds. */
const KMSG_MAX_RECORDS = 20_000;
const KMSG_RECORD_BYTES = 8192;

export function systemTelemetryProbe(): TelemetryProbe {
  return {
    nvidiaSmi: (args) =>
      new Promise<CommandOutput>((resolve, reject) => {
        // execFile with an argv array: no shell, so nothing can be interpolated.
        execFile(
          'nvidia-smi',
          [...args],
          {
            timeout: NVIDIA_SMI_TIMEOUT_MS,
            maxBuffer: NVIDIA_SMI_MAX_OUTPUT_BYTES,
            encoding: 'utf8',
            windowsHide: true,
          },
          (error, stdout, stderr) => {
            if (error === null) {
              resolve({ stdout, stderr, exitCode: 0 });
              return;
            }
            // A non-zero exit still printed the GPUs it could reach; not running at all is a failure.
            if (typeof error.code === 'number' && error.killed !== true) {
              resolve({ stdout, stderr, exitCode: error.code });
            } else {
              // ExecFileException is not an Error subtype to the type checker; the cause keeps every detail.
              reject(
                new Error(`nvidia-smi did not run: ${error.message.split('\n')[0] ?? ''}`, { cause: error }),
              );
            }
          },
        );
      }),
    readProcMeminfo: () => readFile('/proc/meminfo', 'utf8'),
    readKernelLog: readKmsg,
  };
}

/**
 * Reads the kernel ring buffer through /dev/kmsg without blocking: each read
 * returns one record and EAGAIN marks the end. Most distributions restrict it
 * to root or CAP_SYSLOG (kernel.dmesg_restrict): then Xids are "not reported"
 * (null), never "none".
 */
async function readKmsg(): Promise<string | null> {
  let handle;
  try {
    handle = await open('/dev/kmsg', constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error: unknown) {
    if (isErrno(error, 'EACCES', 'EPERM', 'ENOENT')) return null;
    throw error;
  }
  try {
    const records: string[] = [];
    const buffer = Buffer.alloc(KMSG_RECORD_BYTES);
    while (records.length < KMSG_MAX_RECORDS) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.read(buffer, 0, buffer.length, null));
      } catch (error: unknown) {
        if (isErrno(error, 'EAGAIN')) break;
        // Records overwritten while reading: the next read continues with the oldest one left.
        if (isErrno(error, 'EPIPE')) continue;
        if (isErrno(error, 'EPERM', 'EACCES')) return null;
        throw error;
      }
      if (bytesRead === 0) break;
      records.push(buffer.toString('utf8', 0, bytesRead).replace(/\n$/, ''));
    }
    return records.join('\n');
  } finally {
    await handle.close();
  }
}

function isErrno(error: unknown, ...codes: string[]): boolean {
  return error instanceof Error && codes.includes((error as NodeJS.ErrnoException).code ?? '');
}
