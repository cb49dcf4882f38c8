import { ErrorCode, LunaNexaError, type StepAnalysis } from '@lunanexa/contracts';
import { analyzeCanary, windowStats } from '@lunanexa/domain';
import {
  appendRolloutAnalysis,
  findAlias,
  findAliasRevision,
  findModelVersion,
  trafficSample,
} from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed } from '../fleet-support';
import { lockedRollout, type RolloutActivityPorts, type RolloutStepInput } from './support';

/** The evaluation pass rate a version is compared on (null without a recorded evaluation). */
function evaluationScore(evaluation: unknown): number | null {
  if (evaluation === null || typeof evaluation !== 'object') return null;
  const scores = (evaluation as { scores?: Record<string, unknown> }).scores;
  const passRate = scores?.['passRate'];
  return typeof passRate === 'number' ? passRate : null;
}

const BREACH_CRITERIA: readonly [string, RegExp][] = [
  ['errorRate', /^error rate/],
  ['p95Latency', /^p95 latency/],
  ['evaluationScore', /^evaluation score/],
];

/**
 * Which criteria a verdict rests on, by name: receipts carry these (and the
 * sample's counts), not the latency figures, so the same scenario run twice
 * writes the same receipts.
 */
function breachedCriteria(reasons: readonly string[]): string[] {
  return BREACH_CRITERIA.filter(([, pattern]) => reasons.some((reason) => pattern.test(reason))).map(
    ([name]) => name,
  );
}

export function createRolloutAnalysisActivities({ db, clock }: RolloutActivityPorts) {
  return {
    /**
     * Judges window `window` of step `step` on its fixed sample: the first
     * `samplesPerStep` canary requests since the step began, against the
     * stable deployment's requests over the same interval.
     */
    async analyzeStep(
      input: RolloutStepInput & { readonly step: number; readonly window: number; readonly final: boolean },
    ): Promise<StepAnalysis> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const rollout = await lockedRollout(manager, input.rolloutId);
          const weight = rollout.plan.steps[input.step] ?? 0;
          const recorded = rollout.analyses.find((a) => a.step === input.step && a.window === input.window);
          let analysis: StepAnalysis;
          if (recorded) {
            analysis = recorded;
          } else {
            if (rollout.canaryDeploymentId === null || rollout.stepStartedAt === null) {
              throw new LunaNexaError(
                ErrorCode.INVALID_TRANSITION,
                `rollout ${rollout.id} has no canary step running`,
              );
            }
            const samples = rollout.plan.samplesPerStep;
            const alias = await findAlias(manager, rollout.aliasId);
            // Only the alias's own traffic judges the step: both sides, the same callers.
            const requestedModel = alias?.name ?? null;
            const canaryRaw = await trafficSample(manager, rollout.canaryDeploymentId, {
              since: rollout.stepStartedAt,
              limit: samples,
              requestedModel,
            });
            const base =
              rollout.baseRevision > 0
                ? await findAliasRevision(manager, rollout.aliasId, rollout.baseRevision)
                : null;
            const stableRaw = base
              ? await trafficSample(manager, base.deploymentId, {
                  since: rollout.stepStartedAt,
                  until: canaryRaw.requests >= samples ? canaryRaw.lastReceivedAt : null,
                  requestedModel,
                })
              : null;
            const canaryVersion = await findModelVersion(manager, rollout.modelVersionId);
            const stableVersion = base ? await findModelVersion(manager, base.modelVersionId) : null;
            const canary = windowStats(canaryRaw.requests, canaryRaw.errors, canaryRaw.p95LatencyMs);
            const stable = stableRaw
              ? windowStats(stableRaw.requests, stableRaw.errors, stableRaw.p95LatencyMs)
              : null;
            const canaryEvaluationScore = evaluationScore(canaryVersion?.evaluation ?? null);
            const stableEvaluationScore = evaluationScore(stableVersion?.evaluation ?? null);
            const result = analyzeCanary({
              canary,
              stable,
              canaryEvaluationScore,
              stableEvaluationScore,
              samples,
              thresholds: rollout.plan.thresholds,
            });
            analysis = {
              step: input.step,
              weight,
              window: input.window,
              canary,
              stable,
              canaryEvaluationScore,
              stableEvaluationScore,
              verdict: result.verdict,
              reasons: result.reasons,
            };
            await appendRolloutAnalysis(manager, rollout.id, analysis, clock.now());
          }
          // An incomplete sample is only a receipt when it ends the step (the rollback says why).
          if (analysis.verdict !== 'insufficient' || input.final) {
            await receiptOnce(manager, workflowId, {
              actor: input.actor,
              action: 'rollout.analysis',
              step: `analysis-${input.step}`,
              evidence: {
                rolloutId: rollout.id,
                stepIndex: input.step,
                weight,
                verdict: analysis.verdict,
                breached: breachedCriteria(analysis.reasons),
                canaryRequests: analysis.canary.requests,
                canaryErrors: analysis.canary.errors,
              },
              correlationId: input.correlationId,
              occurredAt: clock.now(),
            });
          }
          return analysis;
        }),
      );
    },
  };
}
