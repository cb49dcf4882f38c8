import {
  ActivityFailure,
  ApplicationFailure,
  CancellationScope,
  allHandlersFinished,
  condition,
  defineUpdate,
  isCancellation,
  proxyActivities,
  setHandler,
} from '@temporalio/workflow';
import type { EvaluateWorkflowInput, EvaluateWorkflowResult } from '@lunanexa/contracts';
import { EVALUATION_UPDATES, typedFailureCode } from '@lunanexa/contracts/dist/src/workflow-constants';
import type { Activities } from '@lunanexa/activities';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 30 },
});
// Sending the suite and the benchmark takes as long as the profile says (up to an hour plus a request
// deadline); heartbeats tell a dead worker from a long run, and a retry starts the measurement over.
const measuring = proxyActivities<Activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '30 seconds', maximumAttempts: 3 },
});

/** Answers with the run id once the run is recorded; a refusal fails it with the refusal's typed code. */
export const evaluationBegunUpdate = defineUpdate<{ runId: string }>(EVALUATION_UPDATES.begun);

/**
 * Evaluates a model version against a candidate deployment of it:
 *
 *   begin (version Verified/Evaluated/EvaluationFailed, deployment of that
 *   version with a Ready replica; run row with snapshots, version →
 *   Evaluating, receipt) → suite (graded cases) → benchmark (closed loop,
 *   streamed, when a profile is given) → complete (pass decision, run
 *   result, version → Evaluated or EvaluationFailed with its summary,
 *   receipt `evaluation.complete`).
 *
 * A refusal at the start changes nothing (its receipt is the only trace). A
 * run that cannot be carried out ends Errored and the version
 * EvaluationFailed. Measuring activities write nothing; the recording ones
 * are idempotent by run id, so a worker killed anywhere resumes without
 * recording twice.
 */
export async function evaluateWorkflow(input: EvaluateWorkflowInput): Promise<EvaluateWorkflowResult> {
  const result = await runEvaluation(input);
  // The caller that started this run by update hears the answer before the run closes.
  await condition(allHandlersFinished);
  return result;
}

async function runEvaluation(input: EvaluateWorkflowInput): Promise<EvaluateWorkflowResult> {
  const base = { runId: input.runId, actor: input.actor, correlationId: input.correlationId };
  let beginning: { refused: false } | { refused: true; code: string; reason: string } | null = null;
  setHandler(evaluationBegunUpdate, async () => {
    await condition(() => beginning !== null);
    const begun = beginning as unknown as
      { refused: false } | { refused: true; code: string; reason: string };
    if (begun.refused)
      throw ApplicationFailure.create({ type: begun.code, message: begun.reason, nonRetryable: true });
    return { runId: input.runId };
  });
  const begun = await steps.beginEvaluation(input);
  beginning = begun.refused ? { refused: true, code: begun.code, reason: begun.reason } : { refused: false };
  if (begun.refused) {
    return {
      runId: input.runId,
      state: 'Refused',
      passed: false,
      code: begun.code,
      reasons: [begun.reason],
      receiptHash: begun.receiptHash,
    };
  }
  try {
    const scores = await measuring.runEvaluationSuite(base);
    const metrics = begun.hasProfile ? await measuring.runBenchmark(base) : null;
    const done = await steps.completeEvaluation({ ...base, scores, metrics });
    return {
      runId: input.runId,
      state: done.state,
      passed: done.passed,
      code: null,
      reasons: done.reasons,
      receiptHash: done.hash,
    };
  } catch (error) {
    if (isCancellation(error)) {
      // A cancelled evaluation still leaves Evaluating: the version must not stay stuck in it.
      await CancellationScope.nonCancellable(() =>
        steps.failEvaluation({ ...base, code: 'CANCELLED', reason: 'the evaluation was cancelled' }),
      );
      throw error;
    }
    if (!(error instanceof ActivityFailure)) throw error;
    const code = typedFailureCode(error) ?? 'INTERNAL';
    const reason =
      error.cause instanceof ApplicationFailure
        ? error.cause.message
        : (error.cause?.message ?? error.message);
    const done = await steps.failEvaluation({ ...base, code, reason });
    return {
      runId: input.runId,
      state: done.state,
      passed: false,
      code,
      reasons: done.reasons,
      receiptHash: done.hash,
    };
  }
}
