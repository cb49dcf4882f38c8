import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  type FieldViolation,
  LunaNexaError,
  OpaqueIdSchema,
  RETENTION_EXPIRY_BATCH_SIZE,
  type RetentionExpiryWorkflowInput,
  type RetentionExpiryWorkflowResult,
  type TenantDataPolicy,
  TenantDataPolicyInputSchema,
  WORKFLOW_TYPES,
  defaultDataPolicy,
  workflowIdFor,
} from '@lunanexa/contracts';
import {
  findDataPolicy,
  listDataPolicies,
  listPayloadCaptures,
  upsertDataPolicy,
} from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { AuditWriter } from '../auth';
import type { Caller } from '../common/caller';
import { validateIdempotencyKey } from '../common/idempotency-key';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import type { DataPolicy, PayloadCapture, PayloadPurge, SetDataPolicyInput } from './privacy.types';

export const MAX_CAPTURE_LISTING = 500;

function invalid(violations: FieldViolation[]): LunaNexaError {
  return new LunaNexaError(
    ErrorCode.VALIDATION_FAILED,
    `the data policy is invalid: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`,
    violations,
  );
}

function validTenantId(tenantId: string): string {
  if (!OpaqueIdSchema.safeParse(tenantId).success)
    throw invalid([{ path: 'tenantId', message: 'must be an opaque id: [A-Za-z0-9][A-Za-z0-9._:-]{0,127}' }]);
  return tenantId;
}

function view(policy: TenantDataPolicy, configured: boolean): DataPolicy {
  return {
    tenantId: policy.tenantId,
    dataClass: policy.dataClass,
    retentionMode: policy.retention.mode,
    retentionDays: policy.retention.mode === 'days' ? policy.retention.days : null,
    evaluationCaptureConsent: policy.evaluationCaptureConsent,
    configured,
    updatedBy: policy.updatedBy,
    updatedAt: policy.updatedAt,
  };
}

/** The GraphQL input as the contract's policy input, or every violation (field names as the API spells them). */
export function parseDataPolicyInput(
  input: SetDataPolicyInput,
): Omit<TenantDataPolicy, 'updatedBy' | 'updatedAt'> {
  const violations: FieldViolation[] = [];
  if (input.retentionMode === 'none' && input.retentionDays !== null && input.retentionDays !== undefined)
    violations.push({ path: 'retentionDays', message: 'must be absent when retentionMode is none' });
  if (input.retentionMode === 'days' && (input.retentionDays === null || input.retentionDays === undefined))
    violations.push({ path: 'retentionDays', message: 'is required when retentionMode is days' });
  const retention =
    input.retentionMode === 'days'
      ? { mode: 'days', days: input.retentionDays }
      : { mode: input.retentionMode };
  const parsed = TenantDataPolicyInputSchema.safeParse({
    tenantId: input.tenantId,
    dataClass: input.dataClass,
    retention,
    evaluationCaptureConsent: input.evaluationCaptureConsent ?? false,
  });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.join('.');
      if (path === 'retention.days') {
        if (!violations.some((v) => v.path === 'retentionDays'))
          violations.push({ path: 'retentionDays', message: issue.message });
      } else if (path.startsWith('retention')) {
        violations.push({ path: 'retentionMode', message: 'must be none or days' });
      } else if (path === 'dataClass') {
        violations.push({ path, message: 'must be public, internal, confidential or restricted' });
      } else {
        violations.push({ path, message: issue.message });
      }
    }
  }
  if (violations.length > 0 || !parsed.success) throw invalid(violations);
  return parsed.data;
}

/**
 * Tenant data policies and the payload captures they allow. Setting a policy
 * is one row and its audit event in one transaction (AuditWriter.change);
 * purging is the RetentionExpiry workflow in purge mode, whose deletion
 * receipts are the audit record. Capture listings are metadata only: no
 * query in the API reads a capture's text.
 */
@Injectable()
export class PrivacyService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
    private readonly workflows: WorkflowRunner,
  ) {}

  async dataPolicies(): Promise<DataPolicy[]> {
    return (await listDataPolicies(this.db)).map((policy) => view(policy, true));
  }

  async dataPolicy(tenantId: string): Promise<DataPolicy> {
    const id = validTenantId(tenantId);
    const policy = await findDataPolicy(this.db, id);
    return policy ? view(policy, true) : view(defaultDataPolicy(id), false);
  }

  async setDataPolicy(input: SetDataPolicyInput, caller: Caller): Promise<DataPolicy> {
    const context = { actor: caller.actor, action: 'dataPolicy.set', ids: caller.ids };
    let parsed: Omit<TenantDataPolicy, 'updatedBy' | 'updatedAt'>;
    try {
      parsed = parseDataPolicyInput(input);
    } catch (error) {
      const code = error instanceof LunaNexaError ? error.code : ErrorCode.INTERNAL;
      await this.audit.refusal(context, {
        tenantId: typeof input.tenantId === 'string' ? input.tenantId.slice(0, 128) : null,
        errorCode: code,
      });
      throw error;
    }
    const after: TenantDataPolicy = {
      ...parsed,
      updatedBy: caller.actor,
      updatedAt: new Date().toISOString(),
    };
    await this.audit.change(context, { tenantId: after.tenantId }, async (manager) => {
      const before = await findDataPolicy(manager, after.tenantId, { forUpdate: true });
      await upsertDataPolicy(manager, after);
      return {
        value: undefined,
        evidence: {
          before: before ?? { ...defaultDataPolicy(after.tenantId), configured: false },
          after,
        },
      };
    });
    return view(after, true);
  }

  async payloadCaptures(tenantId: string | null, limit: number | null): Promise<PayloadCapture[]> {
    const bounded = limit ?? 50;
    if (!Number.isInteger(bounded) || bounded < 1 || bounded > MAX_CAPTURE_LISTING)
      throw new LunaNexaError(ErrorCode.VALIDATION_FAILED, `limit must be 1-${MAX_CAPTURE_LISTING}`, [
        { path: 'limit', message: `must be 1-${MAX_CAPTURE_LISTING}` },
      ]);
    const rows = await listPayloadCaptures(this.db, {
      limit: bounded,
      ...(tenantId === null ? {} : { tenantId: validTenantId(tenantId) }),
    });
    return rows.map((row) => ({ ...row }));
  }

  /** Deletes every capture of the tenant now (RetentionExpiry in purge mode) and answers with its receipts. */
  async purgePayloadCaptures(
    tenantId: string,
    idempotencyKey: string | null,
    caller: Caller,
  ): Promise<PayloadPurge> {
    const context = { actor: caller.actor, action: 'payload.purge', ids: caller.ids };
    let id: string;
    let key: string;
    try {
      id = validTenantId(tenantId);
      key = validateIdempotencyKey(idempotencyKey ?? randomUUID());
    } catch (error) {
      await this.audit.refusal(context, {
        errorCode: error instanceof LunaNexaError ? error.code : ErrorCode.INTERNAL,
      });
      throw error;
    }
    const workflowId = workflowIdFor('retentionExpiry', `purge:${id}:${key}`);
    const input: RetentionExpiryWorkflowInput = {
      mode: 'purge',
      tenantId: id,
      intervalSeconds: 1,
      batchSize: RETENTION_EXPIRY_BATCH_SIZE,
      actor: caller.actor,
      correlationId: caller.ids.correlationId,
      requestId: caller.ids.requestId,
    };
    const started = await this.workflows.start(WORKFLOW_TYPES.retentionExpiry, {
      workflowId,
      args: [input],
      correlationId: caller.ids.correlationId,
      actor: caller.actor,
    });
    const result = await this.workflows.result<RetentionExpiryWorkflowResult>(workflowId);
    return {
      tenantId: id,
      deleted: result.deleted,
      receiptHashes: [...result.receiptHashes],
      workflowId,
      temporalUiUrl: started.temporalUiUrl,
    };
  }
}
