import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { isRolloutInFlight, rolloutEndEvent, type RolloutEndOutcome } from '@lunanexa/domain';
import { findAlias, findAliasRevision, makeAliasRevisionCurrent } from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, spreadReceipt, typed } from '../fleet-support';
import type { Receipt } from '../fleet-support';
import { lockedRollout, moveRollout, type RolloutActivityPorts, type RolloutStepInput } from './support';

const END_ACTION: Readonly<Record<RolloutEndOutcome, string>> = {
  RolledBack: 'rollout.rollback',
  Aborted: 'rollout.abort',
  Failed: 'rollout.fail',
};

export function createRolloutRollbackActivities({ db, clock }: RolloutActivityPorts) {
  return {
    /**
     * Ends the rollout without the canary. Before promotion the alias never
     * moved: its revision is the base revision, untouched. After promotion
     * (during the bake) a new revision copying the base revision exactly is
     * made current. Returns the deployment the workflow must stop.
     */
    async rollbackRollout(
      input: RolloutStepInput & {
        readonly outcome: RolloutEndOutcome;
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
            const event = rolloutEndEvent(input.outcome);
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
              await moveRollout(manager, rollout, event, { reason: input.reason, at: now });
              await makeAliasRevisionCurrent(manager, {
                aliasId: alias.id,
                revision,
                modelVersionId: base.modelVersionId,
                modelRef: base.modelRef,
                deploymentId: base.deploymentId,
                reason: 'rollback',
                restoredFrom: base.revision,
                rolloutId: rollout.id,
                createdBy: input.actor,
                createdAt: now,
              });
            } else if (isRolloutInFlight(rollout.state)) {
              await moveRollout(manager, rollout, event, { reason: input.reason, at: now });
            }
            const receipt = await receiptOnce(manager, workflowId, {
              actor: input.actor,
              action: END_ACTION[input.outcome],
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
  };
}
