import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import Ajv from 'ajv';
import {
  DEFAULT_BENCHMARK_REQUEST_TIMEOUT_SECONDS,
  DEFAULT_CASE_TIMEOUT_SECONDS,
  DEFAULT_REGRESSION_THRESHOLDS,
  DEFAULT_SUITE_CONCURRENCY,
  ErrorCode,
  checkBenchmarkProfileInput,
  checkEvaluationSuiteInput,
  LunaNexaError,
  EVALUATION_UPDATES,
  WORKFLOW_TYPES,
  canonicalJson,
  type BenchmarkProfileDefinition,
  type EvaluateWorkflowInput,
  type EvaluationSuiteDefinition,
  type FieldViolation,
  type RegressionThresholds,
} from '@lunanexa/contracts';
import { canTransition, findRegressions, modelVersionLifecycle, type ComparableRun } from '@lunanexa/domain';
import {
  findBenchmarkProfile,
  findDeployment,
  findEvaluationRun,
  findEvaluationSuite,
  findModelVersion,
  insertBenchmarkProfile,
  insertEvaluationSuite,
  latestFinishedRunsOnProfile,
  listBenchmarkProfiles,
  listEvaluationRuns,
  listEvaluationSuites,
  readyEndpoints,
  type BenchmarkProfileRow,
  type EvaluationRunRow,
  type EvaluationSuiteRow,
} from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { AuditWriter, Denied } from '../auth';
import type { Caller } from '../common/caller';
import { validateIdempotencyKey } from '../common/idempotency-key';
import { derivedKey } from '../common/idempotency-keys';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import {
  GraderKind,
  type BenchmarkComparison,
  type BenchmarkComparisonEntry,
  type BenchmarkProfile,
  type BenchmarkRegressionThresholdsInput,
  type CreateBenchmarkProfileInput,
  type CreateEvaluationSuiteInput,
  type EvaluationOperation,
  type EvaluationRun,
  type EvaluationSuite,
  type StartEvaluationInput,
} from './evaluation.types';

const MAX_COMPARED_VERSIONS = 20;

function validationError(what: string, violations: readonly FieldViolation[]): LunaNexaError {
  return new LunaNexaError(
    ErrorCode.VALIDATION_FAILED,
    `${what} is invalid: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`,
    violations,
  );
}

const digestOf = (definition: unknown): string =>
  `sha256:${createHash('sha256').update(canonicalJson(definition)).digest('hex')}`;

/** Same options as the worker's grader: draft-07, ajv's default strict mode (unknown keywords and formats refused). */
function schemaProblem(schema: Record<string, unknown>): string | null {
  try {
    new Ajv({ allErrors: false }).compile(schema);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message.slice(0, 300) : 'is not a valid JSON Schema';
  }
}

/**
 * Evaluation suites, benchmark profiles and runs. Suites and profiles are
 * validated here (zod contracts; JSON Schemas compiled with ajv) and stored
 * immutably; a run's whole life is its `evaluateWorkflow`, which this
 * service starts after refusing (typed and audited) what cannot start.
 */
@Injectable()
export class EvaluationService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
    private readonly workflows: WorkflowRunner,
  ) {}

  // ---- views ----

  private suiteView(row: EvaluationSuiteRow): EvaluationSuite {
    const d = row.definition;
    return {
      id: row.id,
      name: row.name,
      description: d.description ?? null,
      passThreshold: d.passThreshold,
      caseTimeoutSeconds: d.caseTimeoutSeconds ?? DEFAULT_CASE_TIMEOUT_SECONDS,
      concurrency: d.concurrency ?? DEFAULT_SUITE_CONCURRENCY,
      caseCount: d.cases.length,
      cases: d.cases.map((c) => ({
        id: c.id,
        prompt: c.prompt ?? null,
        messages: c.messages ? c.messages.map((m) => ({ role: m.role, content: m.content })) : null,
        maxTokens: c.maxTokens,
        seed: c.seed ?? 0,
        grader: {
          kind: c.grader.kind as GraderKind,
          expected: c.grader.kind === 'exact' ? c.grader.expected : null,
          substring: c.grader.kind === 'contains' ? c.grader.substring : null,
          pattern: c.grader.kind === 'regex' ? c.grader.pattern : null,
          flags: c.grader.kind === 'regex' ? (c.grader.flags ?? null) : null,
          ignoreCase:
            c.grader.kind === 'exact' || c.grader.kind === 'contains' ? (c.grader.ignoreCase ?? null) : null,
          trim: c.grader.kind === 'exact' ? (c.grader.trim ?? null) : null,
          schemaJson: c.grader.kind === 'json-schema' ? JSON.stringify(c.grader.schema) : null,
        },
      })),
      digest: row.digest,
      definitionJson: JSON.stringify(d),
      createdBy: row.createdBy,
      createdAt: row.createdAt.toISOString(),
    };
  }

  private profileView(row: BenchmarkProfileRow): BenchmarkProfile {
    const d = row.definition;
    return {
      id: row.id,
      name: row.name,
      description: d.description ?? null,
      concurrency: d.concurrency,
      inputTokens: d.inputTokens,
      outputTokens: d.outputTokens,
      durationSeconds: d.durationSeconds ?? null,
      requestCount: d.requestCount ?? null,
      requestTimeoutSeconds: d.requestTimeoutSeconds ?? DEFAULT_BENCHMARK_REQUEST_TIMEOUT_SECONDS,
      maxErrorRate: d.slo?.maxErrorRate ?? null,
      maxTtftP95Ms: d.slo?.maxTtftP95Ms ?? null,
      minTokensPerSecond: d.slo?.minTokensPerSecond ?? null,
      digest: row.digest,
      definitionJson: JSON.stringify(d),
      createdBy: row.createdBy,
      createdAt: row.createdAt.toISOString(),
    };
  }

  private runView(row: EvaluationRunRow): EvaluationRun {
    return {
      id: row.id,
      modelVersionId: row.modelVersionId,
      modelRef: row.modelRef,
      deploymentId: row.deploymentId,
      suite: row.suiteName,
      suiteDigest: row.suiteDigest,
      profile: row.profileName,
      profileDigest: row.profileDigest,
      state: row.state,
      passed: row.passed,
      reasons: [...row.reasons],
      errorCode: row.errorCode,
      scores: row.scores
        ? { ...row.scores, cases: row.scores.cases.map((c) => ({ ...c, grader: c.grader as GraderKind })) }
        : null,
      metrics: row.metrics,
      workflowId: row.workflowId,
      temporalUiUrl: this.workflows.link(row.workflowId),
      createdBy: row.createdBy,
      createdAt: row.createdAt.toISOString(),
      finishedAt: row.finishedAt ? row.finishedAt.toISOString() : null,
    };
  }

  // ---- reads ----

  async suites(): Promise<EvaluationSuite[]> {
    return (await listEvaluationSuites(this.db)).map((row) => this.suiteView(row));
  }

  async profiles(): Promise<BenchmarkProfile[]> {
    return (await listBenchmarkProfiles(this.db)).map((row) => this.profileView(row));
  }

  async runs(
    modelVersion: string | null,
    profile: string | null,
    limit: number | null,
  ): Promise<EvaluationRun[]> {
    if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > 500)) {
      throw validationError('the query', [{ path: 'limit', message: 'must be 1-500' }]);
    }
    let modelVersionId: string | undefined;
    let profileId: string | undefined;
    if (modelVersion !== null) {
      const version = await findModelVersion(this.db, modelVersion);
      if (!version) return [];
      modelVersionId = version.id;
    }
    if (profile !== null) {
      const row = await findBenchmarkProfile(this.db, profile);
      if (!row) return [];
      profileId = row.id;
    }
    const rows = await listEvaluationRuns(this.db, { modelVersionId, profileId, limit: limit ?? 50 });
    return rows.map((row) => this.runView(row));
  }

  async run(id: string): Promise<EvaluationRun | null> {
    const row = await findEvaluationRun(this.db, id);
    return row ? this.runView(row) : null;
  }

  // ---- suites and profiles ----

  /** The input as a contracts definition, or VALIDATION_FAILED naming every bad field. */
  suiteDefinition(input: CreateEvaluationSuiteInput): EvaluationSuiteDefinition {
    const checked = checkEvaluationSuiteInput(input, { schemaProblem });
    if (checked.record === null) throw validationError('the evaluation suite', checked.violations);
    return checked.record;
  }

  profileDefinition(input: CreateBenchmarkProfileInput): BenchmarkProfileDefinition {
    const checked = checkBenchmarkProfileInput(input);
    if (checked.record === null) throw validationError('the benchmark profile', checked.violations);
    return checked.record;
  }

  /**
   * Stores a suite. The same name with the same definition returns the
   * stored one (a repeated request); a different definition under an
   * existing name is a CONFLICT — suites do not change, so results stay
   * comparable.
   */
  async createSuite(input: CreateEvaluationSuiteInput, caller: Caller): Promise<EvaluationSuite> {
    const context = { actor: caller.actor, action: 'evaluation-suite.create', ids: caller.ids };
    let definition: EvaluationSuiteDefinition;
    try {
      definition = this.suiteDefinition(input);
    } catch (error) {
      await this.audit.refusal(context, {
        name: String(input.name).slice(0, 64),
        errorCode: ErrorCode.VALIDATION_FAILED,
      });
      throw error;
    }
    const digest = digestOf(definition);
    const existing = await findEvaluationSuite(this.db, definition.name);
    if (existing?.digest === digest) return this.suiteView(existing);
    const row = await this.audit.change(
      context,
      { name: definition.name, digest, cases: definition.cases.length },
      async (manager) => {
        const stored = await insertEvaluationSuite(manager, {
          id: randomUUID(),
          name: definition.name,
          definition,
          digest,
          createdBy: caller.actor,
          createdAt: new Date(),
        });
        if (!stored.created) {
          throw new Denied(
            new LunaNexaError(
              ErrorCode.CONFLICT,
              `evaluation suite ${definition.name} exists with another definition; suites are immutable, use a new name`,
            ),
          );
        }
        return { value: stored.row, evidence: { suiteId: stored.row.id } };
      },
    );
    return this.suiteView(row);
  }

  async createProfile(input: CreateBenchmarkProfileInput, caller: Caller): Promise<BenchmarkProfile> {
    const context = { actor: caller.actor, action: 'benchmark-profile.create', ids: caller.ids };
    let definition: BenchmarkProfileDefinition;
    try {
      definition = this.profileDefinition(input);
    } catch (error) {
      await this.audit.refusal(context, {
        name: String(input.name).slice(0, 64),
        errorCode: ErrorCode.VALIDATION_FAILED,
      });
      throw error;
    }
    const digest = digestOf(definition);
    const existing = await findBenchmarkProfile(this.db, definition.name);
    if (existing?.digest === digest) return this.profileView(existing);
    const row = await this.audit.change(context, { name: definition.name, digest }, async (manager) => {
      const stored = await insertBenchmarkProfile(manager, {
        id: randomUUID(),
        name: definition.name,
        definition,
        digest,
        createdBy: caller.actor,
        createdAt: new Date(),
      });
      if (!stored.created) {
        throw new Denied(
          new LunaNexaError(
            ErrorCode.CONFLICT,
            `benchmark profile ${definition.name} exists with another definition; profiles are immutable, use a new name`,
          ),
        );
      }
      return { value: stored.row, evidence: { profileId: stored.row.id } };
    });
    return this.profileView(row);
  }

  // ---- runs ----

  /**
   * Starts the Evaluate workflow. What can be checked now is refused now,
   * typed and audited, with nothing started: unknown version, deployment,
   * suite or profile; a deployment of another version; a version that may
   * not be evaluated from its state; no Ready replica. The workflow checks
   * again under locks (and records a refusal receipt if something changed
   * in between). The same idempotency key returns the same run.
   */
  async startEvaluation(input: StartEvaluationInput, caller: Caller): Promise<EvaluationOperation> {
    const givenKey = input.idempotencyKey ? validateIdempotencyKey(input.idempotencyKey) : null;
    const context = { actor: caller.actor, action: 'evaluation.start', ids: caller.ids };
    const evidence: Record<string, unknown> = {
      modelVersion: input.modelVersion,
      deployment: input.deployment,
      suite: input.suite,
      profile: input.profile ?? null,
    };
    const refuse = async (error: LunaNexaError): Promise<never> => {
      await this.audit.refusal(context, { ...evidence, errorCode: error.code, reason: error.message });
      throw error;
    };
    const version = await findModelVersion(this.db, input.modelVersion);
    if (!version) {
      return refuse(
        new LunaNexaError(ErrorCode.MODEL_NOT_FOUND, `model version ${input.modelVersion} is not registered`),
      );
    }
    const deployment = await findDeployment(this.db, input.deployment);
    if (!deployment)
      return refuse(new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${input.deployment} does not exist`));
    const suite = await findEvaluationSuite(this.db, input.suite);
    if (!suite)
      return refuse(new LunaNexaError(ErrorCode.NOT_FOUND, `evaluation suite ${input.suite} does not exist`));
    const profileRef = input.profile ?? null;
    const profile = profileRef === null ? null : await findBenchmarkProfile(this.db, profileRef);
    if (profileRef !== null && !profile) {
      return refuse(new LunaNexaError(ErrorCode.NOT_FOUND, `benchmark profile ${profileRef} does not exist`));
    }
    // Without a key: the arguments, the deployment as it is now and the version's last ended run. A retry while
    // the first run goes on joins it; once it has ended, or the deployment changed, the same call is a new run.
    const lastEnded = (await listEvaluationRuns(this.db, { modelVersionId: version.id, limit: 20 })).find(
      (run) => run.state !== 'Running',
    );
    const key =
      givenKey ??
      derivedKey(
        'evaluation.start',
        version.id,
        deployment.id,
        deployment.updatedAt.toISOString(),
        suite.id,
        profile?.id ?? null,
        lastEnded?.id ?? null,
      );
    const runId = `ev-${createHash('sha256').update(`${version.id}:${key}`).digest('hex').slice(0, 20)}`;
    const workflowId = `evaluate/${runId}`;
    const existing = await findEvaluationRun(this.db, runId);
    if (existing) {
      if (
        existing.deploymentId !== deployment.id ||
        existing.suiteId !== suite.id ||
        existing.profileId !== (profile?.id ?? null)
      ) {
        return refuse(
          new LunaNexaError(
            ErrorCode.IDEMPOTENCY_KEY_REUSED,
            `idempotency key ${key} already started run ${runId} with other arguments`,
          ),
        );
      }
      return {
        runId,
        run: this.runView(existing),
        workflowId,
        temporalUiUrl: this.workflows.link(workflowId),
        correlationId: caller.ids.correlationId,
      };
    }
    if (deployment.modelVersionId !== version.id) {
      return refuse(
        new LunaNexaError(
          ErrorCode.CONFLICT,
          `deployment ${deployment.name} serves ${deployment.modelRef}, not ${version.ref}`,
        ),
      );
    }
    if (!canTransition(modelVersionLifecycle, version.state, 'startEvaluation')) {
      return refuse(
        new LunaNexaError(
          ErrorCode.INVALID_TRANSITION,
          `${version.ref} is ${version.state}; only Verified, Evaluated or EvaluationFailed versions are evaluated`,
        ),
      );
    }
    if ((await readyEndpoints(this.db, deployment.id)).length === 0) {
      return refuse(
        new LunaNexaError(
          ErrorCode.NO_CAPACITY,
          `deployment ${deployment.name} has no Ready replica to evaluate`,
        ),
      );
    }
    const workflowInput: EvaluateWorkflowInput = {
      runId,
      modelVersionId: version.id,
      deploymentId: deployment.id,
      suiteId: suite.id,
      profileId: profile?.id ?? null,
      actor: caller.actor,
      correlationId: caller.ids.correlationId,
      requestId: caller.ids.requestId,
    };
    // Answers once the run is recorded; a refusal (decided and audited by the workflow) fails with its code.
    const started = await this.workflows.startAndAsk<{ runId: string }>(
      WORKFLOW_TYPES.evaluate,
      EVALUATION_UPDATES.begun,
      { workflowId, args: [workflowInput], correlationId: caller.ids.correlationId, actor: caller.actor },
    );
    const run = await findEvaluationRun(this.db, runId);
    return {
      runId,
      run: run ? this.runView(run) : null,
      workflowId,
      temporalUiUrl: started.ref.temporalUiUrl,
      correlationId: caller.ids.correlationId,
    };
  }

  // ---- comparison ----

  private thresholds(input: BenchmarkRegressionThresholdsInput | null): RegressionThresholds {
    const d = DEFAULT_REGRESSION_THRESHOLDS;
    const out: RegressionThresholds = {
      maxTtftP95Increase: input?.maxTtftP95Increase ?? d.maxTtftP95Increase,
      ttftSlackMs: input?.ttftSlackMs ?? d.ttftSlackMs,
      maxTokensPerSecondDrop: input?.maxTokensPerSecondDrop ?? d.maxTokensPerSecondDrop,
      maxErrorRateIncrease: input?.maxErrorRateIncrease ?? d.maxErrorRateIncrease,
      maxPassRateDrop: input?.maxPassRateDrop ?? d.maxPassRateDrop,
    };
    const violations: FieldViolation[] = [];
    const bounds: [keyof RegressionThresholds, number, number][] = [
      ['maxTtftP95Increase', 0, 100],
      ['ttftSlackMs', 0, 600_000],
      ['maxTokensPerSecondDrop', 0, 1],
      ['maxErrorRateIncrease', 0, 1],
      ['maxPassRateDrop', 0, 1],
    ];
    for (const [name, min, max] of bounds) {
      const value = out[name];
      if (!Number.isFinite(value) || value < min || value > max) {
        violations.push({ path: `thresholds.${name}`, message: `must be ${min}-${max}` });
      }
    }
    if (violations.length > 0) throw validationError('the thresholds', violations);
    return out;
  }

  /**
   * Lines up the latest finished run of each version on one profile and
   * flags regressions against the baseline (the first version unless
   * named). Same profile id means the same load: profiles are immutable.
   * Pass rates are compared only between runs of the same suite.
   */
  async compare(
    profileRef: string,
    modelVersions: readonly string[],
    baselineRef: string | null,
    thresholdsInput: BenchmarkRegressionThresholdsInput | null,
  ): Promise<BenchmarkComparison> {
    if (modelVersions.length < 1 || modelVersions.length > MAX_COMPARED_VERSIONS) {
      throw validationError('the comparison', [
        { path: 'modelVersions', message: `must name 1-${MAX_COMPARED_VERSIONS} versions` },
      ]);
    }
    const thresholds = this.thresholds(thresholdsInput);
    const profile = await findBenchmarkProfile(this.db, profileRef);
    if (!profile)
      throw new LunaNexaError(ErrorCode.NOT_FOUND, `benchmark profile ${profileRef} does not exist`);
    const versions = [];
    for (const ref of modelVersions) {
      const version = await findModelVersion(this.db, ref);
      if (!version)
        throw new LunaNexaError(ErrorCode.MODEL_NOT_FOUND, `model version ${ref} is not registered`);
      versions.push(version);
    }
    const baselineVersion =
      baselineRef === null
        ? versions[0]
        : versions.find((v) => v.ref === baselineRef || v.id === baselineRef);
    if (!baselineVersion) {
      throw validationError('the comparison', [
        { path: 'baseline', message: 'must be one of modelVersions' },
      ]);
    }
    const runs = await latestFinishedRunsOnProfile(
      this.db,
      profile.id,
      versions.map((v) => v.id),
    );
    const runOf = new Map(runs.map((run) => [run.modelVersionId, run]));
    const figures = (run: EvaluationRunRow | undefined): ComparableRun => ({
      passRate: run?.scores?.passRate ?? null,
      ttftP95Ms: run?.metrics?.ttftMs?.p95 ?? null,
      tokensPerSecond: run?.metrics?.tokensPerSecond ?? null,
      errorRate: run?.metrics?.errorRate ?? null,
    });
    const baselineRun = runOf.get(baselineVersion.id);
    const entries: BenchmarkComparisonEntry[] = versions.map((version) => {
      const run = runOf.get(version.id);
      const isBaseline = version.id === baselineVersion.id;
      const sameSuite =
        run !== undefined && baselineRun !== undefined && run.suiteDigest === baselineRun.suiteDigest;
      const candidate = figures(run);
      const regressions =
        isBaseline || !run || !baselineRun
          ? []
          : findRegressions(
              figures(baselineRun),
              sameSuite ? candidate : { ...candidate, passRate: null },
              thresholds,
            );
      return {
        modelRef: version.ref,
        modelVersionId: version.id,
        baseline: isBaseline,
        run: run ? this.runView(run) : null,
        passRate: candidate.passRate,
        ttftP50Ms: run?.metrics?.ttftMs?.p50 ?? null,
        ttftP95Ms: candidate.ttftP95Ms,
        ttftP99Ms: run?.metrics?.ttftMs?.p99 ?? null,
        tokensPerSecond: candidate.tokensPerSecond,
        errorRate: candidate.errorRate,
        sameSuiteAsBaseline: isBaseline || sameSuite,
        regressions: regressions.map((r) => ({ ...r })),
        regressed: regressions.length > 0,
      };
    });
    return {
      profile: profile.name,
      profileDigest: profile.digest,
      baseline: baselineVersion.ref,
      thresholds,
      entries,
      regressed: entries.some((e) => e.regressed),
    };
  }
}
