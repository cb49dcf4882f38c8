import { DEPLOYMENT_STATES, type DeploymentState } from '@lunanexa/contracts';
import { defineStateMachine } from './state-machine';

/**
 * Deployment lifecycle: a model version served by N replicas, driven by the
 * rollout/reconcile workflows from desired state and agent observations.
 *
 * - Pending: desired, not yet placed. `placementFailed` returns here rather
 *   than failing: "no eligible node" usually resolves when a node is
 *   uncordoned or drained work moves, and reconcile retries placement.
 * - Placing → Assigned: a placement plan chose nodes and signed assignments
 *   were pushed. If a chosen node becomes Unreachable before its runtime is
 *   up, `replace` goes back to Placing.
 * - Starting: agents acknowledged and are pulling/launching runtimes;
 *   `ready` when every desired replica passes health checks. An agent that
 *   refuses the assignment (digest mismatch, incompatible hardware) or a
 *   runtime that never becomes healthy → Failed.
 * - Ready: all replicas healthy. Degraded: fewer healthy than desired but at
 *   least one serving (a node was lost, a runtime crash-loops); `recover`
 *   when healed, `fail` when nothing serves any more.
 * - Updating: a new generation (version, replica count, runtime) is being
 *   rolled out while the old one keeps serving; `updateFailed` (rolled back,
 *   old replicas still there) lands in Degraded, not Failed.
 * - Failed: nothing serves. `retry` re-plans from Pending; `stop` cleans up.
 * - Stopping → Stopped (terminal): replicas told to stop; Stopped once every
 *   agent confirmed. A stopped deployment is never restarted — a new
 *   deployment gets a new id and history.
 */
export const DEPLOYMENT_EVENTS = [
  'place',
  'placed',
  'placementFailed',
  'start',
  'replace',
  'ready',
  'degrade',
  'recover',
  'update',
  'updated',
  'updateFailed',
  'fail',
  'retry',
  'stop',
  'stopped',
] as const;
export type DeploymentEvent = (typeof DEPLOYMENT_EVENTS)[number];

export const deploymentLifecycle = defineStateMachine<DeploymentState, DeploymentEvent>({
  name: 'deployment',
  states: DEPLOYMENT_STATES,
  events: DEPLOYMENT_EVENTS,
  initial: 'Pending',
  terminal: ['Stopped'],
  transitions: [
    { from: 'Pending', event: 'place', to: 'Placing' },
    { from: 'Pending', event: 'stop', to: 'Stopping' },
    { from: 'Placing', event: 'placed', to: 'Assigned' },
    { from: 'Placing', event: 'placementFailed', to: 'Pending' },
    { from: 'Placing', event: 'stop', to: 'Stopping' },
    { from: 'Assigned', event: 'start', to: 'Starting' },
    { from: 'Assigned', event: 'replace', to: 'Placing' },
    { from: 'Assigned', event: 'fail', to: 'Failed' },
    { from: 'Assigned', event: 'stop', to: 'Stopping' },
    { from: 'Starting', event: 'ready', to: 'Ready' },
    { from: 'Starting', event: 'replace', to: 'Placing' },
    { from: 'Starting', event: 'fail', to: 'Failed' },
    { from: 'Starting', event: 'stop', to: 'Stopping' },
    { from: 'Ready', event: 'degrade', to: 'Degraded' },
    { from: 'Ready', event: 'update', to: 'Updating' },
    { from: 'Ready', event: 'stop', to: 'Stopping' },
    { from: 'Degraded', event: 'recover', to: 'Ready' },
    { from: 'Degraded', event: 'update', to: 'Updating' },
    { from: 'Degraded', event: 'fail', to: 'Failed' },
    { from: 'Degraded', event: 'stop', to: 'Stopping' },
    { from: 'Updating', event: 'updated', to: 'Ready' },
    { from: 'Updating', event: 'updateFailed', to: 'Degraded' },
    { from: 'Updating', event: 'fail', to: 'Failed' },
    { from: 'Updating', event: 'stop', to: 'Stopping' },
    { from: 'Failed', event: 'retry', to: 'Pending' },
    { from: 'Failed', event: 'stop', to: 'Stopping' },
    { from: 'Stopping', event: 'stopped', to: 'Stopped' },
  ],
});
