import { WORKLOAD_STATES, type WorkloadState } from '@lunanexa/contracts';
import { defineStateMachine } from './state-machine';

/**
 * Workload lifecycle: one inference request inside the gateway.
 *
 * - Received: parsed and validated. `admit` after quota, license/data-class
 *   and capacity checks; `reject` otherwise (the client gets an HTTP error).
 * - Admitted: may `dispatch` straight away when a replica has room, or
 *   `enqueue` to wait for one in priority order.
 * - Queued: waiting. Under backpressure a queued low-priority workload can be
 *   `shed` — it ends Rejected, still before any byte was sent.
 * - Dispatched: sent to a replica, no byte back yet. This is the only state
 *   from which `retry` (failover to another replica) is allowed: once a byte
 *   reached the client, replaying would duplicate or corrupt output.
 * - Streaming: first byte sent; it can only end.
 * - Completed / Failed / Cancelled (client went away or called cancel) /
 *   TimedOut (deadlineMs exceeded) / Rejected — all terminal.
 *
 * A non-streamed response arrives whole, so Dispatched may `complete` directly.
 */
export const WORKLOAD_EVENTS = [
  'admit',
  'reject',
  'enqueue',
  'shed',
  'dispatch',
  'retry',
  'firstByte',
  'complete',
  'fail',
  'cancel',
  'timeout',
] as const;
export type WorkloadEvent = (typeof WORKLOAD_EVENTS)[number];

export const workloadLifecycle = defineStateMachine<WorkloadState, WorkloadEvent>({
  name: 'workload',
  states: WORKLOAD_STATES,
  events: WORKLOAD_EVENTS,
  initial: 'Received',
  terminal: ['Rejected', 'Completed', 'Failed', 'Cancelled', 'TimedOut'],
  transitions: [
    { from: 'Received', event: 'admit', to: 'Admitted' },
    { from: 'Received', event: 'reject', to: 'Rejected' },
    { from: 'Received', event: 'cancel', to: 'Cancelled' },
    { from: 'Admitted', event: 'enqueue', to: 'Queued' },
    { from: 'Admitted', event: 'dispatch', to: 'Dispatched' },
    { from: 'Admitted', event: 'cancel', to: 'Cancelled' },
    { from: 'Admitted', event: 'timeout', to: 'TimedOut' },
    { from: 'Queued', event: 'dispatch', to: 'Dispatched' },
    { from: 'Queued', event: 'shed', to: 'Rejected' },
    { from: 'Queued', event: 'cancel', to: 'Cancelled' },
    { from: 'Queued', event: 'timeout', to: 'TimedOut' },
    { from: 'Dispatched', event: 'firstByte', to: 'Streaming' },
    { from: 'Dispatched', event: 'complete', to: 'Completed' },
    { from: 'Dispatched', event: 'retry', to: 'Queued' },
    { from: 'Dispatched', event: 'fail', to: 'Failed' },
    { from: 'Dispatched', event: 'cancel', to: 'Cancelled' },
    { from: 'Dispatched', event: 'timeout', to: 'TimedOut' },
    { from: 'Streaming', event: 'complete', to: 'Completed' },
    { from: 'Streaming', event: 'fail', to: 'Failed' },
    { from: 'Streaming', event: 'cancel', to: 'Cancelled' },
    { from: 'Streaming', event: 'timeout', to: 'TimedOut' },
  ],
});
