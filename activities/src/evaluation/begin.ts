import { ErrorCode, type EvaluateWorkflowInput } from '@lunanexa/contracts';
import { canTransition, modelVersionLifecycle, transition } from '@lunanexa/domain';
import {
  findBenchmarkProfile,
  findDeployment,
  findEvaluationRun,
  findEvaluationSuite,
  findModelVersion,
  insertEvaluationRun,
  lockModelVersionState,
  readyEndpoints,
  writeModelVersionState,
} from '@lunanexa/persistence';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed } from '../fleet-support';
import type { EvaluationActivityPorts } from './support';

export type BeginEvaluationResult =
  | { readonly refused: false; readonly hasProfile: boolean; readonly receiptHash: string }
  | { readonly refused: true; readonly code: string; readonly reason: string; readonly receiptHash: string };

export function createEvaluationBeginActivities({ db, clock }: EvaluationActivityPorts) {
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
          await lockModelVersionState(manager, input.modelVersionId);
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
          await writeModelVersionState(manager, locked.id, {
            state: transition(modelVersionLifecycle, locked.state, 'startEvaluation'),
            reason: null,
            at: now,
          });
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
  };
}
