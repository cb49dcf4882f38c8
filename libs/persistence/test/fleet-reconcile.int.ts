import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import {
  advanceAssignmentGeneration,
  appendAuditEvent,
  controlPlaneDigest,
  createDataSource,
  createScratchDatabase,
  loadReconcileRows,
  runMigrations,
  type ScratchDatabase,
} from '../src';

const LICENSE_ID = '00000000-0000-4000-8000-000000000001';

describe('Reconcile persistence: the view it decides on, the generation compare-and-set, the control-plane digest', function () {
  this.timeout(60_000);
  let db: ScratchDatabase;
  let ds: DataSource;
  let sql: Client;

  before(async () => {
    db = await createScratchDatabase('fleet_reconcile');
    await runMigrations(db.url);
    ds = createDataSource({ url: db.url, applicationName: 'fleet-reconcile-test' });
    await ds.initialize();
    sql = new Client({ connectionString: db.url });
    await sql.connect();
    const tokenId = randomUUID();
    await sql.query(
      `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
       VALUES ($1, $2, 'lnxb_abcdEFGH', 'test', now(), now() + interval '1 day')`,
      [tokenId, 'cd'.repeat(32)],
    );
    const observed = {
      observedAssignments: [
        { assignmentId: 'asg-chat-a', deploymentId: 'dep-chat', generation: 3, state: 'Ready' },
        { assignmentId: 'asg-late-a', deploymentId: 'dep-late', generation: 1, state: 'Starting' },
        { assignmentId: 42, state: 'garbage' },
      ],
      runtimes: [],
    };
    await sql.query(
      `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                          inventory, observed, lease_renewed_at, lease_expires_at, enroll_workflow_id,
                          bootstrap_token_id, enrolled_at, updated_at)
       VALUES ('node-a', 'spark-a', 'Active', '127.0.0.1', 22, 'SHA256:test', 'key-1', 'pk', '{}'::jsonb, $2::jsonb,
               now(), now() + interval '1 minute', 'enroll-a', $1, now(), now())`,
      [tokenId, JSON.stringify(observed)],
    );
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
    for (const [id, state] of [
      ['dep-chat', 'Ready'],
      ['dep-old', 'Stopped'],
    ] as const) {
      await sql.query(
        `INSERT INTO deployments (id, name, model_version_id, model_ref, state, generation, observed_generation,
                                  desired_replicas, workflow_id, created_by, created_at, updated_at)
         SELECT $1, $1, mv.id, mv.ref, $2, 1, 1, 1, 'deployment/' || $1, 'test', now(), now()
           FROM model_versions mv WHERE mv.ref = 'chat@v1'`,
        [id, state],
      );
      await sql.query(
        `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec,
                                  created_at, updated_at)
         VALUES ($1, $2, 'node-a', 2, 'Run', now() + interval '1 minute', '{}'::jsonb, now(), now())`,
        [`asg-${id.slice(4)}-a`, id],
      );
    }
  });

  after(async () => {
    await sql?.end();
    await ds?.destroy();
    await db?.drop();
  });

  it('loads the deployments that are not Stopped, their replicas, and what each node reported (unreadable reports skipped)', async () => {
    const rows = await loadReconcileRows(ds);
    expect(rows.deployments).to.deep.equal([
      { deploymentId: 'dep-chat', name: 'dep-chat', state: 'Ready', workflowId: 'deployment/dep-chat' },
    ]);
    expect(rows.assignments).to.deep.equal([
      {
        assignmentId: 'asg-chat-a',
        deploymentId: 'dep-chat',
        nodeId: 'node-a',
        intent: 'Run',
        generation: 2,
      },
    ]);
    expect(rows.nodes).to.have.length(1);
    expect(rows.nodes[0]?.reported).to.deep.equal([
      { assignmentId: 'asg-chat-a', deploymentId: 'dep-chat', generation: 3, state: 'Ready' },
      { assignmentId: 'asg-late-a', deploymentId: 'dep-late', generation: 1, state: 'Starting' },
    ]);
  });

  it('advances a generation only from the one it names (a retried step changes nothing)', async () => {
    const at = new Date();
    expect(
      await advanceAssignmentGeneration(ds, { assignmentId: 'asg-chat-a', from: 2, to: 4, at }),
    ).to.equal(true);
    expect(
      await advanceAssignmentGeneration(ds, { assignmentId: 'asg-chat-a', from: 2, to: 4, at }),
    ).to.equal(false);
    const row = await sql.query<{ generation: number }>(
      `SELECT generation FROM assignments WHERE id = 'asg-chat-a'`,
    );
    expect(row.rows[0]?.generation).to.equal(4);
  });

  it('the digest ignores heartbeats, leases and placements, and follows the registry, the desired state and the audit chain', async () => {
    const first = await controlPlaneDigest(ds);
    expect(first.registry).to.match(/^[0-9a-f]{64}$/);
    expect(first.auditChain).to.deep.equal({ events: 0, headHash: null, valid: true });

    // What heartbeats, lease renewals and the scheduler write is not desired state.
    await sql.query(
      `UPDATE nodes SET lease_expires_at = now() + interval '5 minutes', last_heartbeat_sequence = 99,
                        observed = '{"observedAssignments":[],"runtimes":[]}'::jsonb`,
    );
    await sql.query(
      `UPDATE assignments SET lease_expires_at = now() + interval '9 minutes', observed_state = 'Ready',
                              observed_generation = 4, spec = '{"renewed":true}'::jsonb`,
    );
    await sql.query(`UPDATE deployments SET placement = '{"decidedAt":"now"}'::jsonb, state = 'Degraded'`);
    expect(await controlPlaneDigest(ds)).to.deep.equal(first);

    await sql.query(`UPDATE assignments SET intent = 'Stop' WHERE id = 'asg-chat-a'`);
    const desired = await controlPlaneDigest(ds);
    expect(desired.desiredState).to.not.equal(first.desiredState);
    expect(desired.registry).to.equal(first.registry);

    await sql.query(`UPDATE models SET display_name = 'Chat' WHERE name = 'chat'`);
    const registry = await controlPlaneDigest(ds);
    expect(registry.registry).to.not.equal(first.registry);

    await ds.transaction((manager) =>
      appendAuditEvent(manager, {
        id: randomUUID(),
        occurredAt: new Date().toISOString(),
        actor: 'test',
        action: 'test.event',
        decision: 'allowed',
        evidence: {},
        result: 'succeeded',
        correlationId: 'c-1',
        workflowId: null,
      }),
    );
    const audited = await controlPlaneDigest(ds);
    expect(audited.auditChain.events).to.equal(1);
    expect(audited.auditChain.headHash).to.match(/^[0-9a-f]{64}$/);
    expect(audited.auditChain.valid).to.equal(true);
  });

  it('renders timestamps in UTC, so the same rows hash the same whatever the session time zone', async () => {
    const utc = await controlPlaneDigest(ds);
    const elsewhere = createDataSource({ url: db.url, applicationName: 'fleet-reconcile-tz' });
    await elsewhere.initialize();
    try {
      await elsewhere.query(`ALTER DATABASE "${db.name}" SET TimeZone = 'Asia/Kathmandu'`);
      const other = createDataSource({ url: db.url, applicationName: 'fleet-reconcile-tz2' });
      await other.initialize();
      try {
        expect(
          (await other.query<{ tz: string }[]>(`SELECT current_setting('TimeZone') AS tz`))[0]?.tz,
        ).to.equal('Asia/Kathmandu');
        expect(await controlPlaneDigest(other)).to.deep.equal(utc);
      } finally {
        await other.destroy();
      }
    } finally {
      await elsewhere.destroy();
    }
  });
});
