import { expect } from 'chai';
import {
  DEPLOYMENT_STATES,
  ErrorCode,
  HTTP_STATUS_BY_CODE,
  LunaNexaError,
  MODEL_VERSION_STATES,
  NODE_LIFECYCLE_STATES,
  NODE_READINESS,
  WORKLOAD_STATES,
} from '@lunanexa/contracts';
import { deploymentLifecycle } from '../src/deployment-lifecycle';
import { modelVersionLifecycle } from '../src/model-version-lifecycle';
import { controllerKeyRefusalIsTransient, nodeLifecycle } from '../src/node-lifecycle';
import {
  allowedEvents,
  canTransition,
  defineStateMachine,
  isTerminal,
  reachableStates,
  type StateMachine,
  transition,
} from '../src/state-machine';
import { workloadLifecycle } from '../src/workload-lifecycle';

/**
 * The expected tables are written out here a second time, as text, on
 * purpose: a change to a lifecycle must be made twice, once in the table and
 * once in its specification, so it cannot happen by accident.
 */
interface Case {
  readonly machine: StateMachine<string, string>;
  readonly contractStates: readonly string[];
  readonly initial: string;
  readonly terminal: readonly string[];
  readonly allowed: readonly string[];
}

const cases: Case[] = [
  {
    machine: nodeLifecycle,
    contractStates: NODE_LIFECYCLE_STATES,
    initial: 'Pending',
    terminal: ['Rejected', 'Revoked'],
    allowed: [
      'Pending --approve--> Approved',
      'Pending --reject--> Rejected',
      'Approved --activate--> Active',
      'Approved --revoke--> Revoked',
      'Active --drain--> Draining',
      'Active --revoke--> Revoked',
      'Draining --completeDrain--> Drained',
      'Draining --cancelDrain--> Active',
      'Draining --revoke--> Revoked',
      'Drained --activate--> Active',
      'Drained --revoke--> Revoked',
    ],
  },
  {
    machine: modelVersionLifecycle,
    contractStates: MODEL_VERSION_STATES,
    initial: 'Registered',
    terminal: ['Retired'],
    allowed: [
      'Registered --verificationPassed--> Verified',
      'Registered --verificationFailed--> VerificationFailed',
      'Registered --retire--> Retired',
      'VerificationFailed --retryVerification--> Registered',
      'VerificationFailed --retire--> Retired',
      'Verified --startEvaluation--> Evaluating',
      'Verified --retire--> Retired',
      'Evaluating --evaluationPassed--> Evaluated',
      'Evaluating --evaluationFailed--> EvaluationFailed',
      'Evaluating --cancelEvaluation--> Verified',
      'EvaluationFailed --startEvaluation--> Evaluating',
      'EvaluationFailed --retire--> Retired',
      'Evaluated --approve--> Approved',
      'Evaluated --startEvaluation--> Evaluating',
      'Evaluated --retire--> Retired',
      'Approved --deprecate--> Deprecated',
      'Approved --withdraw--> Retired',
      'Deprecated --reinstate--> Approved',
      'Deprecated --retire--> Retired',
      'Deprecated --withdraw--> Retired',
    ],
  },
  {
    machine: deploymentLifecycle,
    // Placing and Updating are contract vocabulary nothing writes (see deployment-lifecycle.ts).
    contractStates: DEPLOYMENT_STATES.filter((state) => state !== 'Placing' && state !== 'Updating'),
    initial: 'Pending',
    terminal: ['Stopped'],
    allowed: [
      'Pending --place--> Assigned',
      'Starting --place--> Assigned',
      'Ready --place--> Assigned',
      'Degraded --place--> Assigned',
      'Failed --place--> Assigned',
      'Assigned --placementFailed--> Pending',
      'Starting --placementFailed--> Pending',
      'Ready --placementFailed--> Pending',
      'Degraded --placementFailed--> Pending',
      'Failed --placementFailed--> Pending',
      'Pending --start--> Starting',
      'Assigned --start--> Starting',
      'Ready --start--> Starting',
      'Degraded --start--> Starting',
      'Failed --start--> Starting',
      'Pending --ready--> Ready',
      'Assigned --ready--> Ready',
      'Starting --ready--> Ready',
      'Degraded --ready--> Ready',
      'Failed --ready--> Ready',
      'Pending --degrade--> Degraded',
      'Assigned --degrade--> Degraded',
      'Starting --degrade--> Degraded',
      'Ready --degrade--> Degraded',
      'Failed --degrade--> Degraded',
      'Pending --fail--> Failed',
      'Assigned --fail--> Failed',
      'Starting --fail--> Failed',
      'Ready --fail--> Failed',
      'Degraded --fail--> Failed',
      'Pending --stop--> Stopping',
      'Assigned --stop--> Stopping',
      'Starting --stop--> Stopping',
      'Ready --stop--> Stopping',
      'Degraded --stop--> Stopping',
      'Failed --stop--> Stopping',
      'Stopping --stopped--> Stopped',
    ],
  },
  {
    machine: workloadLifecycle,
    contractStates: WORKLOAD_STATES,
    initial: 'Received',
    terminal: ['Rejected', 'Completed', 'Failed', 'Cancelled', 'TimedOut'],
    allowed: [
      'Received --admit--> Admitted',
      'Received --reject--> Rejected',
      'Received --cancel--> Cancelled',
      'Admitted --enqueue--> Queued',
      'Admitted --dispatch--> Dispatched',
      'Admitted --cancel--> Cancelled',
      'Admitted --timeout--> TimedOut',
      'Queued --dispatch--> Dispatched',
      'Queued --shed--> Rejected',
      'Queued --cancel--> Cancelled',
      'Queued --timeout--> TimedOut',
      'Dispatched --firstByte--> Streaming',
      'Dispatched --complete--> Completed',
      'Dispatched --retry--> Queued',
      'Dispatched --fail--> Failed',
      'Dispatched --cancel--> Cancelled',
      'Dispatched --timeout--> TimedOut',
      'Streaming --complete--> Completed',
      'Streaming --fail--> Failed',
      'Streaming --cancel--> Cancelled',
      'Streaming --timeout--> TimedOut',
    ],
  },
];

function parse(line: string): { from: string; event: string; to: string } {
  const match = /^(\w+) --(\w+)--> (\w+)$/.exec(line);
  if (match === null) throw new Error(`bad expectation: ${line}`);
  return { from: match[1], event: match[2], to: match[3] };
}

for (const { machine, contractStates, initial, terminal, allowed } of cases) {
  describe(`${machine.name} lifecycle`, () => {
    const expected = allowed.map(parse);

    it('uses exactly the contract state names, in contract order', () => {
      expect(machine.states).to.deep.equal(contractStates);
    });

    it('has the documented table and nothing more', () => {
      const actual = machine.transitions.map(({ from, event, to }) => `${from} --${event}--> ${to}`);
      expect([...actual].sort()).to.deep.equal([...allowed].sort());
    });

    for (const { from, event, to } of expected) {
      it(`allows ${from} --${event}--> ${to}`, () => {
        expect(transition(machine, from, event)).to.equal(to);
        expect(canTransition(machine, from, event)).to.equal(true);
        expect(allowedEvents(machine, from)).to.include(event);
      });
    }

    it('refuses every other (state, event) pair with INVALID_TRANSITION', () => {
      let refused = 0;
      for (const state of machine.states) {
        for (const event of machine.events) {
          if (expected.some((t) => t.from === state && t.event === event)) continue;
          expect(canTransition(machine, state, event), `${state} --${event}-->`).to.equal(false);
          try {
            transition(machine, state, event);
            expect.fail(`${state} --${event}--> should have been refused`);
          } catch (error: unknown) {
            expect(error, `${state} --${event}-->`).to.be.instanceOf(LunaNexaError);
            expect((error as LunaNexaError).code).to.equal(ErrorCode.INVALID_TRANSITION);
          }
          refused += 1;
        }
      }
      expect(refused).to.equal(machine.states.length * machine.events.length - expected.length);
    });

    it(`starts in ${initial} and declares the documented terminal states`, () => {
      expect(machine.initial).to.equal(initial);
      expect([...machine.terminal].sort()).to.deep.equal([...terminal].sort());
    });

    it('gives terminal states no exits', () => {
      for (const state of terminal) {
        expect(allowedEvents(machine, state), state).to.deep.equal([]);
        expect(isTerminal(machine, state)).to.equal(true);
      }
    });

    it('reaches every state from the initial state', () => {
      expect([...reachableStates(machine, machine.initial)].sort()).to.deep.equal([...machine.states].sort());
    });

    it('lets every non-terminal state reach a terminal state (no traps)', () => {
      for (const state of machine.states) {
        const reachable = reachableStates(machine, state);
        expect(
          terminal.some((end) => reachable.has(end)),
          state,
        ).to.equal(true);
      }
    });

    it('uses every declared event somewhere', () => {
      const used = new Set(machine.transitions.map((t) => t.event));
      expect(machine.events.filter((event) => !used.has(event))).to.deep.equal([]);
    });
  });
}

describe('lifecycle rules an operator relies on', () => {
  it('never lets a node serve without approval', () => {
    const withoutApprove = defineStateMachine({
      ...nodeLifecycle,
      transitions: nodeLifecycle.transitions.filter((t) => t.event !== 'approve'),
    });
    expect(reachableStates(withoutApprove, 'Pending').has('Active')).to.equal(false);
  });

  it('waits out a refused controller key only while an approved node has not been reached yet', () => {
    // Approved is the one state between the enrollment answer and the first SSH contact.
    const transient = nodeLifecycle.states.filter((state) => controllerKeyRefusalIsTransient(state));
    expect(transient).to.deep.equal(['Approved']);
    expect(canTransition(nodeLifecycle, 'Approved', 'activate')).to.equal(true);
  });

  it('keeps readiness and cordon out of the node lifecycle', () => {
    for (const readiness of NODE_READINESS) expect(nodeLifecycle.states).to.not.include(readiness);
    expect(nodeLifecycle.events).to.not.include('cordon');
  });

  it('admits a model version to Approved only from Evaluated (or reinstating a deprecated one)', () => {
    const into = modelVersionLifecycle.transitions
      .filter((t) => t.to === 'Approved')
      .map((t) => `${t.from}:${t.event}`);
    expect(into.sort()).to.deep.equal(['Deprecated:reinstate', 'Evaluated:approve']);
    const withoutPassing = defineStateMachine({
      ...modelVersionLifecycle,
      transitions: modelVersionLifecycle.transitions.filter((t) => t.event !== 'evaluationPassed'),
    });
    expect(reachableStates(withoutPassing, 'Registered').has('Approved')).to.equal(false);
  });

  it('never retries a workload after its first byte', () => {
    expect(canTransition(workloadLifecycle, 'Streaming', 'retry')).to.equal(false);
    expect(canTransition(workloadLifecycle, 'Dispatched', 'retry')).to.equal(true);
  });

  it('reports INVALID_TRANSITION as HTTP 409 and names the allowed events', () => {
    try {
      transition(deploymentLifecycle, 'Stopping', 'ready');
      expect.fail('should have thrown');
    } catch (error: unknown) {
      const problem = (error as LunaNexaError).toProblem();
      expect(problem.status).to.equal(HTTP_STATUS_BY_CODE.INVALID_TRANSITION);
      expect(problem.detail).to.include('stopped');
    }
  });

  it('refuses an unknown state read from storage instead of guessing', () => {
    expect(() => transition(nodeLifecycle, 'Ready' as never, 'drain')).to.throw(LunaNexaError);
    expect(allowedEvents(nodeLifecycle, 'Ready' as never)).to.deep.equal([]);
  });
});

describe('defineStateMachine', () => {
  const base = {
    name: 'test',
    states: ['A', 'B', 'C'] as const,
    events: ['go', 'stop'] as const,
    initial: 'A' as const,
    terminal: ['C'] as const,
  };

  it('accepts a well-formed table', () => {
    const machine = defineStateMachine({
      ...base,
      transitions: [
        { from: 'A', event: 'go', to: 'B' },
        { from: 'B', event: 'stop', to: 'C' },
      ],
    });
    expect(transition(machine, 'A', 'go')).to.equal('B');
  });

  it('refuses a duplicate (state, event)', () => {
    expect(() =>
      defineStateMachine({
        ...base,
        transitions: [
          { from: 'A', event: 'go', to: 'B' },
          { from: 'A', event: 'go', to: 'C' },
        ],
      }),
    ).to.throw(/duplicate transition/);
  });

  it('refuses an exit from a terminal state', () => {
    expect(() =>
      defineStateMachine({ ...base, transitions: [{ from: 'C', event: 'go', to: 'A' }] }),
    ).to.throw(/terminal state C has an exit/);
  });

  it('refuses unknown states and events', () => {
    expect(() =>
      defineStateMachine({ ...base, transitions: [{ from: 'A', event: 'go', to: 'Z' as 'A' }] }),
    ).to.throw(/unknown to-state Z/);
    expect(() =>
      defineStateMachine({ ...base, transitions: [{ from: 'A', event: 'jump' as 'go', to: 'B' }] }),
    ).to.throw(/unknown event jump/);
    expect(() => defineStateMachine({ ...base, initial: 'Q' as 'A', transitions: [] })).to.throw(
      /initial state Q/,
    );
  });
});
