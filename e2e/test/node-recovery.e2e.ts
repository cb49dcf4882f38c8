import { expect } from 'chai';
import { TEST_APP_ROLE } from '@lunanexa/persistence';
import {
  CONSOLE_WIDTHS,
  FleetHarness,
  deploymentAssignments,
  describeProblems,
  expectVisible,
  launchBrowser,
  openPage,
  screenshot,
  signIn,
  fakeRuntimeProcesses,
  nodeLossEnv,
  runNodeLoss,
  waitUntil,
  type NodeLossResult,
} from '../src';

/**
 * NodeRecovery on the real stack: api, worker (with its lease watch), gateway,
 * three agents and their runtimes, Temporal and PostgreSQL. A deployment of
 * two replicas loses one node (its agent and runtime killed): the replica is
 * marked Lost, re-placed on the third node under a new generation, the
 * gateway routes to it, a receipt says how long it took, and clients calling
 * through the gateway the whole time see no error. When the node comes back,
 * its stale replica is stopped by generation.
 */

const LEASE_SECONDS = 5;
const ADMIN = { username: 'recovery-admin', password: 'correct horse battery staple' };
const GRACE_SECONDS = 2;

describe('NodeRecovery: a lost node’s replicas are re-placed, routed, receipted; the returning node’s stale runtime stops', function () {
  this.timeout(600_000);
  let h: FleetHarness;
  let loss: NodeLossResult;
  /** Every lunanexa-* session seen while the node loss was recovered (idle pool clients close after 10 s). */
  const sessionsSeen = new Map<string, string>();

  before(async () => {
    h = await FleetHarness.start('node-recovery', {
      leaseSeconds: 60,
      // Recovery touches every part of the data model, so it is where least privilege is proven.
      asAppRole: true,
      extraEnv: nodeLossEnv(LEASE_SECONDS, GRACE_SECONDS),
      // The deployment page's Recovery card is read in a browser once the run is receipted.
      serveConsole: true,
      admin: ADMIN,
    });
    for (const name of ['node-a', 'node-b', 'node-c']) await h.startReadyAgent(name);
  });

  after(async () => {
    await h?.stop();
  });

  it('kills a node under load: Lost, replaced on the third node, routed, receipted, no client error', async () => {
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await h.sql<{ application_name: string; usename: string }>(
          `SELECT DISTINCT application_name, usename FROM pg_stat_activity
            WHERE datname = current_database() AND application_name LIKE 'lunanexa-%'`,
        );
        for (const row of rows) sessionsSeen.set(`${row.application_name} as ${row.usename}`, row.usename);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    })();
    try {
      loss = await runNodeLoss(h, 'recover', 'recover');
    } finally {
      sampling = false;
      await sampler;
    }
    expect(loss.replacement.node).to.equal('node-c');
    expect(loss.errors, loss.errors.slice(0, 5).join('; ')).to.deep.equal([]);
    expect(loss.requests).to.be.greaterThan(20);
    const receipt = await waitUntil(
      'the recovery receipt',
      async () =>
        (
          await h.sql<{
            evidence: { replaced: boolean; lostAssignments: string[]; secondsToReplaced: number };
          }>(
            `SELECT evidence FROM audit_events WHERE action = 'node.recovery.complete' ORDER BY seq DESC LIMIT 1`,
          )
        )[0] ?? null,
      30_000,
    );
    expect(receipt.evidence.replaced).to.equal(true);
    expect(receipt.evidence.lostAssignments).to.deep.equal([loss.lost.id]);
    const [started] = await h.sql<{ workflow_id: string }>(
      `SELECT workflow_id FROM audit_events WHERE action = 'node.recovery.start' ORDER BY seq DESC LIMIT 1`,
    );
    expect(started?.workflow_id).to.match(/^nodeRecovery\//);
    // The survivor was never touched.
    const survivorNow = (await deploymentAssignments(h, 'recover')).find(
      (r) => r.node === loss.survivor.node,
    );
    expect(survivorNow).to.deep.include({
      intent: 'Run',
      observed_state: 'Ready',
      generation: loss.survivor.generation,
    });
    console.log(
      `      replacement Ready ${(loss.killToReadyMs / 1000).toFixed(1)} s and routed ${(loss.killToRoutedMs / 1000).toFixed(1)} s after the kill ` +
        `(lease ${LEASE_SECONDS} s, grace ${GRACE_SECONDS} s; receipt: ${receipt.evidence.secondsToReplaced} s from detection); ` +
        `${loss.requests} requests, ${loss.errors.length} errors`,
    );
  });

  it('the console shows the run on the deployment page: the lost node, its replicas Ready elsewhere, the workflow', async () => {
    const browser = await launchBrowser();
    try {
      for (const size of CONSOLE_WIDTHS) {
        const recorded = await openPage(browser, size);
        const { page } = recorded;
        await signIn(h.apiUrl, recorded, ADMIN);
        await page.goto(`${h.apiUrl}/deployments/recover`);
        const recovery = page.getByRole('region', { name: 'Recovery' });
        await expectVisible(page, recovery.getByRole('link', { name: loss.victim.node, exact: true }));
        await expectVisible(page, recovery.getByText(/2 of 2 Ready elsewhere in \d+ s/));
        await expectVisible(page, recovery.getByRole('link', { name: /^nodeRecovery\// }));
        await screenshot(page, 'deployment-recovery', size.width);
        expect(recorded.problems, describeProblems(recorded.problems)).to.deep.equal([]);
        await page.context().close();
      }
    } finally {
      await browser.close();
    }
  });

  it('the api, worker and gateway connected as the application role, not the owner, while they recovered the node', () => {
    const names = new Set([...sessionsSeen.keys()].map((key) => key.split(' as ')[0]));
    expect(names).to.include.members(['lunanexa-api', 'lunanexa-worker', 'lunanexa-gateway-credentials']);
    expect([...sessionsSeen].filter(([, role]) => role !== TEST_APP_ROLE).map(([key]) => key)).to.deep.equal(
      [],
    );
  });

  it('the node comes back: its replica, stopped at a newer generation while it was away, is stopped there', async () => {
    // The recovery's receipt is written once the replacement is Ready; the deployment's workflow stops the
    // lost replica right after (its next poll), so on a loaded machine the stop may land a moment later.
    const victim = await waitUntil(
      'the lost replica stopped at a new generation',
      async () =>
        (await deploymentAssignments(h, 'recover')).find(
          (r) => r.node === loss.victim.node && r.intent === 'Stop',
        ) ?? null,
      30_000,
    );
    expect(victim, 'evacuated at a new generation').to.deep.include({ intent: 'Stop' });
    expect(victim.generation).to.be.greaterThan(loss.victim.generation);
    await h.startAgent(loss.victim.node);
    await waitUntil(
      'the returning node to report its old replica Stopped at the new generation',
      async () => {
        const row = (await deploymentAssignments(h, 'recover')).find((r) => r.node === loss.victim.node);
        return row?.observed_state === 'Stopped' && row.observed_generation === row.generation;
      },
      90_000,
    );
    // Two runtimes serve the deployment: the survivor's and the replacement's; none on the returned node.
    await waitUntil(
      'exactly two runtimes',
      () => Promise.resolve(fakeRuntimeProcesses('recover@v1').length === 2),
      30_000,
    );
    const rows = await deploymentAssignments(h, 'recover');
    expect(rows.filter((r) => r.intent === 'Run').map((r) => r.node)).not.to.include(loss.victim.node);
  });

  it('drain moves a replica the same way: the replacement is Ready before the drained one is stopped', async () => {
    await h.startReadyAgent('node-d');
    const drained = loss.survivor.node;
    const timeline: { replacementReadyAt?: number; oldStoppedAt?: number } = {};
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const rows = await deploymentAssignments(h, 'recover');
        const now = Date.now();
        const fresh = rows.find((r) => r.node === 'node-d');
        const old = rows.find((r) => r.node === drained);
        if (timeline.replacementReadyAt === undefined && fresh?.observed_state === 'Ready')
          timeline.replacementReadyAt = now;
        if (timeline.oldStoppedAt === undefined && old?.intent === 'Stop') timeline.oldStoppedAt = now;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    try {
      const answer = await h.graphql<{ drainNode: { receiptHash: string } }>(
        `mutation($n: String!) { drainNode(node: $n, timeoutSeconds: 30) { receiptHash } }`,
        { n: drained },
      );
      expect(answer.drainNode.receiptHash).to.match(/^[0-9a-f]{64}$/);
      await waitUntil(
        'the drained replica stopped',
        async () =>
          (await deploymentAssignments(h, 'recover')).find((r) => r.node === drained)?.observed_state ===
          'Stopped',
        120_000,
      );
    } finally {
      watching = false;
      await watcher;
    }
    expect(timeline.replacementReadyAt, 'replacement Ready').to.be.a('number');
    expect(timeline.oldStoppedAt, 'drained replica stopped').to.be.a('number');
    expect(timeline.replacementReadyAt!).to.be.at.most(timeline.oldStoppedAt!);
    const rows = await deploymentAssignments(h, 'recover');
    expect(
      rows
        .filter((r) => r.intent === 'Run')
        .map((r) => r.node)
        .sort(),
    ).to.deep.equal(['node-c', 'node-d']);
  });

  it('as the application role, nothing the services write was refused: every call recorded, the audit chain whole', async () => {
    const recorded = await waitUntil(
      'the gateway’s request records',
      async () => {
        const [row] = await h.sql<{ n: string }>(
          `SELECT count(*) AS n FROM request_records WHERE requested_model = 'recover@v1'`,
        );
        return Number(row?.n ?? 0) >= loss.requests ? Number(row?.n) : null;
      },
      30_000,
    );
    expect(recorded).to.be.at.least(loss.requests);
    const audit = await h.graphql<{ auditChainStatus: { valid: boolean; checked: number } }>(
      '{ auditChainStatus { valid checked } }',
    );
    expect(audit.auditChainStatus.valid).to.equal(true);
    expect(audit.auditChainStatus.checked).to.be.greaterThan(10);
  });
});
