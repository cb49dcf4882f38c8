import {
  ErrorCode,
  LunaNexaError,
  type RolloutPlan,
  type RolloutState,
  type StepAnalysis,
} from '@lunanexa/contracts';
import { analyzeCanary, decideDeployPolicy, windowStats } from '@lunanexa/domain';
import {
  findAlias,
  findAliasRevision,
  findDeployment,
  findModelVersion,
  findRollout,
  loadDeployPolicyFacts,
  trafficSample,
  type RolloutRow,
} from '@lunanexa/persistence';
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from './clock';
import { currentWorkflowId, receiptedTransaction, receiptOnce, spreadReceipt, typed } from './fleet-support';
import type { Receipt } from './node-activities';

export interface RolloutActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
}

export interface RolloutStepInput {
  readonly rolloutId: string;
  readonly actor: string;
  readonly correlationId: string;
}

const FINISHED: readonly RolloutState[] = ['Promoted', 'RolledBack', 'Aborted', 'Refused', 'Failed'];

async function lockedRollout(manager: EntityManager, id: string): Promise<RolloutRow> {
  const rollout = await findRollout(manager, id, { forUpdate: true });
  if (!rollout) throw new LunaNexaError(ErrorCode.NOT_FOUND, `rollout ${id} does not exist`);
  return rollout;
}

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

export function createRolloutActivities({ db, clock }: RolloutActivityPorts) {
  async function setState(
    manager: EntityManager,
    rollout: RolloutRow,
    state: RolloutState,
    reason: string | null,
    extra: { refusalCode?: string | null } = {},
  ): Promise<void> {
    const now = clock.now();
    await manager.query(
      `UPDATE rollouts SET state = $2, state_reason = $3, refusal_code = COALESCE($4, refusal_code), updated_at = $5,
              finished_at = CASE WHEN $6 THEN $5 ELSE finished_at END
        WHERE id = $1`,
      [rollout.id, state, reason, extra.refusalCode ?? null, now, FINISHED.includes(state)],
    );
    if (FINISHED.includes(state)) {
      // The alias is free for the next rollout, and no traffic goes to a canary that is not promoted.
      await manager.query(
        `UPDATE aliases SET active_rollout_id = NULL, canary_deployment_id = NULL, canary_weight = 0, updated_at = $2
          WHERE id = $1 AND active_rollout_id = $3`,
        [rollout.aliasId, now, rollout.id],
      );
    }
  }

  return {
    /**
     * Writes the rollout row (once: the id is the key), claims the alias for
     * it and records the start. Another rollout in flight on the alias is a
     * CONFLICT — the partial unique index decides, not a read.
     */
    async recordRollout(
      input: RolloutStepInput & {
        readonly aliasId: string;
        readonly modelVersionId: string;
        readonly plan: RolloutPlan;
      },
    ): Promise<Receipt & { baseRevision: number }> {
      return typed(async () =>
        spreadReceipt(
          await receiptedTransaction(db, async (manager) => {
            const workflowId = currentWorkflowId();
            const now = clock.now();
            const alias = await findAlias(manager, input.aliasId, { forUpdate: true });
            if (!alias) throw new LunaNexaError(ErrorCode.NOT_FOUND, `alias ${input.aliasId} does not exist`);
            const version = await findModelVersion(manager, input.modelVersionId);
            if (!version)
              throw new LunaNexaError(
                ErrorCode.MODEL_NOT_FOUND,
                `model version ${input.modelVersionId} is gone`,
              );
            let rollout = await findRollout(manager, input.rolloutId);
            if (!rollout) {
              if (alias.activeRolloutId !== null) {
                throw new LunaNexaError(
                  ErrorCode.CONFLICT,
                  `alias ${alias.name} already has rollout ${alias.activeRolloutId} in progress`,
                );
              }
              await manager.query(
                `INSERT INTO rollouts (id, alias_id, model_version_id, model_ref, base_revision, plan, state, workflow_id,
                 created_by, created_at, updated_at)
               VALUES ($1, $2, $3, $4, $5, $6::jsonb, 'Verifying', $7, $8, $9, $9)`,
                [
                  input.rolloutId,
                  alias.id,
                  version.id,
                  version.ref,
                  alias.currentRevision,
                  JSON.stringify(input.plan),
                  workflowId,
                  input.actor,
                  now,
                ],
              );
              await manager.query(
                `UPDATE aliases SET active_rollout_id = $2, updated_at = $3 WHERE id = $1`,
                [alias.id, input.rolloutId, now],
              );
              rollout = await lockedRollout(manager, input.rolloutId);
            }
            const receipt = await receiptOnce(manager, workflowId, {
              actor: input.actor,
              action: 'rollout.start',
              step: 'start',
              evidence: {
                rolloutId: rollout.id,
                alias: alias.name,
                modelRef: rollout.modelRef,
                baseRevision: rollout.baseRevision,
                plan: rollout.plan,
              },
              correlationId: input.correlationId,
              occurredAt: now,
            });
            return { receipt, baseRevision: rollout.baseRevision };
          }),
        ),
      );
    },

    /**
     * The deploy gate for the rollout's canary, a Serving deployment: the
     * same facts (libs/persistence `loadDeployPolicyFacts`) and decision
     * (libs/domain `decideDeployPolicy`) as `createDeployment`, with the
     * alias's data class, and the artifact signature re-verified here, in
     * the worker, against the trusted keys as they are now with the policy
     * of the tenants calling the alias (SIGNATURE_INVALID,
     * UNSIGNED_VERSION_NOT_ALLOWED). (The artifact digest is then
     * re-verified against its store by the separate verification activity.)
     */
    async checkRolloutPolicy(
      input: RolloutStepInput,
    ): Promise<{ allowed: true } | { allowed: false; code: string; reason: string }> {
      return typed(async () => {
        const rollout = await findRollout(db, input.rolloutId);
        if (!rollout)
          throw new LunaNexaError(ErrorCode.NOT_FOUND, `rollout ${input.rolloutId} does not exist`);
        const alias = await findAlias(db, rollout.aliasId);
        const version = await findModelVersion(db, rollout.modelVersionId);
        if (!alias || !version)
          throw new LunaNexaError(ErrorCode.NOT_FOUND, 'alias or model version is gone');
        const facts = await loadDeployPolicyFacts(db, version, {
          dataClass: alias.dataClass,
          aliasName: alias.name,
          now: clock.now(),
        });
        return decideDeployPolicy(facts, 'Serving');
      });
    },

    /** Ends a rollout that the policy or the digest check refused: nothing was deployed, the alias is untouched. */
    async refuseRollout(
      input: RolloutStepInput & { readonly code: string; readonly reason: string },
    ): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const rollout = await lockedRollout(manager, input.rolloutId);
          if (rollout.state === 'Verifying') {
            await setState(manager, rollout, 'Refused', input.reason, { refusalCode: input.code });
          }
          const alias = await findAlias(manager, rollout.aliasId);
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'rollout.refuse',
            step: 'refuse',
            decision: 'denied',
            result: 'refused',
            evidence: {
              rolloutId: rollout.id,
              alias: alias?.name ?? rollout.aliasId,
              modelRef: rollout.modelRef,
              errorCode: input.code,
              reason: input.reason,
              aliasRevision: alias?.currentRevision ?? rollout.baseRevision,
            },
            correlationId: input.correlationId,
            occurredAt: clock.now(),
          });
        }),
      );
    },

    /** Names the canary deployment (the workflow starts it) and moves the rollout to Deploying. */
    async markRolloutDeploying(
      input: RolloutStepInput & { readonly canaryDeploymentId: string; readonly digest: string | null },
    ): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const rollout = await lockedRollout(manager, input.rolloutId);
          if (rollout.state === 'Verifying') {
            await manager.query(
              `UPDATE rollouts SET state = 'Deploying', state_reason = NULL, canary_deployment_id = $2, updated_at = $3
                WHERE id = $1`,
              [rollout.id, input.canaryDeploymentId, clock.now()],
            );
          }
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'rollout.deploy',
            step: 'deploy',
            evidence: {
              rolloutId: rollout.id,
              modelRef: rollout.modelRef,
              verifiedDigest: input.digest,
              canaryDeploymentId: input.canaryDeploymentId,
              replicas: rollout.plan.replicas,
            },
            correlationId: input.correlationId,
            occurredAt: clock.now(),
          });
        }),
      );
    },

    /** Sets the gateway's split for step `step` and starts that step's sample. */
    async setCanaryWeight(
      input: RolloutStepInput & { readonly step: number },
    ): Promise<Receipt & { weight: number }> {
      return typed(async () =>
        spreadReceipt(
          await receiptedTransaction(db, async (manager) => {
            const workflowId = currentWorkflowId();
            const rollout = await lockedRollout(manager, input.rolloutId);
            const weight = rollout.plan.steps[input.step];
            if (weight === undefined || rollout.canaryDeploymentId === null) {
              throw new LunaNexaError(
                ErrorCode.INVALID_TRANSITION,
                `rollout ${rollout.id} has no step ${input.step}`,
              );
            }
            const now = clock.now();
            // Re-running the activity for the same step must not restart its sample.
            if (rollout.currentStep !== input.step && !FINISHED.includes(rollout.state)) {
              await manager.query(
                `UPDATE rollouts SET state = CASE WHEN state = 'Paused' THEN state ELSE 'Canary' END, current_step = $2,
                      step_started_at = $3, updated_at = $3 WHERE id = $1`,
                [rollout.id, input.step, now],
              );
              await manager.query(
                `UPDATE aliases SET canary_deployment_id = $2, canary_weight = $3, updated_at = $4
                WHERE id = $1 AND active_rollout_id = $5`,
                [rollout.aliasId, rollout.canaryDeploymentId, weight, now, rollout.id],
              );
            }
            const receipt = await receiptOnce(manager, workflowId, {
              actor: input.actor,
              action: 'rollout.step',
              step: `step-${input.step}`,
              evidence: { rolloutId: rollout.id, stepIndex: input.step, weight, modelRef: rollout.modelRef },
              correlationId: input.correlationId,
              occurredAt: now,
            });
            return { receipt, weight };
          }),
        ),
      );
    },

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
            await manager.query(
              `UPDATE rollouts SET analyses = analyses || $2::jsonb, updated_at = $3 WHERE id = $1`,
              [rollout.id, JSON.stringify([analysis]), clock.now()],
            );
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

    /** Pause or resume: the state the console shows, and a receipt per operator action. */
    async setRolloutPaused(
      input: RolloutStepInput & { readonly paused: boolean; readonly sequence: number },
    ): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const rollout = await lockedRollout(manager, input.rolloutId);
          if (!FINISHED.includes(rollout.state)) {
            const to: RolloutState = input.paused
              ? 'Paused'
              : rollout.canaryDeploymentId
                ? 'Canary'
                : 'Deploying';
            await setState(manager, rollout, to, input.paused ? `paused by ${input.actor}` : null);
          }
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: input.paused ? 'rollout.pause' : 'rollout.resume',
            step: `${input.paused ? 'pause' : 'resume'}-${input.sequence}`,
            evidence: { rolloutId: rollout.id, stepIndex: rollout.currentStep },
            correlationId: input.correlationId,
            occurredAt: clock.now(),
          });
        }),
      );
    },

    /**
     * Promotion: a new alias revision naming the canary's version and
     * deployment becomes current; the split ends. Returns the previous stable
     * deployment, which the workflow stops after the bake period.
     */
    async promoteRollout(
      input: RolloutStepInput & { readonly trigger: 'analysis' | 'operator' },
    ): Promise<Receipt & { revision: number; previousDeploymentId: string | null }> {
      return typed(async () =>
        spreadReceipt(
          await receiptedTransaction(db, async (manager) => {
            const workflowId = currentWorkflowId();
            const rollout = await lockedRollout(manager, input.rolloutId);
            const alias = await findAlias(manager, rollout.aliasId, { forUpdate: true });
            if (!alias)
              throw new LunaNexaError(ErrorCode.NOT_FOUND, `alias of rollout ${rollout.id} is gone`);
            if (rollout.canaryDeploymentId === null) {
              throw new LunaNexaError(
                ErrorCode.INVALID_TRANSITION,
                `rollout ${rollout.id} has no canary to promote`,
              );
            }
            const base =
              rollout.baseRevision > 0
                ? await findAliasRevision(manager, alias.id, rollout.baseRevision)
                : null;
            const now = clock.now();
            let revision = alias.currentRevision;
            if (rollout.state !== 'Promoted') {
              if (FINISHED.includes(rollout.state)) {
                throw new LunaNexaError(
                  ErrorCode.INVALID_TRANSITION,
                  `rollout ${rollout.id} is ${rollout.state}`,
                );
              }
              revision = alias.currentRevision + 1;
              await manager.query(
                `INSERT INTO alias_revisions (alias_id, revision, model_version_id, model_ref, deployment_id, reason,
                 restored_from, rollout_id, created_by, created_at)
               VALUES ($1, $2, $3, $4, $5, 'promote', NULL, $6, $7, $8)`,
                [
                  alias.id,
                  revision,
                  rollout.modelVersionId,
                  rollout.modelRef,
                  rollout.canaryDeploymentId,
                  rollout.id,
                  input.actor,
                  now,
                ],
              );
              await manager.query(`UPDATE aliases SET current_revision = $2, updated_at = $3 WHERE id = $1`, [
                alias.id,
                revision,
                now,
              ]);
              await setState(manager, rollout, 'Promoted', `promoted by ${input.trigger}`);
            }
            const receipt = await receiptOnce(manager, workflowId, {
              actor: input.actor,
              action: 'rollout.promote',
              step: 'promote',
              evidence: {
                rolloutId: rollout.id,
                alias: alias.name,
                modelRef: rollout.modelRef,
                revision,
                previousRevision: rollout.baseRevision,
                trigger: input.trigger,
              },
              correlationId: input.correlationId,
              occurredAt: now,
            });
            return { receipt, revision, previousDeploymentId: base?.deploymentId ?? null };
          }),
        ),
      );
    },

    /**
     * Ends the rollout without the canary. Before promotion the alias never
     * moved: its revision is the base revision, untouched. After promotion
     * (during the bake) a new revision copying the base revision exactly is
     * made current. Returns the deployment the workflow must stop.
     */
    async rollbackRollout(
      input: RolloutStepInput & {
        readonly outcome: 'RolledBack' | 'Aborted' | 'Failed';
        readonly trigger: 'analysis' | 'operator' | 'insufficient-traffic' | 'canary-not-ready';
        readonly reason: string;
      },
    ): Promise<Receipt & { revision: number; stopDeploymentId: string | null }> {
      return typed(async () =>
        spreadReceipt(
          await receiptedTransaction(db, async (manager) => {
            const workflowId = currentWorkflowId();
            const rollout = await lockedRollout(manager, input.rolloutId);
            const alias = await findAlias(manager, rollout.aliasId, { forUpdate: true });
            if (!alias)
              throw new LunaNexaError(ErrorCode.NOT_FOUND, `alias of rollout ${rollout.id} is gone`);
            const now = clock.now();
            let revision = alias.currentRevision;
            if (rollout.state === 'Promoted' && rollout.baseRevision > 0) {
              const base = await findAliasRevision(manager, alias.id, rollout.baseRevision);
              if (!base)
                throw new LunaNexaError(
                  ErrorCode.INTERNAL,
                  `alias revision ${rollout.baseRevision} is missing`,
                );
              const current = await findAliasRevision(manager, alias.id, alias.currentRevision);
              // Only the rollout whose revision is still current may undo it; a later rollout owns the alias now.
              if (current?.rolloutId !== rollout.id) {
                throw new LunaNexaError(
                  ErrorCode.INVALID_TRANSITION,
                  `alias ${alias.name} moved on to revision ${alias.currentRevision}; roll that back instead`,
                );
              }
              revision = alias.currentRevision + 1;
              await manager.query(
                `INSERT INTO alias_revisions (alias_id, revision, model_version_id, model_ref, deployment_id, reason,
                 restored_from, rollout_id, created_by, created_at)
               VALUES ($1, $2, $3, $4, $5, 'rollback', $6, $7, $8, $9)`,
                [
                  alias.id,
                  revision,
                  base.modelVersionId,
                  base.modelRef,
                  base.deploymentId,
                  base.revision,
                  rollout.id,
                  input.actor,
                  now,
                ],
              );
              await manager.query(`UPDATE aliases SET current_revision = $2, updated_at = $3 WHERE id = $1`, [
                alias.id,
                revision,
                now,
              ]);
              await manager.query(
                `UPDATE rollouts SET state = $2, state_reason = $3, updated_at = $4, finished_at = $4 WHERE id = $1`,
                [rollout.id, input.outcome, input.reason, now],
              );
            } else if (!FINISHED.includes(rollout.state)) {
              await setState(manager, rollout, input.outcome, input.reason);
            }
            const action =
              input.outcome === 'Aborted'
                ? 'rollout.abort'
                : input.outcome === 'Failed'
                  ? 'rollout.fail'
                  : 'rollout.rollback';
            const receipt = await receiptOnce(manager, workflowId, {
              actor: input.actor,
              action,
              step: 'end',
              result: input.outcome === 'Failed' ? 'failed' : 'succeeded',
              evidence: {
                rolloutId: rollout.id,
                alias: alias.name,
                modelRef: rollout.modelRef,
                trigger: input.trigger,
                restoredRevision: rollout.baseRevision,
                revision,
              },
              correlationId: input.correlationId,
              occurredAt: now,
            });
            return { receipt, revision, stopDeploymentId: rollout.canaryDeploymentId };
          }),
        ),
      );
    },

    /** Completes a promoted rollout once its bake period ended (the old stable deployment was told to stop). */
    async finishPromotion(
      input: RolloutStepInput & { readonly stoppedDeploymentId: string | null },
    ): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const rollout = await lockedRollout(manager, input.rolloutId);
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'rollout.complete',
            step: 'complete',
            evidence: {
              rolloutId: rollout.id,
              state: rollout.state,
              retiredDeployment: input.stoppedDeploymentId !== null,
            },
            correlationId: input.correlationId,
            occurredAt: clock.now(),
          });
        }),
      );
    },

    /** The deployment's workflow id, to signal it (stop) from the rollout. */
    async deploymentWorkflowId(input: { readonly deploymentId: string }): Promise<string | null> {
      return typed(async () => (await findDeployment(db, input.deploymentId))?.workflowId ?? null);
    },
  };
}
