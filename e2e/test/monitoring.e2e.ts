import { expect } from 'chai';
import { WorkflowFailedError } from '@temporalio/client';
import {
  FleetHarness,
  PROMETHEUS_OWN_SERIES,
  exportedSeries,
  metricNames,
  monitoringExpressions,
  nodeLossEnv,
  sampleValue,
  waitUntil,
} from '../src';

/**
 * The alert rules and dashboards in infra/ read only what the running
 * processes export: api, worker, gateway and an agent are scraped on
 * /metrics, and every metric an expression names must be among their series.
 * The two metrics no process used to export are checked for their values:
 * nodes per readiness follow a node's lease, and a failed workflow run is
 * counted by the worker.
 */
describe('monitoring: every metric the dashboards and alerts use is exported by a running process', function () {
  this.timeout(300_000);
  let h: FleetHarness;
  const scrape = async (url: string): Promise<string> => {
    const res = await fetch(`${url}/metrics`);
    expect(res.status, `${url}/metrics`).to.equal(200);
    return res.text();
  };
  const scrapeAll = async () => {
    const agent = h.agents.get('mon-node')!;
    return {
      api: await scrape(h.apiUrl),
      worker: await scrape(h.workerUrl),
      gateway: await scrape(h.gatewayUrl),
      agent: await scrape(`http://127.0.0.1:${agent.httpPort}`),
    };
  };

  before(async () => {
    // A 5 s lease so a stopped agent shows as Unreachable within the test.
    h = await FleetHarness.start('monitoring', { extraEnv: nodeLossEnv(5, 600) });
    await h.startReadyAgent('mon-node');
  });

  after(async () => {
    await h?.stop();
  });

  it('names in every alert and dashboard expression are series the api, worker, gateway or agent export', async () => {
    // One request through the gateway and the api, so request counters have samples too.
    await fetch(`${h.gatewayUrl}/v1/models`);
    await h.graphql('{ nodes { name } }');
    const scraped = await scrapeAll();
    const exported = new Set(Object.values(scraped).flatMap((text) => [...exportedSeries(text)]));
    const expressions = monitoringExpressions();
    expect(expressions.length).to.be.greaterThan(10);
    const missing = expressions.flatMap(({ source, expr }) =>
      metricNames(expr)
        .filter((name) => !exported.has(name) && !PROMETHEUS_OWN_SERIES.has(name))
        .map((name) => `${name} (${source})`),
    );
    expect(missing, 'metrics no running process exports').to.deep.equal([]);
    // The services the expressions select by label answer under that label.
    const services = new Set(
      expressions.flatMap(({ expr }) => [...expr.matchAll(/service="(\w+)"/g)].map((m) => m[1])),
    );
    expect([...services].sort()).to.deep.equal(['api', 'gateway']);
    for (const service of services) {
      expect(scraped[service as keyof typeof scraped], service).to.match(
        new RegExp(`^lunanexa_http_requests_total\\{[^}]*service="${service}"`, 'm'),
      );
    }
  });

  it('lunanexa_node_condition follows the lease: Ready, then Unreachable once the agent stops', async () => {
    const condition = async (name: string) =>
      sampleValue(await scrape(h.apiUrl), `lunanexa_node_condition{condition="${name}"}`);
    expect(await condition('Ready')).to.equal(1);
    expect(await condition('Unreachable')).to.equal(0);
    expect(await condition('NotReady')).to.equal(0);
    await h.agents.get('mon-node')!.service.kill('SIGKILL');
    await waitUntil(
      'the node Unreachable in the api metrics',
      async () => (await condition('Unreachable')) === 1,
      30_000,
    );
    expect(await condition('Ready')).to.equal(0);
  });

  it('lunanexa_workflow_failures_total counts a run that ended Failed, by workflow, once', async () => {
    const failures = async () =>
      sampleValue(
        await scrape(h.workerUrl),
        'lunanexa_workflow_failures_total{workflow="verifyModelVersion"}',
      ) ?? 0;
    expect(await failures()).to.equal(0);
    // A version that does not exist fails the run (NOT_FOUND, not retried): a real failed workflow.
    const run = h.temporal.client.workflow.execute('verifyModelVersionWorkflow', {
      taskQueue: h.taskQueue,
      workflowId: `verify/monitoring-${Date.now()}`,
      args: [{ modelVersionId: 'no-such-model@1', actor: 'test', correlationId: 'monitoring-e2e' }],
    });
    const error = await run.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(WorkflowFailedError);
    await waitUntil('the failure counted', async () => (await failures()) === 1, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await failures(), 'counted once').to.equal(1);
  });
});
