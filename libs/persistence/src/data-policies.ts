import { createHash } from 'node:crypto';
import type {
  DataClass,
  PayloadCaptureMetadata,
  PayloadCapturePurpose,
  TenantDataPolicy,
} from '@lunanexa/contracts';
import type { Queryable } from './fleet';
import { returnedRows } from './returning';

/**
 * Tenant data policies and payload captures (migration 1767657600000).
 * Reads here return capture metadata only: the text of a capture is read by
 * nothing in the control plane (the gateway writes it, expiry deletes it).
 */

type Raw = Record<string, unknown>;

const POLICY_COLUMNS = `tenant_id, data_class, retention_mode, retention_days, evaluation_capture_consent,
  updated_by, updated_at`;

export function dataPolicyFromRow(row: Raw): TenantDataPolicy {
  const days = row['retention_days'] as number | null;
  return {
    tenantId: row['tenant_id'] as string,
    dataClass: row['data_class'] as DataClass,
    retention: row['retention_mode'] === 'days' && days !== null ? { mode: 'days', days } : { mode: 'none' },
    evaluationCaptureConsent: row['evaluation_capture_consent'] === true,
    updatedBy: row['updated_by'] as string,
    updatedAt: new Date(row['updated_at'] as string).toISOString(),
  };
}

export async function listDataPolicies(q: Queryable): Promise<TenantDataPolicy[]> {
  const rows = await q.query<Raw[]>(`SELECT ${POLICY_COLUMNS} FROM tenant_data_policies ORDER BY tenant_id`);
  return rows.map(dataPolicyFromRow);
}

/** A tenant_data_policies row as stored, for readers that map it themselves (the gateway reads a bad row cautiously). */
export interface DataPolicyRow {
  readonly tenant_id: string;
  readonly data_class: string;
  readonly retention_mode: string;
  readonly retention_days: number | null;
  readonly evaluation_capture_consent: boolean;
  readonly updated_by: string;
  readonly updated_at: Date;
}

export async function dataPolicyRows(q: Queryable): Promise<DataPolicyRow[]> {
  return q.query<DataPolicyRow[]>(`SELECT ${POLICY_COLUMNS} FROM tenant_data_policies`);
}

/** A payload capture as the gateway writes it; `requestBody` is the workload already serialised as JSON. */
export interface NewPayloadCapture {
  readonly id: string;
  readonly tenantId: string;
  readonly requestId: string;
  readonly correlationId: string;
  readonly deploymentId: string | null;
  readonly modelRef: string | null;
  readonly purpose: string;
  readonly requestBody: string;
  readonly responseText: string;
  readonly capturedAt: Date;
  readonly expiresAt: Date;
}

/** Appends a batch of payload captures in one statement (one array per column). */
export async function insertPayloadCaptures(
  q: Queryable,
  batch: readonly NewPayloadCapture[],
): Promise<void> {
  const pick = <T>(read: (entry: NewPayloadCapture) => T): T[] => batch.map(read);
  await q.query(
    `INSERT INTO payload_captures (id, tenant_id, request_id, correlation_id, deployment_id, model_ref, purpose,
            request_body, response_text, captured_at, expires_at)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
            $8::jsonb[], $9::text[], $10::timestamptz[], $11::timestamptz[])`,
    [
      pick((e) => e.id),
      pick((e) => e.tenantId),
      pick((e) => e.requestId),
      pick((e) => e.correlationId),
      pick((e) => e.deploymentId),
      pick((e) => e.modelRef),
      pick((e) => e.purpose),
      pick((e) => e.requestBody),
      pick((e) => e.responseText),
      pick((e) => e.capturedAt.toISOString()),
      pick((e) => e.expiresAt.toISOString()),
    ],
  );
}

export async function findDataPolicy(
  q: Queryable,
  tenantId: string,
  options: { forUpdate?: boolean } = {},
): Promise<TenantDataPolicy | null> {
  const rows = await q.query<Raw[]>(
    `SELECT ${POLICY_COLUMNS} FROM tenant_data_policies WHERE tenant_id = $1${options.forUpdate ? ' FOR UPDATE' : ''}`,
    [tenantId],
  );
  return rows[0] ? dataPolicyFromRow(rows[0]) : null;
}

export async function upsertDataPolicy(q: Queryable, policy: TenantDataPolicy): Promise<void> {
  await q.query(
    `INSERT INTO tenant_data_policies (tenant_id, data_class, retention_mode, retention_days,
            evaluation_capture_consent, updated_by, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (tenant_id) DO UPDATE SET
       data_class = EXCLUDED.data_class,
       retention_mode = EXCLUDED.retention_mode,
       retention_days = EXCLUDED.retention_days,
       evaluation_capture_consent = EXCLUDED.evaluation_capture_consent,
       updated_by = EXCLUDED.updated_by,
       updated_at = EXCLUDED.updated_at`,
    [
      policy.tenantId,
      policy.dataClass,
      policy.retention.mode,
      policy.retention.mode === 'days' ? policy.retention.days : null,
      policy.evaluationCaptureConsent,
      policy.updatedBy,
      policy.updatedAt,
    ],
  );
}

const CAPTURE_METADATA_COLUMNS = `id, tenant_id, request_id, correlation_id, deployment_id, model_ref, purpose,
  captured_at, expires_at, octet_length(request_body::text) AS request_bytes,
  octet_length(response_text) AS response_bytes`;

function captureFromRow(row: Raw): PayloadCaptureMetadata {
  return {
    id: row['id'] as string,
    tenantId: row['tenant_id'] as string,
    requestId: row['request_id'] as string,
    correlationId: row['correlation_id'] as string,
    deploymentId: (row['deployment_id'] as string | null) ?? null,
    modelRef: (row['model_ref'] as string | null) ?? null,
    purpose: row['purpose'] as PayloadCapturePurpose,
    capturedAt: new Date(row['captured_at'] as string).toISOString(),
    expiresAt: new Date(row['expires_at'] as string).toISOString(),
    requestBytes: Number(row['request_bytes']),
    responseBytes: Number(row['response_bytes']),
  };
}

/** Newest first; metadata and sizes only. */
export async function listPayloadCaptures(
  q: Queryable,
  options: { tenantId?: string; limit: number },
): Promise<PayloadCaptureMetadata[]> {
  const rows = await q.query<Raw[]>(
    `SELECT ${CAPTURE_METADATA_COLUMNS} FROM payload_captures
      WHERE ($1::text IS NULL OR tenant_id = $1)
      ORDER BY captured_at DESC, id LIMIT $2`,
    [options.tenantId ?? null, options.limit],
  );
  return rows.map(captureFromRow);
}

interface DeletedRow {
  readonly id: string;
  readonly tenant_id: string;
  readonly purpose: PayloadCapturePurpose;
}

/** What a deletion receipt may say about the rows it deleted: never their contents. */
export interface DeletedCaptures {
  readonly count: number;
  readonly tenantIds: readonly string[];
  readonly purposes: readonly PayloadCapturePurpose[];
  /** sha256 of each deleted capture's id, sorted: lets a tenant check "was mine deleted" without the receipt listing ids. */
  readonly idSha256: readonly string[];
}

/**
 * Deletes one bounded batch inside the caller's transaction: expired
 * captures, or (purge) every capture of one tenant. SKIP LOCKED lets two
 * runs work side by side without deleting, and receipting, the same row twice.
 */
export async function deletePayloadCaptureBatch(
  q: Queryable,
  options: { readonly mode: 'expired' | 'purge'; readonly tenantId?: string; readonly limit: number },
): Promise<DeletedCaptures> {
  const filter =
    options.mode === 'purge'
      ? `tenant_id = $2`
      : `expires_at <= now() AND ($2::text IS NULL OR tenant_id = $2)`;
  const raw = await q.query<unknown[]>(
    `DELETE FROM payload_captures WHERE id IN (
       SELECT id FROM payload_captures WHERE ${filter} ORDER BY expires_at, id LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING id, tenant_id, purpose`,
    [options.limit, options.tenantId ?? null],
  );
  const deleted = returnedRows<DeletedRow>(raw);
  return {
    count: deleted.length,
    tenantIds: [...new Set(deleted.map((row) => row.tenant_id))].sort(),
    purposes: [...new Set(deleted.map((row) => row.purpose))].sort(),
    idSha256: deleted.map((row) => createHash('sha256').update(row.id).digest('hex')).sort(),
  };
}
