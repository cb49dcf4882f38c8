import { expect } from 'chai';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { translateTemporalError } from '../src/infrastructure/workflow-runner';

/** A workflow that failed because one activity threw a typed failure: the chain Temporal's client hands the API. */
function failedThroughActivity(failure: ApplicationFailure): WorkflowFailedError {
  const activity = new ActivityFailure(
    'Activity task failed',
    'checkNodeReachable',
    '7',
    RetryState.NON_RETRYABLE_FAILURE,
    'worker@host',
    failure,
  );
  return new WorkflowFailedError('Workflow execution failed', activity, RetryState.NON_RETRYABLE_FAILURE);
}

describe('a failed workflow as the API reports it', () => {
  it("carries the activity's typed code and its own message, not the wrappers'", () => {
    const translated = translateTemporalError(
      failedThroughActivity(
        ApplicationFailure.create({
          type: ErrorCode.FORBIDDEN,
          message: 'node node-1 refused controller key ed25519:abc (SSH publickey authentication failed)',
          nonRetryable: true,
        }),
      ),
    );
    expect(translated).to.be.instanceOf(LunaNexaError);
    expect((translated as LunaNexaError).code).to.equal(ErrorCode.FORBIDDEN);
    expect((translated as LunaNexaError).message).to.equal(
      'node node-1 refused controller key ed25519:abc (SSH publickey authentication failed)',
    );
  });

  it('a failure typed with something that is not an error code is INTERNAL, saying only that the workflow failed', () => {
    const translated = translateTemporalError(
      failedThroughActivity(ApplicationFailure.create({ type: 'TypeError', message: 'x is undefined' })),
    ) as LunaNexaError;
    expect(translated.code).to.equal(ErrorCode.INTERNAL);
    expect(translated.message).to.equal('workflow failed');
  });

  it('a failure thrown by the workflow itself keeps its code and message', () => {
    const translated = translateTemporalError(
      new WorkflowFailedError(
        'Workflow execution failed',
        ApplicationFailure.create({ type: ErrorCode.INVALID_TRANSITION, message: 'node dgx-1 is Revoked' }),
        RetryState.NON_RETRYABLE_FAILURE,
      ),
    ) as LunaNexaError;
    expect(translated.code).to.equal(ErrorCode.INVALID_TRANSITION);
    expect(translated.message).to.equal('node dgx-1 is Revoked');
  });
});
