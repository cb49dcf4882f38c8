import {
  ErrorCode,
  LunaNexaError,
  type BenchmarkMetrics,
  type EvaluationScores,
  type EvaluationSummary,
} from '@lunanexa/contracts';
import { decideEvaluation, modelVersionLifecycle, summaryScores, transition } from '@lunanexa/domain';
import {
  findModelVersion,
  finishEvaluationRun,
  lockModelVersionState,
  recordModelVersionEvaluation,
  type EvaluationRunRow,
} from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed } from '../fleet-support';
import type { Receipt } from '../fleet-support';
import { runOrFail, type EvaluationActivityPorts, type EvaluationStepInput } from './support';

/** A finished run's pass/fail as the version's `evaluation` (EvaluationSummary) records it. */
function evaluationSummary(run: EvaluationRunRow, passed: boolean, scores: Record<string, number>, at: Date) {
  const summary: EvaluationSummary = {
    runId: run.id,
    suite: run.suiteName,
    passed,
    scores,
    evaluatedAt: at.toISOString(),
  };
  return summary;
}

/** Recording the run's end: judged (passed or failed) or errored. */
export function createEvaluationRecordActivities({ db, clock }: EvaluationActivityPorts) {
  /** Moves the version out of Evaluating (once), records its summary and the run's result, and the receipt. */
  async function finish(
    input: EvaluationStepInput,
    result: {
      state: 'Passed' | 'Failed' | 'Errored';
      reasons: readonly string[];
      errorCode: string | null;
      scores: EvaluationScores | null;
      metrics: BenchmarkMetrics | null;
    },
  ): Promise<Receipt & { state: 'Passed' | 'Failed' | 'Errored'; passed: boolean; reasons: string[] }> {
    return typed(async () => {
      const done = await receiptedTransaction(db, async (manager) => {
        const workflowId = currentWorkflowId();
        const now = clock.now();
        const run = await runOrFail(manager, input.runId, true);
        // Lock first, then read: the state moved out of Evaluating must be the one this transaction sees.
        await lockModelVersionState(manager, run.modelVersionId);
        const version = await findModelVersion(manager, run.modelVersionId);
        if (!version)
          throw new LunaNexaError(ErrorCode.NOT_FOUND, `model version ${run.modelVersionId} is gone`);
        // A retry after a lost completion finds the result the first attempt recorded, and keeps it.
        const recorded = run.state === 'Running' ? null : run;
        const passed = recorded ? recorded.passed === true : result.state === 'Passed';
        const state = (recorded?.state ?? result.state) as 'Passed' | 'Failed' | 'Errored';
        const reasons = recorded ? recorded.reasons : [...result.reasons];
        if (!recorded) {
          await finishEvaluationRun(manager, run.id, {
            state: result.state,
            passed,
            reasons,
            errorCode: result.errorCode,
            scores: result.scores,
            metrics: result.metrics,
            finishedAt: now,
          });
          if (version.state === 'Evaluating') {
            const next = transition(
              modelVersionLifecycle,
              version.state,
              passed ? 'evaluationPassed' : 'evaluationFailed',
            );
            const summary = evaluationSummary(run, passed, summaryScores(result.scores, result.metrics), now);
            await recordModelVersionEvaluation(manager, version.id, {
              state: next,
              reason: passed ? null : reasons.join('; ').slice(0, 1024) || null,
              evaluation: summary,
              at: now,
            });
          }
        }
        const finished = recorded ?? (await runOrFail(manager, run.id));
        const receipt = await receiptOnce(manager, workflowId, {
          actor: input.actor,
          action: 'evaluation.complete',
          step: 'complete',
          result: state === 'Errored' ? 'failed' : 'succeeded',
          evidence: {
            runId: run.id,
            modelVersionId: run.modelVersionId,
            modelRef: run.modelRef,
            deploymentId: run.deploymentId,
            suite: run.suiteName,
            suiteDigest: run.suiteDigest,
            profile: run.profileName,
            profileDigest: run.profileDigest,
            state,
            passed,
            reasons,
            errorCode: finished.errorCode,
            passRate: finished.scores?.passRate ?? null,
            passedCases: finished.scores?.passedCases ?? null,
            totalCases: finished.scores?.totalCases ?? null,
            benchmarkRequests: finished.metrics?.requests ?? null,
            benchmarkErrors: finished.metrics?.errors ?? null,
          },
          correlationId: input.correlationId,
          occurredAt: now,
        });
        return { receipt, state, passed, reasons };
      });
      return { ...done.receipt, state: done.state, passed: done.passed, reasons: done.reasons };
    });
  }

  return {
    /** Judges the run (pass threshold and the profile's SLOs) and records everything once. */
    async completeEvaluation(
      input: EvaluationStepInput & {
        readonly scores: EvaluationScores;
        readonly metrics: BenchmarkMetrics | null;
      },
    ): Promise<Receipt & { state: 'Passed' | 'Failed' | 'Errored'; passed: boolean; reasons: string[] }> {
      const run = await typed(() => runOrFail(db, input.runId));
      const decision = decideEvaluation(input.scores, input.metrics, run.profileSnapshot?.slo);
      return finish(input, {
        state: decision.passed ? 'Passed' : 'Failed',
        reasons: decision.reasons,
        errorCode: null,
        scores: input.scores,
        metrics: input.metrics,
      });
    },

    /**
     * A run that could not be carried out (no Ready replica any more, the
     * replicas unreachable after retries): Errored, and the version moves to
     * EvaluationFailed — without a passing evaluation it must not deploy,
     * and it may be evaluated again from there.
     */
    async failEvaluation(
      input: EvaluationStepInput & { readonly code: string; readonly reason: string },
    ): Promise<Receipt & { state: 'Passed' | 'Failed' | 'Errored'; passed: boolean; reasons: string[] }> {
      return finish(input, {
        state: 'Errored',
        reasons: [input.reason.slice(0, 1024)],
        errorCode: input.code,
        scores: null,
        metrics: null,
      });
    },
  };
}
