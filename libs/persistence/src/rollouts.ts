import type { DataClass, RolloutPlan, RolloutState, StepAnalysis } from '@lunanexa/contracts';
import type { Queryable } from './fleet';

/**
 * Aliases, their revision history and rollouts (migration 1767484800000).
 * Alias revisions are append-only: a promotion adds one naming the new
 * version and deployment; a rollback after promotion adds one copying an
 * earlier revision. `current_revision` is what the gateway routes to.
 */

type Raw = Record<string, unknown>;

const date = (value: unknown): Date | null =>
  value === null || value === undefined ? null : new Date(value as string);

export interface AliasRow {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly dataClass: DataClass;
  readonly currentRevision: number;
  readonly canaryDeploymentId: string | null;
  readonly canaryWeight: number;
  readonly activeRolloutId: string | null;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const ALIAS_COLUMNS = `id, name, description, data_class, current_revision, canary_deployment_id, canary_weight,
  active_rollout_id, created_by, created_at, updated_at`;

function aliasFromRow(row: Raw): AliasRow {
  return {
    id: row['id'] as string,
    name: row['name'] as string,
    description: (row['description'] as string | null) ?? null,
    dataClass: row['data_class'] as DataClass,
    currentRevision: row['current_revision'] as number,
    canaryDeploymentId: (row['canary_deployment_id'] as string | null) ?? null,
    canaryWeight: row['canary_weight'] as number,
    activeRolloutId: (row['active_rollout_id'] as string | null) ?? null,
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']) ?? new Date(0),
    updatedAt: date(row['updated_at']) ?? new Date(0),
  };
}

export async function findAlias(
  q: Queryable,
  idOrName: string,
  options: { forUpdate?: boolean } = {},
): Promise<AliasRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${ALIAS_COLUMNS} FROM aliases WHERE name = $1 OR id::text = $1 LIMIT 1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [idOrName],
  );
  return rows[0] ? aliasFromRow(rows[0]) : null;
}

export async function listAliases(q: Queryable): Promise<AliasRow[]> {
  const rows = await q.query<Raw[]>(`SELECT ${ALIAS_COLUMNS} FROM aliases ORDER BY name`);
  return rows.map(aliasFromRow);
}

export interface AliasRevisionRow {
  readonly aliasId: string;
  readonly revision: number;
  readonly modelVersionId: string;
  readonly modelRef: string;
  readonly deploymentId: string;
  readonly reason: 'promote' | 'rollback';
  readonly restoredFrom: number | null;
  readonly rolloutId: string | null;
  readonly createdBy: string;
  readonly createdAt: Date;
}

const REVISION_COLUMNS = `alias_id, revision, model_version_id, model_ref, deployment_id, reason, restored_from,
  rollout_id, created_by, created_at`;

function revisionFromRow(row: Raw): AliasRevisionRow {
  return {
    aliasId: row['alias_id'] as string,
    revision: row['revision'] as number,
    modelVersionId: row['model_version_id'] as string,
    modelRef: row['model_ref'] as string,
    deploymentId: row['deployment_id'] as string,
    reason: row['reason'] as 'promote' | 'rollback',
    restoredFrom: (row['restored_from'] as number | null) ?? null,
    rolloutId: (row['rollout_id'] as string | null) ?? null,
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']) ?? new Date(0),
  };
}

/** Newest first. */
export async function listAliasRevisions(q: Queryable, aliasId: string): Promise<AliasRevisionRow[]> {
  const rows = await q.query<Raw[]>(
    `SELECT ${REVISION_COLUMNS} FROM alias_revisions WHERE alias_id = $1 ORDER BY revision DESC`,
    [aliasId],
  );
  return rows.map(revisionFromRow);
}

export async function findAliasRevision(
  q: Queryable,
  aliasId: string,
  revision: number,
): Promise<AliasRevisionRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${REVISION_COLUMNS} FROM alias_revisions WHERE alias_id = $1 AND revision = $2`,
    [aliasId, revision],
  );
  return rows[0] ? revisionFromRow(rows[0]) : null;
}

export interface RolloutRow {
  readonly id: string;
  readonly aliasId: string;
  readonly modelVersionId: string;
  readonly modelRef: string;
  readonly baseRevision: number;
  readonly plan: RolloutPlan;
  readonly state: RolloutState;
  readonly stateReason: string | null;
  readonly refusalCode: string | null;
  readonly currentStep: number;
  readonly stepStartedAt: Date | null;
  readonly canaryDeploymentId: string | null;
  readonly analyses: readonly StepAnalysis[];
  readonly workflowId: string;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly finishedAt: Date | null;
}

const ROLLOUT_COLUMNS = `id, alias_id, model_version_id, model_ref, base_revision, plan, state, state_reason,
  refusal_code, current_step, step_started_at, canary_deployment_id, analyses, workflow_id, created_by, created_at, updated_at,
  finished_at`;

function rolloutFromRow(row: Raw): RolloutRow {
  return {
    id: row['id'] as string,
    aliasId: row['alias_id'] as string,
    modelVersionId: row['model_version_id'] as string,
    modelRef: row['model_ref'] as string,
    baseRevision: row['base_revision'] as number,
    plan: row['plan'] as RolloutPlan,
    state: row['state'] as RolloutState,
    stateReason: (row['state_reason'] as string | null) ?? null,
    refusalCode: (row['refusal_code'] as string | null) ?? null,
    currentStep: row['current_step'] as number,
    stepStartedAt: date(row['step_started_at']),
    canaryDeploymentId: (row['canary_deployment_id'] as string | null) ?? null,
    analyses: row['analyses'] as StepAnalysis[],
    workflowId: row['workflow_id'] as string,
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']) ?? new Date(0),
    updatedAt: date(row['updated_at']) ?? new Date(0),
    finishedAt: date(row['finished_at']),
  };
}

export async function findRollout(
  q: Queryable,
  id: string,
  options: { forUpdate?: boolean } = {},
): Promise<RolloutRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
  return rows[0] ? rolloutFromRow(rows[0]) : null;
}

/** Newest first; bounded. */
export async function listRollouts(
  q: Queryable,
  filter: { aliasId?: string; limit?: number } = {},
): Promise<RolloutRow[]> {
  const limit = Math.min(Math.max(filter.limit ?? 50, 1), 500);
  const rows = await q.query<Raw[]>(
    `SELECT ${ROLLOUT_COLUMNS} FROM rollouts WHERE ($1::uuid IS NULL OR alias_id = $1::uuid)
      ORDER BY created_at DESC, id LIMIT ${limit}`,
    [filter.aliasId ?? null],
  );
  return rows.map(rolloutFromRow);
}

/**
 * The gateway's analysis input: one deployment's request records from `since`.
 * With `limit`, only the first `limit` eligible requests (the fixed sample);
 * with `until`, only those received before it; with `requestedModel`, only
 * requests that named it (an alias: a rollout is judged on the alias's
 * traffic, not on an operator calling `model@version` from the playground).
 * Rejected and Cancelled requests are the caller's doing and do not count for
 * or against a version.
 */
export async function trafficSample(
  q: Queryable,
  deploymentId: string,
  options: { since: Date; until?: Date | null; limit?: number | null; requestedModel?: string | null },
): Promise<{ requests: number; errors: number; p95LatencyMs: number | null; lastReceivedAt: Date | null }> {
  const rows = await q.query<Raw[]>(
    `WITH sample AS (
       SELECT outcome, duration_ms, received_at FROM request_records
        WHERE deployment_id = $1 AND received_at >= $2 AND ($3::timestamptz IS NULL OR received_at < $3)
          AND ($5::text IS NULL OR requested_model = $5)
          AND outcome NOT IN ('Rejected', 'Cancelled')
        ORDER BY received_at, id
        LIMIT $4)
     SELECT count(*)::int AS requests,
            count(*) FILTER (WHERE outcome IN ('Failed', 'TimedOut'))::int AS errors,
            percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) FILTER (WHERE outcome = 'Completed') AS p95,
            max(received_at) AS last_received_at
       FROM sample`,
    [
      deploymentId,
      options.since,
      options.until ?? null,
      options.limit ?? null,
      options.requestedModel ?? null,
    ],
  );
  const row = rows[0] ?? {};
  return {
    requests: Number(row['requests'] ?? 0),
    errors: Number(row['errors'] ?? 0),
    p95LatencyMs: row['p95'] === null || row['p95'] === undefined ? null : Number(row['p95']),
    lastReceivedAt: date(row['last_received_at']),
  };
}

// ---------------------------------------------------------------------------- rollout writes
// The callers check each state against the rollout lifecycle in @lunanexa/domain before writing it.

export interface NewRollout {
  readonly id: string;
  readonly aliasId: string;
  readonly modelVersionId: string;
  readonly modelRef: string;
  readonly baseRevision: number;
  readonly plan: RolloutPlan;
  readonly state: RolloutState;
  readonly workflowId: string;
  readonly createdBy: string;
  readonly createdAt: Date;
}

/**
 * Writes the rollout and makes it the alias's rollout in flight. A second
 * rollout in flight on one alias fails on the partial unique index: the
 * database decides, not a read.
 */
export async function insertRolloutClaimingAlias(q: Queryable, rollout: NewRollout): Promise<void> {
  await q.query(
    `INSERT INTO rollouts (id, alias_id, model_version_id, model_ref, base_revision, plan, state, workflow_id,
     created_by, created_at, updated_at)
   VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $10)`,
    [
      rollout.id,
      rollout.aliasId,
      rollout.modelVersionId,
      rollout.modelRef,
      rollout.baseRevision,
      JSON.stringify(rollout.plan),
      rollout.state,
      rollout.workflowId,
      rollout.createdBy,
      rollout.createdAt,
    ],
  );
  await q.query(`UPDATE aliases SET active_rollout_id = $2, updated_at = $3 WHERE id = $1`, [
    rollout.aliasId,
    rollout.id,
    rollout.createdAt,
  ]);
}

/**
 * A new state for the rollout. A `finished` one (no longer in flight) gets
 * its `finished_at`, and frees its alias: the next rollout may start, and no
 * traffic goes to a canary that was not promoted.
 */
export async function writeRolloutState(
  q: Queryable,
  rollout: Pick<RolloutRow, 'id' | 'aliasId'>,
  change: {
    state: RolloutState;
    reason: string | null;
    refusalCode?: string | null;
    finished: boolean;
    at: Date;
  },
): Promise<void> {
  await q.query(
    `UPDATE rollouts SET state = $2, state_reason = $3, refusal_code = COALESCE($4, refusal_code), updated_at = $5,
            finished_at = CASE WHEN $6 THEN $5 ELSE finished_at END
      WHERE id = $1`,
    [rollout.id, change.state, change.reason, change.refusalCode ?? null, change.at, change.finished],
  );
  if (change.finished) {
    await q.query(
      `UPDATE aliases SET active_rollout_id = NULL, canary_deployment_id = NULL, canary_weight = 0, updated_at = $2
        WHERE id = $1 AND active_rollout_id = $3`,
      [rollout.aliasId, change.at, rollout.id],
    );
  }
}

/** Names the canary deployment the rollout started, with the state that goes with it. */
export async function writeRolloutCanaryDeployment(
  q: Queryable,
  rolloutId: string,
  change: { state: RolloutState; canaryDeploymentId: string; at: Date },
): Promise<void> {
  await q.query(
    `UPDATE rollouts SET state = $2, state_reason = NULL, canary_deployment_id = $3, updated_at = $4 WHERE id = $1`,
    [rolloutId, change.state, change.canaryDeploymentId, change.at],
  );
}

/**
 * Starts step `step`: its sample begins now, and the gateway sends `weight`
 * percent of the alias's traffic to the canary (only while this rollout is
 * the alias's rollout in flight).
 */
export async function startRolloutStep(
  q: Queryable,
  rollout: Pick<RolloutRow, 'id' | 'aliasId' | 'canaryDeploymentId'>,
  step: { state: RolloutState; index: number; weight: number; at: Date },
): Promise<void> {
  await q.query(
    `UPDATE rollouts SET state = $2, current_step = $3, step_started_at = $4, updated_at = $4 WHERE id = $1`,
    [rollout.id, step.state, step.index, step.at],
  );
  await q.query(
    `UPDATE aliases SET canary_deployment_id = $2, canary_weight = $3, updated_at = $4
      WHERE id = $1 AND active_rollout_id = $5`,
    [rollout.aliasId, rollout.canaryDeploymentId, step.weight, step.at, rollout.id],
  );
}

export async function appendRolloutAnalysis(
  q: Queryable,
  rolloutId: string,
  analysis: StepAnalysis,
  at: Date,
): Promise<void> {
  await q.query(`UPDATE rollouts SET analyses = analyses || $2::jsonb, updated_at = $3 WHERE id = $1`, [
    rolloutId,
    JSON.stringify([analysis]),
    at,
  ]);
}

/** Appends a revision and makes it the one the gateway routes the alias to. */
export async function makeAliasRevisionCurrent(q: Queryable, revision: AliasRevisionRow): Promise<void> {
  await q.query(
    `INSERT INTO alias_revisions (alias_id, revision, model_version_id, model_ref, deployment_id, reason,
     restored_from, rollout_id, created_by, created_at)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      revision.aliasId,
      revision.revision,
      revision.modelVersionId,
      revision.modelRef,
      revision.deploymentId,
      revision.reason,
      revision.restoredFrom,
      revision.rolloutId,
      revision.createdBy,
      revision.createdAt,
    ],
  );
  await q.query(`UPDATE aliases SET current_revision = $2, updated_at = $3 WHERE id = $1`, [
    revision.aliasId,
    revision.revision,
    revision.createdAt,
  ]);
}
