import { Injectable } from '@nestjs/common';
import {
  canonicalJson,
  ErrorCode,
  LunaNexaError,
  WORKFLOW_TYPES,
  type FieldViolation,
  type HealingActionRecord,
  type HealingRuleSettings,
  type HealingWorkflowInput,
  type HealingWorkflowResult,
} from '@lunanexa/contracts';
import { healingRulesFromEnv, healingRuleViolations, healingWorkflowId, planHealing } from '@lunanexa/domain';
import { ConfigError } from '@lunanexa/observability';
import { loadHealingView } from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { AuditWriter } from '../auth';
import type { Caller } from '../common/caller';
import { validateIdempotencyKey } from '../common/idempotency-key';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import type {
  HealInput,
  HealingActionView,
  HealingPlanView,
  HealingRulesInput,
  HealingRun,
} from './healing.types';

function actionView(
  action: HealingActionRecord,
  outcome: string | null,
  receiptHash: string | null,
): HealingActionView {
  return {
    rule: action.rule,
    kind: action.kind,
    target: action.target,
    nodeId: action.nodeId,
    deploymentId: action.deploymentId,
    reason: action.reason,
    evidenceJson: canonicalJson(action.evidence),
    outcome,
    receiptHash,
  };
}

/**
 * Healing for operators and automation: the dry run loads the same view and
 * calls the same decision as the Healing workflow (libs/persistence
 * loadHealingView, libs/domain planHealing) and writes nothing; a real run
 * starts the Healing workflow, which applies the actions and receipts each.
 * Rule settings come from LUNANEXA_HEAL_* (read once, at boot), overridable
 * per request.
 */
@Injectable()
export class HealingService {
  private readonly configured: HealingRuleSettings;

  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
    private readonly workflows: WorkflowRunner,
  ) {
    const { settings, problems } = healingRulesFromEnv(process.env);
    if (problems.length > 0) throw new ConfigError('lunanexa-api', problems);
    this.configured = settings;
  }

  /** The configured settings with the request's overrides; every bad field named (VALIDATION_FAILED). */
  private rules(input: HealingRulesInput | null | undefined): HealingRuleSettings {
    const merged: Record<string, number> = { ...this.configured };
    for (const [name, value] of Object.entries(input ?? {})) {
      if (value !== null && value !== undefined && name in merged) merged[name] = value as number;
    }
    const settings = merged as unknown as HealingRuleSettings;
    const violations: FieldViolation[] = healingRuleViolations(settings).map((message) => ({
      path: `rules.${message.split(' ')[0] ?? ''}`,
      message,
    }));
    if (violations.length > 0)
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, 'invalid healing rules', violations);
    return settings;
  }

  /** What the rules would do now. Reads only. */
  async plan(rulesInput: HealingRulesInput | null | undefined): Promise<HealingPlanView> {
    const rules = this.rules(rulesInput);
    const now = new Date();
    const view = await loadHealingView(
      this.db,
      new Date(now.getTime() - rules.nodeCrashWindowSeconds * 1000),
    );
    const plan = planHealing(view, now, rules);
    return {
      dryRun: true,
      rules,
      actions: plan.actions.map((action) => actionView(action, null, null)),
      skipped: plan.skipped,
    };
  }

  async heal(input: HealInput, caller: Caller): Promise<HealingRun> {
    let rules: HealingRuleSettings;
    let key: string;
    try {
      rules = this.rules(input.rules);
      key = validateIdempotencyKey(input.idempotencyKey);
    } catch (error) {
      if (!input.dryRun && error instanceof LunaNexaError) {
        await this.audit.refusal(
          { actor: caller.actor, action: 'healing.run', ids: caller.ids },
          { errorCode: error.code, violations: error.violations ?? [] },
        );
      }
      throw error;
    }
    if (input.dryRun) {
      return {
        workflowId: '',
        temporalUiUrl: '',
        correlationId: caller.ids.correlationId,
        plan: await this.plan(rules),
      };
    }
    const workflowId = healingWorkflowId(key);
    const workflowInput: HealingWorkflowInput = {
      settings: rules,
      actor: caller.actor,
      correlationId: caller.ids.correlationId,
      requestId: caller.ids.requestId,
    };
    const started = await this.workflows.start(WORKFLOW_TYPES.healing, {
      workflowId,
      args: [workflowInput],
      correlationId: caller.ids.correlationId,
      actor: caller.actor,
    });
    const result = await this.workflows.result<HealingWorkflowResult>(workflowId);
    return {
      workflowId,
      temporalUiUrl: started.temporalUiUrl,
      correlationId: caller.ids.correlationId,
      plan: {
        dryRun: false,
        rules,
        actions: result.actions.map((action) => actionView(action, action.outcome, action.receiptHash)),
        skipped: [...result.skipped],
      },
    };
  }
}
