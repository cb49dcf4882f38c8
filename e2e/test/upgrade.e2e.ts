import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { MIGRATIONS } from '@lunanexa/persistence';
import {
  FleetHarness,
  PREVIOUS_RELEASE,
  REPO_ROOT,
  deploymentAssignments,
  previousReleaseRoot,
  waitUntil,
} from '../src';

/**
 * Upgrade day (docs/UPGRADING.md) on the real stack: the previous release
 * (N, built from its commit) serves traffic; this tree (N+1) takes over —
 * its migration applied while N serves, then worker, api and gateway replaced
 * one at a time, agents last — and a deployment workflow N started finishes
 * on N+1's worker. While agents are still at N, N+1 keeps deploying to them
 * and marks them outdated. Then everything goes back to N, the down
 * migration included. Clients call through the gateway the whole time, each
 * request new and not streamed, as behind a load balancer that takes a
 * gateway out of rotation before it is stopped: not one call may fail.
 */

const MODEL = 'upgrade';
const REF = `${MODEL}@v1`;
/** The migrations N+1 has that N has not, in order: what the upgrade applies and the rollback reverts. */
const NEW_MIGRATIONS = MIGRATIONS.map((migration) => migration.name).slice(
  MIGRATIONS.findIndex((migration) => migration.name === PREVIOUS_RELEASE.lastMigration) + 1,
);

function migrate(root: string, url: string, args: string[] = []): string {
  const run = spawnSync(
    process.execPath,
    [join(root, 'libs/persistence/dist/src/migrate-main.js'), ...args],
    {
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: url },
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  if (run.status !== 0) throw new Error(`migrate-main ${args.join(' ')} failed: ${run.stderr}`);
  return run.stdout;
}

describe('upgrade day: N to N+1 while serving, version skew, and back to N with the down migration', function () {
  this.timeout(600_000);
  let h: FleetHarness;
  let releaseN = '';
  /** The gateways the "load balancer" sends new requests to. */
  let rotation: string[] = [];
  const outcomes = { ok: 0, errors: [] as string[] };
  /** What the test is doing, recorded with each failed call. */
  let phase = 'N serving';
  let calling = true;
  let callers: Promise<void>[] = [];

  async function callLoop(): Promise<void> {
    let turn = 0;
    while (calling) {
      const gateway = rotation[turn++ % rotation.length];
      const response = await fetch(`${gateway}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${h.operatorToken}` },
        body: JSON.stringify({ model: REF, messages: [{ role: 'user', content: 'hi' }], max_tokens: 4 }),
      }).catch((error: unknown) => ({ status: 0, text: () => Promise.resolve(String(error)) }));
      const text = await response.text();
      if (response.status === 200) outcomes.ok += 1;
      else outcomes.errors.push(`${phase}: ${gateway} ${response.status} ${text.slice(0, 160)}`);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  }

  async function deploy(name: string, replicas: number): Promise<void> {
    await h.graphql(
      `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
      { input: { name, model: REF, replicas, purpose: 'Candidate' } },
    );
  }

  async function readyReplicas(name: string, replicas: number): Promise<void> {
    await waitUntil(
      `${name}: ${replicas} replica(s) Ready`,
      async () =>
        (await deploymentAssignments(h, name)).filter(
          (r) => r.intent === 'Run' && r.observed_state === 'Ready',
        ).length === replicas,
      120_000,
    );
  }

  /** A rolling replacement of the gateway: the new one joins the rotation, then the old one leaves and drains. */
  async function replaceGateway(root: string): Promise<void> {
    phase = `gateway to ${root === REPO_ROOT ? 'N+1' : 'N'}`;
    h.releaseRoot = root;
    const { previous, previousUrl } = await h.startBeside('gateway');
    rotation = [h.gatewayUrl];
    // A request the old gateway was already given finishes: SIGTERM drains, it does not cut.
    await previous?.kill('SIGTERM');
    expect(rotation).to.not.include(previousUrl);
  }

  /** The worker: the new one polls beside the old, which then finishes its activities and exits. */
  async function replaceWorker(root: string): Promise<void> {
    phase = `worker to ${root === REPO_ROOT ? 'N+1' : 'N'}`;
    h.releaseRoot = root;
    const { previous } = await h.startBeside('worker');
    await previous?.kill('SIGTERM');
  }

  /** The api: agents and operators know one address, so it is stopped and started in place. */
  async function replaceApi(root: string): Promise<void> {
    phase = `api to ${root === REPO_ROOT ? 'N+1' : 'N'}`;
    h.releaseRoot = root;
    await h.api?.kill('SIGTERM');
    await h.startApi();
  }

  async function replaceAgent(name: string, root: string): Promise<void> {
    phase = `${name} to ${root === REPO_ROOT ? 'N+1' : 'N'}`;
    h.releaseRoot = root;
    await h.agents.get(name)?.service.kill('SIGTERM');
    await h.startAgent(name);
  }

  async function nodes(): Promise<Record<string, string | boolean | number | null>[]> {
    return (
      await h.graphql<{ nodes: Record<string, string | boolean | number | null>[] }>(
        '{ nodes { name agentVersion agentProtocol agentOutdated agentOutdatedReason } }',
      )
    ).nodes;
  }

  async function agentProtocolColumn(): Promise<boolean> {
    const rows = await h.sql(
      `SELECT 1 FROM information_schema.columns WHERE table_name = 'nodes' AND column_name = 'agent_protocol'`,
    );
    return rows.length === 1;
  }

  before(async function () {
    // The first run on a machine builds release N from its commit (minutes); later runs reuse it.
    this.timeout(1_200_000);
    releaseN = previousReleaseRoot();
    h = await FleetHarness.start('upgrade', {
      releaseRoot: releaseN,
      // One api here (agents know one address), restarted in place: on a loaded machine that can outlast the
      // 20 s default node lease, and routes need a live lease. In production, other api replicas behind the
      // address take the heartbeats meanwhile (docs/UPGRADING.md).
      extraEnv: { LUNANEXA_NODE_LEASE_SECONDS: '120' },
    });
    await h.startReadyAgent('node-a');
    await h.startReadyAgent('node-b');
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: MODEL, version: 'v1', ttftMs: 5, tokensPerSecond: 400 } },
    );
    await deploy('served', 2);
    await deploy('started-at-n', 1);
    await readyReplicas('served', 2);
    await readyReplicas('started-at-n', 1);
    rotation = [h.gatewayUrl];
    callers = [callLoop(), callLoop()];
    await waitUntil('the first calls answered', () => Promise.resolve(outcomes.ok > 5), 30_000);
  });

  after(async () => {
    calling = false;
    await Promise.all(callers);
    await h?.stop();
  });

  it(`N is release ${PREVIOUS_RELEASE.version}: its migrations end at ${PREVIOUS_RELEASE.lastMigration}`, () => {
    expect(migrate(REPO_ROOT, h.db.url, ['--status'])).to.match(
      new RegExp(`, ${PREVIOUS_RELEASE.lastMigration}\\n$`),
    );
  });

  it("N+1's migration is applied while N serves; N keeps answering on the new schema", async () => {
    phase = 'migrations up';
    expect(NEW_MIGRATIONS[0]).to.equal('NodeAgentProtocol1768400000000');
    expect(migrate(REPO_ROOT, h.db.url)).to.equal(`migrations applied: ${NEW_MIGRATIONS.join(', ')}\n`);
    expect(await agentProtocolColumn()).to.equal(true);
    const before = outcomes.ok;
    await waitUntil(
      'calls answered after the migration',
      () => Promise.resolve(outcomes.ok > before + 5),
      30_000,
    );
    expect((await h.graphql<{ nodes: unknown[] }>('{ nodes { name } }')).nodes).to.have.length(2);
  });

  it('worker, api and gateway are replaced one at a time; a deployment workflow N started goes on under N+1', async () => {
    await replaceWorker(REPO_ROOT);
    await replaceApi(REPO_ROOT);
    await replaceGateway(REPO_ROOT);
    // Stopping it is a signal its running workflow, started by N's worker, now handles on N+1's.
    phase = 'N+1 serving';
    await h.graphql(`mutation { stopDeployment(deployment: "started-at-n") { workflowId } }`);
    await waitUntil(
      'started-at-n stopped by its workflow',
      async () =>
        (await deploymentAssignments(h, 'started-at-n')).every(
          (r) => r.intent === 'Stop' && r.observed_state === 'Stopped',
        ),
      120_000,
    );
    expect(outcomes.errors, outcomes.errors.slice(0, 5).join('\n')).to.deep.equal([]);
  });

  it('version skew: agents still at N keep serving and take new deployments; both are marked outdated', async () => {
    const marked = await nodes();
    expect(marked.map((n) => [n['name'], n['agentVersion'], n['agentOutdated']])).to.deep.equal([
      ['node-a', PREVIOUS_RELEASE.version, true],
      ['node-b', PREVIOUS_RELEASE.version, true],
    ]);
    expect(String(marked[0]?.['agentOutdatedReason'])).to.contain('does not report its protocol');
    await deploy('deployed-by-n-plus-1', 2);
    await readyReplicas('deployed-by-n-plus-1', 2);
    const metrics = await (await fetch(`${h.apiUrl}/metrics`)).text();
    expect(metrics).to.match(/^lunanexa_nodes_agent_outdated 2$/m);
  });

  it('agents are upgraded last, node by node; an upgraded one is current', async () => {
    await replaceAgent('node-a', REPO_ROOT);
    await waitUntil(
      'node-a reporting protocol 2',
      async () => (await nodes()).find((n) => n['name'] === 'node-a')?.['agentOutdated'] === false,
      60_000,
    );
    const [a, b] = await nodes();
    expect(a).to.deep.include({
      agentVersion: '0.2.0',
      agentProtocol: 2,
      agentOutdated: false,
      agentOutdatedReason: null,
    });
    expect(b).to.deep.include({ agentProtocol: 1, agentOutdated: true });
    await readyReplicas('served', 2);
    expect(outcomes.errors, outcomes.errors.slice(0, 5).join('\n')).to.deep.equal([]);
  });

  it('rollback to N: agent, gateway, worker and api back to N, then the down migration while N serves', async () => {
    await replaceAgent('node-a', releaseN);
    await replaceGateway(releaseN);
    await replaceWorker(releaseN);
    await replaceApi(releaseN);
    phase = 'migrations down';
    expect(migrate(REPO_ROOT, h.db.url, ['--revert-to', PREVIOUS_RELEASE.lastMigration])).to.equal(
      `migrations reverted: ${[...NEW_MIGRATIONS].reverse().join(', ')}\n`,
    );
    expect(await agentProtocolColumn()).to.equal(false);
    phase = 'N serving again';
    await deploy('after-rollback', 1);
    await readyReplicas('after-rollback', 1);
    await readyReplicas('served', 2);
    const before = outcomes.ok;
    await waitUntil('calls answered on N again', () => Promise.resolve(outcomes.ok > before + 5), 30_000);
  });

  it('not one call failed through the whole upgrade and rollback', () => {
    expect(outcomes.errors, outcomes.errors.slice(0, 5).join('\n')).to.deep.equal([]);
    expect(outcomes.ok).to.be.greaterThan(50);
    console.log(`      ${outcomes.ok} calls through the gateway, ${outcomes.errors.length} failed`);
  });
});
