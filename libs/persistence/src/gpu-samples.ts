import type { GpuTelemetry } from '@lunanexa/contracts';
import type { Queryable } from './fleet';
import { returnedRows } from './returning';

/**
 * A short history of each node's GPU figures (migration 1768560000000), for
 * the console's per-GPU charts. `nodes.gpu_telemetry` holds only the latest
 * figures; this keeps one sample per node at most every
 * GPU_SAMPLE_INTERVAL_SECONDS, however often the node heartbeats, so the
 * table's size depends on the fleet and the window, never on the heartbeat
 * rate. The retention loop (RetentionExpiry in workflows/) deletes samples
 * older than GPU_SAMPLE_RETENTION_HOURS.
 */

/** The least time between two samples of one node. */
export const GPU_SAMPLE_INTERVAL_SECONDS = 15;
/** How long samples are kept: 24 h is 5,760 rows per node at one sample per 15 s. */
export const GPU_SAMPLE_RETENTION_HOURS = 24;

/** One GPU's figures in one sample: what the charts draw. Null is "not reported", never zero. */
export interface GpuSamplePoint {
  readonly uuid: string;
  readonly index: number | null;
  readonly utilizationPercent: number | null;
  readonly memoryUsedBytes: number | null;
  readonly memoryTotalBytes: number | null;
  readonly temperatureCelsius: number | null;
  readonly powerWatts: number | null;
}

export interface GpuSample {
  readonly sampledAt: Date;
  readonly gpus: readonly GpuSamplePoint[];
}

/**
 * When this process last wrote a sample of each node: most heartbeats then
 * cost no round trip at all. The statement itself enforces the interval, so
 * several API replicas (each with its own memory) still write at most one.
 */
const lastWrittenMs = new Map<string, number>();

/** One node's GPU figures as one heartbeat reported them, at the time it was received. */
export interface GpuSampleInput {
  readonly nodeId: string;
  readonly at: Date;
  readonly telemetry: readonly GpuTelemetry[];
}

/**
 * Records the node's GPU figures as a sample unless the node has one less
 * than GPU_SAMPLE_INTERVAL_SECONDS from `at` (either side: a late write from a
 * second API replica counts too). Resolves to whether it wrote one. A
 * heartbeat without GPU figures writes nothing (a gap in the chart, not zeros).
 */
export async function recordGpuSample(
  q: Queryable,
  nodeId: string,
  at: Date,
  telemetry: readonly GpuTelemetry[],
): Promise<boolean> {
  return (await recordGpuSamples(q, [{ nodeId, at, telemetry }])) > 0;
}

/** Whether a sample of this node at `at` may be due (this process wrote none within the interval). */
export function gpuSampleDue(nodeId: string, at: Date): boolean {
  const last = lastWrittenMs.get(nodeId);
  return (
    last === undefined || at.getTime() - last >= GPU_SAMPLE_INTERVAL_SECONDS * 1000 || at.getTime() < last
  );
}

/**
 * recordGpuSample for several nodes in one statement (one commit however
 * many nodes' samples fell due together); a node given twice keeps its last
 * input. Resolves to how many samples it wrote.
 */
export async function recordGpuSamples(q: Queryable, inputs: readonly GpuSampleInput[]): Promise<number> {
  const latest = new Map<string, GpuSampleInput>();
  for (const input of inputs) {
    if (input.telemetry.length === 0 || !gpuSampleDue(input.nodeId, input.at)) continue;
    latest.set(input.nodeId, input);
  }
  if (latest.size === 0) return 0;
  const rows = [...latest.values()].map((input) => ({
    node_id: input.nodeId,
    at: input.at.toISOString(),
    gpus: input.telemetry.map((gpu): GpuSamplePoint => ({
      uuid: gpu.uuid,
      index: gpu.index ?? null,
      utilizationPercent: gpu.utilizationPercent,
      memoryUsedBytes: gpu.memoryUsedBytes ?? null,
      memoryTotalBytes: gpu.memoryTotalBytes ?? null,
      temperatureCelsius: gpu.temperatureCelsius,
      powerWatts: gpu.powerWatts,
    })),
  }));
  const raw = await q.query<unknown>(
    `INSERT INTO gpu_samples (node_id, sampled_at, gpus)
       SELECT s.node_id, s.at, s.gpus
         FROM jsonb_to_recordset($1::jsonb) AS s(node_id text, at timestamptz, gpus jsonb)
        WHERE NOT EXISTS (
          SELECT 1 FROM gpu_samples g
           WHERE g.node_id = s.node_id AND g.sampled_at > s.at - make_interval(secs => $2)
             AND g.sampled_at < s.at + make_interval(secs => $2))
     ON CONFLICT DO NOTHING
     RETURNING node_id`,
    [JSON.stringify(rows), GPU_SAMPLE_INTERVAL_SECONDS],
  );
  const written = returnedRows<{ node_id: string }>(raw);
  for (const { node_id: nodeId } of written) {
    const at = latest.get(nodeId)?.at.getTime() ?? 0;
    if (at > (lastWrittenMs.get(nodeId) ?? 0)) lastWrittenMs.set(nodeId, at);
  }
  return written.length;
}

/** The node's samples from `since` on, oldest first. */
export async function listGpuSamples(q: Queryable, nodeId: string, since: Date): Promise<GpuSample[]> {
  const rows = await q.query<{ sampled_at: Date; gpus: GpuSamplePoint[] }[]>(
    `SELECT sampled_at, gpus FROM gpu_samples WHERE node_id = $1 AND sampled_at >= $2 ORDER BY sampled_at`,
    [nodeId, since],
  );
  return rows.map((row) => ({ sampledAt: row.sampled_at, gpus: row.gpus }));
}

/**
 * Deletes samples taken before `before`, at most `limit` of them (so one call
 * holds no long lock); resolves to how many it deleted. Call again while it
 * returns `limit`.
 */
export async function deleteGpuSamplesBefore(q: Queryable, before: Date, limit: number): Promise<number> {
  const raw = await q.query<unknown>(
    `DELETE FROM gpu_samples WHERE ctid IN (
       SELECT ctid FROM gpu_samples WHERE sampled_at < $1 ORDER BY sampled_at LIMIT $2)
     RETURNING 1`,
    [before, limit],
  );
  return returnedRows<unknown>(raw).length;
}
