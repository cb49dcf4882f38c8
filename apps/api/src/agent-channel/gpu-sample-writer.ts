import type { Logger } from '@lunanexa/observability';
import { gpuSampleDue, recordGpuSamples, type GpuSampleInput, type Queryable } from '@lunanexa/persistence';

/** How long due GPU samples gather before one statement writes them all. */
export const GPU_SAMPLE_FLUSH_MS = 1000;

/**
 * The console's GPU chart samples (persistence recordGpuSamples: at most one
 * per node per 15 s), written off the heartbeat path: a thousand nodes make
 * about 67 samples a second, and one INSERT and commit each competed with the
 * lease renewals for PostgreSQL's WAL flushes. Due samples gather for
 * GPU_SAMPLE_FLUSH_MS and go in one statement. The ack never waited for a
 * sample (it is chart history, not the node's state, which the renewal
 * commits with the latest figures in `nodes.gpu_telemetry`): a sample lost
 * to a crash or a failed write is one missing chart point per node.
 */
export class GpuSampleWriter {
  private pending = new Map<string, GpuSampleInput>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
  ) {}

  add(sample: GpuSampleInput): void {
    // The first due heartbeat's figures are the sample, as if written at once; later ones until the flush are not.
    if (sample.telemetry.length === 0 || this.pending.has(sample.nodeId)) return;
    if (!gpuSampleDue(sample.nodeId, sample.at)) return;
    this.pending.set(sample.nodeId, sample);
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), GPU_SAMPLE_FLUSH_MS);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const samples = [...this.pending.values()];
    this.pending = new Map();
    try {
      await recordGpuSamples(this.db, samples);
    } catch (error) {
      this.logger.warn({ err: error, nodes: samples.length }, 'GPU samples not recorded');
    }
  }
}
