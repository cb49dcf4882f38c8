import { NODE_LIFECYCLE_STATES, type NodeLifecycleState } from '@lunanexa/contracts';
import { defineStateMachine } from './state-machine';

/**
 * Node lifecycle: the administrative standing of a node, decided by operators
 * and the enrollment/drain workflows.
 *
 * - Pending: enrolled with a bootstrap token, waiting for approval (or an
 *   auto-approve policy). Nothing is scheduled; its key is not yet trusted.
 * - Approved: credential issued; the controller has not yet reached the agent
 *   over SSH with the pinned host key and checked its inventory. `activate`
 *   happens when it has. If that never succeeds the operator revokes.
 * - Active: eligible for placement (unless cordoned).
 * - Draining: replicas are being re-placed and in-flight work finishes; no
 *   new placements. `cancelDrain` returns it to service — operators change
 *   their minds mid-maintenance, and forcing a full drain first would be
 *   hostile.
 * - Drained: empty, safe to power off or patch; `activate` brings it back.
 * - Rejected (terminal): enrollment refused or expired; the node must enroll
 *   again with a new token, as a new node.
 * - Revoked (terminal): credential revoked (decommissioned or compromised);
 *   possible from any enrolled state without draining first, because a
 *   compromised node must be cut off now, not after its work finishes.
 *
 * Not in this table, on purpose: cordon (a boolean beside the state, so a
 * cordoned node stays Active and keeps serving) and Ready / NotReady /
 * Unreachable (derived from the heartbeat lease, never set by an event).
 */
export const NODE_EVENTS = [
  'approve',
  'reject',
  'activate',
  'drain',
  'cancelDrain',
  'completeDrain',
  'revoke',
] as const;
export type NodeEvent = (typeof NODE_EVENTS)[number];

export const nodeLifecycle = defineStateMachine<NodeLifecycleState, NodeEvent>({
  name: 'node',
  states: NODE_LIFECYCLE_STATES,
  events: NODE_EVENTS,
  initial: 'Pending',
  terminal: ['Rejected', 'Revoked'],
  transitions: [
    { from: 'Pending', event: 'approve', to: 'Approved' },
    { from: 'Pending', event: 'reject', to: 'Rejected' },
    { from: 'Approved', event: 'activate', to: 'Active' },
    { from: 'Approved', event: 'revoke', to: 'Revoked' },
    { from: 'Active', event: 'drain', to: 'Draining' },
    { from: 'Active', event: 'revoke', to: 'Revoked' },
    { from: 'Draining', event: 'completeDrain', to: 'Drained' },
    { from: 'Draining', event: 'cancelDrain', to: 'Active' },
    { from: 'Draining', event: 'revoke', to: 'Revoked' },
    { from: 'Drained', event: 'activate', to: 'Active' },
    { from: 'Drained', event: 'revoke', to: 'Revoked' },
  ],
});

/**
 * Whether a node refusing the controller's SSH key is worth asking again.
 * An agent learns the controller key from the answer to its enrollment
 * request. When that answer is lost (the API restarted after committing the
 * Pending node and before replying) the agent keeps retrying its enrollment,
 * gets the same answer, and trusts the key from then on — so while the node
 * is Approved and not yet reached, a refusal is a wait, not a verdict. A node
 * in any other state was given the key when it enrolled: a refusal there is
 * a key it does not hold, and another attempt would repeat it.
 */
export function controllerKeyRefusalIsTransient(lifecycle: NodeLifecycleState): boolean {
  return lifecycle === 'Approved';
}
