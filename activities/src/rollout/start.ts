import { ErrorCode, LunaNexaError, type RolloutPlan } from '@lunanexa/contracts';
import { canTransition, decideDeployPolicy, nextRolloutState, rolloutLifecycle } from '@lunanexa/domain';
import {
  findAlias,
  findModelVersion,
  findRollout,
  insertRolloutClaimingAlias,
  loadDeployPolicyFacts,
  writeRolloutCanaryDeployment,
} from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, spreadReceipt, typed } from '../fleet-support';
import type { Receipt } from '../fleet-support';
import { lockedRollout, moveRollout, type RolloutActivityPorts, type RolloutStepInput } from './support';

/** From the record to the canary's start: record, deploy gate, refusal, canary named. */
export function createRolloutStartActivities({ db, clock }: RolloutActivityPorts) {
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
              await insertRolloutClaimingAlias(manager, {
                id: input.rolloutId,
                aliasId: alias.id,
                modelVersionId: version.id,
                modelRef: version.ref,
                baseRevision: alias.currentRevision,
                plan: input.plan,
                state: rolloutLifecycle.initial,
                workflowId,
                createdBy: input.actor,
                createdAt: now,
              });
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
          // A retry finds the rollout already Refused.
          if (canTransition(rolloutLifecycle, rollout.state, 'refuse')) {
            await moveRollout(manager, rollout, 'refuse', {
              reason: input.reason,
              refusalCode: input.code,
              at: clock.now(),
            });
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
          // A retry finds the rollout already past Verifying.
          if (canTransition(rolloutLifecycle, rollout.state, 'deploy')) {
            await writeRolloutCanaryDeployment(manager, rollout.id, {
              state: nextRolloutState(rollout.state, 'deploy'),
              canaryDeploymentId: input.canaryDeploymentId,
              at: clock.now(),
            });
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
  };
}
