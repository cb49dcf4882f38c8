import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { DEFAULT_TEMPORAL_NAMESPACE, type DeploymentWorkflowInput } from '@lunanexa/contracts';
import { startTestTemporal } from '@lunanexa/e2e';
import { deploymentWorkflow } from '../src';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The deployment workflow against scripted activities on a real Temporal dev server: what it asks of them,
 * and when, while one of its nodes cannot be reached.
 */
describe('deploymentWorkflow with a node that stays unreachable', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `deployment-unreachable-${randomUUID()}`;
  const pushes: { at: number; onlyUnacknowledged: boolean }[] = [];
  let placements = 0;

  before(async () => {
    env = await startTestTemporal();
    worker = await Worker.create({
      connection: env.nativeConnection,
      namespace: DEFAULT_TEMPORAL_NAMESPACE,
      taskQueue,
      workflowsPath: require.resolve('../src'),
      activities: {
        createDeploymentRecord: () => Promise.resolve({}),
        placeDeployment: () => {
          placements += 1;
          return Promise.resolve({ placed: ['node-a', 'node-down'], created: 0, missing: 0, reason: null });
        },
        pushDeploymentAssignments: (push: { onlyUnacknowledged?: boolean }) => {
          pushes.push({ at: Date.now(), onlyUnacknowledged: push.onlyUnacknowledged === true });
          return Promise.resolve({ pushed: 1, unreachable: ['dgx-down'] });
        },
        observeDeployment: () => Promise.resolve({ state: 'Ready', generation: 1, readyReplicas: 1 }),
      },
    });
    running = worker.run();
  });

  after(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running?.catch(() => undefined);
    await env?.teardown();
  });

  /** Runs a deployment whose second node never answers for `seconds`, with assignment leases of `leaseSeconds`. */
  async function runWithNodeDown(leaseSeconds: number, seconds: number): Promise<void> {
    pushes.length = 0;
    placements = 0;
    const deploymentId = `dep-${randomUUID()}`;
    const input: DeploymentWorkflowInput = {
      request: {
        deploymentId,
        name: 'unreachable',
        modelVersionId: 'mv-1',
        modelRef: 'demo@v1',
        desiredReplicas: 2,
        requestedNodeId: null,
      },
      leaseSeconds,
      actor: 'system:test',
      correlationId: `corr-${deploymentId}`,
      requestId: `req-${deploymentId}`,
    };
    const handle = await env.client.workflow.start(deploymentWorkflow, {
      taskQueue,
      workflowId: `deployment/${deploymentId}`,
      args: [input],
    });
    try {
      await sleep(seconds * 1000);
    } finally {
      await handle.terminate('test over');
    }
  }

  it('retries the push with a doubling wait (1 s, 2 s, 4 s …) instead of a placement and a push every second', async () => {
    await runWithNodeDown(600, 9);
    const gaps = pushes.slice(1).map((push, i) => push.at - pushes[i].at);
    // Pushes at about 0, 1, 3 and 7 s; every second would have made nine or ten.
    expect(pushes.length, `push gaps ${JSON.stringify(gaps)}`).to.be.within(3, 5);
    expect(placements, 'one placement per push, not per second').to.equal(pushes.length);
    for (let i = 1; i < gaps.length; i++)
      expect(gaps[i], `push gaps ${JSON.stringify(gaps)}`).to.be.above(gaps[i - 1] * 1.5);
    expect(gaps[0], 'the first retry after about a second').to.be.within(800, 2_500);
    expect(pushes.slice(1).map((push) => push.onlyUnacknowledged)).to.not.include(false);
  });

  it('a retry re-sends only what the node has not acknowledged; a lease renewal, when due, still sends every replica', async () => {
    // Leases of 15 s are renewed every 5 s: pushes at about 0 (the first, a renewal), 1 and 3 (retries), 7 (due).
    await runWithNodeDown(15, 8.5);
    const kinds = pushes.map((push) => (push.onlyUnacknowledged ? 'unacknowledged' : 'all'));
    expect(kinds, JSON.stringify(pushes.map((push) => push.at - pushes[0].at))).to.deep.equal([
      'all',
      'unacknowledged',
      'unacknowledged',
      'all',
    ]);
  });
});
