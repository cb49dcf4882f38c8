import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_ROLLOUT_PLAN,
  DataClassSchema,
  ErrorCode,
  LunaNexaError,
  NameSchema,
  ROLLOUT_QUERIES,
  ROLLOUT_UPDATES,
  RolloutPlanSchema,
  ROLLOUT_STATES,
  WORKFLOW_TYPES,
  isErrorCode,
  type RolloutPlan,
  type RolloutSignal,
  type RolloutSignalAction,
  type RolloutWorkflowInput,
  type RolloutWorkflowStatus,
} from '@lunanexa/contracts';
import {
  deploymentNamesById,
  findAlias,
  findModelVersion,
  findRollout,
  insertAlias,
  listAliasRevisions,
  listAliases,
  listRollouts,
  workflowAuditEvents,
  type AliasRevisionRow,
  type AliasRow,
  type RolloutRow,
} from '@lunanexa/persistence';
import {
  ROLLOUT_BAKE_ACTIONS,
  isRolloutInFlight,
  mayRolloutBake,
  rolloutActionRefusal,
  rolloutActions,
} from '@lunanexa/domain';
import { DataSource } from 'typeorm';
import { AuditWriter, Denied } from '../auth';
import { API_CONFIG, type ApiConfig } from '../config';
import type { Caller } from '../common/caller';
import { validateIdempotencyKey } from '../common/idempotency-key';
import { derivedKey } from '../common/idempotency-keys';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import { RolloutAction, type RolloutActionAvailability } from './rollouts.types';
import type {
  Alias,
  AliasRevision,
  CreateAliasInput,
  Rollout,
  RolloutOperation,
  RolloutReceipt,
  StartRolloutInput,
} from './rollouts.types';

function invalid(path: string, message: string): LunaNexaError {
  return new LunaNexaError(ErrorCode.VALIDATION_FAILED, `${path} ${message}`, [{ path, message }]);
}

const iso = (value: Date | null): string | null => (value === null ? null : value.toISOString());

/** How long startRollout waits for the workflow to get past verification before answering with the state so far. */
const VERIFY_WAIT_MS = 20_000;

/**
 * Aliases and rollouts. A rollout's whole life is its `rolloutWorkflow`; this
 * service validates requests, refuses what cannot start (typed and audited),
 * starts or signals the workflow, and reads PostgreSQL. Policy refusals that
 * the workflow decides (license, evaluation, hardware, digest) come back as
 * the typed error of the refusal the workflow recorded.
 */
@Injectable()
export class RolloutsService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
    private readonly workflows: WorkflowRunner,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  private deploymentNames(ids: readonly string[]): Promise<Map<string, string>> {
    return deploymentNamesById(this.db, ids);
  }

  private revisionView(row: AliasRevisionRow, names: Map<string, string>): AliasRevision {
    return {
      revision: row.revision,
      modelRef: row.modelRef,
      modelVersionId: row.modelVersionId,
      deploymentId: row.deploymentId,
      deploymentName: names.get(row.deploymentId) ?? null,
      reason: row.reason,
      restoredFrom: row.restoredFrom,
      rolloutId: row.rolloutId,
      createdBy: row.createdBy,
      createdAt: row.createdAt.toISOString(),
    };
  }

  private async receipts(workflowId: string): Promise<RolloutReceipt[]> {
    const rows = await workflowAuditEvents(this.db, workflowId, 'rollout.');
    return rows.map((row) => ({
      seq: Number(row.seq),
      action: row.action,
      decision: row.decision,
      result: row.result,
      evidenceJson: JSON.stringify(row.evidence),
      hash: row.hash,
      occurredAt: new Date(row.occurred_at).toISOString(),
      actor: row.actor,
    }));
  }

  private async rolloutView(row: RolloutRow, aliasName?: string): Promise<Rollout> {
    const name = aliasName ?? (await findAlias(this.db, row.aliasId))?.name ?? row.aliasId;
    const active = isRolloutInFlight(row.state);
    return {
      id: row.id,
      alias: name,
      modelRef: row.modelRef,
      baseRevision: row.baseRevision,
      state: row.state,
      stateReason: row.stateReason,
      refusalCode: row.refusalCode,
      steps: [...row.plan.steps],
      currentStep: row.currentStep,
      currentWeight: active && row.currentStep >= 0 ? (row.plan.steps[row.currentStep] ?? 0) : 0,
      analysisWindowSeconds: row.plan.analysisWindowSeconds,
      samplesPerStep: row.plan.samplesPerStep,
      maxWindowsPerStep: row.plan.maxWindowsPerStep,
      bakeSeconds: row.plan.bakeSeconds,
      replicas: row.plan.replicas,
      maxErrorRateIncrease: row.plan.thresholds.maxErrorRateIncrease,
      maxP95LatencyRatio: row.plan.thresholds.maxP95LatencyRatio,
      p95SlackMs: row.plan.thresholds.p95SlackMs,
      maxEvaluationScoreDrop: row.plan.thresholds.maxEvaluationScoreDrop,
      canaryDeploymentId: row.canaryDeploymentId,
      analyses: row.analyses.map((a) => ({
        step: a.step,
        weight: a.weight,
        window: a.window,
        verdict: a.verdict,
        reasons: [...a.reasons],
        canaryRequests: a.canary.requests,
        canaryErrors: a.canary.errors,
        canaryErrorRate: a.canary.errorRate,
        canaryP95Ms: a.canary.p95LatencyMs,
        stableRequests: a.stable?.requests ?? null,
        stableErrorRate: a.stable?.errorRate ?? null,
        stableP95Ms: a.stable?.p95LatencyMs ?? null,
        canaryEvaluationScore: a.canaryEvaluationScore,
        stableEvaluationScore: a.stableEvaluationScore,
      })),
      receipts: await this.receipts(row.workflowId),
      workflowId: row.workflowId,
      temporalUiUrl: this.workflows.link(row.workflowId),
      createdBy: row.createdBy,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
      finishedAt: iso(row.finishedAt),
    };
  }

  private async aliasView(row: AliasRow): Promise<Alias> {
    const revisions = await listAliasRevisions(this.db, row.id);
    const names = await this.deploymentNames(revisions.map((r) => r.deploymentId));
    const views = revisions.map((r) => this.revisionView(r, names));
    const active = row.activeRolloutId ? await findRollout(this.db, row.activeRolloutId) : null;
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      dataClass: row.dataClass,
      currentRevision: row.currentRevision,
      current: views.find((r) => r.revision === row.currentRevision) ?? null,
      canaryWeight: row.canaryWeight,
      canaryDeploymentId: row.canaryDeploymentId,
      activeRollout: active ? await this.rolloutView(active, row.name) : null,
      revisions: views,
      createdBy: row.createdBy,
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  async aliases(): Promise<Alias[]> {
    return Promise.all((await listAliases(this.db)).map((row) => this.aliasView(row)));
  }

  async alias(name: string): Promise<Alias | null> {
    const row = await findAlias(this.db, name);
    return row ? this.aliasView(row) : null;
  }

  async rollouts(aliasName: string | null, limit: number | null): Promise<Rollout[]> {
    let aliasId: string | undefined;
    if (aliasName !== null) {
      const alias = await findAlias(this.db, aliasName);
      if (!alias) return [];
      aliasId = alias.id;
    }
    const rows = await listRollouts(this.db, { aliasId, limit: limit ?? 50 });
    return Promise.all(rows.map((row) => this.rolloutView(row)));
  }

  async rollout(id: string): Promise<Rollout | null> {
    const row = await findRollout(this.db, id);
    return row ? this.rolloutView(row) : null;
  }

  async createAlias(input: CreateAliasInput, caller: Caller): Promise<Alias> {
    if (!NameSchema.safeParse(input.name).success) throw invalid('name', 'must be a lower-case DNS label');
    if (input.name.includes('@')) throw invalid('name', 'must not contain @');
    const dataClass = DataClassSchema.safeParse(input.dataClass);
    if (!dataClass.success)
      throw invalid('dataClass', 'must be public, internal, confidential or restricted');
    const description = input.description ?? null;
    if (description !== null && (description.length < 1 || description.length > 1024)) {
      throw invalid('description', 'must be 1-1024 characters');
    }
    const id = randomUUID();
    await this.audit.change(
      { actor: caller.actor, action: 'alias.create', ids: caller.ids },
      { aliasId: id, name: input.name, dataClass: dataClass.data },
      async (manager) => {
        if (await findAlias(manager, input.name)) {
          throw new Denied(new LunaNexaError(ErrorCode.CONFLICT, `alias ${input.name} already exists`));
        }
        const now = new Date();
        await insertAlias(manager, {
          id,
          name: input.name,
          description,
          dataClass: dataClass.data,
          createdBy: caller.actor,
          createdAt: now,
        });
        return { value: undefined };
      },
    );
    const row = await findAlias(this.db, id);
    if (!row) throw new LunaNexaError(ErrorCode.INTERNAL, 'the alias was not stored');
    return this.aliasView(row);
  }

  private plan(input: StartRolloutInput): RolloutPlan {
    const d = DEFAULT_ROLLOUT_PLAN;
    const parsed = RolloutPlanSchema.safeParse({
      steps: input.steps ?? d.steps,
      analysisWindowSeconds: input.analysisWindowSeconds ?? d.analysisWindowSeconds,
      samplesPerStep: input.samplesPerStep ?? d.samplesPerStep,
      maxWindowsPerStep: input.maxWindowsPerStep ?? d.maxWindowsPerStep,
      bakeSeconds: input.bakeSeconds ?? d.bakeSeconds,
      replicas: input.replicas ?? d.replicas,
      thresholds: {
        maxErrorRateIncrease: input.maxErrorRateIncrease ?? d.thresholds.maxErrorRateIncrease,
        maxP95LatencyRatio: input.maxP95LatencyRatio ?? d.thresholds.maxP95LatencyRatio,
        p95SlackMs: input.p95SlackMs ?? d.thresholds.p95SlackMs,
        maxEvaluationScoreDrop: input.maxEvaluationScoreDrop ?? d.thresholds.maxEvaluationScoreDrop,
      },
    });
    if (!parsed.success) {
      const violations = parsed.error.issues.map((issue) => ({
        path: issue.path.join('.'),
        message: issue.message,
      }));
      throw new LunaNexaError(
        ErrorCode.VALIDATION_FAILED,
        `the rollout plan is invalid: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`,
        violations,
      );
    }
    return parsed.data;
  }

  /**
   * Starts the rollout workflow and answers once it is past verification
   * (or after VERIFY_WAIT_MS with the state so far). A refusal — decided by
   * the workflow from the registry and the artifact store, and audited
   * there — comes back as its typed error; nothing was deployed.
   */
  async startRollout(input: StartRolloutInput, caller: Caller): Promise<RolloutOperation> {
    const plan = this.plan(input);
    const givenKey = input.idempotencyKey ? validateIdempotencyKey(input.idempotencyKey) : null;
    const refuse = async (error: LunaNexaError): Promise<never> => {
      await this.audit.refusal(
        { actor: caller.actor, action: 'rollout.start', ids: caller.ids },
        { alias: input.alias, modelVersion: input.modelVersion, errorCode: error.code },
      );
      throw error;
    };
    const alias = await findAlias(this.db, input.alias);
    if (!alias) return refuse(new LunaNexaError(ErrorCode.NOT_FOUND, `alias ${input.alias} does not exist`));
    const version = await findModelVersion(this.db, input.modelVersion);
    if (!version) {
      return refuse(
        new LunaNexaError(ErrorCode.MODEL_NOT_FOUND, `model version ${input.modelVersion} is not registered`),
      );
    }
    const key = givenKey ?? (await this.derivedStartKey(alias, version.id, plan));
    const rolloutId = `ro-${createHash('sha256').update(`${alias.id}:${key}`).digest('hex').slice(0, 20)}`;
    const existing = await findRollout(this.db, rolloutId);
    if (!existing) {
      if (alias.activeRolloutId !== null) {
        return refuse(
          new LunaNexaError(
            ErrorCode.CONFLICT,
            `alias ${alias.name} already has rollout ${alias.activeRolloutId} in progress; promote, roll back or abort it first`,
          ),
        );
      }
      if (alias.currentRevision > 0) {
        const current = (await listAliasRevisions(this.db, alias.id)).find(
          (r) => r.revision === alias.currentRevision,
        );
        if (current?.modelVersionId === version.id) {
          return refuse(
            new LunaNexaError(
              ErrorCode.CONFLICT,
              `alias ${alias.name} already serves ${version.ref} (revision ${alias.currentRevision})`,
            ),
          );
        }
      }
    }
    const suffix = createHash('sha256').update(`canary:${rolloutId}`).digest('hex');
    const workflowId = `rollout/${rolloutId}`;
    const workflowInput: RolloutWorkflowInput = {
      rolloutId,
      aliasId: alias.id,
      aliasName: alias.name,
      modelVersionId: version.id,
      modelRef: version.ref,
      plan,
      canaryDeploymentId: `dep-${suffix.slice(0, 16)}`,
      canaryDeploymentName: `${alias.name.slice(0, 54).replace(/-+$/, '')}-${suffix.slice(0, 8)}`,
      leaseSeconds: this.config.LUNANEXA_ASSIGNMENT_LEASE_SECONDS,
      actor: caller.actor,
      correlationId: caller.ids.correlationId,
      requestId: caller.ids.requestId,
    };
    // Answers once the workflow is past verification (refused, or deploying its canary), or after
    // VERIFY_WAIT_MS with the state so far: hashing a large artifact can take much longer.
    const started = await this.workflows.startAndAsk<RolloutWorkflowStatus>(
      WORKFLOW_TYPES.rollout,
      ROLLOUT_UPDATES.started,
      {
        workflowId,
        args: [workflowInput],
        correlationId: caller.ids.correlationId,
        actor: caller.actor,
        answerWithinMs: Math.min(this.config.LUNANEXA_WORKFLOW_WAIT_MS, VERIFY_WAIT_MS),
      },
    );
    const refusal = started.answer?.refusal ?? null;
    if (refusal) {
      throw new LunaNexaError(isErrorCode(refusal.code) ? refusal.code : ErrorCode.CONFLICT, refusal.reason);
    }
    const row = await findRollout(this.db, rolloutId);
    if (row?.state === 'Refused') {
      const code =
        row.refusalCode !== null && isErrorCode(row.refusalCode) ? row.refusalCode : ErrorCode.CONFLICT;
      throw new LunaNexaError(code, row.stateReason ?? `rollout ${rolloutId} was refused`);
    }
    if (!row) {
      throw new LunaNexaError(
        ErrorCode.DEPENDENCY_UNAVAILABLE,
        `rollout ${rolloutId} was started but has not recorded itself yet (is a worker running?)`,
      );
    }
    return {
      rollout: await this.rolloutView(row, alias.name),
      workflowId,
      temporalUiUrl: started.ref.temporalUiUrl,
      correlationId: caller.ids.correlationId,
    };
  }

  /** Sends an operator signal (promote, rollback, pause, resume, abort) to a running rollout. */
  async signalRollout(
    id: string,
    action: RolloutAction,
    reason: string | null,
    caller: Caller,
    idempotencyKey: string | null = null,
  ): Promise<Rollout> {
    if (idempotencyKey !== null) validateIdempotencyKey(idempotencyKey);
    if (reason !== null && (reason.length < 1 || reason.length > 1024)) {
      throw invalid('reason', 'must be 1-1024 characters');
    }
    const context = { actor: caller.actor, action: `rollout.${action}`, ids: caller.ids };
    const row = await findRollout(this.db, id);
    if (!row) {
      await this.audit.refusal(context, { rolloutId: id, errorCode: ErrorCode.NOT_FOUND });
      throw new LunaNexaError(ErrorCode.NOT_FOUND, `rollout ${id} does not exist`);
    }
    // A promoted rollout keeps listening for a rollback until its bake period ends.
    const baking =
      mayRolloutBake(row.state) &&
      ROLLOUT_BAKE_ACTIONS.includes(action) &&
      (await this.stillBaking(row.workflowId));
    const refusal = rolloutActionRefusal({ id, state: row.state }, action, baking);
    if (refusal !== null) {
      await this.audit.refusal(context, {
        rolloutId: id,
        state: row.state,
        errorCode: ErrorCode.INVALID_TRANSITION,
      });
      throw new LunaNexaError(ErrorCode.INVALID_TRANSITION, refusal);
    }
    const signal: RolloutSignal = {
      action,
      actor: caller.actor,
      correlationId: caller.ids.correlationId,
      requestId: caller.ids.requestId,
      reason,
    };
    // Answers once the workflow has acted on it (or after its own bounded wait, with the state so far).
    await this.audit.change(context, { rolloutId: id, action, reason }, async () => {
      await this.workflows.ask<RolloutWorkflowStatus>(
        row.workflowId,
        ROLLOUT_UPDATES.operatorAction,
        signal,
        idempotencyKey ?? operatorActionKey(row, action, reason),
      );
      return { value: undefined };
    });
    return this.rolloutView((await findRollout(this.db, row.id)) ?? row);
  }

  /** The signals the console offers for the rollout now; only a Promoted one with a bake period asks its workflow. */
  async actionsOf(
    rollout: Pick<Rollout, 'state' | 'bakeSeconds' | 'workflowId'>,
  ): Promise<RolloutActionAvailability[]> {
    const state = ROLLOUT_STATES.find((known) => known === rollout.state);
    if (state === undefined) {
      throw new LunaNexaError(ErrorCode.INTERNAL, `rollout state ${rollout.state} is not a known state`);
    }
    const baking =
      mayRolloutBake(state) && rollout.bakeSeconds > 0 && (await this.stillBaking(rollout.workflowId));
    return rolloutActions(state, baking).map((availability) => ({
      ...availability,
      action: ROLLOUT_ACTION_ENUM[availability.action],
    }));
  }

  /**
   * Without a key, a start is keyed by its arguments and by the alias's last ended rollout: a retry while the
   * first is still running joins it; once it has ended (promoted, rolled back, refused), the same call starts
   * a new rollout.
   */
  private async derivedStartKey(alias: AliasRow, modelVersionId: string, plan: RolloutPlan): Promise<string> {
    const lastEnded = (await listRollouts(this.db, { aliasId: alias.id, limit: 20 })).find(
      (rollout) => !isRolloutInFlight(rollout.state),
    );
    return derivedKey('rollout.start', alias.id, modelVersionId, JSON.stringify(plan), lastEnded?.id ?? null);
  }

  /** What the workflow says: it is the one that knows whether its bake period is still running. */
  private async stillBaking(workflowId: string): Promise<boolean> {
    try {
      const status = await this.workflows.query<RolloutWorkflowStatus>(workflowId, ROLLOUT_QUERIES.status);
      return status.baking === true;
    } catch (error) {
      // A closed run whose history no worker can read now is certainly not baking any more.
      if (error instanceof LunaNexaError) return false;
      throw error;
    }
  }
}

/**
 * Without a key, an operator action is keyed by what it acts on: a rollout ends or is promoted once, and a
 * pause or resume repeated on an unchanged rollout (same row version) is the same act; after any change it
 * is a new one.
 */
function operatorActionKey(row: RolloutRow, action: RolloutAction, reason: string | null): string {
  const terminal =
    action === RolloutAction.PROMOTE || action === RolloutAction.ROLLBACK || action === RolloutAction.ABORT;
  return terminal
    ? derivedKey(`rollout.${action}`, row.id)
    : derivedKey(`rollout.${action}`, row.id, row.updatedAt.toISOString(), reason);
}

const ROLLOUT_ACTION_ENUM: Readonly<Record<RolloutSignalAction, RolloutAction>> = {
  promote: RolloutAction.PROMOTE,
  rollback: RolloutAction.ROLLBACK,
  pause: RolloutAction.PAUSE,
  resume: RolloutAction.RESUME,
  abort: RolloutAction.ABORT,
};
