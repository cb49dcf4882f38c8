import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `nodes.agent_protocol`: the agent protocol each node's agent speaks
 * (inventory.agentProtocol; 1 when the agent does not report one), derived by
 * PostgreSQL from the inventory every heartbeat writes, so no writer changes
 * and a controller of the previous release keeps working on this schema while
 * it is applied (docs/UPGRADING.md). Counted by the
 * `lunanexa_nodes_agent_outdated` gauge that the LunaNexaAgentOutdated alert reads.
 * Adding a stored column rewrites `nodes` under a short exclusive lock: one
 * row per node.
 */
export class NodeAgentProtocol1768400000000 implements MigrationInterface {
  name = 'NodeAgentProtocol1768400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE nodes ADD COLUMN agent_protocol integer NOT NULL
        GENERATED ALWAYS AS (COALESCE((inventory ->> 'agentProtocol')::integer, 1)) STORED`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE nodes DROP COLUMN agent_protocol`);
  }
}
