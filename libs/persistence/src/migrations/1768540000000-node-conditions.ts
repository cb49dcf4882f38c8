import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `nodes.conditions`: the heartbeat-decided node conditions (libs/domain NodeConditionsState: MemoryPressure,
 * DiskPressure, GpuHealthy, ClockSynchronized plus the per-condition streaks their hysteresis counts), rewritten
 * by every accepted heartbeat. Null until the node's first heartbeat after this release. Nullable without a
 * default: adding it touches no rows, and a controller of the previous release keeps working (it never names it).
 */
export class NodeConditions1768540000000 implements MigrationInterface {
  name = 'NodeConditions1768540000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes ADD COLUMN conditions jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes DROP COLUMN conditions`);
  }
}
