import type {
  DeploymentState,
  NodeLifecycleState,
  ReconcileDriftRecord,
  ReconcileRepairRecord,
} from '@lunanexa/contracts';

/**
 * Reconcile: one pass comparing the desired state with what runs, and the
 * repairs that bring them together. Pure and deterministic: the activity
 * loads a ReconcileView (PostgreSQL, plus which deployment workflows
 * Temporal runs), this decides, the workflow applies.
 *
 * Why it exists: after a restore the database is from the backup's moment
 * while the agents kept running. Temporal may be empty (a clean controller)
 * or from another moment, so deployment workflows — the writers that renew
 * assignment leases — are missing and agents would fence their replicas
 * when the leases end; an agent may hold a newer generation of a replica
 * than the restored row and refuse every push of the older one as stale;
 * replicas created after the backup still run. Run any time, it finds the
 * same drift left by anything else.
 *
 * Rules:
 *  - a deployment that is not Stopped has a running workflow; else resume it
 *    (with its stop, when it was Stopping);
 *  - on a live node (Active/Draining with a live lease), a replica's
 *    reported generation is never above the desired one; else advance the
 *    desired generation past it;
 *  - a live node reports every replica meant to run there, at the desired
 *    generation; else push the deployment's assignments (a resumed workflow
 *    pushes first thing, so no separate push);
 *  - a live node runs nothing the desired state does not place there; such
 *    a replica is reported, not touched: the controller holds no signed
 *    document for it, and the agent stops it when its lease ends.
 * Nodes without a live lease are the lease watch's and NodeRecovery's.
 */

export interface ReconcileDeploymentView {
  readonly deploymentId: string;
  readonly name: string;
  readonly state: DeploymentState;
  readonly workflowId: string;
  /** Temporal has an open run under workflowId. */
  readonly workflowRunning: boolean;
}

export interface ReconcileAssignmentView {
  readonly assignmentId: string;
  readonly deploymentId: string;
  readonly nodeId: string;
  readonly intent: 'Run' | 'Stop';
  readonly generation: number;
}

export interface ReportedReplica {
  readonly assignmentId: string;
  readonly deploymentId: string;
  readonly generation: number;
  readonly state: string;
}

export interface ReconcileNodeView {
  readonly nodeId: string;
  readonly nodeName: string;
  readonly lifecycle: NodeLifecycleState;
  readonly leaseExpiresAt: Date | null;
  /** The replicas its last heartbeat reported. */
  readonly reported: readonly ReportedReplica[];
}

export interface ReconcileView {
  readonly deployments: readonly ReconcileDeploymentView[];
  readonly assignments: readonly ReconcileAssignmentView[];
  readonly nodes: readonly ReconcileNodeView[];
}

export interface ReconcilePlan {
  readonly drift: ReconcileDriftRecord[];
  readonly repairs: ReconcileRepairRecord[];
  readonly inSync: boolean;
}

const LIVE_LIFECYCLES: ReadonlySet<NodeLifecycleState> = new Set(['Active', 'Draining']);
/** Reported states of a replica that holds nothing on the node. */
const AT_REST: ReadonlySet<string> = new Set(['Stopped', 'Failed']);

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function live(node: ReconcileNodeView, nowMs: number): boolean {
  return (
    LIVE_LIFECYCLES.has(node.lifecycle) &&
    node.leaseExpiresAt !== null &&
    node.leaseExpiresAt.getTime() > nowMs
  );
}

/** The workflow id a reconcile pass runs under: one per request (idempotency key). */
export function reconcileWorkflowId(idempotencyKey: string): string {
  return `reconcile/${idempotencyKey}`;
}

/** One reconcile pass: every drift found, with the repair taken for it or the reason there is none. */
export function planReconcile(view: ReconcileView, now: Date): ReconcilePlan {
  const nowMs = now.getTime();
  const drift: ReconcileDriftRecord[] = [];
  const repairs: ReconcileRepairRecord[] = [];
  const deployments = new Map(view.deployments.map((deployment) => [deployment.deploymentId, deployment]));
  const active = (deploymentId: string): boolean => {
    const deployment = deployments.get(deploymentId);
    return deployment !== undefined && deployment.state !== 'Stopped';
  };

  const resumed = new Set<string>();
  for (const deployment of [...view.deployments].sort((a, b) => byText(a.deploymentId, b.deploymentId))) {
    if (deployment.state === 'Stopped' || deployment.workflowRunning) continue;
    const stop = deployment.state === 'Stopping';
    resumed.add(deployment.deploymentId);
    drift.push({
      kind: 'DeploymentWorkflowMissing',
      target: deployment.deploymentId,
      deploymentId: deployment.deploymentId,
      nodeId: null,
      desired: `deployment ${deployment.name} is ${deployment.state}: its workflow ${deployment.workflowId} runs`,
      observed: `no running workflow ${deployment.workflowId}`,
      repair: 'ResumeDeploymentWorkflow',
      note: stop
        ? 'resumed with its stop: it stops the replicas and finishes'
        : 'resumed: it places what is missing, pushes the assignments and renews their leases',
    });
    repairs.push({
      kind: 'ResumeDeploymentWorkflow',
      target: deployment.deploymentId,
      deploymentId: deployment.deploymentId,
      fromGeneration: null,
      toGeneration: null,
      stop,
      reason: `deployment ${deployment.name} (${deployment.state}) has no running workflow`,
    });
  }

  const pushes = new Set<string>();
  const assignmentsByNode = new Map<string, Map<string, ReconcileAssignmentView>>();
  for (const assignment of view.assignments) {
    const onNode = assignmentsByNode.get(assignment.nodeId) ?? new Map<string, ReconcileAssignmentView>();
    onNode.set(assignment.assignmentId, assignment);
    assignmentsByNode.set(assignment.nodeId, onNode);
  }

  for (const node of [...view.nodes].sort((a, b) => byText(a.nodeId, b.nodeId))) {
    if (!live(node, nowMs)) continue;
    const desired = assignmentsByNode.get(node.nodeId) ?? new Map<string, ReconcileAssignmentView>();
    const reported = new Map(node.reported.map((replica) => [replica.assignmentId, replica]));
    for (const assignment of [...desired.values()].sort((a, b) => byText(a.assignmentId, b.assignmentId))) {
      if (!active(assignment.deploymentId)) continue;
      const seen = reported.get(assignment.assignmentId);
      if (seen !== undefined && seen.generation > assignment.generation) {
        const toGeneration = seen.generation + 1;
        drift.push({
          kind: 'GenerationBehindNode',
          target: assignment.assignmentId,
          deploymentId: assignment.deploymentId,
          nodeId: node.nodeId,
          desired: `generation ${assignment.generation} (${assignment.intent})`,
          observed: `${node.nodeName} acts on generation ${seen.generation} (${seen.state})`,
          repair: 'AdvanceGeneration',
          note: `the node refuses generation ${assignment.generation} as stale; desired moves to ${toGeneration}`,
        });
        repairs.push({
          kind: 'AdvanceGeneration',
          target: assignment.assignmentId,
          deploymentId: assignment.deploymentId,
          fromGeneration: assignment.generation,
          toGeneration,
          stop: false,
          reason: `${node.nodeName} holds generation ${seen.generation}, the desired state ${assignment.generation}`,
        });
        if (!resumed.has(assignment.deploymentId)) pushes.add(assignment.deploymentId);
        continue;
      }
      if (assignment.intent !== 'Run') continue;
      if (seen !== undefined && seen.generation === assignment.generation) continue;
      drift.push({
        kind: 'ReplicaNotReported',
        target: assignment.assignmentId,
        deploymentId: assignment.deploymentId,
        nodeId: node.nodeId,
        desired: `runs on ${node.nodeName} at generation ${assignment.generation}`,
        observed:
          seen === undefined
            ? `${node.nodeName} does not report it`
            : `${node.nodeName} reports generation ${seen.generation} (${seen.state})`,
        repair: resumed.has(assignment.deploymentId) ? 'ResumeDeploymentWorkflow' : 'PushAssignments',
        note: resumed.has(assignment.deploymentId)
          ? 'the resumed workflow pushes it'
          : 'the assignments are pushed again',
      });
      if (!resumed.has(assignment.deploymentId)) pushes.add(assignment.deploymentId);
    }
    for (const replica of [...node.reported].sort((a, b) => byText(a.assignmentId, b.assignmentId))) {
      if (desired.has(replica.assignmentId) || AT_REST.has(replica.state)) continue;
      drift.push({
        kind: 'UnknownReplicaOnNode',
        target: replica.assignmentId,
        deploymentId: deployments.has(replica.deploymentId) ? replica.deploymentId : null,
        nodeId: node.nodeId,
        desired: `nothing under ${replica.assignmentId} on ${node.nodeName}`,
        observed: `${node.nodeName} runs it at generation ${replica.generation} (${replica.state}) for deployment ${replica.deploymentId}`,
        repair: null,
        note: 'no signed assignment for it is on record to stop it with: the agent stops it when its lease ends',
      });
    }
  }

  for (const deploymentId of [...pushes].sort(byText)) {
    repairs.push({
      kind: 'PushAssignments',
      target: deploymentId,
      deploymentId,
      fromGeneration: null,
      toGeneration: null,
      stop: false,
      reason: `replicas of ${deployments.get(deploymentId)?.name ?? deploymentId} are not reported at their desired generation`,
    });
  }
  // Generations move before any workflow resumes or push goes out, so no push carries a generation the node refuses.
  const order: Record<ReconcileRepairRecord['kind'], number> = {
    AdvanceGeneration: 0,
    ResumeDeploymentWorkflow: 1,
    PushAssignments: 2,
  };
  repairs.sort((a, b) => order[a.kind] - order[b.kind] || byText(a.target, b.target));
  return { drift, repairs, inSync: drift.length === 0 };
}
