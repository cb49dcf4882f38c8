import { expect } from 'chai';
import {
  planReconcile,
  reconcileWorkflowId,
  type ReconcileAssignmentView,
  type ReconcileDeploymentView,
  type ReconcileNodeView,
  type ReconcileView,
} from '../src';

const NOW = new Date('2026-12-05T12:00:00.000Z');
const at = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);

function deployment(id: string, overrides: Partial<ReconcileDeploymentView> = {}): ReconcileDeploymentView {
  return {
    deploymentId: id,
    name: `name-${id}`,
    state: 'Ready',
    workflowId: `deployment/${id}`,
    workflowRunning: true,
    ...overrides,
  };
}

function assignment(
  id: string,
  deploymentId: string,
  nodeId: string,
  overrides: Partial<ReconcileAssignmentView> = {},
): ReconcileAssignmentView {
  return { assignmentId: id, deploymentId, nodeId, intent: 'Run', generation: 2, ...overrides };
}

function node(nodeId: string, overrides: Partial<ReconcileNodeView> = {}): ReconcileNodeView {
  return {
    nodeId,
    nodeName: `name-${nodeId}`,
    lifecycle: 'Active',
    leaseExpiresAt: at(20),
    reported: [],
    ...overrides,
  };
}

const ready = (assignmentId: string, deploymentId: string, generation = 2) => ({
  assignmentId,
  deploymentId,
  generation,
  state: 'Ready',
});

/** A fleet in sync: two deployments, their replicas reported Ready at the desired generation. */
function inSyncView(): ReconcileView {
  return {
    deployments: [
      deployment('d1'),
      deployment('d2'),
      deployment('d0', { state: 'Stopped', workflowRunning: false }),
    ],
    assignments: [
      assignment('a1', 'd1', 'n1'),
      assignment('a2', 'd2', 'n2'),
      assignment('a0', 'd0', 'n1', { intent: 'Stop', generation: 3 }),
    ],
    nodes: [
      node('n1', { reported: [ready('a1', 'd1'), { ...ready('a0', 'd0', 3), state: 'Stopped' }] }),
      node('n2', { reported: [ready('a2', 'd2')] }),
    ],
  };
}

describe('planReconcile', () => {
  it('finds nothing in a fleet where desired and observed agree (a Stopped deployment needs no workflow)', () => {
    const plan = planReconcile(inSyncView(), NOW);
    expect(plan).to.deep.equal({ drift: [], repairs: [], inSync: true });
  });

  it('resumes the workflow of every deployment that is not Stopped and has none running (Stopping ones with their stop)', () => {
    const view = inSyncView();
    const plan = planReconcile(
      {
        ...view,
        deployments: [
          deployment('d1', { workflowRunning: false }),
          deployment('d2', { state: 'Stopping', workflowRunning: false }),
        ],
      },
      NOW,
    );
    expect(plan.inSync).to.equal(false);
    expect(plan.drift.map((d) => [d.kind, d.target, d.repair])).to.deep.equal([
      ['DeploymentWorkflowMissing', 'd1', 'ResumeDeploymentWorkflow'],
      ['DeploymentWorkflowMissing', 'd2', 'ResumeDeploymentWorkflow'],
    ]);
    expect(plan.repairs.map((r) => [r.kind, r.target, r.stop])).to.deep.equal([
      ['ResumeDeploymentWorkflow', 'd1', false],
      ['ResumeDeploymentWorkflow', 'd2', true],
    ]);
  });

  it('advances a generation the node holds a newer one of, before any resume or push', () => {
    const view = inSyncView();
    const plan = planReconcile(
      {
        ...view,
        deployments: [deployment('d1', { workflowRunning: false }), deployment('d2')],
        nodes: [
          node('n1', { reported: [ready('a1', 'd1', 4)] }),
          node('n2', { reported: [ready('a2', 'd2', 3)] }),
        ],
      },
      NOW,
    );
    expect(plan.drift.map((d) => [d.kind, d.target])).to.deep.equal([
      ['DeploymentWorkflowMissing', 'd1'],
      ['GenerationBehindNode', 'a1'],
      ['GenerationBehindNode', 'a2'],
    ]);
    expect(plan.repairs.map((r) => [r.kind, r.target, r.fromGeneration, r.toGeneration])).to.deep.equal([
      ['AdvanceGeneration', 'a1', 2, 5],
      ['AdvanceGeneration', 'a2', 2, 4],
      ['ResumeDeploymentWorkflow', 'd1', null, null],
      // d1's resumed workflow pushes; d2's running one is asked to push now.
      ['PushAssignments', 'd2', null, null],
    ]);
  });

  it('pushes once per deployment whose replicas a live node does not report, or reports at an older generation', () => {
    const view = inSyncView();
    const plan = planReconcile(
      {
        ...view,
        assignments: [...view.assignments, assignment('a3', 'd2', 'n1')],
        nodes: [node('n1', { reported: [ready('a1', 'd1', 1)] }), node('n2', { reported: [] })],
      },
      NOW,
    );
    expect(plan.drift.map((d) => [d.kind, d.target, d.observed])).to.deep.equal([
      ['ReplicaNotReported', 'a1', 'name-n1 reports generation 1 (Ready)'],
      ['ReplicaNotReported', 'a3', 'name-n1 does not report it'],
      ['ReplicaNotReported', 'a2', 'name-n2 does not report it'],
    ]);
    expect(plan.repairs.map((r) => [r.kind, r.target])).to.deep.equal([
      ['PushAssignments', 'd1'],
      ['PushAssignments', 'd2'],
    ]);
  });

  it('reports a replica a live node runs that the desired state does not place there, and takes no repair for it', () => {
    const view = inSyncView();
    const plan = planReconcile(
      {
        ...view,
        nodes: [
          node('n1', {
            reported: [
              ready('a1', 'd1'),
              ready('a-after-backup', 'd-after-backup', 1),
              // Another node's replica reported here, and a stopped leftover: the first is drift, the second is not.
              ready('a2', 'd2'),
              { ...ready('a-old', 'd-old', 1), state: 'Stopped' },
            ],
          }),
          node('n2', { reported: [ready('a2', 'd2')] }),
        ],
      },
      NOW,
    );
    expect(plan.drift.map((d) => [d.kind, d.target, d.deploymentId, d.repair])).to.deep.equal([
      ['UnknownReplicaOnNode', 'a-after-backup', null, null],
      ['UnknownReplicaOnNode', 'a2', 'd2', null],
    ]);
    expect(plan.repairs).to.deep.equal([]);
    expect(plan.inSync).to.equal(false);
  });

  it('leaves nodes without a live lease, and nodes not serving, to the lease watch', () => {
    const view = inSyncView();
    const plan = planReconcile(
      {
        ...view,
        nodes: [
          node('n1', { leaseExpiresAt: at(-1), reported: [] }),
          node('n2', { lifecycle: 'Drained', reported: [ready('a9', 'd9', 7)] }),
        ],
      },
      NOW,
    );
    expect(plan).to.deep.equal({ drift: [], repairs: [], inSync: true });
  });

  it('is deterministic whatever order the view lists things in', () => {
    const view = inSyncView();
    const shuffled: ReconcileView = {
      deployments: [...view.deployments].reverse().map((d) => ({ ...d, workflowRunning: false })),
      assignments: [...view.assignments].reverse(),
      nodes: [...view.nodes].reverse().map((n) => ({ ...n, reported: [] })),
    };
    const straight: ReconcileView = {
      ...view,
      deployments: view.deployments.map((d) => ({ ...d, workflowRunning: false })),
      nodes: view.nodes.map((n) => ({ ...n, reported: [] })),
    };
    expect(planReconcile(shuffled, NOW)).to.deep.equal(planReconcile(straight, NOW));
  });

  it('names each pass by its idempotency key', () => {
    expect(reconcileWorkflowId('after-restore-1')).to.equal('reconcile/after-restore-1');
  });
});
