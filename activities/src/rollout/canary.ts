import { ErrorCode, LunaNexaError } from '@lunanexa/contracts';
import { isRolloutInFlight, nextRolloutState } from '@lunanexa/domain';
import { findDeployment, startRolloutStep } from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, spreadReceipt, typed } from '../fleet-support';
import type { Receipt } from '../fleet-support';
import { lockedRollout, moveRollout, type RolloutActivityPorts, type RolloutStepInput } from './support';

/** The canary while it runs: its steps' weights, operator pause and resume, and the deployment to signal. */
export function createRolloutCanaryActivities({ db, clock }: RolloutActivityPorts) {
  return {
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
            if (rollout.currentStep !== input.step && isRolloutInFlight(rollout.state)) {
              await startRolloutStep(manager, rollout, {
                state: nextRolloutState(rollout.state, 'step'),
                index: input.step,
                weight,
                at: now,
              });
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

    /** Pause or resume: the state the console shows, and a receipt per operator action. */
    async setRolloutPaused(
      input: RolloutStepInput & { readonly paused: boolean; readonly sequence: number },
    ): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const rollout = await lockedRollout(manager, input.rolloutId);
          // A retry finds the move already made: a paused rollout Paused, a resumed one anything else.
          const alreadyMoved = input.paused === (rollout.state === 'Paused');
          if (isRolloutInFlight(rollout.state) && !alreadyMoved) {
            await moveRollout(manager, rollout, input.paused ? 'pause' : 'resume', {
              reason: input.paused ? `paused by ${input.actor}` : null,
              at: clock.now(),
            });
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

    /** The deployment's workflow id, to signal it (stop) from the rollout. */
    async deploymentWorkflowId(input: { readonly deploymentId: string }): Promise<string | null> {
      return typed(async () => (await findDeployment(db, input.deploymentId))?.workflowId ?? null);
    },
  };
}
