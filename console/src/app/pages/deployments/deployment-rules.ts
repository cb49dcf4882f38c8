import type { AssignmentIntent, DeploymentPurpose } from '@lunanexa/contracts/deployment';
import type { DeploymentState, ModelVersionState, NodeLifecycleState } from '@lunanexa/contracts/lifecycle';
import type { Permission } from '@lunanexa/contracts/roles';

import type { Deployment, DeploymentAssignment, ModelVersion, PlacementNode } from './deployments.queries';

/*
 * As in pages/nodes/node-rules.ts: the contracts keep their state lists in
 * modules that also build zod schemas, which the console must not bundle, so
 * only their types are imported. Every state name compared against below is
 * checked by the compiler against the contract list.
 */
const RUN = 'Run' satisfies AssignmentIntent;
const STOPPED = 'Stopped' satisfies DeploymentState;
/** States a deployment rests in until someone acts; any other state is still moving. */
const SETTLED: readonly string[] = ['Ready', 'Stopped', 'Failed'] satisfies readonly DeploymentState[];
const ACTIVE = 'Active' satisfies NodeLifecycleState;

/**
 * A deployment name is a DNS label: NAME_PATTERN of libs/contracts/src/common.ts,
 * repeated because that module builds zod schemas. The API checks it again.
 */
export const DEPLOYMENT_NAME_PATTERN = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
/** Model names are DNS labels too. */
export const MODEL_NAME_PATTERN = DEPLOYMENT_NAME_PATTERN;
/** VersionLabelSchema of libs/contracts/src/model.ts: 1-64 of [A-Za-z0-9._-], starting with a letter or digit. */
export const VERSION_LABEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export type { DeploymentPurpose };
/** DEPLOYMENT_PURPOSES of libs/contracts/src/deployment.ts, Serving (the API's default) first. */
export const DEPLOYMENT_PURPOSES = ['Serving', 'Candidate'] as const satisfies readonly DeploymentPurpose[];
const APPROVED = 'Approved' satisfies ModelVersionState;
/** Versions no deployment may run again (until a deprecated one is reinstated). */
const OUT_OF_SERVICE: readonly string[] = ['Deprecated', 'Retired'] satisfies readonly ModelVersionState[];
/** Versions whose digest check has not passed. */
const UNVERIFIED: readonly string[] = [
  'Registered',
  'VerificationFailed',
] satisfies readonly ModelVersionState[];

/**
 * What a deployment of `purpose` is for, or why the chosen version will not
 * pass its gate (libs/domain deploy-policy.ts decides; this only reads the
 * version's state, so license, runtime, hardware and digest refusals come
 * from the API).
 */
export function purposeHint(
  purpose: DeploymentPurpose,
  version: Pick<ModelVersion, 'ref' | 'state'> | undefined,
): string {
  if (version !== undefined && OUT_OF_SERVICE.includes(version.state)) {
    return `${version.ref} is ${version.state}: it is not deployed again, not even as a candidate.`;
  }
  if (purpose === 'Candidate') {
    if (version !== undefined && UNVERIFIED.includes(version.state)) {
      return `${version.ref} is ${version.state}: a candidate must be verified first.`;
    }
    return 'To evaluate a version before approval: reachable only by its name@version, never through an alias.';
  }
  if (version !== undefined && version.state !== APPROVED) {
    return `${version.ref} is ${version.state}: only Approved versions serve. Choose Candidate to evaluate it.`;
  }
  return 'To serve traffic: the version passes the same checks as a rollout (license, runtime, hardware, evaluation, approval, digest).';
}

/** The console offers up to 8 replicas per deployment (the API allows more, for the CLI). */
export const MAX_REPLICAS = 8;
/** The API's bounds for the fake runtime's figures (DeploymentsService.registerModelVersion). */
export const MAX_TTFT_MS = 60_000;
export const MAX_TOKENS_PER_SECOND = 100_000;

/**
 * Whether the deployment has stopped moving: in a resting state and with
 * every agent acting on the newest generation.
 */
export function isSettled(
  deployment: Pick<Deployment, 'state' | 'generation' | 'observedGeneration'>,
): boolean {
  return SETTLED.includes(deployment.state) && deployment.observedGeneration >= deployment.generation;
}

export function isStopped(deployment: Pick<Deployment, 'state'>): boolean {
  return deployment.state === STOPPED;
}

/** Replicas the controller wants running; a stop counts these, as the workflow does. */
export function runningAssignments(
  deployment: Pick<Deployment, 'assignments'>,
): readonly DeploymentAssignment[] {
  return deployment.assignments.filter((assignment) => assignment.intent === RUN);
}

/** Whether the agents still act on an older generation than the controller wants. */
export function isBehind(item: {
  readonly generation: number;
  readonly observedGeneration: number | null;
}): boolean {
  return item.observedGeneration === null || item.observedGeneration < item.generation;
}

export interface StopScope {
  readonly replicas: number;
  /** Distinct node names, sorted. */
  readonly nodes: readonly string[];
  /** Sum of what the agents last reported; replicas that never reported count as 0. */
  readonly inFlight: number;
  /** Running replicas with no in-flight figure, so the operator knows the sum may be low. */
  readonly unreported: number;
}

export function stopScope(deployment: Pick<Deployment, 'assignments'>): StopScope {
  const running = runningAssignments(deployment);
  return {
    replicas: running.length,
    nodes: [...new Set(running.map((assignment) => assignment.nodeName))].sort(),
    inFlight: running.reduce((sum, assignment) => sum + (assignment.inFlight ?? 0), 0),
    unreported: running.filter((assignment) => assignment.inFlight === null).length,
  };
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "Stops deployment chat-a: 1 replica on dgx-1, 0 in-flight requests": what the stop dialog asks the operator to accept. */
export function stopScopeText(deployment: Pick<Deployment, 'name' | 'assignments'>): string {
  const scope = stopScope(deployment);
  const where = scope.nodes.length === 0 ? '' : ` on ${scope.nodes.join(', ')}`;
  const base =
    `Stops deployment ${deployment.name}: ${count(scope.replicas, 'replica', 'replicas')}${where}, ` +
    `${count(scope.inFlight, 'in-flight request', 'in-flight requests')}`;
  return scope.unreported === 0
    ? base
    : `${base} (${count(scope.unreported, 'replica has', 'replicas have')} not reported in-flight requests)`;
}

/** Whether an action is offered at all (role) and, if offered, whether it can run now (state). */
export interface ActionState {
  readonly offered: boolean;
  readonly enabled: boolean;
  /** Why an offered action cannot run now; shown beside the disabled control. */
  readonly reason?: string;
}

/**
 * Deploying changes what the fleet runs: the operator's decision, as for
 * node actions. A viewer is not offered the control (the API refuses it anyway).
 */
export function canCreateDeployment(can: (permission: Permission) => boolean): boolean {
  return can('operate');
}

/** Stop is offered to operators; a stopped deployment has nothing left to stop. */
export function stopActionState(
  deployment: Pick<Deployment, 'name' | 'state'>,
  can: (permission: Permission) => boolean,
): ActionState {
  const offered = can('operate');
  return isStopped(deployment)
    ? { offered, enabled: false, reason: `${deployment.name} is already stopped` }
    : { offered, enabled: true };
}

/** Nodes a deployment may be pinned to: Active ones, by name. Cordoned ones are listed but not choosable. */
export function placementNodes(nodes: readonly PlacementNode[]): readonly PlacementNode[] {
  return nodes.filter((node) => node.lifecycle === ACTIVE).sort((a, b) => a.name.localeCompare(b.name));
}

/** "1 of 2": ready replicas against desired ones. */
export function replicaText(deployment: Pick<Deployment, 'readyReplicas' | 'desiredReplicas'>): string {
  return `${deployment.readyReplicas} of ${deployment.desiredReplicas}`;
}
