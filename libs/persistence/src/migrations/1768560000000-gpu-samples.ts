import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `gpu_samples`: a short history of each node's GPU figures for the console's charts (gpu-samples.ts). One row
 * per node per sample, its GPUs in one jsonb array, written at most once per GPU_SAMPLE_INTERVAL_SECONDS whatever
 * the heartbeat interval, and pruned to GPU_SAMPLE_RETENTION_HOURS by the retention loop. Keyed by (node, time):
 * the key's index is what both the chart read and the prune walk.
 */
export class GpuSamples1768560000000 implements MigrationInterface {
  name = 'GpuSamples1768560000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE gpu_samples (
        node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
        sampled_at timestamptz NOT NULL,
        gpus jsonb NOT NULL CHECK (jsonb_typeof(gpus) = 'array'),
        PRIMARY KEY (node_id, sampled_at)
      )`);
    await q.query(`CREATE INDEX gpu_samples_sampled_at ON gpu_samples (sampled_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE gpu_samples`);
  }
}
