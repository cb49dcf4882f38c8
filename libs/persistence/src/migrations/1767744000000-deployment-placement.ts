import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `deployments.placement`: the scheduler's last decision (libs/contracts
 * DeploymentPlacement) — which nodes took replicas and why, which nodes were
 * passed over and why. Null until the deployment was first placed. Kept on
 * the row, not only in the receipt, so the console shows why a replica sits
 * where it does (or sits nowhere) without searching the audit log.
 */
export class DeploymentPlacement1767744000000 implements MigrationInterface {
  name = 'DeploymentPlacement1767744000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE deployments ADD COLUMN placement jsonb`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE deployments DROP COLUMN placement`);
  }
}
