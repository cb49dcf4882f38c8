import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import {
  CONSOLE_WIDTHS,
  deploymentAssignments,
  describeProblems,
  expectVisible,
  FleetHarness,
  launchBrowser,
  openPage,
  screenshot,
  signIn,
  startSteadyLoad,
  untilRouted,
  waitUntil,
  type NodeLossAssignment,
  type SteadyLoad,
} from '../src';

/**
 * A GPU that fails on the real stack, and the replica on it moved without a
 * client noticing: a simulated node's scripted nvidia-smi reports an Xid and
 * the GPU off the bus (the fault file the simulated agent reads at every
 * sample). The heartbeat carries it, the api turns the node's GpuHealthy
 * False once (audited), the gauges say so, the healing dry run lists the
 * cordon and changes nothing, and the healing pass cordons the node and moves
 * its one-replica deployment make-before-break while clients call it through
 * the gateway: 0 failed requests. Then an operator drains the node the
 * replica moved to, under the same load: 0 failed requests again. The
 * console, in a real browser, shows the figures, the badge and the GPU history.
 */

const ADMIN = { username: 'gpu-admin', password: 'correct horse battery staple' };

/**
 * Evaluated in the page (e2e has no DOM typings): how far the page, the console's scrolling content and the
 * Nodes table stick out past their boxes, in px (0 when nothing does). The table may scroll inside its own box;
 * `tableOverflow` says whether it had to.
 */
const OVERFLOW = `(() => {
  const doc = document.scrollingElement;
  const content = document.querySelector('.mat-drawer-content');
  const box = document.querySelector('.table-scroll');
  return {
    page: doc.scrollWidth - window.innerWidth,
    content: content ? content.scrollWidth - content.clientWidth : 0,
    tableOverflow: box ? box.scrollWidth - box.clientWidth : 0,
    columns: Array.from(document.querySelectorAll('table.nodes thead th')).map(
      (th) => th.textContent.trim() + ' ' + Math.round(th.getBoundingClientRect().width),
    ),
  };
})()`;

const PLAN_FIELDS = `actions { rule kind target nodeId reason outcome } skipped { rule target reason }`;

interface NodeView {
  name: string;
  cordoned: boolean;
  conditions: { type: string; status: string; reason: string }[];
  gpuTelemetry: { uuid: string; lost: boolean | null; lastXid: number | null }[];
}

const MODEL = 'gpu-move@v1';
const DEPLOYMENT = 'gpu-move';

describe('a failing GPU: GpuHealthy turns False, healing cordons the node and moves its replica with 0 client errors; a drain moves it again', function () {
  this.timeout(300_000);
  let h: FleetHarness;
  /** The node the one replica landed on first: its GPU is the one that fails. */
  let victim = '';
  let load: SteadyLoad | null = null;
  let browser: Browser;

  async function running(): Promise<NodeLossAssignment[]> {
    return (await deploymentAssignments(h, DEPLOYMENT)).filter((a) => a.intent === 'Run');
  }

  async function node(name: string): Promise<NodeView | undefined> {
    const data = await h.graphql<{ nodes: NodeView[] }>(
      `{ nodes { name cordoned conditions { type status reason } gpuTelemetry { uuid lost lastXid } } }`,
    );
    return data.nodes.find((n) => n.name === name);
  }

  const gpuHealthy = (view: NodeView | undefined) => view?.conditions.find((c) => c.type === 'GpuHealthy');

  before(async () => {
    h = await FleetHarness.start('gpu_health', {
      leaseSeconds: 60,
      // The standing healing loop's first pass runs at start, on healthy GPUs; the next one would race the dry run.
      extraEnv: { LUNANEXA_HEAL_INTERVAL_SECONDS: '3600' },
      serveConsole: true,
      admin: ADMIN,
    });
    for (const name of ['gpu-a', 'gpu-b', 'gpu-c']) await h.startReadyAgent(name);
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: 'gpu-move', version: 'v1', ttftMs: 20, tokensPerSecond: 200 } },
    );
    await h.graphql(
      `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
      { input: { name: DEPLOYMENT, model: MODEL, replicas: 1, purpose: 'Candidate' } },
    );
    const [placed] = await waitUntil(
      'the one replica Ready',
      async () => {
        const ready = (await running()).filter((a) => a.observed_state === 'Ready');
        return ready.length === 1 ? ready : null;
      },
      120_000,
    );
    victim = placed?.node ?? '';
    await untilRouted(h, MODEL);
    load = startSteadyLoad(h, MODEL, { callers: 2 });
    browser = await launchBrowser();
  });

  after(async () => {
    await load?.stop();
    await browser?.close();
    await h?.stop();
  });

  it('healthy simulated GPUs report telemetry through the real parser, and GpuHealthy is True', async () => {
    const healthy = await waitUntil(`${victim} to report its GPU healthy`, async () => {
      const view = await node(victim);
      return gpuHealthy(view)?.status === 'True' && (view?.gpuTelemetry.length ?? 0) > 0 ? view : null;
    });
    expect(healthy.gpuTelemetry[0]).to.include({ lost: false, lastXid: null });
    expect(healthy.cordoned).to.equal(false);
  });

  it('an Xid and a lost GPU turn GpuHealthy False once, audited; the gauges say so', async () => {
    const agent = h.agents.get(victim);
    if (agent === undefined) throw new Error(`${victim} is not running`);
    writeFileSync(
      join(agent.stateDir, 'simulated-gpu-faults.json'),
      JSON.stringify({ '0': { xid: 79, lost: true } }),
    );
    const failed = await waitUntil(
      `${victim} to turn GpuHealthy False`,
      async () => {
        const view = await node(victim);
        return gpuHealthy(view)?.status === 'False' ? view : null;
      },
      60_000,
    );
    expect(gpuHealthy(failed)?.reason).to.match(/^Gpu[A-Z]/);
    for (const other of ['gpu-a', 'gpu-b', 'gpu-c'].filter((name) => name !== victim))
      expect(gpuHealthy(await node(other))?.status).to.equal('True');
    // A few more heartbeats with the fault: still one transition in the audit log, not one per heartbeat.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const events = await h.sql<{ evidence: Record<string, unknown> }>(
      `SELECT evidence FROM audit_events WHERE action = 'node.condition.changed' AND evidence::text LIKE '%GpuHealthy%'`,
    );
    const toFalse = events.filter((e) => JSON.stringify(e.evidence).includes('"False"'));
    expect(toFalse, JSON.stringify(events)).to.have.length(1);
    const metrics = await (await fetch(`${h.apiUrl}/metrics`)).text();
    expect(metrics).to.match(new RegExp(`^lunanexa_gpu_lost\\{[^}]*node="${victim}"[^}]*\\} 1$`, 'm'));
    expect(metrics).to.match(
      /^lunanexa_node_condition\{[^}]*condition="GpuHealthy"[^}]*status="False"[^}]*\} 1$/m,
    );
  });

  it('the console shows GPU figures and the GpuHealthy False badge with its reason, the history on the node page, and fits 1440 and 390 px', async () => {
    // A healthy node's GPU reports figures; the victim's fell off the bus (its figures are null, shown as —).
    const healthy = ['gpu-a', 'gpu-b', 'gpu-c'].find((name) => name !== victim) ?? '';
    const samples = await waitUntil(`a GPU sample of ${healthy}`, async () => {
      const rows = await h.graphql<{ node: { gpuSeries: { points: unknown[] }[] } | null }>(
        `{ node(node: "${healthy}") { gpuSeries(minutes: 60) { points { at utilizationPercent } } } }`,
      );
      return (rows.node?.gpuSeries[0]?.points.length ?? 0) > 0 ? rows.node : null;
    });
    expect(samples?.gpuSeries).to.have.length(1);
    for (const size of CONSOLE_WIDTHS) {
      const recorded = await openPage(browser, size);
      const { page } = recorded;
      await signIn(h.apiUrl, recorded, ADMIN);
      await page.goto(`${h.apiUrl}/nodes`);
      const rowA = page.getByRole('row').filter({ hasText: victim });
      const rowB = page.getByRole('row').filter({ hasText: healthy });
      const badge = rowA.getByText('GpuHealthy False', { exact: true });
      await expectVisible(page, badge);
      // The figures of the healthy GPU: utilisation, memory used / total, temperature, power.
      const figures = rowB.locator('.gpu-now');
      await expectVisible(page, figures);
      const text = (await figures.innerText()).replace(/\s+/g, ' ');
      expect(text).to.match(
        /GPU 0 .*\d+ % .*\d+(\.\d)? [KMGT]iB \/ \d+(\.\d)? [KMGT]iB .*\d+ °C .*\d+(\.\d)?( \/ \d+(\.\d)?)? W/,
      );
      // Its healthy conditions fold into one badge (simulated nodes report no disk figure: DiskPressure Unknown).
      await expectVisible(page, rowB.getByText(/^(All OK|\d OK)$/));
      expect(await rowB.getByText('GpuHealthy False').count()).to.equal(0);
      // The lost GPU says so, and the reason shows on keyboard focus.
      await expectVisible(page, rowA.getByText(/lost \(fell off the bus\)/));
      // Keyboard focus (Tab from the node's link) shows the reason, as hovering does.
      await rowA.getByRole('link', { name: victim }).focus();
      await page.keyboard.press('Tab');
      const tooltip = page
        .locator('.mat-mdc-tooltip-surface')
        .filter({ hasText: /GpuHealthy False: Gpu[A-Z]/ });
      await expectVisible(page, tooltip);
      const overflow = await page.evaluate<{
        page: number;
        content: number;
        tableOverflow: number;
        columns: string[];
      }>(OVERFLOW);
      await screenshot(page, 'nodes-gpu-health', size.width);
      expect(overflow.page, `document at ${size.width} px`).to.be.at.most(0);
      expect(overflow.content, `console content at ${size.width} px`).to.be.at.most(0);
      // At 1440 px the whole Nodes table fits; on a phone it scrolls inside its own box.
      if (size.width >= 1440)
        expect(
          overflow.tableOverflow,
          `Nodes table at 1440 px: ${overflow.columns.join(', ')}`,
        ).to.be.at.most(0);

      await page.goto(`${h.apiUrl}/nodes/${healthy}`);
      const gpuFigures = page.getByRole('region', { name: 'GPUs now' });
      await expectVisible(page, gpuFigures.getByRole('rowheader', { name: 'GPU 0' }));
      await expectVisible(
        page,
        page.getByRole('img', { name: 'GPU 0 utilisation and memory, last 60 minutes' }),
      );
      await expectVisible(
        page,
        page.getByRole('img', { name: 'GPU 0 temperature and power, last 60 minutes' }),
      );
      await expectVisible(page, page.getByText('When each condition changes'));
      const detailOverflow = await page.evaluate<{ page: number; content: number }>(OVERFLOW);
      expect(detailOverflow.page, `node page at ${size.width} px`).to.be.at.most(0);
      expect(detailOverflow.content, `node page content at ${size.width} px`).to.be.at.most(0);
      await screenshot(page, 'node-gpu-history', size.width);

      await page.goto(`${h.apiUrl}/nodes/${victim}`);
      const conditions = page.getByRole('region', { name: 'Conditions' });
      const row = conditions.getByRole('row').filter({ hasText: 'GpuHealthy' });
      await expectVisible(page, row.getByText('False', { exact: true }));
      await expectVisible(page, row.getByRole('cell', { name: /^Gpu[A-Z]/ }));
      expect(recorded.problems, describeProblems(recorded.problems)).to.deep.equal([]);
      await page.context().close();
    }
  });

  it('the healing dry run lists the cordon and changes nothing; the run cordons that node only and moves its replica with 0 client errors', async () => {
    const planned = await h.graphql<{
      healingPlan: { actions: { rule: string; kind: string; target: string }[] };
    }>(`query { healingPlan { ${PLAN_FIELDS} } }`);
    const cordons = planned.healingPlan.actions.filter((a) => a.rule === 'cordon-gpu-unhealthy-node');
    expect(cordons.map((a) => a.kind)).to.deep.equal(['CordonNode']);
    expect((await node(victim))?.cordoned, 'the dry run changed nothing').to.equal(false);
    expect(
      (await running()).map((a) => a.node),
      'the dry run moved nothing',
    ).to.deep.equal([victim]);
    const run = await h.graphql<{
      heal: {
        workflowId: string;
        plan: { actions: { rule: string; kind: string; outcome: string | null }[] };
      };
    }>(`mutation { heal(input: { dryRun: false }) { workflowId plan { ${PLAN_FIELDS} } } }`);
    expect(
      run.heal.plan.actions
        .filter((a) => a.rule === 'cordon-gpu-unhealthy-node')
        .map((a) => [a.kind, a.outcome]),
    ).to.deep.equal([['CordonNode', 'applied']]);
    expect((await node(victim))?.cordoned).to.equal(true);
    for (const other of ['gpu-a', 'gpu-b', 'gpu-c'].filter((name) => name !== victim))
      expect((await node(other))?.cordoned).to.equal(false);
    const audited = await h.sql<{ workflow_id: string }>(
      `SELECT workflow_id FROM audit_events WHERE action = 'node.cordon'`,
    );
    expect(audited.map((a) => a.workflow_id)).to.deep.equal([run.heal.workflowId]);

    const moved = await waitUntil(
      'the replica moved off the faulty GPU and the old one stopped',
      async () => {
        const all = await deploymentAssignments(h, DEPLOYMENT);
        const serving = all.filter((a) => a.intent === 'Run' && a.observed_state === 'Ready');
        const old = all.find((a) => a.node === victim);
        return serving.length === 1 && serving[0]?.node !== victim && old?.observed_state === 'Stopped'
          ? serving[0]
          : null;
      },
      120_000,
    );
    expect(moved?.node).to.not.equal(victim);
    // Calls keep landing on the replacement after the old replica is gone.
    const before = load?.outcomes.ok ?? 0;
    await waitUntil('calls served after the move', () =>
      Promise.resolve((load?.outcomes.ok ?? 0) > before + 10),
    );
    expect(load?.outcomes.errors, 'client errors while the replica moved').to.deep.equal([]);
  });

  it('draining the node the replica moved to, under the same load: make-before-break, 0 client errors, Drained with a receipt', async () => {
    const [from] = await running();
    if (from === undefined) throw new Error('no running replica');
    const drained = await h.graphql<{
      drainNode: { node: { lifecycle: string }; replicasAtStart: number; receiptHash: string };
    }>(
      `mutation($node: String!) { drainNode(node: $node, timeoutSeconds: 30) { node { lifecycle } replicasAtStart receiptHash } }`,
      { node: from.node },
    );
    expect(drained.drainNode.node.lifecycle).to.equal('Drained');
    expect(drained.drainNode.replicasAtStart).to.equal(1);
    const [to] = await running();
    expect(to?.node, 'moved to the one node left (the faulty one is cordoned)').to.not.be.oneOf([
      from.node,
      victim,
    ]);
    expect(to?.observed_state).to.equal('Ready');
    const [complete] = await h.sql<{ evidence: Record<string, unknown> }>(
      `SELECT evidence FROM audit_events WHERE action = 'node.drain.complete' ORDER BY seq DESC LIMIT 1`,
    );
    expect(complete?.evidence).to.deep.include({ makeBeforeBreak: true, replicasStillRunning: 0 });
    const before = load?.outcomes.ok ?? 0;
    await waitUntil('calls served after the drain', () =>
      Promise.resolve((load?.outcomes.ok ?? 0) > before + 10),
    );
    const total = await load?.stop();
    load = null;
    expect(total?.errors, 'client errors while the drained node’s replica moved').to.deep.equal([]);
    expect(total?.ok).to.be.above(100);
  });
});
