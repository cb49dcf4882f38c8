import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { findAlias, findAliasRevision, makeAliasRevisionCurrent } from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, spreadReceipt, typed } from '../fleet-support';
import type { Receipt } from '../fleet-support';
import { lockedRollout, moveRollout, type RolloutActivityPorts, type RolloutStepInput } from './support';

/** Promotion and, after the bake, its completion. */
export function createRolloutPromoteActivities({ db, clock }: RolloutActivityPorts) {
  return {
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
            // A retry finds the rollout already Promoted; any other state the lifecycle judges.
            if (rollout.state !== 'Promoted') {
              revision = alias.currentRevision + 1;
              // Checked before anything is written: a finished rollout is INVALID_TRANSITION.
              await moveRollout(manager, rollout, 'promote', {
                reason: `promoted by ${input.trigger}`,
                at: now,
              });
              await makeAliasRevisionCurrent(manager, {
                aliasId: alias.id,
                revision,
                modelVersionId: rollout.modelVersionId,
                modelRef: rollout.modelRef,
                deploymentId: rollout.canaryDeploymentId,
                reason: 'promote',
                restoredFrom: null,
                rolloutId: rollout.id,
                createdBy: input.actor,
                createdAt: now,
              });
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
  };
}
