import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Routing and fairness at the gateway: each deployment's routing policy (contracts ROUTING_POLICIES;
 * existing deployments keep least-loaded, what the gateway did before), each tenant's highest allowed
 * request priority (NULL: any), and on request records the policy, the replica it chose and why, and the
 * priority the request ran at beside the one it asked for (they differ when the tenant's cap lowered it), and
 * how long it waited in the gateway's queue.
 */
export class RoutingAndFairness1768900000000 implements MigrationInterface {
  name = 'RoutingAndFairness1768900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE deployments
        ADD COLUMN routing_policy text NOT NULL DEFAULT 'least-loaded'
          CHECK (routing_policy IN ('round-robin', 'least-loaded', 'prefix-affinity'))`);
    await q.query(`
      ALTER TABLE tenants
        ADD COLUMN max_priority text CHECK (max_priority IN ('low', 'normal', 'high'))`);
    await q.query(`
      ALTER TABLE request_records
        ADD COLUMN routing_policy text,
        ADD COLUMN routed_to text,
        ADD COLUMN routing_reason text,
        ADD COLUMN priority text,
        ADD COLUMN requested_priority text,
        ADD COLUMN queue_wait_ms double precision`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE request_records
        DROP COLUMN queue_wait_ms,
        DROP COLUMN requested_priority,
        DROP COLUMN priority,
        DROP COLUMN routing_reason,
        DROP COLUMN routed_to,
        DROP COLUMN routing_policy`);
    await q.query(`ALTER TABLE tenants DROP COLUMN max_priority`);
    await q.query(`ALTER TABLE deployments DROP COLUMN routing_policy`);
  }
}
