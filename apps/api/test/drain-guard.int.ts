import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { findRepoRoot } from '@lunanexa/observability';
import {
  dataOf,
  registerDeployableVersion,
  startTestApi,
  type GraphQLBody,
  type TestApi,
} from './api-test-support';

/**
 * The drain guard (issue 22, point 4) on real PostgreSQL and Temporal: a
 * drain whose replicas no other node can take is refused with
 * DRAIN_WOULD_STRAND_REPLICAS and changes nothing (the node stays Active and
 * uncordoned, assignments and deployments as they were, no drain receipt,
 * one audited refusal), and a force needs a reason. Two GB10s with live
 * leases each run one 60 GiB replica, so neither can take the other's. A
 * third node with no replicas and an expired lease drains through the real
 * DrainNode workflow (nothing to strand). No agent runs: nothing is pushed.
 */

const GiB = 1024 ** 3;
const INVENTORY = JSON.parse(
  readFileSync(join(findRepoRoot(), 'libs/contracts/fixtures/v1/node-inventory.gb10-unified.json'), 'utf8'),
) as unknown;
const DRAIN = `mutation($node: String!, $force: Boolean!, $reason: String) {
  drainNode(node: $node, timeoutSeconds: 0, force: $force, reason: $reason) { node { lifecycle } receiptHash } }`;

describe('drain guard: a drain that would strand replicas is refused and changes nothing', function () {
  this.timeout(300_000);
  let api: TestApi;
  let operator = '';
  const sql = <T>(text: string, params: unknown[] = []): Promise<T> => api.fixture.ds.query<T>(text, params);
  const drain = (node: string, force = false, reason: string | null = null): Promise<GraphQLBody> =>
    api.graphql(DRAIN, { node, force, reason }, operator);

  async function insertNode(id: string, name: string, tokenId: string, live: boolean): Promise<void> {
    await sql(
      `INSERT INTO nodes (id, name, lifecycle, address, ssh_port, host_key_fingerprint, key_id, public_key,
                          inventory, lease_renewed_at, lease_expires_at, enroll_workflow_id, bootstrap_token_id,
                          enrolled_at, updated_at)
       VALUES ($1, $2, 'Active', '127.0.0.1', 22, 'SHA256:test', $3, 'test-public-key', $4::jsonb, now(),
               now() + ($5 || ' hours')::interval, 'enroll-node/' || $1, $6, now(), now())`,
      [id, name, `key-${id}`, JSON.stringify(INVENTORY), live ? '10' : '-1', tokenId],
    );
  }

  async function insertDeployment(id: string, versionId: string, ref: string, nodeId: string): Promise<void> {
    await sql(
      `INSERT INTO deployments (id, name, model_version_id, model_ref, state, generation, observed_generation,
                                desired_replicas, workflow_id, purpose, created_by, created_at, updated_at)
       VALUES ($1, $1, $2, $3, 'Ready', 1, 1, 1, 'deployment/' || $1, 'Serving', 'test', now(), now())`,
      [id, versionId, ref],
    );
    await sql(
      `INSERT INTO assignments (id, deployment_id, node_id, generation, intent, lease_expires_at, spec,
                                observed_state, observed_generation, in_flight, observed_at, created_at, updated_at)
       VALUES ('asg-' || $1, $1, $2, 1, 'Run', now() + interval '1 day', '{}'::jsonb, 'Ready', 1, 0, now(), now(),
               now())`,
      [id, nodeId],
    );
  }

  /** What a refused drain must leave as it was. */
  async function snapshot() {
    return {
      nodes: await sql(`SELECT id, lifecycle, cordoned, updated_at FROM nodes ORDER BY id`),
      assignments: await sql(
        `SELECT id, node_id, intent, generation, updated_at FROM assignments ORDER BY id`,
      ),
      deployments: await sql(`SELECT id, state, generation, updated_at FROM deployments ORDER BY id`),
      drainReceipts: await sql(`SELECT seq FROM audit_events WHERE action LIKE 'node.drain.%'`),
    };
  }

  const refusals = async () =>
    sql<{ evidence: Record<string, unknown>; result: string }[]>(
      `SELECT evidence, result FROM audit_events WHERE action = 'node.drain' AND decision = 'denied' ORDER BY seq`,
    );

  before(async () => {
    api = await startTestApi('drain_guard');
    operator = await api.operator('drain-operator', 'operator');
    const ref = await registerDeployableVersion(api, operator, 'big', 60 * GiB);
    const [version] = await sql<{ id: string }[]>(`SELECT id FROM model_versions WHERE ref = $1`, [ref]);
    const tokenId = randomUUID();
    await sql(
      `INSERT INTO bootstrap_tokens (id, token_hash, prefix, created_by, created_at, expires_at)
       VALUES ($1, $2, 'lnxb_drainGRD', 'test', now(), now() + interval '1 day')`,
      [tokenId, 'cd'.repeat(32)],
    );
    await insertNode('node-a', 'spark-a', tokenId, true);
    await insertNode('node-b', 'spark-b', tokenId, true);
    await insertNode('node-c', 'spark-c', tokenId, false);
    await insertDeployment('chat', version.id, ref, 'node-a');
    await insertDeployment('embed', version.id, ref, 'node-b');
  });

  after(async () => {
    await api?.stop();
  });

  it('refuses draining a node of a full fleet with DRAIN_WOULD_STRAND_REPLICAS naming the deployment', async () => {
    const before = await snapshot();
    const answer = await drain('spark-a');
    const error = answer.errors?.[0];
    expect(error?.extensions.code, JSON.stringify(answer)).to.equal('DRAIN_WOULD_STRAND_REPLICAS');
    expect(error?.message).to.contain('chat');
    const violations = error?.extensions['violations'] as { path: string; message: string }[];
    expect(violations.map((v) => v.path)).to.deep.equal(['deployments.chat']);
    expect(violations[0]?.message).to.match(/spark-b: memory: .* free of .*, the replica needs 60\.0 GiB/);
    expect(violations[0]?.message).to.contain('spark-c: no live lease');
    // A moment for a workflow that should not have started to write anything.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await snapshot()).to.deep.equal(before);
    const [node] = await sql<{ lifecycle: string; cordoned: boolean }[]>(
      `SELECT lifecycle, cordoned FROM nodes WHERE id = 'node-a'`,
    );
    expect(node).to.deep.equal({ lifecycle: 'Active', cordoned: false });
    const audited = await refusals();
    expect(audited).to.have.length(1);
    expect(audited[0]?.result).to.equal('refused');
    expect(audited[0]?.evidence).to.deep.include({
      nodeId: 'node-a',
      errorCode: 'DRAIN_WOULD_STRAND_REPLICAS',
      fields: ['deployments.chat'],
    });
  });

  it('refuses force without a reason (VALIDATION_FAILED), changing nothing', async () => {
    const before = await snapshot();
    for (const reason of [null, '   ']) {
      const answer = await drain('spark-a', true, reason);
      expect(answer.errors?.[0]?.extensions.code, JSON.stringify(answer)).to.equal('VALIDATION_FAILED');
    }
    expect(await snapshot()).to.deep.equal(before);
    expect(await refusals()).to.have.length(3);
  });

  it('drains a node with no replicas through DrainNode: nothing to strand', async () => {
    const drained = dataOf<{ node: { lifecycle: string }; receiptHash: string }>(
      await drain('spark-c'),
      'drainNode',
    );
    expect(drained.node.lifecycle).to.equal('Drained');
    const [start] = await sql<{ evidence: Record<string, unknown> }[]>(
      `SELECT evidence FROM audit_events WHERE action = 'node.drain.start'`,
    );
    expect(start?.evidence).to.deep.include({ nodeId: 'node-c', from: 'Active' });
    expect(start?.evidence).to.not.have.property('forced');
  });
});
