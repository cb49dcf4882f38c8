import type {
  BenchmarkMetrics,
  BenchmarkProfileDefinition,
  EvaluationRunState,
  EvaluationScores,
  EvaluationSuiteDefinition,
} from '@lunanexa/contracts';
import type { Queryable } from './fleet';

/**
 * Evaluation suites, benchmark profiles and runs (migration 1767571200000).
 * Suites and profiles never change after insert; a run changes once, from
 * Running to its result, and never after (both enforced by triggers).
 */

type Raw = Record<string, unknown>;

const date = (value: unknown): Date | null =>
  value === null || value === undefined ? null : new Date(value as string);

export interface EvaluationSuiteRow {
  readonly id: string;
  readonly name: string;
  readonly definition: EvaluationSuiteDefinition;
  readonly digest: string;
  readonly caseCount: number;
  readonly createdBy: string;
  readonly createdAt: Date;
}

function suiteFromRow(row: Raw): EvaluationSuiteRow {
  return {
    id: row['id'] as string,
    name: row['name'] as string,
    definition: row['definition'] as EvaluationSuiteDefinition,
    digest: row['digest'] as string,
    caseCount: row['case_count'] as number,
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']) ?? new Date(0),
  };
}

const SUITE_COLUMNS = `id, name, definition, digest, case_count, created_by, created_at`;

export async function findEvaluationSuite(
  q: Queryable,
  idOrName: string,
): Promise<EvaluationSuiteRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${SUITE_COLUMNS} FROM evaluation_suites WHERE name = $1 OR id::text = $1 LIMIT 1`,
    [idOrName],
  );
  return rows[0] ? suiteFromRow(rows[0]) : null;
}

export async function listEvaluationSuites(q: Queryable): Promise<EvaluationSuiteRow[]> {
  const rows = await q.query<Raw[]>(`SELECT ${SUITE_COLUMNS} FROM evaluation_suites ORDER BY name`);
  return rows.map(suiteFromRow);
}

/** Inserts the suite unless one of that name exists; returns the stored row either way. */
export async function insertEvaluationSuite(
  q: Queryable,
  row: Omit<EvaluationSuiteRow, 'caseCount'>,
): Promise<{ row: EvaluationSuiteRow; created: boolean }> {
  const inserted = await q.query<Raw[]>(
    `INSERT INTO evaluation_suites (id, name, definition, digest, case_count, created_by, created_at)
     VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7)
     ON CONFLICT (name) DO NOTHING
     RETURNING ${SUITE_COLUMNS}`,
    [
      row.id,
      row.name,
      JSON.stringify(row.definition),
      row.digest,
      row.definition.cases.length,
      row.createdBy,
      row.createdAt,
    ],
  );
  if (inserted[0]) return { row: suiteFromRow(inserted[0]), created: true };
  const existing = await findEvaluationSuite(q, row.name);
  if (!existing) throw new Error(`evaluation suite ${row.name} vanished during insert`);
  return { row: existing, created: false };
}

export interface BenchmarkProfileRow {
  readonly id: string;
  readonly name: string;
  readonly definition: BenchmarkProfileDefinition;
  readonly digest: string;
  readonly createdBy: string;
  readonly createdAt: Date;
}

const PROFILE_COLUMNS = `id, name, definition, digest, created_by, created_at`;

function profileFromRow(row: Raw): BenchmarkProfileRow {
  return {
    id: row['id'] as string,
    name: row['name'] as string,
    definition: row['definition'] as BenchmarkProfileDefinition,
    digest: row['digest'] as string,
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']) ?? new Date(0),
  };
}

export async function findBenchmarkProfile(
  q: Queryable,
  idOrName: string,
): Promise<BenchmarkProfileRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${PROFILE_COLUMNS} FROM benchmark_profiles WHERE name = $1 OR id::text = $1 LIMIT 1`,
    [idOrName],
  );
  return rows[0] ? profileFromRow(rows[0]) : null;
}

export async function listBenchmarkProfiles(q: Queryable): Promise<BenchmarkProfileRow[]> {
  const rows = await q.query<Raw[]>(`SELECT ${PROFILE_COLUMNS} FROM benchmark_profiles ORDER BY name`);
  return rows.map(profileFromRow);
}

export async function insertBenchmarkProfile(
  q: Queryable,
  row: BenchmarkProfileRow,
): Promise<{ row: BenchmarkProfileRow; created: boolean }> {
  const inserted = await q.query<Raw[]>(
    `INSERT INTO benchmark_profiles (id, name, definition, digest, concurrency, created_by, created_at)
     VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7)
     ON CONFLICT (name) DO NOTHING
     RETURNING ${PROFILE_COLUMNS}`,
    [
      row.id,
      row.name,
      JSON.stringify(row.definition),
      row.digest,
      row.definition.concurrency,
      row.createdBy,
      row.createdAt,
    ],
  );
  if (inserted[0]) return { row: profileFromRow(inserted[0]), created: true };
  const existing = await findBenchmarkProfile(q, row.name);
  if (!existing) throw new Error(`benchmark profile ${row.name} vanished during insert`);
  return { row: existing, created: false };
}

export interface EvaluationRunRow {
  readonly id: string;
  readonly modelVersionId: string;
  readonly modelRef: string;
  readonly deploymentId: string;
  readonly suiteId: string;
  readonly suiteName: string;
  readonly suiteDigest: string;
  readonly suiteSnapshot: EvaluationSuiteDefinition;
  readonly profileId: string | null;
  readonly profileName: string | null;
  readonly profileDigest: string | null;
  readonly profileSnapshot: BenchmarkProfileDefinition | null;
  readonly state: EvaluationRunState;
  readonly reasons: string[];
  readonly errorCode: string | null;
  readonly scores: EvaluationScores | null;
  readonly metrics: BenchmarkMetrics | null;
  readonly passed: boolean | null;
  readonly workflowId: string;
  readonly correlationId: string;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
}

const RUN_COLUMNS = `id, model_version_id, model_ref, deployment_id, suite_id, suite_name, suite_digest, suite_snapshot,
  profile_id, profile_name, profile_digest, profile_snapshot, state, reasons, error_code, scores, metrics, passed,
  workflow_id, correlation_id, created_by, created_at, finished_at`;

function runFromRow(row: Raw): EvaluationRunRow {
  return {
    id: row['id'] as string,
    modelVersionId: row['model_version_id'] as string,
    modelRef: row['model_ref'] as string,
    deploymentId: row['deployment_id'] as string,
    suiteId: row['suite_id'] as string,
    suiteName: row['suite_name'] as string,
    suiteDigest: row['suite_digest'] as string,
    suiteSnapshot: row['suite_snapshot'] as EvaluationSuiteDefinition,
    profileId: (row['profile_id'] as string | null) ?? null,
    profileName: (row['profile_name'] as string | null) ?? null,
    profileDigest: (row['profile_digest'] as string | null) ?? null,
    profileSnapshot: (row['profile_snapshot'] as BenchmarkProfileDefinition | null) ?? null,
    state: row['state'] as EvaluationRunState,
    reasons: (row['reasons'] as string[] | null) ?? [],
    errorCode: (row['error_code'] as string | null) ?? null,
    scores: (row['scores'] as EvaluationScores | null) ?? null,
    metrics: (row['metrics'] as BenchmarkMetrics | null) ?? null,
    passed: (row['passed'] as boolean | null) ?? null,
    workflowId: row['workflow_id'] as string,
    correlationId: row['correlation_id'] as string,
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']) ?? new Date(0),
    finishedAt: date(row['finished_at']),
  };
}

export async function findEvaluationRun(
  q: Queryable,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<EvaluationRunRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${RUN_COLUMNS} FROM evaluation_runs WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0] ? runFromRow(rows[0]) : null;
}

export async function listEvaluationRuns(
  q: Queryable,
  filter: { modelVersionId?: string; profileId?: string; limit?: number } = {},
): Promise<EvaluationRunRow[]> {
  const rows = await q.query<Raw[]>(
    `SELECT ${RUN_COLUMNS} FROM evaluation_runs
      WHERE ($1::uuid IS NULL OR model_version_id = $1::uuid)
        AND ($2::uuid IS NULL OR profile_id = $2::uuid)
      ORDER BY created_at DESC, id
      LIMIT $3`,
    [filter.modelVersionId ?? null, filter.profileId ?? null, Math.min(Math.max(filter.limit ?? 50, 1), 500)],
  );
  return rows.map(runFromRow);
}

/**
 * The newest finished (Passed or Failed) run of each version on a profile:
 * the rows a comparison lines up. Errored runs carry no complete figures.
 */
export async function latestFinishedRunsOnProfile(
  q: Queryable,
  profileId: string,
  modelVersionIds: readonly string[],
): Promise<EvaluationRunRow[]> {
  const rows = await q.query<Raw[]>(
    `SELECT DISTINCT ON (model_version_id) ${RUN_COLUMNS} FROM evaluation_runs
      WHERE profile_id = $1 AND model_version_id = ANY($2::uuid[]) AND state IN ('Passed', 'Failed')
      ORDER BY model_version_id, finished_at DESC, id`,
    [profileId, [...modelVersionIds]],
  );
  return rows.map(runFromRow);
}

export interface NewEvaluationRun {
  readonly id: string;
  readonly modelVersionId: string;
  readonly modelRef: string;
  readonly deploymentId: string;
  readonly suite: EvaluationSuiteRow;
  readonly profile: BenchmarkProfileRow | null;
  readonly workflowId: string;
  readonly correlationId: string;
  readonly createdBy: string;
  readonly createdAt: Date;
}

export async function insertEvaluationRun(q: Queryable, run: NewEvaluationRun): Promise<void> {
  await q.query(
    `INSERT INTO evaluation_runs (id, model_version_id, model_ref, deployment_id, suite_id, suite_name, suite_digest,
       suite_snapshot, profile_id, profile_name, profile_digest, profile_snapshot, state, workflow_id, correlation_id,
       created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12::jsonb, 'Running', $13, $14, $15, $16)`,
    [
      run.id,
      run.modelVersionId,
      run.modelRef,
      run.deploymentId,
      run.suite.id,
      run.suite.name,
      run.suite.digest,
      JSON.stringify(run.suite.definition),
      run.profile?.id ?? null,
      run.profile?.name ?? null,
      run.profile?.digest ?? null,
      run.profile ? JSON.stringify(run.profile.definition) : null,
      run.workflowId,
      run.correlationId,
      run.createdBy,
      run.createdAt,
    ],
  );
}

export interface FinishedEvaluationRun {
  readonly state: Exclude<EvaluationRunState, 'Running'>;
  readonly passed: boolean;
  readonly reasons: readonly string[];
  readonly errorCode: string | null;
  readonly scores: EvaluationScores | null;
  readonly metrics: BenchmarkMetrics | null;
  readonly finishedAt: Date;
}

/** Records the result of a Running run; false when it was already finished (the trigger keeps it as it was). */
export async function finishEvaluationRun(
  q: Queryable,
  id: string,
  result: FinishedEvaluationRun,
): Promise<boolean> {
  const rows = await q.query<Raw[]>(
    `UPDATE evaluation_runs SET state = $2, passed = $3, reasons = $4::jsonb, error_code = $5, scores = $6::jsonb,
            metrics = $7::jsonb, finished_at = $8
      WHERE id = $1 AND state = 'Running'
      RETURNING id`,
    [
      id,
      result.state,
      result.passed,
      JSON.stringify(result.reasons),
      result.errorCode,
      result.scores ? JSON.stringify(result.scores) : null,
      result.metrics ? JSON.stringify(result.metrics) : null,
      result.finishedAt,
    ],
  );
  return rows.length > 0;
}

/** A Ready replica of a deployment that a client may call directly. */
export interface ReadyEndpoint {
  readonly assignmentId: string;
  readonly nodeId: string;
  readonly url: string;
}

/**
 * The replicas of one deployment that serve now: the same conditions the
 * gateway's route table applies (intent Run, Ready at the desired
 * generation, leases fresh, node Active with an address), for one deployment.
 */
export async function readyEndpoints(q: Queryable, deploymentId: string): Promise<ReadyEndpoint[]> {
  const rows = await q.query<{ id: string; node_id: string; address: string; endpoint_port: number }[]>(
    `SELECT a.id, a.node_id, n.address, a.endpoint_port
       FROM assignments a
       JOIN deployments d ON d.id = a.deployment_id
       JOIN nodes n ON n.id = a.node_id
      WHERE a.deployment_id = $1
        AND a.intent = 'Run'
        AND a.observed_state = 'Ready'
        AND a.observed_generation = a.generation
        AND a.endpoint_port BETWEEN 1 AND 65535
        AND a.lease_expires_at > now()
        AND d.state NOT IN ('Stopping', 'Stopped', 'Failed')
        AND n.lifecycle = 'Active'
        AND n.lease_expires_at > now()
        AND n.address IS NOT NULL AND n.address <> ''
      ORDER BY a.id`,
    [deploymentId],
  );
  return rows.map((row) => ({
    assignmentId: row.id,
    nodeId: row.node_id,
    // IPv6 literals need brackets in a URL.
    url: `http://${row.address.includes(':') ? `[${row.address}]` : row.address}:${row.endpoint_port}`,
  }));
}
