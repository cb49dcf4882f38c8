import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import {
  AgentSimulator,
  FleetHarness,
  ThreadedAgentSimulator,
  deploymentAssignments,
  nodeLossEnv,
  summarizeHeartbeats,
  waitUntil,
} from '../src';

/**
 * The agent simulator `npm run bench:scale` runs at 1,000 agents, kept honest
 * at 20 on the real api, worker, Temporal and PostgreSQL: every simulated
 * agent enrolls through the API with its own key and a single-use token
 * (auto-approved), its heartbeats get signed acks it verifies, and the
 * controller pushes assignments over each one's SSH server and gets signed
 * assignment.acks, so a deployment placed on simulated nodes becomes Ready.
 * Then two of its three nodes die at once: both NodeRecoveries hand their
 * evacuations to the deployment, which re-places the two replicas together
 * (one evacuation at a time would wait out REPLACE_WAIT_MS, 120 s, first).
 */

const AGENTS = 20;

describe('Agent simulator: 20 simulated agents enroll, heartbeat with verified acks and ack assignments', function () {
  this.timeout(600_000);
  let h: FleetHarness;
  let sim: AgentSimulator;
  let dataDir: string;

  before(async () => {
    h = await FleetHarness.start('agent-simulator', { extraEnv: nodeLossEnv(5, 2) });
    dataDir = mkdtempSync(join(tmpdir(), 'lunanexa-agent-sim-'));
    sim = new AgentSimulator({
      controllerUrl: h.apiUrl,
      controllerKeyFingerprint: await h.controllerFingerprint(),
      dataDir,
      heartbeatIntervalMs: 1000,
      jitterMs: 200,
    });
  });

  after(async () => {
    await sim?.stop();
    await h?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('enrolls every agent through the API; all become Active with a live lease', async () => {
    const names = Array.from({ length: AGENTS }, (_, i) => `sim-${String(i).padStart(4, '0')}`);
    await sim.enrollAll(names, (name) => h.createBootstrapToken(name, true), 5);
    await waitUntil(
      `${AGENTS} simulated nodes Active with a live lease`,
      async () => {
        const [row] = await h.sql<{ n: string }>(
          `SELECT count(*) AS n FROM nodes WHERE lifecycle = 'Active' AND lease_expires_at > now()`,
        );
        return Number(row?.n) === AGENTS;
      },
      180_000,
      500,
    );
    const profiles = await h.sql<{ arch: string; n: string }>(
      `SELECT inventory->>'architecture' AS arch, count(*) AS n FROM nodes GROUP BY 1 ORDER BY 1`,
    );
    expect(profiles.map((p) => [p.arch, Number(p.n)])).to.deep.equal([
      ['amd64', 2],
      ['arm64', 18],
    ]);
  });

  it('heartbeats are acknowledged with acks the agents verify', async () => {
    sim.resetStats();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const stats = sim.stats();
    expect(stats.sent).to.be.greaterThan(AGENTS);
    expect(stats.dropped, stats.dropSamples.join('; ')).to.equal(0);
    expect(stats.acked).to.equal(stats.sent);
    // After its first signed exchange every agent MACs its heartbeats, and the api answers with MACs.
    expect(stats.acksBy).to.deep.equal({ 'HMAC-SHA256': stats.acked });
    // Between inventory refreshes (30 s) heartbeats send the digest of the inventory the api holds; in 3 s
    // each agent sends its inventory in full at most once (a refresh).
    const { digest = 0, inventory = 0 } = stats.inventoryBy;
    expect(digest + inventory).to.equal(stats.acked);
    expect(inventory).to.be.at.most(AGENTS);
    expect(digest).to.be.greaterThan(inventory);
    for (const agent of sim.agents.values()) expect(agent.heartbeat?.health().lastOutcome).to.equal('ok');
  });

  it('answers assignment.put over SSH with signed acks: a deployment of 3 replicas becomes Ready', async () => {
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: 'simmodel', version: 'v1' } },
    );
    await h.graphql(
      `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
      { input: { name: 'simdeploy', model: 'simmodel@v1', replicas: 3, purpose: 'Candidate' } },
    );
    const ready = await waitUntil(
      'three replicas Ready on simulated nodes',
      async () => {
        const rows = (await deploymentAssignments(h, 'simdeploy')).filter(
          (r) => r.intent === 'Run' && r.observed_state === 'Ready' && r.observed_generation === r.generation,
        );
        return rows.length === 3 ? rows : null;
      },
      120_000,
      500,
    );
    expect(new Set(ready.map((r) => r.node)).size).to.equal(3);
    expect(sim.assignmentsAccepted).to.be.at.least(3);
    for (const row of ready) {
      const agent = sim.agents.get(row.node);
      expect(agent?.store?.get(row.id)?.assignment.generation).to.equal(row.generation);
    }
  });

  it('two of the replicas’ nodes die at once: both replicas are re-placed together and Ready elsewhere', async () => {
    const before = (await deploymentAssignments(h, 'simdeploy')).filter((r) => r.intent === 'Run');
    const victims = before.slice(0, 2).map((r) => r.node);
    const killedAt = Date.now();
    await sim.kill(victims);
    const ready = await waitUntil(
      'three replicas Ready off the two lost nodes',
      async () => {
        const rows = (await deploymentAssignments(h, 'simdeploy')).filter(
          (r) =>
            r.intent === 'Run' &&
            !victims.includes(r.node) &&
            r.observed_state === 'Ready' &&
            r.observed_generation === r.generation,
        );
        return rows.length === 3 ? rows : null;
      },
      90_000,
      250,
    );
    // Lease 5 s + grace 2 s + watch, then placement and the next heartbeats: far below one REPLACE_WAIT_MS.
    expect(Date.now() - killedAt).to.be.below(60_000);
    expect(ready.filter((r) => !before.some((b) => b.id === r.id))).to.have.length(2);
    const receipts = await waitUntil(
      'both recovery receipts',
      async () => {
        const rows = await h.sql<{ evidence: { replaced: boolean } }>(
          `SELECT evidence FROM audit_events WHERE action = 'node.recovery.complete'`,
        );
        return rows.length === 2 ? rows : null;
      },
      60_000,
    );
    expect(receipts.map((r) => r.evidence.replaced)).to.deep.equal([true, true]);
    // Each lost node's replica stopped (fenced by generation) with its own evacuation receipt, whose correlation
    // id is that node's recovery, whether the two were stopped in one step or two.
    const lostIds = before.slice(0, 2).map((row) => row.id);
    const evacuations = await waitUntil(
      'an evacuation receipt naming each lost replica',
      async () => {
        const rows = await h.sql<{
          correlation_id: string;
          evidence: { step: string; assignments: string[] };
        }>(`SELECT correlation_id, evidence FROM audit_events WHERE action = 'deployment.evacuate'`);
        return lostIds.every((id) => rows.some((row) => row.evidence.assignments.includes(id))) ? rows : null;
      },
      60_000,
    );
    const recoveryIds = (
      await h.sql<{ correlation_id: string }>(
        `SELECT correlation_id FROM audit_events WHERE action = 'node.recovery.complete'`,
      )
    ).map((row) => row.correlation_id);
    const after = await deploymentAssignments(h, 'simdeploy');
    for (const id of lostIds) {
      expect(after.find((row) => row.id === id)?.intent, id).to.equal('Stop');
      const mine = evacuations.filter((row) => row.evidence.assignments.includes(id));
      expect(mine, `evacuation receipts naming ${id}`).to.have.length(1);
      expect(mine[0]?.evidence.step).to.match(/^evacuate-/);
      expect(recoveryIds).to.include(mine[0]?.correlation_id);
    }
    expect(new Set(evacuations.map((row) => row.correlation_id)).size).to.equal(2);
  });
  it('spread over worker threads (as bench:scale runs it): agents on 2 threads enroll and heartbeat with verified acks; a killed one falls silent', async () => {
    const threaded = new ThreadedAgentSimulator(
      {
        controllerUrl: h.apiUrl,
        controllerKeyFingerprint: await h.controllerFingerprint(),
        dataDir: join(dataDir, 'threads'),
        heartbeatIntervalMs: 1000,
        jitterMs: 200,
      },
      2,
    );
    try {
      const names = Array.from({ length: 6 }, (_, i) => `thr-${i}`);
      await threaded.enrollAll(names, (name) => h.createBootstrapToken(name, true), 3);
      expect(threaded.enrolled).to.equal(names.length);
      await waitUntil(
        'the threaded agents Active with a live lease',
        async () => {
          const [row] = await h.sql<{ n: string }>(
            `SELECT count(*) AS n FROM nodes WHERE name LIKE 'thr-%' AND lifecycle = 'Active' AND lease_expires_at > now()`,
          );
          return Number(row?.n) === names.length;
        },
        60_000,
        250,
      );
      await threaded.resetStats();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const window = await threaded.collect();
      const stats = summarizeHeartbeats(window.samples, window.windowMs);
      expect(stats.dropped, stats.dropSamples.join('; ')).to.equal(0);
      expect(stats.acked).to.be.at.least(2 * names.length);
      expect(new Set(window.samples.map((sample) => sample.agent))).to.deep.equal(new Set(names));
      expect(window.loopDelay).to.have.length(2);
      for (const loop of window.loopDelay) expect(loop.maxMs).to.be.greaterThan(0);

      await threaded.kill(['thr-1']);
      await threaded.resetStats();
      await new Promise((resolve) => setTimeout(resolve, 2500));
      const afterKill = await threaded.collect();
      const beating = new Set(afterKill.samples.map((sample) => sample.agent));
      expect(beating.has('thr-1')).to.equal(false);
      expect(beating.size).to.equal(names.length - 1);
      let refused: unknown;
      await threaded.kill(['sim-none']).catch((error: unknown) => (refused = error));
      expect(String(refused)).to.match(/no simulated agent named sim-none/);
    } finally {
      await threaded.stop();
    }
  });
});
