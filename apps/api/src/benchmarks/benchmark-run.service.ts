import { createHash, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  BENCHMARK_KINDS,
  BenchmarkRunPlanSchema,
  ErrorCode,
  LunaNexaError,
  WORKFLOW_TYPES,
  canonicalJson,
  type BenchmarkRunPlan,
  type BenchmarkRunWorkflowInput,
  type FieldViolation,
} from '@lunanexa/contracts';
import { capacityRecommendation } from '@lunanexa/domain';
import {
  findAlias,
  findBenchmarkProfile,
  findBenchmarkRun,
  findDeployment,
  finishBenchmarkRun,
  insertBenchmarkRun,
  latestSaturationRun,
  listBenchmarkRuns,
  peakRequestBucket,
  readyEndpoints,
  routableAliasRows,
  type BenchmarkRunRow,
} from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { AuditWriter } from '../auth';
import { API_CONFIG, type ApiConfig } from '../config';
import type { Caller } from '../common/caller';
import { validateIdempotencyKey } from '../common/idempotency-key';
import { derivedKey } from '../common/idempotency-keys';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import type {
  BenchmarkRun,
  BenchmarkRunOperation,
  CapacityRecommendation,
  StartBenchmarkRunInput,
} from './benchmark-run.types';

export const CAPACITY_DEFAULT_WINDOW_HOURS = 24;
export const CAPACITY_DEFAULT_BUCKET_SECONDS = 60;

function validationError(what: string, violations: FieldViolation[]): LunaNexaError {
  return new LunaNexaError(
    ErrorCode.VALIDATION_FAILED,
    `${what} is invalid: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`,
    violations,
  );
}

/** Drops null members: GraphQL's "not given" is the contracts' "absent". */
function given<T extends object>(value: T | null | undefined): T | undefined {
  if (value === null || value === undefined) return undefined;
  return { ...value };
}

/**
 * Benchmark runs (saturation sweeps, long streams, mixed loads on one
 * deployment, cold starts of new deployments of its model version) and the capacity recommendations drawn from them and from the
 * traffic each alias saw. The API writes the Running row and starts
 * `benchmarkRunWorkflow`; everything after is the workflow's.
 */
@Injectable()
export class BenchmarkRunService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
    private readonly workflows: WorkflowRunner,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  view(row: BenchmarkRunRow): BenchmarkRun {
    return {
      id: row.id,
      deploymentId: row.deploymentId,
      modelRef: row.modelRef,
      profile: row.profileName,
      sloTtftP95Ms: row.profileSnapshot.slo?.maxTtftP95Ms ?? null,
      sloMaxErrorRate: row.profileSnapshot.slo?.maxErrorRate ?? null,
      state: row.state,
      kinds: BENCHMARK_KINDS.filter((kind) => row.plan[kind] !== undefined),
      saturation: row.results.saturation ?? null,
      longStream: row.results.longStream ?? null,
      mixed: row.results.mixed ?? null,
      coldStart: row.results.coldStart ?? null,
      errorCode: row.errorCode,
      error: row.error,
      workflowId: row.workflowId,
      createdBy: row.createdBy,
      createdAt: row.createdAt.toISOString(),
      finishedAt: row.finishedAt?.toISOString() ?? null,
    };
  }

  async runs(deployment: string | null, limit: number | null): Promise<BenchmarkRun[]> {
    if (limit !== null && (!Number.isInteger(limit) || limit < 1 || limit > 500)) {
      throw validationError('the query', [{ path: 'limit', message: 'must be 1-500' }]);
    }
    let deploymentId: string | null = null;
    if (deployment !== null) {
      const row = await findDeployment(this.db, deployment);
      if (!row) throw new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${deployment} does not exist`);
      deploymentId = row.id;
    }
    const rows = await listBenchmarkRuns(this.db, { deploymentId, limit: limit ?? 50 });
    return rows.map((row) => this.view(row));
  }

  async run(id: string): Promise<BenchmarkRun | null> {
    const row = await findBenchmarkRun(this.db, id);
    return row ? this.view(row) : null;
  }

  plan(input: StartBenchmarkRunInput): BenchmarkRunPlan {
    const parsed = BenchmarkRunPlanSchema.safeParse(
      Object.fromEntries(
        Object.entries({
          saturation: given(input.saturation),
          longStream: given(input.longStream),
          mixed: given(input.mixed),
          coldStart: given(input.coldStart),
        }).filter(([, v]) => v !== undefined),
      ),
    );
    if (!parsed.success) {
      throw validationError(
        'the benchmark plan',
        parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
      );
    }
    return parsed.data;
  }

  /**
   * Starts a run. Refusals (bad plan, unknown deployment or profile, no
   * Ready replica) change nothing and are audited. Without an idempotency
   * key every call is a new run; with one, the same key returns its run.
   */
  async start(input: StartBenchmarkRunInput, caller: Caller): Promise<BenchmarkRunOperation> {
    const context = { actor: caller.actor, action: 'benchmark.start', ids: caller.ids };
    const evidence: Record<string, unknown> = { deployment: input.deployment, profile: input.profile };
    const refuse = async (error: LunaNexaError): Promise<never> => {
      await this.audit.refusal(context, { ...evidence, errorCode: error.code, reason: error.message });
      throw error;
    };
    const plan = await this.audit.parsedOrRefused(context, evidence, () => this.plan(input));
    const givenKey = input.idempotencyKey
      ? await this.audit.parsedOrRefused(context, evidence, () =>
          validateIdempotencyKey(input.idempotencyKey ?? ''),
        )
      : null;
    const deployment = await findDeployment(this.db, input.deployment);
    if (!deployment)
      return refuse(new LunaNexaError(ErrorCode.NOT_FOUND, `deployment ${input.deployment} does not exist`));
    const profile = await findBenchmarkProfile(this.db, input.profile);
    if (!profile)
      return refuse(
        new LunaNexaError(ErrorCode.NOT_FOUND, `benchmark profile ${input.profile} does not exist`),
      );
    const key = givenKey ?? derivedKey('benchmark.start', randomUUID());
    const runId = `bench-${createHash('sha256').update(key).digest('hex').slice(0, 20)}`;
    const workflowId = `benchmark/${runId}`;
    const existing = await findBenchmarkRun(this.db, runId);
    if (existing) {
      if (
        existing.deploymentId !== deployment.id ||
        existing.profileId !== profile.id ||
        // jsonb keeps its own key order: compare canonical forms.
        canonicalJson(existing.plan) !== canonicalJson(plan)
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
        workflowId,
        temporalUiUrl: this.workflows.link(workflowId),
        correlationId: caller.ids.correlationId,
        run: this.view(existing),
      };
    }
    if ((await readyEndpoints(this.db, deployment.id)).length === 0) {
      return refuse(
        new LunaNexaError(
          ErrorCode.NO_CAPACITY,
          `deployment ${deployment.name} has no Ready replica to benchmark`,
        ),
      );
    }
    await this.audit.change(context, { ...evidence, runId, kinds: Object.keys(plan) }, async (manager) => {
      await insertBenchmarkRun(manager, {
        id: runId,
        deploymentId: deployment.id,
        modelRef: deployment.modelRef,
        profileId: profile.id,
        profileName: profile.name,
        profileSnapshot: profile.definition,
        plan,
        workflowId,
        correlationId: caller.ids.correlationId,
        createdBy: caller.actor,
        createdAt: new Date(),
      });
      return { value: undefined };
    });
    const workflowInput: BenchmarkRunWorkflowInput = {
      runId,
      leaseSeconds: this.config.LUNANEXA_ASSIGNMENT_LEASE_SECONDS,
      actor: caller.actor,
      correlationId: caller.ids.correlationId,
      requestId: caller.ids.requestId,
    };
    let temporalUiUrl: string;
    try {
      const started = await this.workflows.start(WORKFLOW_TYPES.benchmarkRun, {
        workflowId,
        args: [workflowInput],
        correlationId: caller.ids.correlationId,
        actor: caller.actor,
      });
      temporalUiUrl = started.temporalUiUrl;
    } catch (error) {
      // A run no workflow will ever finish must not read Running forever.
      await finishBenchmarkRun(this.db, runId, {
        errorCode: error instanceof LunaNexaError ? error.code : ErrorCode.INTERNAL,
        error: 'the benchmark workflow could not be started',
        finishedAt: new Date(),
      });
      throw error;
    }
    const run = await findBenchmarkRun(this.db, runId);
    return {
      runId,
      workflowId,
      temporalUiUrl,
      correlationId: caller.ids.correlationId,
      run: run ? this.view(run) : null,
    };
  }

  /**
   * Per alias (one, or every alias that routes): the deployment its current
   * revision routes to, that deployment's newest saturation sweep, its Ready
   * replicas per node, and the busiest bucket of requests naming the alias
   * in the window. The arithmetic is libs/domain `capacityRecommendation`.
   */
  async capacity(
    alias: string | null,
    windowHours: number | null,
    bucketSeconds: number | null,
  ): Promise<CapacityRecommendation[]> {
    const hours = windowHours ?? CAPACITY_DEFAULT_WINDOW_HOURS;
    const bucket = bucketSeconds ?? CAPACITY_DEFAULT_BUCKET_SECONDS;
    const violations: FieldViolation[] = [];
    if (!Number.isInteger(hours) || hours < 1 || hours > 168)
      violations.push({ path: 'windowHours', message: 'must be 1-168' });
    if (!Number.isInteger(bucket) || bucket < 10 || bucket > 3600)
      violations.push({ path: 'bucketSeconds', message: 'must be 10-3600' });
    if (violations.length > 0) throw validationError('the query', violations);
    if (alias !== null && !(await findAlias(this.db, alias))) {
      throw new LunaNexaError(ErrorCode.NOT_FOUND, `alias ${alias} does not exist`);
    }
    const routable = await routableAliasRows(this.db);
    const names = alias !== null ? [alias] : routable.map((row) => row.name);
    const windowEnd = new Date();
    const windowStart = new Date(windowEnd.getTime() - hours * 3_600_000);
    const out: CapacityRecommendation[] = [];
    for (const name of names) {
      const aliasRow = await findAlias(this.db, name);
      const aliasName = aliasRow?.name ?? name;
      const route = routable.find((row) => row.name === aliasName);
      const deploymentId = route?.stable_deployment_id ?? null;
      const run = deploymentId === null ? null : await latestSaturationRun(this.db, deploymentId);
      const endpoints = deploymentId === null ? [] : await readyEndpoints(this.db, deploymentId);
      const replicasByNode: Record<string, number> = {};
      for (const endpoint of endpoints)
        replicasByNode[endpoint.nodeId] = (replicasByNode[endpoint.nodeId] ?? 0) + 1;
      const peak = await peakRequestBucket(this.db, {
        requestedModel: aliasName,
        windowStart,
        windowEnd,
        bucketSeconds: bucket,
      });
      const peakRps = peak === null ? null : peak.requests / bucket;
      const targetTtftP95Ms = run?.profileSnapshot.slo?.maxTtftP95Ms ?? null;
      const figures = capacityRecommendation({
        targetTtftP95Ms,
        perReplicaRequestsPerSecond: run?.results.saturation?.perReplicaRequestsPerSecond ?? null,
        peakRequestsPerSecond: peakRps,
        replicasByNode,
      });
      const missing = [...figures.missing];
      if (deploymentId === null) missing.unshift('the alias routes to no deployment');
      if (run !== null && targetTtftP95Ms === null)
        missing.push(
          'the benchmark profile sets no p95 TTFT target (capacity is at its error-rate limit only)',
        );
      out.push({
        alias: aliasName,
        deploymentId,
        benchmarkRunId: run?.id ?? null,
        targetTtftP95Ms,
        perReplicaRequestsPerSecond: run?.results.saturation?.perReplicaRequestsPerSecond ?? null,
        peakRequestsPerSecond: peakRps,
        peakAt: peak?.bucketStart.toISOString() ?? null,
        windowHours: hours,
        bucketSeconds: bucket,
        currentReplicas: figures.currentReplicas,
        replicasNeeded: figures.replicasNeeded,
        capacityRequestsPerSecond: figures.capacityRequestsPerSecond,
        headroom: figures.headroom,
        largestNode: figures.largestNode,
        capacityAfterNodeLoss: figures.capacityAfterNodeLoss,
        nodeLossMargin: figures.nodeLossMargin,
        survivesNodeLoss: figures.survivesNodeLoss,
        missing,
      });
    }
    return out;
  }
}
