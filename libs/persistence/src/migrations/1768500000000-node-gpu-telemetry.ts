import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `nodes.gpu_telemetry`: the GPU telemetry of the node's latest accepted
 * heartbeat (libs/contracts GpuTelemetry[]), overwritten by every heartbeat;
 * the GraphQL node and the `lunanexa_gpu_*` gauges read it. A constant default
 * makes the ADD COLUMN a catalogue change only (no table rewrite), and a
 * controller of the previous release keeps working on this schema: it never
 * names the column.
 */
export class NodeGpuTelemetry1768500000000 implements MigrationInterface {
  name = 'NodeGpuTelemetry1768500000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes ADD COLUMN gpu_telemetry jsonb NOT NULL DEFAULT '[]'::jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes DROP COLUMN gpu_telemetry`);
  }
}
