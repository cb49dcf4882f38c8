import {
  ErrorCode,
  LunaNexaError,
  type LicenseApprovalState,
  type ModelVersionState,
  type RuntimeKind,
} from '@lunanexa/contracts';
import { modelVersionLifecycle, transition, type ModelVersionEvent } from '@lunanexa/domain';
import {
  findModelVersion,
  listModelVersions,
  type ArtifactVerification,
  type ModelVersionRow,
  type Queryable,
} from './fleet';

/**
 * The model registry tables (migration 1767484800000) as typed rows: models,
 * licenses, runtimes, and the writes to model versions. The documents are
 * stored as the contracts' License and Runtime shapes; callers validate them
 * with the zod schemas before writing, and read them back as `unknown` to
 * validate again where it matters (the agent, the rollout policy).
 */

type Raw = Record<string, unknown>;

function date(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'string' || typeof value === 'number') return new Date(value);
  throw new Error(`not a timestamp: ${typeof value}`);
}

/** Rows that may be locked: the caller holds the transaction. */
const forUpdate = (lock: boolean | undefined) => (lock ? ' FOR UPDATE' : '');

// ---------------------------------------------------------------------------- models

export interface ModelRow {
  readonly id: string;
  readonly name: string;
  readonly displayName: string;
  readonly description: string | null;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const MODEL_COLUMNS = 'id, name, display_name, description, created_by, created_at, updated_at';

function modelFromRow(row: Raw): ModelRow {
  return {
    id: row['id'] as string,
    name: row['name'] as string,
    displayName: row['display_name'] as string,
    description: (row['description'] as string | null) ?? null,
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']),
    updatedAt: date(row['updated_at']),
  };
}

export async function findModel(q: Queryable, idOrName: string): Promise<ModelRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${MODEL_COLUMNS} FROM models WHERE name = $1 OR id::text = $1 LIMIT 1`,
    [idOrName],
  );
  return rows[0] ? modelFromRow(rows[0]) : null;
}

export async function listModels(q: Queryable): Promise<ModelRow[]> {
  return (await q.query<Raw[]>(`SELECT ${MODEL_COLUMNS} FROM models ORDER BY name`)).map(modelFromRow);
}

export async function insertModel(q: Queryable, model: ModelRow): Promise<void> {
  await q.query(`INSERT INTO models (${MODEL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
    model.id,
    model.name,
    model.displayName,
    model.description,
    model.createdBy,
    model.createdAt,
    model.updatedAt,
  ]);
}

/** The model named `model.name`, inserting `model` when there is none (concurrent callers get the same row). */
export async function ensureModel(q: Queryable, model: ModelRow): Promise<ModelRow> {
  await q.query(
    `INSERT INTO models (${MODEL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (name) DO NOTHING`,
    [
      model.id,
      model.name,
      model.displayName,
      model.description,
      model.createdBy,
      model.createdAt,
      model.updatedAt,
    ],
  );
  const row = await findModel(q, model.name);
  if (!row) throw new LunaNexaError(ErrorCode.INTERNAL, `model ${model.name} was not stored`);
  return row;
}

// ---------------------------------------------------------------------------- licenses

/** The seeded license of synthetic (fake-format) weights; the only one approved without a reviewer. */
export const SYNTHETIC_LICENSE_NAME = 'lunanexa-synthetic';

export interface LicenseRow {
  readonly id: string;
  readonly name: string;
  /** The contracts' License document as last written. */
  readonly document: unknown;
  readonly approvalState: LicenseApprovalState;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const LICENSE_COLUMNS = 'id, name, document, approval_state, created_by, created_at, updated_at';

function licenseFromRow(row: Raw): LicenseRow {
  return {
    id: row['id'] as string,
    name: row['name'] as string,
    document: row['document'],
    approvalState: row['approval_state'] as LicenseApprovalState,
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']),
    updatedAt: date(row['updated_at']),
  };
}

export async function findLicense(
  q: Queryable,
  idOrName: string,
  options: { lock?: boolean } = {},
): Promise<LicenseRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${LICENSE_COLUMNS} FROM licenses WHERE name = $1 OR id::text = $1 LIMIT 1${forUpdate(options.lock)}`,
    [idOrName],
  );
  return rows[0] ? licenseFromRow(rows[0]) : null;
}

export async function listLicenses(q: Queryable): Promise<LicenseRow[]> {
  return (await q.query<Raw[]>(`SELECT ${LICENSE_COLUMNS} FROM licenses ORDER BY name`)).map(licenseFromRow);
}

export async function insertLicense(q: Queryable, license: LicenseRow): Promise<void> {
  await q.query(`INSERT INTO licenses (${LICENSE_COLUMNS}) VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7)`, [
    license.id,
    license.name,
    JSON.stringify(license.document),
    license.approvalState,
    license.createdBy,
    license.createdAt,
    license.updatedAt,
  ]);
}

/** Writes a review decision: the document (with its `approval`) and the indexed state move together. */
export async function updateLicenseApproval(
  q: Queryable,
  id: string,
  document: unknown,
  state: LicenseApprovalState,
  at: Date,
): Promise<void> {
  await q.query(
    `UPDATE licenses SET document = $2::jsonb, approval_state = $3, updated_at = $4 WHERE id = $1`,
    [id, JSON.stringify(document), state, at],
  );
}

// ---------------------------------------------------------------------------- runtimes

export interface RuntimeRow {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly kind: RuntimeKind;
  /** The contracts' Runtime document. */
  readonly document: unknown;
  /** On the runtime allowlist: only versions on an allowed runtime roll out. */
  readonly allowed: boolean;
  readonly createdBy: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

const RUNTIME_COLUMNS = 'id, name, version, kind, document, allowed, created_by, created_at, updated_at';

function runtimeFromRow(row: Raw): RuntimeRow {
  return {
    id: row['id'] as string,
    name: row['name'] as string,
    version: row['version'] as string,
    kind: row['kind'] as RuntimeKind,
    document: row['document'],
    allowed: row['allowed'] as boolean,
    createdBy: row['created_by'] as string,
    createdAt: date(row['created_at']),
    updatedAt: date(row['updated_at']),
  };
}

export async function findRuntime(
  q: Queryable,
  id: string,
  options: { lock?: boolean } = {},
): Promise<RuntimeRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${RUNTIME_COLUMNS} FROM runtimes WHERE id = $1${forUpdate(options.lock)}`,
    [id],
  );
  return rows[0] ? runtimeFromRow(rows[0]) : null;
}

export async function findRuntimeByNameVersion(
  q: Queryable,
  name: string,
  version: string,
): Promise<RuntimeRow | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${RUNTIME_COLUMNS} FROM runtimes WHERE name = $1 AND version = $2`,
    [name, version],
  );
  return rows[0] ? runtimeFromRow(rows[0]) : null;
}

export async function listRuntimes(q: Queryable): Promise<RuntimeRow[]> {
  return (await q.query<Raw[]>(`SELECT ${RUNTIME_COLUMNS} FROM runtimes ORDER BY name, version`)).map(
    runtimeFromRow,
  );
}

/** Inserts the runtime unless a row with its id exists; true when this call inserted it. */
export async function insertRuntime(q: Queryable, runtime: RuntimeRow): Promise<boolean> {
  const rows = await q.query<Raw[]>(
    `INSERT INTO runtimes (${RUNTIME_COLUMNS}) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [
      runtime.id,
      runtime.name,
      runtime.version,
      runtime.kind,
      JSON.stringify(runtime.document),
      runtime.allowed,
      runtime.createdBy,
      runtime.createdAt,
      runtime.updatedAt,
    ],
  );
  return rows.length > 0;
}

/**
 * Writes a runtime the system ships (the fake runtime) so the registry row
 * matches the build: inserted when missing, its document replaced when it
 * changed (createdAt aside); the allowlist flag is an administrator's and
 * stays. True when a row was written.
 */
export async function upsertBuiltInRuntime(q: Queryable, runtime: RuntimeRow): Promise<boolean> {
  const rows = await q.query<Raw[]>(
    `INSERT INTO runtimes (${RUNTIME_COLUMNS}) VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9)
     ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, version = EXCLUDED.version, kind = EXCLUDED.kind,
       document = EXCLUDED.document || jsonb_build_object('createdAt', runtimes.document->'createdAt'),
       updated_at = EXCLUDED.updated_at
     WHERE (runtimes.document - 'createdAt') IS DISTINCT FROM (EXCLUDED.document - 'createdAt')
     RETURNING id`,
    [
      runtime.id,
      runtime.name,
      runtime.version,
      runtime.kind,
      JSON.stringify(runtime.document),
      runtime.allowed,
      runtime.createdBy,
      runtime.createdAt,
      runtime.updatedAt,
    ],
  );
  return rows.length > 0;
}

export async function setRuntimeAllowed(q: Queryable, id: string, allowed: boolean, at: Date): Promise<void> {
  await q.query(`UPDATE runtimes SET allowed = $2, updated_at = $3 WHERE id = $1`, [id, allowed, at]);
}

// ---------------------------------------------------------------------------- model versions

/** Model versions of one model (by model id), by version label. */
export async function listModelVersionsOfModel(q: Queryable, modelId: string): Promise<ModelVersionRow[]> {
  // The registry holds hundreds of versions, not millions: one shared row mapper beats a second copy of it.
  return (await listModelVersions(q)).filter((row) => row.modelId === modelId);
}

export interface NewModelVersion {
  readonly id: string;
  readonly modelId: string;
  readonly model: string;
  readonly version: string;
  /** The contracts' Artifact (uri, digest, size, format, provenance). */
  readonly artifact: unknown;
  /** The runtime record the version was registered with (the agent launches from this copy). */
  readonly runtime: unknown;
  readonly runtimeEnv: Readonly<Record<string, string>>;
  readonly state: ModelVersionState;
  readonly licenseId: string;
  readonly runtimeId: string;
  /** CompatibleHardware: what one replica needs. */
  readonly requirements: unknown;
  readonly verification: ArtifactVerification | null;
  readonly contextLength: number | null;
  readonly parameterCount: number | null;
  readonly createdBy: string;
  readonly createdAt: Date;
}

export async function insertModelVersion(q: Queryable, version: NewModelVersion): Promise<void> {
  await q.query(
    `INSERT INTO model_versions (id, model, version, ref, artifact, runtime, runtime_env, model_id, state, license_id,
       runtime_id, requirements, verification, context_length, parameter_count, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9, $10, $11, $12::jsonb, $13::jsonb, $14, $15,
       $16, $17, $17)`,
    [
      version.id,
      version.model,
      version.version,
      `${version.model}@${version.version}`,
      JSON.stringify(version.artifact),
      JSON.stringify(version.runtime),
      JSON.stringify(version.runtimeEnv),
      version.modelId,
      version.state,
      version.licenseId,
      version.runtimeId,
      JSON.stringify(version.requirements),
      version.verification === null ? null : JSON.stringify(version.verification),
      version.contextLength,
      version.parameterCount,
      version.createdBy,
      version.createdAt,
    ],
  );
}

export interface ModelVersionTransition {
  readonly from: ModelVersionState;
  readonly to: ModelVersionState;
  readonly version: ModelVersionRow;
}

/**
 * Moves a version through its lifecycle inside the caller's transaction: the
 * row is locked, the event checked against the table in @lunanexa/domain
 * (INVALID_TRANSITION names what is allowed instead), then written.
 */
export async function transitionModelVersion(
  q: Queryable,
  idOrRef: string,
  event: ModelVersionEvent,
  options: { reason?: string | null; at: Date },
): Promise<ModelVersionTransition> {
  const current = await findModelVersion(q, idOrRef);
  if (!current) {
    throw new LunaNexaError(ErrorCode.MODEL_NOT_FOUND, `model version ${idOrRef} is not registered`);
  }
  const from = (await lockModelVersionState(q, current.id)) ?? current.state;
  const to = transition(modelVersionLifecycle, from, event);
  await writeModelVersionState(q, current.id, { state: to, reason: options.reason ?? null, at: options.at });
  const version = await findModelVersion(q, current.id);
  if (!version) throw new LunaNexaError(ErrorCode.INTERNAL, 'the model version disappeared');
  return { from, to, version };
}

/**
 * Locks the version's row inside the caller's transaction and returns its
 * state as of the lock (null when no such version): whoever moves a version
 * out of a state must read that state after taking the lock.
 */
export async function lockModelVersionState(
  q: Queryable,
  idOrRef: string,
): Promise<ModelVersionState | null> {
  const rows = await q.query<{ state: ModelVersionState }[]>(
    `SELECT state FROM model_versions WHERE id::text = $1 OR ref = $1 FOR UPDATE`,
    [idOrRef],
  );
  return rows[0]?.state ?? null;
}

/** Writes a state the caller already checked against the lifecycle (`transition`). */
export async function writeModelVersionState(
  q: Queryable,
  id: string,
  change: { state: ModelVersionState; reason: string | null; at: Date },
): Promise<void> {
  await q.query(`UPDATE model_versions SET state = $2, state_reason = $3, updated_at = $4 WHERE id = $1`, [
    id,
    change.state,
    change.reason,
    change.at,
  ]);
}

/** A finished evaluation: the version's checked next state and its `evaluation` summary, in one write. */
export async function recordModelVersionEvaluation(
  q: Queryable,
  id: string,
  result: { state: ModelVersionState; reason: string | null; evaluation: unknown; at: Date },
): Promise<void> {
  await q.query(
    `UPDATE model_versions SET state = $2, state_reason = $3, evaluation = $4::jsonb, updated_at = $5 WHERE id = $1`,
    [id, result.state, result.reason, JSON.stringify(result.evaluation), result.at],
  );
}

/**
 * The artifact check's verdict in `model_versions.verification`; with
 * `move`, the checked lifecycle move it causes, in the same write.
 */
export async function recordModelVersionVerification(
  q: Queryable,
  id: string,
  verification: ArtifactVerification,
  at: Date,
  move: { state: ModelVersionState; reason: string | null } | null = null,
): Promise<void> {
  if (move) {
    await q.query(
      `UPDATE model_versions SET verification = $2::jsonb, updated_at = $3, state = $4, state_reason = $5
        WHERE id = $1`,
      [id, JSON.stringify(verification), at, move.state, move.reason],
    );
  } else {
    await q.query(`UPDATE model_versions SET verification = $2::jsonb, updated_at = $3 WHERE id = $1`, [
      id,
      JSON.stringify(verification),
      at,
    ]);
  }
}
