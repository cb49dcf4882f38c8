import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';

/**
 * A lifecycle as data: a transition table over state names that come from
 * `@lunanexa/contracts` (the one vocabulary) and event names owned here.
 * Workflows call `transition` before persisting a state change, the API calls
 * `allowedEvents` to tell the console which buttons to show, and the tests
 * enumerate the tables exhaustively — which is why they are data and not code.
 */
export interface Transition<S extends string, E extends string> {
  readonly from: S;
  readonly event: E;
  readonly to: S;
}

export interface StateMachineDefinition<S extends string, E extends string> {
  /** Used in error messages: "deployment: cannot stop from Stopped". */
  readonly name: string;
  readonly states: readonly S[];
  readonly events: readonly E[];
  readonly initial: S;
  /** States with no way out; the definition is refused if one has an exit. */
  readonly terminal: readonly S[];
  readonly transitions: readonly Transition<S, E>[];
}

export interface StateMachine<S extends string, E extends string> extends StateMachineDefinition<S, E> {
  readonly table: ReadonlyMap<S, ReadonlyMap<E, S>>;
}

/**
 * Validates and indexes a table. A malformed table is a programming error, so
 * it throws a plain Error at module load — long before any request runs.
 */
export function defineStateMachine<S extends string, E extends string>(
  definition: StateMachineDefinition<S, E>,
): StateMachine<S, E> {
  const states = new Set<string>(definition.states);
  const events = new Set<string>(definition.events);
  const terminal = new Set<string>(definition.terminal);
  const problems: string[] = [];
  if (states.size !== definition.states.length) problems.push('duplicate state names');
  if (events.size !== definition.events.length) problems.push('duplicate event names');
  if (!states.has(definition.initial)) problems.push(`initial state ${definition.initial} is not a state`);
  for (const state of definition.terminal) {
    if (!states.has(state)) problems.push(`terminal state ${state} is not a state`);
  }
  const table = new Map<S, Map<E, S>>();
  for (const state of definition.states) table.set(state, new Map());
  for (const { from, event, to } of definition.transitions) {
    if (!states.has(from)) problems.push(`unknown from-state ${from}`);
    if (!states.has(to)) problems.push(`unknown to-state ${to}`);
    if (!events.has(event)) problems.push(`unknown event ${event}`);
    if (terminal.has(from)) problems.push(`terminal state ${from} has an exit (${event})`);
    const row = table.get(from);
    if (row === undefined) continue;
    if (row.has(event)) problems.push(`duplicate transition ${from} --${event}-->`);
    row.set(event, to);
  }
  if (problems.length > 0) {
    throw new Error(`state machine ${definition.name} is malformed: ${problems.join('; ')}`);
  }
  return Object.freeze({
    ...definition,
    table,
  });
}

/** The state after `event`, or LunaNexaError(INVALID_TRANSITION) naming what is allowed instead. */
export function transition<S extends string, E extends string>(
  machine: StateMachine<S, E>,
  state: S,
  event: E,
): S {
  const next = machine.table.get(state)?.get(event);
  if (next === undefined) {
    const allowed = allowedEvents(machine, state);
    throw new LunaNexaError(
      ErrorCode.INVALID_TRANSITION,
      `${machine.name}: cannot ${event} from ${state}` +
        (allowed.length > 0 ? ` (allowed: ${allowed.join(', ')})` : ` (${state} is terminal)`),
    );
  }
  return next;
}

export function canTransition<S extends string, E extends string>(
  machine: StateMachine<S, E>,
  state: S,
  event: E,
): boolean {
  return machine.table.get(state)?.has(event) ?? false;
}

/** Events accepted in `state`, in table order; empty for terminal (or unknown) states. */
export function allowedEvents<S extends string, E extends string>(
  machine: StateMachine<S, E>,
  state: S,
): E[] {
  return [...(machine.table.get(state)?.keys() ?? [])];
}

export function isTerminal<S extends string, E extends string>(
  machine: StateMachine<S, E>,
  state: S,
): boolean {
  return machine.terminal.includes(state);
}

/** States reachable from `from` (including itself) by any sequence of events. */
export function reachableStates<S extends string, E extends string>(
  machine: StateMachine<S, E>,
  from: S,
): Set<S> {
  const seen = new Set<S>([from]);
  const pending: S[] = [from];
  for (let state = pending.pop(); state !== undefined; state = pending.pop()) {
    for (const next of machine.table.get(state)?.values() ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        pending.push(next);
      }
    }
  }
  return seen;
}
