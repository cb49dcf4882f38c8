import type {
  BenchmarkKind,
  BenchmarkProfileDefinition,
  BenchmarkRunPlan,
  BenchmarkRunResults,
  BenchmarkRunState,
} from '@lunanexa/contracts';
import type { Queryable } from './fleet';

/**
 * Benchmark runs (migration 1768810000000) and the traffic figure the
 * capacity view compares them with. A run's row is written by the API when
 * it starts the run and by the benchmark workflow's activities afterwards;
 * every write after the insert is conditional on the run still Running, so
 * a retried activity cannot reopen a finished run.
 */

type Raw = Record<string, unknown>;

export interface BenchmarkRunRow {
  readonly id: string;
  readonly deploymentId: string;
  readonly modelRef: string;
  readonly profileId: string;
  readonly profileName: string;
  readonly profileSnapshot: BenchmarkProfileDefinition;
  readonly plan: BenchmarkRunPlan;
  readonly state: BenchmarkRunState;
  readonly results: BenchmarkRunResults;
  readonly errorCode: string | null;
  readonly error: string | null;
  readonly workflowId: string;
  readonly correlationId: string;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly finishedAt: Date | null;
}

const COLUMNS = `id, deployment_id, model_ref, profile_id, profile_name, profile_snapshot, plan, state, results,
  error_code, error, workflow_id, correlation_id, created_by, created_at, finished_at`;

function fromRow(row: Raw): BenchmarkRunRow {
  return {
    id: row['id'] as string,
    deploymentId: row['deployment_id'] as string,
    modelRef: row['model_ref'] as string,
    profileId: row['profile_id'] as string,
    profileName: row['profile_name'] as string,
    profileSnapshot: row['profile_snapshot'] as BenchmarkProfileDefinition,
    plan: row['plan'] as BenchmarkRunPlan,
    state: row['state'] as BenchmarkRunState,
    results: row['results'] as BenchmarkRunResults,
    errorCode: (row['error_code'] as string | null) ?? null,
    error: (row['error'] as string | null) ?? null,
    workflowId: row['workflow_id'] as string,
    correlationId: row['correlation_id'] as string,
    createdBy: row['created_by'] as string,
    createdAt: new Date(row['created_at'] as string),
    finishedAt: row['finished_at'] === null ? null : new Date(row['finished_at'] as string),
  };
}

export type NewBenchmarkRun = Omit<
  BenchmarkRunRow,
  'state' | 'results' | 'errorCode' | 'error' | 'finishedAt'
>;

/** Inserts a Running run; false when the id exists already (the same start asked twice). */
export async function insertBenchmarkRun(q: Queryable, run: NewBenchmarkRun): Promise<boolean> {
  const rows = await q.query<Raw[]>(
    `INSERT INTO benchmark_runs (id, deployment_id, model_ref, profile_id, profile_name, profile_snapshot, plan,
                                 state, workflow_id, correlation_id, created_by, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, 'Running', $8, $9, $10, $11)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [
      run.id,
      run.deploymentId,
      run.modelRef,
      run.profileId,
      run.profileName,
      JSON.stringify(run.profileSnapshot),
      JSON.stringify(run.plan),
      run.workflowId,
      run.correlationId,
      run.createdBy,
      run.createdAt,
    ],
  );
  return rows.length > 0;
}

export async function findBenchmarkRun(q: Queryable, id: string): Promise<BenchmarkRunRow | null> {
  const rows = await q.query<Raw[]>(`SELECT ${COLUMNS} FROM benchmark_runs WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Newest first; of one deployment when given. */
export async function listBenchmarkRuns(
  q: Queryable,
  query: { readonly deploymentId: string | null; readonly limit: number },
): Promise<BenchmarkRunRow[]> {
  const rows = await q.query<Raw[]>(
    `SELECT ${COLUMNS} FROM benchmark_runs
      WHERE ($1::text IS NULL OR deployment_id = $1)
      ORDER BY created_at DESC, id DESC LIMIT $2`,
    [query.deploymentId, query.limit],
  );
  return rows.map(fromRow);
}

/** Stores one kind's result of a Running run (a retry overwrites it with its own measurement). */
export async function recordBenchmarkResult(
  q: Queryable,
  id: string,
  kind: BenchmarkKind,
  result: unknown,
): Promise<void> {
  await q.query(
    `UPDATE benchmark_runs SET results = results || jsonb_build_object($2::text, $3::jsonb)
      WHERE id = $1 AND state = 'Running'`,
    [id, kind, JSON.stringify(result)],
  );
}

export async function finishBenchmarkRun(
  q: Queryable,
  id: string,
  end: { readonly errorCode: string | null; readonly error: string | null; readonly finishedAt: Date },
): Promise<BenchmarkRunRow | null> {
  const rows = await q.query<Raw[]>(
    `UPDATE benchmark_runs SET state = $2, error_code = $3, error = $4, finished_at = $5
      WHERE id = $1 AND state = 'Running' RETURNING ${COLUMNS}`,
    [id, end.errorCode === null ? 'Succeeded' : 'Failed', end.errorCode, end.error, end.finishedAt],
  );
  return rows[0] ? fromRow(rows[0]) : findBenchmarkRun(q, id);
}

/** The newest finished run of a deployment that measured a saturation sweep (a failed run keeps its sweep). */
export async function latestSaturationRun(
  q: Queryable,
  deploymentId: string,
): Promise<BenchmarkRunRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${COLUMNS} FROM benchmark_runs
      WHERE deployment_id = $1 AND state <> 'Running' AND results ? 'saturation'
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    [deploymentId],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/**
 * The busiest bucket of requests that named `requestedModel` (an alias or a
 * model) in a window: its start and request count; null when none arrived.
 */
export async function peakRequestBucket(
  q: Queryable,
  window: {
    readonly requestedModel: string;
    readonly windowStart: Date;
    readonly windowEnd: Date;
    readonly bucketSeconds: number;
  },
): Promise<{ bucketStart: Date; requests: number } | null> {
  const rows = await q.query<{ bucket: number; requests: number }[]>(
    `SELECT floor(extract(epoch FROM (r.received_at - $2)) / $4)::int AS bucket, count(*)::int AS requests
       FROM request_records r
      WHERE r.requested_model = $1 AND r.received_at >= $2 AND r.received_at < $3
      GROUP BY 1 ORDER BY requests DESC, bucket LIMIT 1`,
    [window.requestedModel, window.windowStart, window.windowEnd, window.bucketSeconds],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    bucketStart: new Date(window.windowStart.getTime() + row.bucket * window.bucketSeconds * 1000),
    requests: row.requests,
  };
}
