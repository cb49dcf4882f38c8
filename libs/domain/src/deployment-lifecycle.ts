import { DEPLOYMENT_STATES, type AssignmentIntent, type DeploymentState } from '@lunanexa/contracts';
import { defineStateMachine, transition } from './state-machine';

/**
 * Deployment lifecycle: a model version served by N replicas, driven by the
 * deployment workflow from desired state and agent observations. The table
 * lists exactly the moves the deployment activities make; every state they
 * write goes through `deploymentStateAfter`.
 *
 * - Pending: desired, not yet placed. `placementFailed` returns here from
 *   any live state when a replica is missing and no node can take it ("no
 *   eligible node" usually resolves when a node is uncordoned or drained work
 *   moves, and the workflow places again).
 * - Assigned: a placement chose nodes and wrote signed assignments (`place`;
 *   also from Ready/Degraded when a replacement is placed for a lost or
 *   evacuated replica).
 * - Starting: agents acknowledged and are pulling/launching runtimes.
 * - Ready: every desired replica reports Ready on a node whose lease holds.
 *   Degraded: fewer ready than desired but at least one serving, or a replica
 *   failed while others serve. Failed: a replica failed and nothing serves.
 *   The fold moves between these as reports arrive (a restarted replica
 *   recovers a Failed or Degraded deployment).
 * - Stopping → Stopped (terminal): replicas told to stop; Stopped once every
 *   agent confirmed (or its node is unreachable), or the workflow's stop wait
 *   ran out. A stopped deployment is never restarted — a new deployment gets
 *   a new id and history.
 *
 * `Placing` and `Updating` stay in the contracts' vocabulary (contracts v1
 * publishes them in the GraphQL enum and clients switch on them) but nothing
 * ever writes them: placement is one transaction, and a new version is a new
 * deployment behind an alias rollout, never an in-place update.
 */
export const UNWRITTEN_DEPLOYMENT_STATES = ['Placing', 'Updating'] as const;

export const DEPLOYMENT_LIFECYCLE_STATES = DEPLOYMENT_STATES.filter(
  (state) => !(UNWRITTEN_DEPLOYMENT_STATES as readonly string[]).includes(state),
);

export const DEPLOYMENT_EVENTS = [
  'place',
  'placementFailed',
  'start',
  'ready',
  'degrade',
  'fail',
  'stop',
  'stopped',
] as const;
export type DeploymentEvent = (typeof DEPLOYMENT_EVENTS)[number];

/** Where each event leads; the lifecycle says from which states. */
const TARGET: Readonly<Record<DeploymentEvent, DeploymentState>> = {
  place: 'Assigned',
  placementFailed: 'Pending',
  start: 'Starting',
  ready: 'Ready',
  degrade: 'Degraded',
  fail: 'Failed',
  stop: 'Stopping',
  stopped: 'Stopped',
};

const LIVE: readonly DeploymentState[] = ['Pending', 'Assigned', 'Starting', 'Ready', 'Degraded', 'Failed'];

/** Moves of `event` from every live state but the one it leads to (staying there is no move). */
function fromLive(event: DeploymentEvent) {
  return LIVE.filter((from) => from !== TARGET[event]).map((from) => ({
    from,
    event,
    to: TARGET[event],
  }));
}

export const deploymentLifecycle = defineStateMachine<DeploymentState, DeploymentEvent>({
  name: 'deployment',
  states: DEPLOYMENT_LIFECYCLE_STATES,
  events: DEPLOYMENT_EVENTS,
  initial: 'Pending',
  terminal: ['Stopped'],
  transitions: [
    ...fromLive('place'),
    ...fromLive('placementFailed'),
    ...fromLive('start'),
    ...fromLive('ready'),
    ...fromLive('degrade'),
    ...fromLive('fail'),
    ...fromLive('stop'),
    { from: 'Stopping', event: 'stopped', to: 'Stopped' },
  ],
});

/**
 * The state a deployment in `state` is in after `event`, or
 * LunaNexaError(INVALID_TRANSITION). Already being where the event leads is
 * no move (a retried step, or a fold that only refreshes the reason).
 */
export function deploymentStateAfter(state: DeploymentState, event: DeploymentEvent): DeploymentState {
  if (state === TARGET[event]) return state;
  return transition(deploymentLifecycle, state, event);
}

/** What the deployment's agents reported about one replica, as the fold needs it. */
export interface ReplicaObservation {
  readonly intent: AssignmentIntent;
  readonly generation: number;
  readonly ackedGeneration: number | null;
  readonly observedGeneration: number | null;
  readonly observedState: string | null;
  readonly observedMessage: string | null;
  /** The replica's node holds an unexpired lease. */
  readonly nodeReachable: boolean;
}

export interface DeploymentFoldInput {
  readonly state: DeploymentState;
  readonly stateReason: string | null;
  readonly desiredReplicas: number;
  readonly replicas: readonly ReplicaObservation[];
}

export interface DeploymentFold {
  readonly state: DeploymentState;
  readonly reason: string | null;
  /** The event that moved the deployment, or null when it stayed where it was. */
  readonly event: DeploymentEvent | null;
  /** Indexes into `replicas` of those meant to run, and of those among them that serve. */
  readonly running: readonly number[];
  readonly ready: readonly number[];
  /** Every replica meant to stop has stopped (or failed, or its node is unreachable). */
  readonly stopped: boolean;
  /** Every replica reported on its current generation (and there is at least one). */
  readonly generationObserved: boolean;
}

/**
 * Folds the agents' latest reports into the deployment's state. Pure: the
 * activity loads the replicas, calls this, and writes what it returns.
 */
export function foldDeploymentObservation(input: DeploymentFoldInput): DeploymentFold {
  const { replicas } = input;
  const current = (replica: ReplicaObservation): boolean => replica.observedGeneration === replica.generation;
  const indexes = replicas.map((_, index) => index);
  const running = indexes.filter((index) => replicas[index].intent === 'Run');
  const ready = running.filter((index) => {
    const replica = replicas[index];
    return current(replica) && replica.observedState === 'Ready' && replica.nodeReachable;
  });
  const stopped = replicas
    .filter((replica) => replica.intent === 'Stop')
    .every(
      (replica) =>
        (current(replica) && ['Stopped', 'Failed'].includes(replica.observedState ?? '')) ||
        !replica.nodeReachable,
    );
  const runningReplicas = running.map((index) => replicas[index]);
  let event: DeploymentEvent | null = null;
  let reason = input.stateReason;
  if (input.state === 'Stopping') {
    if (stopped) event = 'stopped';
  } else if (input.state === 'Stopped') {
    // Terminal: a late report changes nothing.
  } else if (ready.length >= input.desiredReplicas && input.desiredReplicas > 0) {
    event = 'ready';
    reason = null;
  } else if (runningReplicas.some((replica) => current(replica) && replica.observedState === 'Failed')) {
    event = ready.length > 0 ? 'degrade' : 'fail';
    reason =
      runningReplicas.find((replica) => replica.observedState === 'Failed')?.observedMessage ??
      'replica failed';
  } else if (input.state === 'Ready' && ready.length < input.desiredReplicas) {
    event = 'degrade';
    reason = `${ready.length}/${input.desiredReplicas} replicas ready`;
  } else if (runningReplicas.some((replica) => replica.ackedGeneration === replica.generation)) {
    event = 'start';
  }
  const state = event === null ? input.state : deploymentStateAfter(input.state, event);
  return {
    state,
    reason,
    event: state === input.state ? null : event,
    running,
    ready,
    stopped,
    generationObserved: replicas.length > 0 && replicas.every(current),
  };
}
