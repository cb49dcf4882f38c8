import { performance } from 'node:perf_hooks';
import { CancelledFailure, Context } from '@temporalio/activity';
import {
  DEFAULT_BENCHMARK_REQUEST_TIMEOUT_SECONDS,
  DEFAULT_CASE_TIMEOUT_SECONDS,
  DEFAULT_SUITE_CONCURRENCY,
  ErrorCode,
  LunaNexaError,
  type BenchmarkMetrics,
  type CaseOutcome,
  type EvaluateWorkflowInput,
  type EvaluationScores,
  type EvaluationSummary,
} from '@lunanexa/contracts';
import {
  benchmarkMetrics,
  benchmarkPrompt,
  canTransition,
  caseMessages,
  decideEvaluation,
  grade,
  modelVersionLifecycle,
  suiteScores,
  summaryScores,
  transition,
  type JsonSchemaCheck,
  type RequestSample,
} from '@lunanexa/domain';
import {
  findBenchmarkProfile,
  findDeployment,
  findEvaluationRun,
  findEvaluationSuite,
  findModelVersion,
  finishEvaluationRun,
  insertEvaluationRun,
  readyEndpoints,
  type EvaluationRunRow,
  type ReadyEndpoint,
} from '@lunanexa/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from './clock';
import { chatOnce, chatStreamSample, jsonSchemaCheck, mapBounded } from './evaluation-client';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed } from './fleet-support';
import type { Receipt } from './node-activities';

export interface EvaluationActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
}

export interface EvaluationStepInput {
  readonly runId: string;
  readonly actor: string;
  readonly correlationId: string;
}

export type BeginEvaluationResult =
  | { readonly refused: false; readonly hasProfile: boolean; readonly receiptHash: string }
  | { readonly refused: true; readonly code: string; readonly reason: string; readonly receiptHash: string };

const HEARTBEAT_EVERY_MS = 2_000;
const EXCERPT_CHARS = 256;

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

/** Keeps the activity alive in Temporal's eyes (and able to learn it was cancelled) during long waits. */
function heartbeating<T>(progress: () => unknown, work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const beat = setInterval(() => context.heartbeat(progress()), HEARTBEAT_EVERY_MS);
  return work().finally(() => clearInterval(beat));
}

export function createEvaluationActivities({ db, clock }: EvaluationActivityPorts) {
  async function runOrFail(
    q: DataSource | EntityManager,
    runId: string,
    forUpdate = false,
  ): Promise<EvaluationRunRow> {
    const run = await findEvaluationRun(q, runId, { forUpdate });
    if (!run) throw new LunaNexaError(ErrorCode.NOT_FOUND, `evaluation run ${runId} does not exist`);
    return run;
  }

  /** The replicas to call; none Ready is a refusal to measure, not a 0 % score. */
  async function endpointsOf(run: EvaluationRunRow): Promise<{ endpoints: ReadyEndpoint[]; model: string }> {
    const deployment = await findDeployment(db, run.deploymentId);
    const endpoints = await readyEndpoints(db, run.deploymentId);
    if (!deployment || endpoints.length === 0) {
      throw new LunaNexaError(
        ErrorCode.NO_CAPACITY,
        `deployment ${deployment?.name ?? run.deploymentId} has no Ready replica to evaluate`,
      );
    }
    return { endpoints, model: deployment.modelRef };
  }

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
        await manager.query(`SELECT 1 FROM model_versions WHERE id = $1 FOR UPDATE`, [run.modelVersionId]);
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
            await manager.query(
              `UPDATE model_versions SET state = $2, state_reason = $3, evaluation = $4::jsonb, updated_at = $5 WHERE id = $1`,
              [
                version.id,
                next,
                passed ? null : reasons.join('; ').slice(0, 1024) || null,
                JSON.stringify(summary),
                now,
              ],
            );
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
    /**
     * Checks and records the start: the version may be evaluated (Verified,
     * Evaluated or EvaluationFailed), the deployment serves that version and
     * has a Ready replica, the suite (and profile) exist. Then, in one
     * transaction: the run row with snapshots of suite and profile, the
     * version → Evaluating, the receipt. A refusal changes nothing but the
     * audit chain (a `denied` receipt). A retry finds its run and returns.
     */
    async beginEvaluation(input: EvaluateWorkflowInput): Promise<BeginEvaluationResult> {
      return typed(async () => {
        const refusal = await receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const now = clock.now();
          const existing = await findEvaluationRun(manager, input.runId);
          if (existing) {
            const receipt = await receiptOnce(manager, workflowId, {
              actor: input.actor,
              action: 'evaluation.start',
              step: 'start',
              evidence: {
                runId: existing.id,
                modelRef: existing.modelRef,
                deploymentId: existing.deploymentId,
              },
              correlationId: input.correlationId,
              occurredAt: now,
            });
            return { refused: false as const, hasProfile: existing.profileId !== null, receipt };
          }
          const refuse = (code: ErrorCode, reason: string) => ({ refused: true as const, code, reason });
          // Lock first, then read: two evaluations of one version must not both see it Verified.
          await manager.query(`SELECT 1 FROM model_versions WHERE id::text = $1 OR ref = $1 FOR UPDATE`, [
            input.modelVersionId,
          ]);
          const locked = await findModelVersion(manager, input.modelVersionId);
          if (!locked)
            return refuse(ErrorCode.MODEL_NOT_FOUND, `model version ${input.modelVersionId} does not exist`);
          if (!canTransition(modelVersionLifecycle, locked.state, 'startEvaluation')) {
            return refuse(
              ErrorCode.INVALID_TRANSITION,
              `${locked.ref} is ${locked.state}; only Verified, Evaluated or EvaluationFailed versions are evaluated`,
            );
          }
          const deployment = await findDeployment(manager, input.deploymentId);
          if (!deployment)
            return refuse(ErrorCode.NOT_FOUND, `deployment ${input.deploymentId} does not exist`);
          if (deployment.modelVersionId !== locked.id) {
            return refuse(
              ErrorCode.CONFLICT,
              `deployment ${deployment.name} serves ${deployment.modelRef}, not ${locked.ref}`,
            );
          }
          if ((await readyEndpoints(manager, deployment.id)).length === 0) {
            return refuse(ErrorCode.NO_CAPACITY, `deployment ${deployment.name} has no Ready replica`);
          }
          const suite = await findEvaluationSuite(manager, input.suiteId);
          if (!suite) return refuse(ErrorCode.NOT_FOUND, `evaluation suite ${input.suiteId} does not exist`);
          const profile =
            input.profileId === null ? null : await findBenchmarkProfile(manager, input.profileId);
          if (input.profileId !== null && !profile) {
            return refuse(ErrorCode.NOT_FOUND, `benchmark profile ${input.profileId} does not exist`);
          }
          await insertEvaluationRun(manager, {
            id: input.runId,
            modelVersionId: locked.id,
            modelRef: locked.ref,
            deploymentId: deployment.id,
            suite,
            profile,
            workflowId,
            correlationId: input.correlationId,
            createdBy: input.actor,
            createdAt: now,
          });
          await manager.query(
            `UPDATE model_versions SET state = $2, state_reason = NULL, updated_at = $3 WHERE id = $1`,
            [locked.id, transition(modelVersionLifecycle, locked.state, 'startEvaluation'), now],
          );
          const receipt = await receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'evaluation.start',
            step: 'start',
            evidence: {
              runId: input.runId,
              modelVersionId: locked.id,
              modelRef: locked.ref,
              fromState: locked.state,
              deploymentId: deployment.id,
              suite: suite.name,
              suiteDigest: suite.digest,
              profile: profile?.name ?? null,
              profileDigest: profile?.digest ?? null,
            },
            correlationId: input.correlationId,
            occurredAt: now,
          });
          return { refused: false as const, hasProfile: profile !== null, receipt };
        });
        if (!refusal.refused) {
          return {
            refused: false as const,
            hasProfile: refusal.hasProfile,
            receiptHash: refusal.receipt.hash,
          };
        }
        // The refusal's receipt is written on its own: nothing else happened.
        const receipt = await receiptedTransaction(db, (manager) =>
          receiptOnce(manager, currentWorkflowId(), {
            actor: input.actor,
            action: 'evaluation.refuse',
            step: 'refuse',
            decision: 'denied',
            result: 'refused',
            evidence: {
              runId: input.runId,
              modelVersionId: input.modelVersionId,
              deploymentId: input.deploymentId,
              errorCode: refusal.code,
              reason: refusal.reason,
            },
            correlationId: input.correlationId,
            occurredAt: clock.now(),
          }),
        );
        return { ...refusal, receiptHash: receipt.hash };
      });
    },

    /**
     * Sends every case of the run's suite snapshot to the deployment's Ready
     * replicas (round robin, `concurrency` at once, each bounded by the case
     * timeout) and grades the answers. Writes nothing: a retry simply asks
     * again, and a deterministic runtime answers the same. When every case
     * failed to get an answer at all, the replicas are the problem, not the
     * model: DEPENDENCY_UNAVAILABLE, which Temporal retries.
     */
    async runEvaluationSuite(input: EvaluationStepInput): Promise<EvaluationScores> {
      return typed(async () => {
        const run = await runOrFail(db, input.runId);
        const suite = run.suiteSnapshot;
        const { endpoints, model } = await endpointsOf(run);
        const context = Context.current();
        const checks = new Map<string, JsonSchemaCheck>();
        for (const testCase of suite.cases) {
          if (testCase.grader.kind === 'json-schema')
            checks.set(testCase.id, jsonSchemaCheck(testCase.grader.schema));
        }
        let done = 0;
        const outcomes = await heartbeating(
          () => ({ done, total: suite.cases.length }),
          () =>
            mapBounded(
              suite.cases,
              suite.concurrency ?? DEFAULT_SUITE_CONCURRENCY,
              async (testCase, index) => {
                const endpoint = endpoints[index % endpoints.length];
                const answer = await chatOnce({
                  baseUrl: endpoint.url,
                  model,
                  messages: caseMessages(testCase),
                  maxTokens: testCase.maxTokens,
                  seed: testCase.seed ?? 0,
                  timeoutMs: (suite.caseTimeoutSeconds ?? DEFAULT_CASE_TIMEOUT_SECONDS) * 1000,
                  signal: context.cancellationSignal,
                });
                done += 1;
                const base = {
                  caseId: testCase.id,
                  grader: testCase.grader.kind,
                  latencyMs: Math.round(answer.latencyMs),
                };
                if (!answer.ok) {
                  const outcome: CaseOutcome = {
                    ...base,
                    passed: false,
                    reason: answer.reason.slice(0, 1024),
                    errorCode: answer.code,
                    outputExcerpt: null,
                  };
                  return outcome;
                }
                const verdict = grade(testCase.grader, answer.text, checks.get(testCase.id));
                const outcome: CaseOutcome = {
                  ...base,
                  passed: verdict.passed,
                  reason: verdict.reason,
                  errorCode: null,
                  outputExcerpt: answer.text.slice(0, EXCERPT_CHARS),
                };
                return outcome;
              },
            ),
        );
        if (context.cancellationSignal.aborted) throw new CancelledFailure('evaluation suite cancelled');
        if (outcomes.every((o) => o.errorCode !== null)) {
          const first = outcomes[0];
          throw new LunaNexaError(
            ErrorCode.DEPENDENCY_UNAVAILABLE,
            `no case got an answer from ${run.deploymentId} (first: ${first?.errorCode ?? ''} ${first?.reason ?? ''})`,
          );
        }
        return suiteScores(outcomes, suite.passThreshold);
      });
    },

    /**
     * The benchmark: `concurrency` closed-loop clients send streamed requests
     * (prompt of `inputTokens` words, `max_tokens` = `outputTokens`) until
     * the duration has passed or `requestCount` requests were started;
     * requests in flight at the end are awaited and counted. Writes nothing.
     */
    async runBenchmark(input: EvaluationStepInput): Promise<BenchmarkMetrics> {
      return typed(async () => {
        const run = await runOrFail(db, input.runId);
        const profile = run.profileSnapshot;
        if (!profile)
          throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `run ${run.id} has no benchmark profile`);
        const { endpoints, model } = await endpointsOf(run);
        const context = Context.current();
        const samples: RequestSample[] = [];
        const started = performance.now();
        const deadline =
          profile.durationSeconds === undefined ? Infinity : started + profile.durationSeconds * 1000;
        const maxRequests = profile.requestCount ?? Infinity;
        const timeoutMs = (profile.requestTimeoutSeconds ?? DEFAULT_BENCHMARK_REQUEST_TIMEOUT_SECONDS) * 1000;
        let issued = 0;
        const client = async (): Promise<void> => {
          while (
            !context.cancellationSignal.aborted &&
            performance.now() < deadline &&
            issued < maxRequests
          ) {
            const index = issued++;
            const endpoint = endpoints[index % endpoints.length];
            samples.push(
              await chatStreamSample({
                baseUrl: endpoint.url,
                model,
                messages: [{ role: 'user', content: benchmarkPrompt(profile.inputTokens, index) }],
                maxTokens: profile.outputTokens,
                seed: index,
                timeoutMs,
                signal: context.cancellationSignal,
              }),
            );
          }
        };
        await heartbeating(
          () => ({ issued, finished: samples.length }),
          () => Promise.all(Array.from({ length: profile.concurrency }, client)),
        );
        if (context.cancellationSignal.aborted) throw new CancelledFailure('benchmark cancelled');
        return benchmarkMetrics(samples, performance.now() - started, profile.concurrency);
      });
    },

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
