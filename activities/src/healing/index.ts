import {
  cordonNodeForHealing,
  loadHealingView,
  markReplicaHealed,
  pruneRuntimeCrashes,
} from '@lunanexa/persistence';
import { healingRuleViolations, planHealing } from '@lunanexa/domain';
import {
  ErrorCode,
  LunaNexaError,
  type HealingActionRecord,
  type HealingRuleSettings,
  type HealingSkipRecord,
} from '@lunanexa/contracts';
import type { DataSource } from 'typeorm';
import type { Clock } from '../clock';
import { currentWorkflowId, receiptedTransaction, receiptOnce, typed, type Receipt } from '../fleet-support';

export interface HealingActivityPorts {
  readonly db: DataSource;
  readonly clock: Clock;
}

/** Crash rows are kept this long (beyond any window the rules accept, which is at most 7 days). */
const CRASH_RETENTION_MS = 8 * 24 * 3600 * 1000;

/**
 * Healing's steps: load the view, call libs/domain planHealing, write each
 * action with its receipt in one transaction. Idempotent by the healing
 * pass's workflow id and the (rule, target) step, so a retried step writes
 * nothing twice.
 */
export function createHealingActivities({ db, clock }: HealingActivityPorts) {
  return {
    /** One pass of the rules over what the heartbeats reported; changes nothing but old crash rows. */
    async planHealingPass(input: {
      readonly settings: HealingRuleSettings;
    }): Promise<{ actions: HealingActionRecord[]; skipped: HealingSkipRecord[] }> {
      return typed(async () => {
        const violations = healingRuleViolations(input.settings);
        if (violations.length > 0)
          throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, violations.join('; '));
        const now = clock.now();
        await pruneRuntimeCrashes(db, new Date(now.getTime() - CRASH_RETENTION_MS));
        const view = await loadHealingView(
          db,
          new Date(now.getTime() - input.settings.nodeCrashWindowSeconds * 1000),
        );
        const plan = planHealing(view, now, input.settings);
        return { actions: plan.actions, skipped: plan.skipped };
      });
    },

    /**
     * Records one action healing took, with its receipt (`healing.action`:
     * rule, target, reason, evidence, outcome, workflow id). A cordon is
     * applied here (the operator's cordon: no new placements, with its own
     * `node.cordon` receipt); restarts and re-placements were handed to the
     * deployment's workflow by signal, and the replica's cooldown starts.
     */
    async recordHealingAction(input: {
      readonly action: HealingActionRecord;
      readonly outcome: string;
      readonly actor: string;
      readonly correlationId: string;
    }): Promise<Receipt> {
      return typed(() =>
        receiptedTransaction(db, async (manager) => {
          const workflowId = currentWorkflowId();
          const now = clock.now();
          const { action } = input;
          let outcome = input.outcome;
          if (action.kind === 'CordonNode') {
            const changed = await cordonNodeForHealing(manager, action.nodeId, now);
            if (!changed && outcome === 'applied') outcome = 'already cordoned';
            await receiptOnce(manager, workflowId, {
              actor: input.actor,
              action: 'node.cordon',
              step: `healing-${action.nodeId}`,
              evidence: { nodeId: action.nodeId, rule: action.rule, reason: action.reason },
              correlationId: input.correlationId,
              occurredAt: now,
            });
          } else if (outcome === 'applied') {
            await markReplicaHealed(manager, action.target, now);
          }
          return receiptOnce(manager, workflowId, {
            actor: input.actor,
            action: 'healing.action',
            step: `${action.rule}/${action.target}`,
            evidence: {
              rule: action.rule,
              kind: action.kind,
              target: action.target,
              nodeId: action.nodeId,
              deploymentId: action.deploymentId,
              reason: action.reason,
              evidence: action.evidence,
              outcome,
            },
            correlationId: input.correlationId,
            result: outcome === 'applied' || outcome === 'already cordoned' ? 'succeeded' : 'failed',
            occurredAt: now,
          });
        }),
      );
    },
  };
}

export type HealingActivities = ReturnType<typeof createHealingActivities>;
