import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `deployments.placement_strategy`: how the scheduler ranks eligible nodes
 * for this deployment's replicas (libs/contracts PLACEMENT_STRATEGIES).
 * Existing deployments keep Spread, the default.
 */
export class DeploymentPlacementStrategy1768003200000 implements MigrationInterface {
  name = 'DeploymentPlacementStrategy1768003200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE deployments ADD COLUMN placement_strategy text NOT NULL DEFAULT 'Spread'
         CHECK (placement_strategy IN ('Spread', 'Binpack'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE deployments DROP COLUMN placement_strategy`);
  }
}
