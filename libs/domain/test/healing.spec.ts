import { expect } from 'chai';
import {
  conditionOf,
  DEFAULT_HEALING_RULES,
  healingRuleViolations,
  healingRulesFromEnv,
  nextNodeConditions,
  planHealing,
  type HealingNodeView,
  type HealingReplicaView,
} from '../src';
import type { HealingRuleSettings, NodeCondition } from '@lunanexa/contracts';

const NOW = new Date('2026-12-05T12:00:00.000Z');
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

function node(nodeId: string, overrides: Partial<HealingNodeView> = {}): HealingNodeView {
  return {
    nodeId,
    nodeName: nodeId.replace('n-', 'node-'),
    lifecycle: 'Active',
    cordoned: false,
    leaseExpiresAt: at(30),
    recentCrashes: {},
    lastHealedAt: null,
    ...overrides,
  };
}

function replica(
  assignmentId: string,
  nodeId: string,
  overrides: Partial<HealingReplicaView> = {},
): HealingReplicaView {
  return {
    assignmentId,
    deploymentId: `dep-${assignmentId}`,
    deploymentName: `d-${assignmentId}`,
    nodeId,
    generation: 2,
    observedGeneration: 2,
    observedState: 'Ready',
    restarts: 0,
    restartsBaseline: 0,
    healthFailures: 0,
    lastHealedAt: null,
    ...overrides,
  };
}

const RULES: HealingRuleSettings = { ...DEFAULT_HEALING_RULES };
const fleet = [node('n-a'), node('n-b'), node('n-c')];

describe('healing rules', () => {
  it('restarts a replica whose runtime restarted the threshold number of times since its last healing restart', () => {
    const plan = planHealing(
      {
        nodes: fleet,
        replicas: [
          replica('a1', 'n-a', { restarts: 3, observedState: 'Failed' }),
          replica('a2', 'n-b', { restarts: 5, restartsBaseline: 3 }),
          replica('a3', 'n-c', { restarts: 2 }),
        ],
      },
      NOW,
      RULES,
    );
    expect(plan.actions.map((a) => [a.rule, a.kind, a.target])).to.deep.equal([
      ['restart-crash-looping-replica', 'RestartReplica', 'a1'],
    ]);
    expect(plan.actions[0]?.reason).to.contain('restarted 3 times').and.contain('threshold 3');
    expect(plan.actions[0]?.evidence).to.deep.include({
      restarts: 3,
      restartsBaseline: 0,
      observedState: 'Failed',
    });
    expect(plan.skipped).to.deep.equal([]);
  });

  it('re-places a replica after the threshold of consecutive Unhealthy reports, before restarting it', () => {
    const plan = planHealing(
      {
        nodes: fleet,
        replicas: [
          replica('a1', 'n-a', { healthFailures: 6, restarts: 4, observedState: 'Unhealthy' }),
          replica('a2', 'n-b', { healthFailures: 5 }),
        ],
      },
      NOW,
      RULES,
    );
    expect(plan.actions.map((a) => [a.rule, a.target, a.deploymentId])).to.deep.equal([
      ['replace-unhealthy-replica', 'a1', 'dep-a1'],
    ]);
    expect(plan.skipped).to.deep.equal([
      {
        rule: 'restart-crash-looping-replica',
        target: 'a1',
        reason: 'another rule already acts on this replica in this pass',
      },
    ]);
  });

  it('cordons a node whose runtimes crashed across several replicas, and not for one bad replica', () => {
    const plan = planHealing(
      {
        nodes: [
          node('n-a', { recentCrashes: { a1: 3, a2: 2 } }),
          node('n-b', { recentCrashes: { b1: 9 } }),
          node('n-c'),
        ],
        replicas: [replica('a1', 'n-a', { restarts: 3 }), replica('b1', 'n-b', { restarts: 2 })],
      },
      NOW,
      RULES,
    );
    expect(plan.actions.map((a) => [a.rule, a.target])).to.deep.equal([['cordon-crashing-node', 'n-a']]);
    expect(plan.actions[0]?.evidence).to.deep.include({ crashes: 5, crashesByAssignment: { a1: 3, a2: 2 } });
    // The cordoned node's crash-looping replica is left for the node's own fix.
    expect(plan.skipped).to.deep.equal([
      {
        rule: 'restart-crash-looping-replica',
        target: 'a1',
        reason: 'node node-a is being cordoned in this pass',
      },
    ]);
  });

  describe('cordon-gpu-unhealthy-node', () => {
    const GPU = 'GPU-11111111-2222-3333-4444-555555555555';
    /** The conditions heartbeats gave a node whose GPU logged Xid 79 a minute before NOW. */
    const xid = nextNodeConditions(null, {
      receivedAt: at(-60),
      sentAt: at(-60),
      gpus: [{ uuid: GPU, xidErrors: [79] }],
      expectedGpuUuids: [GPU],
    }).conditions;
    const healthy = nextNodeConditions(null, { receivedAt: at(-60), gpus: [{ uuid: GPU }] }).conditions;
    const unknown = nextNodeConditions(null, { receivedAt: at(-60) }).conditions;

    it('cordons a node whose GpuHealthy is False, saying why in the dry run; True or Unknown is left alone', () => {
      expect(conditionOf({ conditions: xid }, 'GpuHealthy')?.status).to.equal('False');
      const plan = planHealing(
        {
          nodes: [
            node('n-a', { conditions: xid }),
            node('n-b', { conditions: healthy }),
            node('n-c', { conditions: unknown }),
            node('n-d'),
          ],
          replicas: [],
        },
        NOW,
        RULES,
      );
      expect(plan.actions).to.deep.equal([
        {
          rule: 'cordon-gpu-unhealthy-node',
          kind: 'CordonNode',
          target: 'n-a',
          nodeId: 'n-a',
          deploymentId: null,
          reason:
            `GPU unhealthy on node-a since 2026-12-05T11:59:00.000Z: GpuXidError (${GPU} logged Xid 79); ` +
            'cordon it so no new replica lands there and move its replicas (each serves until its replacement is Ready; one with nowhere to go stays)',
          evidence: {
            nodeName: 'node-a',
            condition: 'GpuHealthy',
            status: 'False',
            conditionReason: 'GpuXidError',
            message: `${GPU} logged Xid 79`,
            since: '2026-12-05T11:59:00.000Z',
          },
        },
      ]);
      expect(plan.skipped).to.deep.equal([]);
    });

    it('one cordon per node: a node that also crashes is cordoned once, for its GPU', () => {
      const plan = planHealing(
        {
          nodes: [node('n-a', { conditions: xid, recentCrashes: { a1: 3, a2: 3 } }), node('n-b')],
          replicas: [],
        },
        NOW,
        RULES,
      );
      expect(plan.actions.map((a) => [a.rule, a.target])).to.deep.equal([
        ['cordon-gpu-unhealthy-node', 'n-a'],
      ]);
      expect(plan.skipped).to.deep.equal([
        { rule: 'cordon-crashing-node', target: 'n-a', reason: 'node node-a is being cordoned in this pass' },
      ]);
    });

    it('keeps the bounds: not twice, not within the cooldown, not the last schedulable node, not off limits', () => {
      const gpuBad = (overrides: Partial<HealingNodeView>) => node('n-a', { conditions: xid, ...overrides });
      const reasons = (nodes: HealingNodeView[]) =>
        planHealing({ nodes, replicas: [] }, NOW, RULES).skipped.map((s) => s.reason);
      expect(reasons([gpuBad({ cordoned: true }), node('n-b')])).to.deep.equal([
        'node node-a is already cordoned',
      ]);
      expect(reasons([gpuBad({ lastHealedAt: at(-10) }), node('n-b')])).to.deep.equal([
        'healing acted on node node-a within the last 300 s',
      ]);
      expect(reasons([gpuBad({}), node('n-b', { cordoned: true })])).to.deep.equal([
        'node node-a is the last schedulable node; cordoning it would leave nowhere to place',
      ]);
      expect(reasons([gpuBad({ leaseExpiresAt: at(-1) }), node('n-b')])).to.deep.equal([
        'node node-a has no live lease (unreachable or being recovered)',
      ]);
      const withoutMessage: NodeCondition[] = [
        { type: 'GpuHealthy', status: 'False', reason: 'GpuLost', lastTransitionAt: at(-5).toISOString() },
      ];
      expect(
        planHealing(
          { nodes: [node('n-a', { conditions: withoutMessage }), node('n-b')], replicas: [] },
          NOW,
          RULES,
        ).actions[0]?.reason,
      ).to.equal(
        'GPU unhealthy on node-a since 2026-12-05T11:59:55.000Z: GpuLost; cordon it so no new replica lands there ' +
          'and move its replicas (each serves until its replacement is Ready; one with nowhere to go stays)',
      );
    });
  });

  it('never cordons the last schedulable node', () => {
    const plan = planHealing(
      {
        nodes: [
          node('n-a', { recentCrashes: { a1: 3, a2: 3 } }),
          node('n-b', { recentCrashes: { b1: 3, b2: 3 } }),
          node('n-c', { cordoned: true }),
        ],
        replicas: [],
      },
      NOW,
      RULES,
    );
    expect(plan.actions.map((a) => a.target)).to.deep.equal(['n-a']);
    expect(plan.skipped).to.deep.equal([
      {
        rule: 'cordon-crashing-node',
        target: 'n-b',
        reason: 'node node-b is the last schedulable node; cordoning it would leave nowhere to place',
      },
    ]);
  });

  it('never acts on a node that is not Active with a live lease (Lost, being recovered, draining)', () => {
    const plan = planHealing(
      {
        nodes: [node('n-a', { leaseExpiresAt: at(-1) }), node('n-b', { lifecycle: 'Draining' }), node('n-c')],
        replicas: [replica('a1', 'n-a', { restarts: 9 }), replica('b1', 'n-b', { restarts: 9 })],
      },
      NOW,
      RULES,
    );
    expect(plan.actions).to.deep.equal([]);
    expect(plan.skipped.map((s) => s.reason)).to.deep.equal([
      'node node-a has no live lease (unreachable or being recovered)',
      'node node-b is Draining',
    ]);
  });

  it('takes at most maxActionsPerPass actions, in rule order, and says which were held back', () => {
    const replicas = ['r1', 'r2', 'r3', 'r4'].map((id) => replica(id, 'n-b', { restarts: 3 }));
    const plan = planHealing({ nodes: fleet, replicas }, NOW, { ...RULES, maxActionsPerPass: 2 });
    expect(plan.actions.map((a) => a.target)).to.deep.equal(['r1', 'r2']);
    expect(plan.skipped.map((s) => [s.target, s.reason])).to.deep.equal([
      ['r3', 'at most 2 actions per pass'],
      ['r4', 'at most 2 actions per pass'],
    ]);
  });

  it('leaves a target alone within the cooldown after healing acted on it', () => {
    const plan = planHealing(
      {
        nodes: [node('n-a', { recentCrashes: { a1: 3, a2: 3 }, lastHealedAt: at(-60) }), node('n-b')],
        replicas: [
          replica('a1', 'n-b', { restarts: 3, lastHealedAt: at(-299) }),
          replica('a2', 'n-b', { restarts: 3, lastHealedAt: at(-301) }),
        ],
      },
      NOW,
      RULES,
    );
    expect(plan.actions.map((a) => a.target)).to.deep.equal(['a2']);
    expect(plan.skipped.map((s) => s.target)).to.deep.equal(['n-a', 'a1']);
  });

  it('is deterministic whatever order the view lists things in', () => {
    const replicas = [replica('z', 'n-c', { restarts: 3 }), replica('a', 'n-a', { restarts: 3 })];
    const one = planHealing({ nodes: fleet, replicas }, NOW, RULES);
    const two = planHealing({ nodes: [...fleet].reverse(), replicas: [...replicas].reverse() }, NOW, RULES);
    expect(two).to.deep.equal(one);
    expect(one.actions.map((a) => a.target)).to.deep.equal(['a', 'z']);
  });

  it('validates settings: whole numbers in range, every problem named', () => {
    expect(healingRuleViolations(DEFAULT_HEALING_RULES)).to.deep.equal([]);
    expect(healingRuleViolations({ ...RULES, crashLoopRestarts: 0, maxActionsPerPass: 1.5 })).to.deep.equal([
      'crashLoopRestarts must be a whole number from 1 to 1000, got 0',
      'maxActionsPerPass must be a whole number from 0 to 100, got 1.5',
    ]);
  });
});

describe('healing rule settings from the environment', () => {
  it('defaults, overrides, and names each bad variable', () => {
    expect(healingRulesFromEnv({}).settings).to.deep.equal(DEFAULT_HEALING_RULES);
    expect(
      healingRulesFromEnv({ LUNANEXA_HEAL_CRASH_LOOP_RESTARTS: '2' }).settings.crashLoopRestarts,
    ).to.equal(2);
    expect(
      healingRulesFromEnv({ LUNANEXA_HEAL_MAX_ACTIONS_PER_PASS: 'lots', LUNANEXA_HEAL_NODE_CRASHES: '0' })
        .problems,
    ).to.deep.equal([
      {
        variable: 'LUNANEXA_HEAL_NODE_CRASHES',
        message: 'nodeCrashThreshold must be a whole number from 1 to 10000, got 0',
      },
      {
        variable: 'LUNANEXA_HEAL_MAX_ACTIONS_PER_PASS',
        message: 'maxActionsPerPass must be a whole number from 0 to 100, got NaN',
      },
    ]);
  });
});
