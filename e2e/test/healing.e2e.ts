import { expect } from 'chai';
import { HEALING_LOOP_WORKFLOW_ID } from '@lunanexa/contracts';
import { FleetHarness, GraphQLFailure, deploymentAssignments, fakeRuntimeProcesses, waitUntil } from '../src';

/**
 * Healing on the real stack: api, worker, gateway, two agents and their
 * fake runtimes, Temporal and PostgreSQL. A replica's runtime crashes
 * (killed twice; the agent restarts it each time and reports its restart
 * counter): the dry run lists the restart and changes nothing; a healing
 * pass restarts it (Stop, then Run at the next generation) with a
 * healing.action receipt naming the rule, the evidence and the workflow;
 * the same crashes, seen as the node's, get the node cordoned (with two
 * nodes, it is not the last schedulable one); a bad rule is refused typed;
 * a replica whose runtime is frozen (SIGSTOP: its agent reports it Unhealthy
 * heartbeat after heartbeat) is re-placed on the other node by evacuation.
 */

const PLAN_FIELDS = `actions { rule kind target nodeId deploymentId reason evidenceJson outcome receiptHash }
  skipped { rule target reason }`;

interface ActionView {
  readonly rule: string;
  readonly kind: string;
  readonly target: string;
  readonly nodeId: string;
  readonly reason: string;
  readonly evidenceJson: string;
  readonly outcome: string | null;
  readonly receiptHash: string | null;
}

interface HealAnswer {
  heal: { workflowId: string; plan: { dryRun: boolean; actions: ActionView[] } };
}

describe('Healing: a crash-looping replica is restarted and receipted, the dry run changes nothing, a crashing node is cordoned', function () {
  this.timeout(600_000);
  let h: FleetHarness;

  before(async () => {
    h = await FleetHarness.start('healing', {
      // The standing loop's first pass finds nothing; the test runs its passes on demand.
      extraEnv: { LUNANEXA_HEAL_INTERVAL_SECONDS: '3600', LUNANEXA_HEAL_CRASH_LOOP_RESTARTS: '2' },
    });
    for (const name of ['node-a', 'node-b']) await h.startReadyAgent(name);
  });

  after(async () => {
    await h?.stop();
  });

  async function snapshot(): Promise<unknown> {
    return {
      assignments: await h.sql(
        `SELECT id, intent, generation, restarts_baseline, healed_at FROM assignments ORDER BY id`,
      ),
      nodes: await h.sql(`SELECT id, cordoned, healed_at FROM nodes ORDER BY id`),
      audit: await h.sql(`SELECT count(*)::integer AS n FROM audit_events`),
    };
  }

  it('the worker keeps the standing healing loop running under its fixed id', async () => {
    const description = await waitUntil(
      'the healing loop started',
      () =>
        h.temporal.client.workflow
          .getHandle(HEALING_LOOP_WORKFLOW_ID)
          .describe()
          .catch(() => null),
      60_000,
      200,
    );
    expect(description.status.name).to.equal('RUNNING');
    expect(description.type).to.equal('healingLoopWorkflow');
  });

  it('restarts the crash-looping replica after a dry run that lists it and changes nothing', async () => {
    const ref = 'heal@v1';
    await h.graphql(
      `mutation($input: RegisterModelVersionInput!) { registerModelVersion(input: $input) { ref } }`,
      { input: { model: 'heal', version: 'v1', ttftMs: 20, tokensPerSecond: 200 } },
    );
    await h.graphql(
      `mutation($input: CreateDeploymentInput!) { createDeployment(input: $input) { deploymentId } }`,
      { input: { name: 'heal', model: ref, replicas: 1, purpose: 'Candidate' } },
    );
    const ready = async () =>
      (await deploymentAssignments(h, 'heal')).find(
        (r) => r.intent === 'Run' && r.observed_state === 'Ready' && r.observed_generation === r.generation,
      ) ?? null;
    const replica = await waitUntil('the replica Ready', ready, 120_000);

    // Two crashes: the agent restarts the runtime each time and counts them.
    for (let crash = 1; crash <= 2; crash++) {
      const [pid] = fakeRuntimeProcesses(ref);
      if (pid === undefined) throw new Error('no runtime to crash');
      process.kill(pid, 'SIGKILL');
      await waitUntil(
        `restart ${crash} reported`,
        async () =>
          (
            await h.sql<{ observed_restarts: number }>(
              `SELECT observed_restarts FROM assignments WHERE id = $1`,
              [replica.id],
            )
          )[0]?.observed_restarts === crash || null,
        60_000,
        200,
      );
      if (crash < 2)
        await waitUntil(
          'the runtime back',
          () => Promise.resolve(fakeRuntimeProcesses(ref)[0] ?? null),
          60_000,
          200,
        );
    }

    // Dry run (mutation and query): the restart is listed, nothing changes.
    const before = await snapshot();
    const dry = await h.graphql<HealAnswer>(
      `mutation { heal(input: { dryRun: true, rules: { nodeCrashThreshold: 100 } }) { workflowId plan { dryRun ${PLAN_FIELDS} } } }`,
    );
    const planned = await h.graphql<{ healingPlan: { actions: ActionView[] } }>(
      `query { healingPlan(rules: { nodeCrashThreshold: 100 }) { ${PLAN_FIELDS} } }`,
      {},
      h.operatorToken,
    );
    expect(dry.heal.plan.dryRun).to.equal(true);
    expect(dry.heal.plan.actions.map((a) => [a.rule, a.kind, a.target, a.outcome])).to.deep.equal([
      ['restart-crash-looping-replica', 'RestartReplica', replica.id, null],
    ]);
    expect(JSON.parse(dry.heal.plan.actions[0]?.evidenceJson ?? '{}')).to.deep.include({
      restarts: 2,
      threshold: 2,
    });
    expect(planned.healingPlan.actions).to.deep.equal(dry.heal.plan.actions);
    expect(await snapshot()).to.deep.equal(before);

    // The healing pass restarts it: Stop at a new generation, Run at the next, Ready again.
    const run = await h.graphql<HealAnswer>(
      `mutation { heal(input: { dryRun: false, rules: { nodeCrashThreshold: 100 } }) { workflowId plan { dryRun ${PLAN_FIELDS} } } }`,
    );
    expect(run.heal.workflowId).to.match(/^healing\//);
    expect(run.heal.plan.actions.map((a) => [a.rule, a.target, a.outcome])).to.deep.equal([
      ['restart-crash-looping-replica', replica.id, 'applied'],
    ]);
    const restarted = await waitUntil(
      'the replica restarted and Ready at a newer generation',
      async () => {
        const now = await ready();
        return now !== null && now.generation >= replica.generation + 2 ? now : null;
      },
      120_000,
      200,
    );
    expect(restarted.node).to.equal(replica.node);
    const [receipt] = await h.sql<{ workflow_id: string; actor: string; evidence: Record<string, unknown> }>(
      `SELECT workflow_id, actor, evidence FROM audit_events WHERE action = 'healing.action' ORDER BY seq`,
    );
    expect(receipt?.workflow_id).to.equal(run.heal.workflowId);
    expect(receipt?.evidence).to.deep.include({
      rule: 'restart-crash-looping-replica',
      kind: 'RestartReplica',
      target: replica.id,
      outcome: 'applied',
    });
    expect(receipt?.evidence['evidence']).to.deep.include({ restarts: 2, threshold: 2 });
    const restartReceipts = await h.sql(
      `SELECT seq FROM audit_events WHERE action = 'deployment.replica.restart'`,
    );
    expect(restartReceipts).to.have.length(1);
    // The counter now counts from the restart: no second restart is due.
    const again = await h.graphql<{ healingPlan: { actions: ActionView[] } }>(
      `query { healingPlan(rules: { nodeCrashThreshold: 100, cooldownSeconds: 0 }) { ${PLAN_FIELDS} } }`,
    );
    expect(again.healingPlan.actions).to.deep.equal([]);
  });

  it('cordons the node whose runtimes crashed (not the last schedulable one), audited', async () => {
    const [victim] = await deploymentAssignments(h, 'heal');
    const run = await h.graphql<HealAnswer>(
      `mutation { heal(input: { dryRun: false, rules: { nodeCrashThreshold: 2, nodeCrashMinReplicas: 1, crashLoopRestarts: 100 } })
         { workflowId plan { ${PLAN_FIELDS} } } }`,
    );
    expect(run.heal.plan.actions.map((a) => [a.rule, a.kind, a.outcome])).to.deep.equal([
      ['cordon-crashing-node', 'CordonNode', 'applied'],
    ]);
    const [node] = await h.sql<{ name: string; cordoned: boolean }>(
      `SELECT name, cordoned FROM nodes WHERE id = $1`,
      [run.heal.plan.actions[0]?.target],
    );
    expect(node).to.deep.equal({ name: victim?.node, cordoned: true });
    const cordons = await h.sql<{ workflow_id: string }>(
      `SELECT workflow_id FROM audit_events WHERE action = 'node.cordon'`,
    );
    expect(cordons.map((c) => c.workflow_id)).to.deep.equal([run.heal.workflowId]);
    // The other node is now the last schedulable one: never cordoned, and the plan says why.
    const last = await h.graphql<{ healingPlan: { actions: ActionView[]; skipped: { reason: string }[] } }>(
      `query { healingPlan(rules: { nodeCrashThreshold: 2, nodeCrashMinReplicas: 1, crashLoopRestarts: 100 }) { ${PLAN_FIELDS} } }`,
    );
    expect(last.healingPlan.actions).to.deep.equal([]);
  });

  it('refuses bad rules with VALIDATION_FAILED and changes nothing', async () => {
    const before = (await snapshot()) as Record<string, unknown>;
    const failure = await h
      .graphql(`mutation { heal(input: { dryRun: false, rules: { maxActionsPerPass: -1 } }) { workflowId } }`)
      .catch((error: unknown) => error);
    expect(failure).to.be.instanceOf(GraphQLFailure);
    expect((failure as GraphQLFailure).code).to.equal('VALIDATION_FAILED');
    const after = (await snapshot()) as Record<string, unknown>;
    // Nothing changed; only the refusal itself is audited.
    expect(after['assignments']).to.deep.equal(before['assignments']);
    expect(after['nodes']).to.deep.equal(before['nodes']);
    expect(
      await h.sql(`SELECT count(*)::integer AS n FROM audit_events WHERE action = 'healing.action'`),
    ).to.deep.equal([{ n: 2 }]);
  });

  it('re-places a replica its agent keeps reporting Unhealthy (runtime frozen) on the other node', async () => {
    const ref = 'heal@v1';
    const rules =
      '{ healthFailureThreshold: 2, crashLoopRestarts: 100, nodeCrashThreshold: 100, cooldownSeconds: 0 }';
    const [frozen] = (await deploymentAssignments(h, 'heal')).filter((r) => r.intent === 'Run');
    if (frozen === undefined) throw new Error('no replica running');
    const [pid] = fakeRuntimeProcesses(ref);
    if (pid === undefined) throw new Error('no runtime to freeze');
    process.kill(pid, 'SIGSTOP');
    try {
      await waitUntil(
        'two Unhealthy reports in a row',
        async () =>
          ((
            await h.sql<{ health_failures: number }>(
              `SELECT health_failures FROM assignments WHERE id = $1`,
              [frozen.id],
            )
          )[0]?.health_failures ?? 0) >= 2 || null,
        90_000,
        200,
      );
      const run = await h.graphql<HealAnswer>(
        `mutation { heal(input: { dryRun: false, rules: ${rules} }) { workflowId plan { dryRun ${PLAN_FIELDS} } } }`,
      );
      expect(run.heal.plan.actions.map((a) => [a.rule, a.kind, a.target, a.outcome])).to.deep.equal([
        ['replace-unhealthy-replica', 'ReplaceReplica', frozen.id, 'applied'],
      ]);
      const moved = await waitUntil(
        'a replacement Ready on the other node and the frozen replica told to stop',
        async () => {
          const rows = await deploymentAssignments(h, 'heal');
          const replacement = rows.find(
            (r) =>
              r.node !== frozen.node &&
              r.intent === 'Run' &&
              r.observed_state === 'Ready' &&
              r.observed_generation === r.generation,
          );
          const old = rows.find((r) => r.id === frozen.id);
          return replacement !== undefined && old?.intent === 'Stop' ? replacement : null;
        },
        120_000,
        200,
      );
      expect(moved.node).to.not.equal(frozen.node);
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already stopped by its agent
      }
    }
  });
});
