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
  type EvaluationScores,
} from '@lunanexa/contracts';
import {
  benchmarkMetrics,
  benchmarkPrompt,
  caseMessages,
  grade,
  suiteScores,
  type JsonSchemaCheck,
  type RequestSample,
} from '@lunanexa/domain';
import { typed } from '../fleet-support';
import { chatOnce, chatStreamSample, jsonSchemaCheck, mapBounded } from './client';
import {
  endpointsOf,
  heartbeating,
  runOrFail,
  type EvaluationActivityPorts,
  type EvaluationStepInput,
} from './support';

const EXCERPT_CHARS = 256;

/** Measuring the deployment: the suite's cases and the benchmark. Neither writes anything. */
export function createEvaluationMeasureActivities({ db }: EvaluationActivityPorts) {
  return {
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
        const { endpoints, model } = await endpointsOf(db, run);
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
        const { endpoints, model } = await endpointsOf(db, run);
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
  };
}
