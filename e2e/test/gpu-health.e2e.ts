import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { FleetHarness, waitUntil } from '../src';

/**
 * A GPU that fails on the real stack: a simulated node's scripted nvidia-smi
 * reports an Xid and the GPU off the bus (the fault file the simulated agent
 * reads at every sample). The heartbeat carries it, the api turns the node's
 * GpuHealthy False once (audited), the gauges say so, the healing dry run
 * lists the cordon and changes nothing, and the healing pass cordons it.
 * Moving its replicas is the drain's job (not tested here).
 */

const PLAN_FIELDS = `actions { rule kind target nodeId reason outcome } skipped { rule target reason }`;

interface NodeView {
  name: string;
  cordoned: boolean;
  conditions: { type: string; status: string; reason: string }[];
  gpuTelemetry: { uuid: string; lost: boolean | null; lastXid: number | null }[];
}

describe('a failing GPU: GpuHealthy turns False, the healing dry run lists the cordon, the run cordons the node', function () {
  this.timeout(300_000);
  let h: FleetHarness;

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
    });
    for (const name of ['gpu-a', 'gpu-b']) await h.startReadyAgent(name);
  });

  after(async () => {
    await h?.stop();
  });

  it('healthy simulated GPUs report telemetry through the real parser, and GpuHealthy is True', async () => {
    const healthy = await waitUntil('gpu-a to report its GPU healthy', async () => {
      const view = await node('gpu-a');
      return gpuHealthy(view)?.status === 'True' && (view?.gpuTelemetry.length ?? 0) > 0 ? view : null;
    });
    expect(healthy.gpuTelemetry[0]).to.include({ lost: false, lastXid: null });
    expect(healthy.cordoned).to.equal(false);
  });

  it('an Xid and a lost GPU turn GpuHealthy False once, audited; the gauges say so', async () => {
    const agent = h.agents.get('gpu-a');
    if (agent === undefined) throw new Error('gpu-a is not running');
    writeFileSync(
      join(agent.stateDir, 'simulated-gpu-faults.json'),
      JSON.stringify({ '0': { xid: 79, lost: true } }),
    );
    const failed = await waitUntil(
      'gpu-a to turn GpuHealthy False',
      async () => {
        const view = await node('gpu-a');
        return gpuHealthy(view)?.status === 'False' ? view : null;
      },
      60_000,
    );
    expect(gpuHealthy(failed)?.reason).to.match(/^Gpu[A-Z]/);
    expect(gpuHealthy(await node('gpu-b'))?.status).to.equal('True');
    // A few more heartbeats with the fault: still one transition in the audit log, not one per heartbeat.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    const events = await h.sql<{ evidence: Record<string, unknown> }>(
      `SELECT evidence FROM audit_events WHERE action = 'node.condition.changed' AND evidence::text LIKE '%GpuHealthy%'`,
    );
    const toFalse = events.filter((e) => JSON.stringify(e.evidence).includes('"False"'));
    expect(toFalse, JSON.stringify(events)).to.have.length(1);
    const metrics = await (await fetch(`${h.apiUrl}/metrics`)).text();
    expect(metrics).to.match(/^lunanexa_gpu_lost\{[^}]*node="gpu-a"[^}]*\} 1$/m);
    expect(metrics).to.match(
      /^lunanexa_node_condition\{[^}]*condition="GpuHealthy"[^}]*status="False"[^}]*\} 1$/m,
    );
  });

  it('the healing dry run lists the cordon and changes nothing; the run cordons gpu-a and only gpu-a', async () => {
    const planned = await h.graphql<{
      healingPlan: { actions: { rule: string; kind: string; target: string }[] };
    }>(`query { healingPlan { ${PLAN_FIELDS} } }`);
    const cordons = planned.healingPlan.actions.filter((a) => a.rule === 'cordon-gpu-unhealthy-node');
    expect(cordons.map((a) => a.kind)).to.deep.equal(['CordonNode']);
    expect((await node('gpu-a'))?.cordoned, 'the dry run changed nothing').to.equal(false);
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
    expect((await node('gpu-a'))?.cordoned).to.equal(true);
    expect((await node('gpu-b'))?.cordoned).to.equal(false);
    const audited = await h.sql<{ workflow_id: string }>(
      `SELECT workflow_id FROM audit_events WHERE action = 'node.cordon'`,
    );
    expect(audited.map((a) => a.workflow_id)).to.deep.equal([run.heal.workflowId]);
  });
});
