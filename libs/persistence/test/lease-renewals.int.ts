import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import {
  createDataSource,
  createScratchDatabase,
  listNodeNames,
  listNodes,
  listPlacementNodeRows,
  renewNodeLease,
  renewNodeLeases,
  renewNodeLeasesStatement,
  runMigrations,
  withPreparedStatements,
  type LeaseRenewal,
  type ScratchDatabase,
} from '../src';

const LICENSE_ID = '00000000-0000-4000-8000-000000000001';
const INVENTORY = { gpus: [{ uuid: 'GPU-1' }] };
const CONDITIONS = { conditions: [], pending: {} } as unknown as LeaseRenewal['conditions'];

describe('Heartbeat group commit (renewNodeLeases): many nodes in one statement, each as renewNodeLease decides', function () {
  this.timeout(60_000);
  let db: ScratchDatabase;
  let ds: DataSource;
  let sql: Client;
  const at = new Date(Date.now() - 1000);
  const leaseExpiresAt = new Date(at.getTime() + 4000);

  function renewal(nodeId: string, sequence: number, extra: Partial<LeaseRenewal> = {}): LeaseRenewal {
    return {
      nodeId,
      keyId: 'key-1',
      sequence,
      at,
      leaseExpiresAt,
      inventory: INVENTORY,
      observed: { observedAssignments: [], runtimes: [] },
      gpuTelemetry: [],
      conditions: CONDITIONS,
      previousConditions: null,
      agentCredentialSerial: null,
      endpoint: { address: '127.0.0.1', sshPort: 22 },
      observedAssignments: [],
      ...extra,
    };
  }

  async function node(id: string): Promise<Record<string, unknown>> {
    const { rows } = await sql.query(
      `SELECT last_heartbeat_sequence, lease_expires_at, conditions, inventory FROM nodes WHERE id = $1`,
      [id],
    );
    return rows[0] as Record<string, unknown>;
  }

  before(async () => {
    db = await createScratchDatabase('lease_renewals');
    await runMigrations(db.url);
    ds = createDataSource({ url: db.url, applicationName: 'lease-renewals-test' });
    await ds.initialize();
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    const tokenId = randomUUID();
    await sql.query(
      `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
       VALUES ($1, $2, 'lnxb_abcdEFGH', 'test', now(), now() + interval '1 day')`,
      [tokenId, 'ef'.repeat(32)],
    );
    for (const [id, lifecycle, sequence] of [
      ['node-a', 'Active', 10],
      ['node-b', 'Revoked', 10],
      ['node-c', 'Active', 10],
      ['node-d', 'Active', 10],
      ['node-e', 'Active', 10],
    ] as const) {
      await sql.query(
        `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                            inventory, last_heartbeat_sequence, lease_renewed_at, lease_expires_at,
                            enroll_workflow_id, bootstrap_token_id, enrolled_at, updated_at)
         VALUES ($1, $1, $2, '127.0.0.1', 22, 'SHA256:test', 'key-1', 'pk', '{}'::jsonb, $3,
                 now() - interval '1 hour', now() - interval '1 hour', 'enroll-' || $1, $4, now(), now())`,
        [id, lifecycle, sequence, tokenId],
      );
    }
    await sql.query(
      `INSERT INTO models (id, name, display_name, created_by, created_at, updated_at)
       VALUES ($1, 'chat', 'chat', 'test', now(), now())`,
      [randomUUID()],
    );
    await sql.query(
      `INSERT INTO runtimes (id, name, version, kind, document, created_by, created_at, updated_at)
       VALUES ('runtime-test', 'test', '1', 'fake', '{}'::jsonb, 'test', now(), now())`,
    );
    await sql.query(
      `INSERT INTO model_versions (id, model, version, ref, artifact, runtime, created_by, created_at, model_id,
                                   state, license_id, runtime_id, requirements, updated_at)
       SELECT $1, 'chat', 'v1', 'chat@v1', '{}'::jsonb, '{}'::jsonb, 'test', now(), m.id, 'Approved', $2,
              'runtime-test', '{}'::jsonb, now()
         FROM models m WHERE m.name = 'chat'`,
      [randomUUID(), LICENSE_ID],
    );
    await sql.query(
      `INSERT INTO deployments (id, name, model_version_id, model_ref, state, generation, observed_generation,
                                desired_replicas, workflow_id, created_by, created_at, updated_at)
       SELECT 'dep-chat', 'chat', mv.id, mv.ref, 'Ready', 1, 1, 2, 'deployment/dep-chat', 'test', now(), now()
         FROM model_versions mv WHERE mv.ref = 'chat@v1'`,
    );
    for (const [id, nodeId] of [
      ['asg-a', 'node-a'],
      ['asg-e', 'node-e'],
    ] as const) {
      await sql.query(
        `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec,
                                  observed_state, observed_generation, created_at, updated_at)
         VALUES ($1, 'dep-chat', $2, 1, 'Run', now() + interval '1 minute', '{}'::jsonb, 'Starting', 1, now(), now())`,
        [id, nodeId],
      );
    }
  });

  after(async () => {
    await sql?.end();
    await ds?.destroy();
    await db?.drop();
  });

  it('renews the nodes whose row still matches, refuses the others (null), and folds each node’s own replica reports', async () => {
    const report = (assignmentId: string, restarts: number) => ({
      assignmentId,
      state: 'Ready',
      generation: 1,
      endpointPort: 8000,
      inFlightRequests: 0,
      message: null,
      restarts,
    });
    const result = await renewNodeLeases(ds, [
      // node-a reports its replica (2 restarts) and, falsely, node-e's: only its own is folded.
      renewal('node-a', 11, { observedAssignments: [report('asg-a', 2), report('asg-e', 0)] }),
      renewal('node-b', 11),
      renewal('node-c', 11, { previousConditions: CONDITIONS }),
      renewal('node-d', 10),
      renewal('node-e', 11, { endpoint: { address: '10.0.0.9', sshPort: 22 } }),
    ]);
    expect(result.nodes.map((n) => n?.id ?? null)).to.deep.equal(['node-a', null, null, null, null]);
    expect(result.nodes[0]).to.include({ lifecycle: 'Active', name: 'node-a', nextKeyId: null });
    expect(result.changedDeploymentWorkflowIds).to.deep.equal(['deployment/dep-chat']);

    const a = await node('node-a');
    expect(Number(a['last_heartbeat_sequence'])).to.equal(11);
    expect((a['lease_expires_at'] as Date).getTime()).to.equal(leaseExpiresAt.getTime());
    expect(a['inventory']).to.deep.equal(INVENTORY);
    for (const id of ['node-b', 'node-c', 'node-d', 'node-e']) {
      const other = await node(id);
      expect(Number(other['last_heartbeat_sequence']), id).to.equal(10);
      expect((other['lease_expires_at'] as Date).getTime(), id).to.be.below(Date.now());
    }
    const { rows: assignments } = await sql.query(
      `SELECT id, observed_state, observed_restarts FROM assignments ORDER BY id`,
    );
    expect(assignments).to.deep.equal([
      { id: 'asg-a', observed_state: 'Ready', observed_restarts: 2 },
      { id: 'asg-e', observed_state: 'Starting', observed_restarts: 0 },
    ]);
    const { rows: crashes } = await sql.query(
      `SELECT node_id, assignment_id, count(*)::int AS n FROM runtime_crashes GROUP BY 1, 2`,
    );
    expect(crashes).to.deep.equal([{ node_id: 'node-a', assignment_id: 'asg-a', n: 2 }]);
  });

  it('decides each renewal as the one-node statement does, Rejected and Revoked nodes included', async () => {
    // The one-node statement agrees on the same rows: a Revoked node is not renewed either way.
    expect(await renewNodeLease(ds, renewal('node-b', 12))).to.equal(null);
    const one = await renewNodeLease(ds, renewal('node-d', 12));
    expect(one?.id).to.equal('node-d');
    const batch = await renewNodeLeases(ds, [renewal('node-d', 12), renewal('node-c', 12)]);
    // node-d: sequence 12 already recorded (a replay); node-c: fresh.
    expect(batch.nodes.map((n) => n?.id ?? null)).to.deep.equal([null, 'node-c']);
    expect(batch.changedDeploymentWorkflowIds).to.deep.equal([]);
  });

  it('records a changed inventory and keeps the recorded one for a heartbeat that sent only its digest (null), in both statements', async () => {
    const refreshed = { ...INVENTORY, collectedAt: new Date(at.getTime() + 30_000).toISOString() };
    await renewNodeLeases(ds, [
      renewal('node-c', 20, { inventory: refreshed, previousConditions: CONDITIONS }),
    ]);
    expect((await node('node-c'))['inventory']).to.deep.equal(refreshed);
    const batch = await renewNodeLeases(ds, [
      renewal('node-c', 21, { inventory: null, previousConditions: CONDITIONS }),
    ]);
    expect(batch.nodes[0]?.id).to.equal('node-c');
    expect(await node('node-c')).to.deep.include({ inventory: refreshed, last_heartbeat_sequence: '21' });
    expect(
      (await renewNodeLease(ds, renewal('node-c', 22, { inventory: null, previousConditions: CONDITIONS })))
        ?.id,
    ).to.equal('node-c');
    expect(await node('node-c')).to.deep.include({ inventory: refreshed, last_heartbeat_sequence: '22' });
    expect(
      (await renewNodeLease(ds, renewal('node-c', 23, { previousConditions: CONDITIONS })))?.id,
    ).to.equal('node-c');
    expect((await node('node-c'))['inventory']).to.deep.equal(INVENTORY);
  });

  it('takes at most one renewal per node per statement, and nothing at all is a no-op', async () => {
    let thrown: unknown;
    try {
      await renewNodeLeases(ds, [renewal('node-c', 24), renewal('node-c', 25)]);
    } catch (error) {
      thrown = error;
    }
    expect(String(thrown)).to.match(/at most one renewal per node/);
    expect(Number((await node('node-c'))['last_heartbeat_sequence'])).to.equal(23);
    expect(await renewNodeLeases(ds, [])).to.deep.equal({ nodes: [], changedDeploymentWorkflowIds: [] });
  });

  it('commits asynchronously, for its own transaction only: the connection keeps synchronous commits', async () => {
    const runner = ds.createQueryRunner();
    await runner.connect();
    try {
      const mode = async (): Promise<string> =>
        ((await runner.query(`SHOW synchronous_commit`)) as { synchronous_commit: string }[])[0]
          ?.synchronous_commit ?? '';
      expect(await mode()).to.equal('on');
      // Inside a transaction the setting is visible until it ends.
      await runner.startTransaction();
      expect(
        (await renewNodeLeases(runner, [renewal('node-c', 30, { previousConditions: CONDITIONS })])).nodes[0]
          ?.id,
      ).to.equal('node-c');
      expect(await mode()).to.equal('off');
      await runner.rollbackTransaction();
      expect(await mode()).to.equal('on');
      // On its own the statement is its transaction: renewed, and the connection is as it was.
      expect(
        (await renewNodeLeases(runner, [renewal('node-c', 31, { previousConditions: CONDITIONS })])).nodes[0]
          ?.id,
      ).to.equal('node-c');
      expect(await mode()).to.equal('on');
      expect(Number((await node('node-c'))['last_heartbeat_sequence'])).to.equal(31);
    } finally {
      await runner.release();
    }
  });

  it('runs as a named statement on the heartbeat pool: decided the same, planned once per connection, in HOT-update room', async () => {
    // One connection, so the statement this test prepared is the one pg_prepared_statements shows.
    const single = createDataSource({ url: db.url, applicationName: 'lease-renewals-prepared', poolSize: 1 });
    await single.initialize();
    try {
      const prepared = withPreparedStatements(single);
      for (let sequence = 40; sequence < 48; sequence += 1) {
        const batch = await renewNodeLeases(
          prepared,
          [renewal('node-c', sequence, { previousConditions: CONDITIONS }), renewal('node-b', sequence)],
          5,
        );
        expect(batch.nodes.map((n) => n?.id ?? null)).to.deep.equal(['node-c', null]);
      }
      // A replayed sequence is refused on the prepared path too.
      const replay = await renewNodeLeases(
        prepared,
        [renewal('node-c', 47, { previousConditions: CONDITIONS })],
        5,
      );
      expect(replay.nodes).to.deep.equal([null]);
      expect(Number((await node('node-c'))['last_heartbeat_sequence'])).to.equal(47);
      const statements = await prepared.query<
        { name: string; generic_plans: string; custom_plans: string }[]
      >(`SELECT name, generic_plans, custom_plans FROM pg_prepared_statements`);
      expect(statements.map((statement) => statement.name)).to.deep.equal([renewNodeLeasesStatement(5)]);
      // PostgreSQL settles on one plan after five custom ones: the later runs were not planned again.
      expect(Number(statements[0]?.generic_plans)).to.be.greaterThan(0);
      expect(Number(statements[0]?.custom_plans)).to.be.at.most(5);
    } finally {
      await single.destroy();
    }
    const { rows } = await sql.query<{ reloptions: string[] }>(
      `SELECT reloptions FROM pg_class WHERE relname = 'nodes'`,
    );
    expect(rows[0]?.reloptions).to.deep.equal(['fillfactor=50']);
  });

  it('plans the named statement again as the fleet doubles: a plan made for five nodes scans every node and replica row, the next one looks each up', async () => {
    const single = createDataSource({ url: db.url, applicationName: 'lease-renewals-replan', poolSize: 1 });
    await single.initialize();
    // No ANALYZE may refresh the plan behind the test's back (autovacuum may be on where this runs).
    await sql.query(`ALTER TABLE nodes SET (autovacuum_enabled = false)`);
    const grown = Array.from({ length: 2000 }, (_, i) => `fleet-${String(i).padStart(4, '0')}`);
    try {
      const prepared = withPreparedStatements(single);
      const plan = async (statement: string): Promise<string> => {
        const input = JSON.stringify([{ i: 0, node_id: 'node-c', key_id: 'key-1', sequence: 1 }]);
        const rows = await single.query<{ 'QUERY PLAN': string }[]>(
          `EXPLAIN (COSTS OFF) EXECUTE ${statement}('${input}'::jsonb, 5, '{node-c}', '{asg-c}')`,
        );
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      };
      await sql.query(`UPDATE nodes SET conditions = $1, last_heartbeat_sequence = 59 WHERE id = 'node-c'`, [
        JSON.stringify(CONDITIONS),
      ]);
      // Planned while the fleet is five nodes, and run often enough that PostgreSQL keeps a generic plan.
      let sequence = 60;
      for (; sequence < 68; sequence += 1) {
        const batch = await renewNodeLeases(
          prepared,
          [renewal('node-c', sequence, { previousConditions: CONDITIONS })],
          5,
        );
        expect(batch.nodes.map((n) => n?.id ?? null)).to.deep.equal(['node-c']);
      }
      await sql.query(
        `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                            inventory, enroll_workflow_id, bootstrap_token_id, enrolled_at, updated_at)
         SELECT id, id, 'Active', '127.0.0.1', 22, 'SHA256:test', 'key-1', 'pk', '{}'::jsonb, 'enroll-' || id,
                (SELECT t.id FROM bootstrap_tokens t LIMIT 1), now(), now()
           FROM unnest($1::text[]) AS id`,
        [grown],
      );
      // And replicas on them: assignment rows stay after their replicas stop, so this table only grows.
      await sql.query(
        `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec,
                                  observed_state, observed_generation, created_at, updated_at)
         SELECT 'asg-' || id, 'dep-chat', id, 1, 'Stop', now(), '{}'::jsonb, 'Stopped', 1, now(), now()
           FROM unnest($1::text[]) AS id`,
        [grown],
      );
      const small = renewNodeLeasesStatement(5);
      const stale = await plan(small);
      expect(stale).to.match(/Seq Scan on nodes/);
      expect(stale).to.match(/Seq Scan on assignments a\b/);
      // The fleet has doubled many times over: the batch goes under the name for its size, planned now.
      const batch = await renewNodeLeases(
        prepared,
        [renewal('node-c', sequence, { previousConditions: CONDITIONS })],
        grown.length + 5,
      );
      expect(batch.nodes.map((n) => n?.id ?? null)).to.deep.equal(['node-c']);
      const large = renewNodeLeasesStatement(grown.length + 5);
      expect(large).to.not.equal(small);
      const replanned = await plan(large);
      expect(replanned).to.match(/Index Scan using nodes_pkey on nodes/);
      expect(replanned).to.not.match(/Seq Scan on nodes/);
      expect(replanned).to.match(/Index Scan using assignments_pkey on assignments a\b/);
      expect(replanned).to.not.match(/Seq Scan on assignments/);
      expect(renewNodeLeasesStatement(1)).to.equal('lunanexa_renew_node_leases_0');
      expect(renewNodeLeasesStatement(1000)).to.equal(renewNodeLeasesStatement(1024));
      expect(renewNodeLeasesStatement(1025)).to.not.equal(renewNodeLeasesStatement(1024));
    } finally {
      await single.destroy();
      await sql.query(`DELETE FROM assignments WHERE node_id = ANY($1::text[])`, [grown]);
      await sql.query(`DELETE FROM nodes WHERE id = ANY($1::text[])`, [grown]);
      await sql.query(`ALTER TABLE nodes RESET (autovacuum_enabled)`);
    }
  });

  it('gives the scheduler the same nodes as the full rows, with only what placement reads', async () => {
    const stored = { conditions: [{ type: 'GpuHealthy', status: 'False', reason: 'XidError' }], pending: {} };
    await sql.query(`UPDATE nodes SET conditions = $1::jsonb WHERE id = 'node-a'`, [JSON.stringify(stored)]);
    const full = await listNodes(ds);
    const narrow = await listPlacementNodeRows(ds);
    const fields = Object.keys(narrow[0] ?? {}) as (keyof (typeof full)[number])[];
    expect(fields).to.have.members([
      'id',
      'name',
      'lifecycle',
      'cordoned',
      'labels',
      'taints',
      'leaseExpiresAt',
      'inventory',
      'conditions',
    ]);
    expect(narrow).to.deep.equal(
      full.map((node) => Object.fromEntries(fields.map((field) => [field, node[field]]))),
    );
    expect(narrow.find((node) => node.id === 'node-a')?.conditions).to.deep.equal(stored.conditions);
    // A node no heartbeat has set conditions for yet: none, not null.
    expect(narrow.find((node) => node.id === 'node-e')?.conditions).to.deep.equal([]);
    // Views that only name nodes read just the names of the ones they show.
    expect(
      [...(await listNodeNames(ds, ['node-c', 'node-a', 'node-c', 'no-such-node']))].sort(),
    ).to.deep.equal([
      ['node-a', 'node-a'],
      ['node-c', 'node-c'],
    ]);
    expect((await listNodeNames(ds, [])).size).to.equal(0);
  });
});
