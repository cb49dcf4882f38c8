import type { GpuTelemetry } from '@lunanexa/contracts';
import type { Logger } from '@lunanexa/observability';
import type { TelemetryReport } from './collect';

export interface TelemetrySamplerOptions {
  readonly collect: () => Promise<TelemetryReport>;
  /** How long a heartbeat waits for a fresh sample before it goes with the last one. */
  readonly timeoutMs: number;
  /** The last good sample is sent for this long after it was read; older, the heartbeat carries none. */
  readonly maxAgeMs: number;
  readonly logger: Logger;
}

/**
 * Telemetry for heartbeats that never holds one up: the lease renewal must
 * not wait on a hung nvidia-smi. Each sample waits at most `timeoutMs` for a
 * read; a read still running is joined, never started twice; a slow or failed
 * read leaves the last good figures (each says when it was read) until they
 * are `maxAgeMs` old.
 */
export class TelemetrySampler {
  private inFlight: Promise<void> | null = null;
  private last: { readonly telemetry: GpuTelemetry[]; readonly at: number } | null = null;
  private lastProblems = '';
  private failing = false;
  private readonly log: Logger;

  constructor(private readonly options: TelemetrySamplerOptions) {
    this.log = options.logger.child({ component: 'gpu-telemetry' });
  }

  async sample(): Promise<GpuTelemetry[]> {
    this.inFlight ??= this.read().finally(() => {
      this.inFlight = null;
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.timeoutMs);
      timer.unref();
    });
    await Promise.race([this.inFlight, timedOut]);
    clearTimeout(timer);
    const last = this.last;
    if (last === null || performance.now() - last.at > this.options.maxAgeMs) return [];
    return last.telemetry;
  }

  private async read(): Promise<void> {
    try {
      const report = await this.options.collect();
      this.last = { telemetry: report.telemetry, at: performance.now() };
      const problems = report.problems.join('\n');
      if (problems !== this.lastProblems) {
        if (report.problems.length > 0)
          this.log.warn({ problems: report.problems }, 'GPU telemetry is incomplete');
        else this.log.info({}, 'GPU telemetry complete again');
      }
      this.lastProblems = problems;
      if (this.failing) this.log.info({}, 'GPU telemetry read again');
      this.failing = false;
    } catch (error: unknown) {
      // A broken driver fails every heartbeat: say so once, then only at debug.
      if (this.failing) this.log.debug({ err: error }, 'GPU telemetry not read');
      else
        this.log.warn(
          { err: error },
          'GPU telemetry not read; heartbeats carry the last figures until they age out',
        );
      this.failing = true;
    }
  }
}
