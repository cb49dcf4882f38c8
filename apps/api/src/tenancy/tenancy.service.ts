import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ErrorCode,
  type FieldViolation,
  GATEWAY_KEY_MAX_LIFETIME_DAYS,
  GatewayKeyAliasesSchema,
  GatewayKeyNameSchema,
  IsoTimestampSchema,
  LunaNexaError,
  OpaqueIdSchema,
  QUOTA_FIELDS,
  type GatewayKey as GatewayKeyDocument,
  type QuotaField,
  type Tenant as TenantDocument,
  TenantDisplayNameSchema,
  type TenantQuota,
  UNLIMITED_QUOTA,
  WORKLOAD_PRIORITIES,
  type WorkloadPriority,
  WorkloadPrioritySchema,
  gatewayKeyState,
  quotaViolation,
} from '@lunanexa/contracts';
import {
  existingAliasNames,
  findGatewayKey,
  findTenant,
  gatewayKeyCountsByTenant,
  insertGatewayKey,
  insertTenant,
  listGatewayKeys,
  listTenants,
  revokeGatewayKey,
  updateTenant,
  type GatewayKeyCounts,
} from '@lunanexa/persistence';
import { generateGatewayKey } from '@lunanexa/credentials';
import type { EntityManager } from 'typeorm';
import { DataSource } from 'typeorm';
import { AuditWriter, Denied, type AuditContext, type Evidence } from '../auth';
import type { Caller } from '../common/caller';
import type {
  CreateGatewayKeyInput,
  CreateGatewayKeyResult,
  CreateTenantInput,
  GatewayKey,
  Tenant,
  UpdateTenantInput,
} from './tenancy.types';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NO_KEYS: GatewayKeyCounts = { total: 0, active: 0 };

function invalid(what: string, violations: readonly FieldViolation[]): LunaNexaError {
  return new LunaNexaError(
    ErrorCode.VALIDATION_FAILED,
    `${what}: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`,
    violations,
  );
}

function firstIssue(result: { success: boolean; error?: { issues: { message: string }[] } }): string | null {
  return result.success ? null : (result.error?.issues[0]?.message ?? 'is invalid');
}

function checkTenantId(id: unknown, path: string, violations: FieldViolation[]): void {
  const problem = firstIssue(OpaqueIdSchema.safeParse(id));
  if (problem !== null) violations.push({ path, message: problem });
}

function checkDisplayName(value: unknown, violations: FieldViolation[]): void {
  if (value === null || value === undefined) return;
  const problem = firstIssue(TenantDisplayNameSchema.safeParse(value));
  if (problem !== null) violations.push({ path: 'displayName', message: problem });
}

function checkMaxPriority(value: unknown, violations: FieldViolation[]): void {
  if (value === null || value === undefined) return;
  if (!WorkloadPrioritySchema.safeParse(value).success)
    violations.push({
      path: 'maxPriority',
      message: `must be one of ${WORKLOAD_PRIORITIES.join(', ')}, or null`,
    });
}

function checkQuota(field: QuotaField, value: number | null | undefined, violations: FieldViolation[]): void {
  if (value === undefined) return;
  const problem = quotaViolation(field, value);
  if (problem !== null) violations.push({ path: field, message: problem });
}

/** The id a refusal's evidence may name: the caller's text, bounded (it was not necessarily valid). */
function mentioned(value: unknown): string | null {
  return typeof value === 'string' ? value.slice(0, 128) : null;
}

/** A new tenant from the GraphQL input, or VALIDATION_FAILED naming every bad field. */
export function parseCreateTenantInput(
  input: CreateTenantInput,
): Pick<TenantDocument, 'id' | 'displayName' | 'quota' | 'maxPriority'> {
  const violations: FieldViolation[] = [];
  checkTenantId(input.id, 'id', violations);
  checkDisplayName(input.displayName, violations);
  checkMaxPriority(input.maxPriority, violations);
  for (const field of QUOTA_FIELDS) checkQuota(field, input[field], violations);
  if (violations.length > 0) throw invalid('the tenant is invalid', violations);
  const quota: TenantQuota = { ...UNLIMITED_QUOTA };
  for (const field of QUOTA_FIELDS) quota[field] = input[field] ?? null;
  return {
    id: input.id,
    displayName: input.displayName ?? null,
    quota,
    maxPriority: (input.maxPriority ?? null) as WorkloadPriority | null,
  };
}

/**
 * The changes an update asks for: a field left out (undefined) keeps its
 * value, an explicit null clears it (unlimited; no display name).
 */
export function parseUpdateTenantInput(input: UpdateTenantInput): {
  id: string;
  displayName?: string | null;
  maxPriority?: WorkloadPriority | null;
  quota: Partial<TenantQuota>;
} {
  const violations: FieldViolation[] = [];
  checkTenantId(input.id, 'id', violations);
  checkDisplayName(input.displayName, violations);
  checkMaxPriority(input.maxPriority, violations);
  for (const field of QUOTA_FIELDS) checkQuota(field, input[field], violations);
  if (violations.length > 0) throw invalid('the tenant change is invalid', violations);
  const quota: Partial<TenantQuota> = {};
  for (const field of QUOTA_FIELDS) {
    const value = input[field];
    if (value !== undefined) quota[field] = value;
  }
  return {
    id: input.id,
    ...(input.displayName === undefined ? {} : { displayName: input.displayName }),
    ...(input.maxPriority === undefined ? {} : { maxPriority: input.maxPriority as WorkloadPriority | null }),
    quota,
  };
}

/** A new key's fields from the GraphQL input (aliases' existence is checked against the database later). */
export function parseCreateGatewayKeyInput(
  input: CreateGatewayKeyInput,
  now: Date,
): { tenantId: string; name: string; aliases: string[]; expiresAt: string | null } {
  const violations: FieldViolation[] = [];
  checkTenantId(input.tenantId, 'tenantId', violations);
  const nameProblem = firstIssue(GatewayKeyNameSchema.safeParse(input.name));
  if (nameProblem !== null) violations.push({ path: 'name', message: nameProblem });
  const aliases = GatewayKeyAliasesSchema.safeParse(input.aliases);
  if (!aliases.success) {
    for (const issue of aliases.error.issues)
      violations.push({ path: ['aliases', ...issue.path].join('.'), message: issue.message });
  }
  let expiresAt: string | null = null;
  if (input.expiresAt !== null && input.expiresAt !== undefined) {
    const parsed = IsoTimestampSchema.safeParse(input.expiresAt);
    const at = parsed.success ? Date.parse(parsed.data) : Number.NaN;
    if (!parsed.success)
      violations.push({ path: 'expiresAt', message: parsed.error.issues[0]?.message ?? '' });
    else if (at <= now.getTime()) violations.push({ path: 'expiresAt', message: 'must be in the future' });
    else if (at > now.getTime() + GATEWAY_KEY_MAX_LIFETIME_DAYS * 86_400_000)
      violations.push({
        path: 'expiresAt',
        message: `must be at most ${GATEWAY_KEY_MAX_LIFETIME_DAYS} days ahead`,
      });
    else expiresAt = new Date(at).toISOString();
  }
  if (violations.length > 0) throw invalid('the gateway key is invalid', violations);
  return { tenantId: input.tenantId, name: input.name, aliases: [...input.aliases], expiresAt };
}

export function tenantView(tenant: TenantDocument, counts: GatewayKeyCounts = NO_KEYS): Tenant {
  return {
    ...tenant,
    quota: { ...tenant.quota },
    maxPriority: tenant.maxPriority ?? null,
    keyCount: counts.total,
    activeKeyCount: counts.active,
  };
}

export function gatewayKeyView(key: GatewayKeyDocument, now: Date): GatewayKey {
  return { ...key, aliases: [...key.aliases], state: gatewayKeyState(key, now) };
}

/** PostgreSQL unique_violation (TypeORM wraps the driver's error). */
function isUniqueViolation(error: unknown): boolean {
  const candidate = error as { code?: unknown; driverError?: { code?: unknown } };
  return candidate.code === '23505' || candidate.driverError?.code === '23505';
}

/**
 * Tenants, their quotas and their gateway keys. Each change is one
 * transaction holding the row and its audit event (AuditWriter.change) with
 * before/after evidence; every typed refusal (invalid input, unknown tenant
 * or alias, duplicate tenant) is audited as `denied`/`refused` and changes
 * nothing. A key's secret exists only in createGatewayKey's answer: the
 * database gets its sha256, and evidence and logs name the key by its
 * display prefix. The database triggers tell gateways to reload.
 */
@Injectable()
export class TenancyService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  async tenants(): Promise<Tenant[]> {
    const [tenants, counts] = await Promise.all([
      listTenants(this.db),
      gatewayKeyCountsByTenant(this.db, new Date()),
    ]);
    return tenants.map((tenant) => tenantView(tenant, counts.get(tenant.id)));
  }

  async tenant(id: string): Promise<Tenant | null> {
    const violations: FieldViolation[] = [];
    checkTenantId(id, 'id', violations);
    if (violations.length > 0) throw invalid('tenant', violations);
    const tenant = await findTenant(this.db, id);
    if (!tenant) return null;
    const counts = await gatewayKeyCountsByTenant(this.db, new Date());
    return tenantView(tenant, counts.get(id));
  }

  async gatewayKeys(tenantId: string, includeRevoked: boolean): Promise<GatewayKey[]> {
    const violations: FieldViolation[] = [];
    checkTenantId(tenantId, 'tenantId', violations);
    if (violations.length > 0) throw invalid('gatewayKeys', violations);
    if (!(await findTenant(this.db, tenantId)))
      throw new LunaNexaError(ErrorCode.NOT_FOUND, `no tenant ${tenantId}`);
    const now = new Date();
    return (await listGatewayKeys(this.db, { tenantId, includeRevoked })).map((key) =>
      gatewayKeyView(key, now),
    );
  }

  async createTenant(input: CreateTenantInput, caller: Caller): Promise<Tenant> {
    const context = this.context(caller, 'tenant.create');
    const parsed = await this.audit.parsedOrRefused(context, { tenantId: mentioned(input.id) }, () =>
      parseCreateTenantInput(input),
    );
    const now = new Date().toISOString();
    const tenant: TenantDocument = {
      ...parsed,
      createdBy: caller.actor,
      createdAt: now,
      updatedBy: caller.actor,
      updatedAt: now,
    };
    await this.change(context, { tenantId: tenant.id }, async (manager) => {
      try {
        await insertTenant(manager, tenant);
      } catch (error) {
        if (isUniqueViolation(error))
          throw new LunaNexaError(ErrorCode.CONFLICT, `a tenant ${tenant.id} already exists`);
        throw error;
      }
      return { value: undefined, evidence: { before: null, after: tenant } };
    });
    return tenantView(tenant);
  }

  async updateTenant(input: UpdateTenantInput, caller: Caller): Promise<Tenant> {
    const context = this.context(caller, 'tenant.update');
    const change = await this.audit.parsedOrRefused(context, { tenantId: mentioned(input.id) }, () =>
      parseUpdateTenantInput(input),
    );
    const after = await this.change(context, { tenantId: change.id }, async (manager) => {
      const before = await findTenant(manager, change.id, { forUpdate: true });
      if (!before) throw new LunaNexaError(ErrorCode.NOT_FOUND, `no tenant ${change.id}`);
      const next: TenantDocument = {
        ...before,
        ...(change.displayName === undefined ? {} : { displayName: change.displayName }),
        ...(change.maxPriority === undefined ? {} : { maxPriority: change.maxPriority }),
        quota: { ...before.quota, ...change.quota },
        updatedBy: caller.actor,
        updatedAt: new Date().toISOString(),
      };
      await updateTenant(manager, next);
      return { value: next, evidence: { before, after: next } };
    });
    const counts = await gatewayKeyCountsByTenant(this.db, new Date());
    return tenantView(after, counts.get(after.id));
  }

  async createGatewayKey(input: CreateGatewayKeyInput, caller: Caller): Promise<CreateGatewayKeyResult> {
    const context = this.context(caller, 'gatewayKey.create');
    const now = new Date();
    const parsed = await this.audit.parsedOrRefused(context, { tenantId: mentioned(input.tenantId) }, () =>
      parseCreateGatewayKeyInput(input, now),
    );
    const material = generateGatewayKey();
    const key: GatewayKeyDocument = {
      id: randomUUID(),
      tenantId: parsed.tenantId,
      name: parsed.name,
      prefix: material.prefix,
      aliases: parsed.aliases,
      createdBy: caller.actor,
      createdAt: now.toISOString(),
      expiresAt: parsed.expiresAt,
      revokedAt: null,
      revokedBy: null,
      lastUsedAt: null,
    };
    // Evidence names the key by id and display prefix only: never the secret, never its hash.
    await this.change(
      context,
      { tenantId: key.tenantId, keyId: key.id, prefix: key.prefix },
      async (manager) => {
        if (!(await findTenant(manager, key.tenantId, { forUpdate: true })))
          throw new LunaNexaError(ErrorCode.NOT_FOUND, `no tenant ${key.tenantId}`);
        const existing = new Set(await existingAliasNames(manager, key.aliases));
        const missing: FieldViolation[] = key.aliases.flatMap((alias, i) =>
          existing.has(alias) ? [] : [{ path: `aliases.${i}`, message: `no alias named ${alias}` }],
        );
        if (missing.length > 0)
          throw new LunaNexaError(
            ErrorCode.NOT_FOUND,
            `unknown aliases: ${missing.map((m) => key.aliases[Number(m.path.split('.')[1])]).join(', ')}`,
            missing,
          );
        try {
          await insertGatewayKey(manager, key, material.keyHash);
        } catch (error) {
          // Two keys with one sha256 cannot happen by chance; the driver's detail would quote the hash, so drop it.
          if (isUniqueViolation(error))
            throw new LunaNexaError(ErrorCode.CONFLICT, 'the generated key collided with another; try again');
          throw error;
        }
        return { value: undefined, evidence: { before: null, after: key } };
      },
    );
    return { key: gatewayKeyView(key, now), secret: material.key };
  }

  /**
   * Revokes a key; the gateways drop it at once (NOTIFY). Revoking a revoked
   * key is idempotent: it answers the key as it is (first revocation's time
   * and actor), audits `changed: false` and writes nothing, so gateways are
   * not told to reload for nothing.
   */
  async revokeGatewayKey(id: string, caller: Caller): Promise<GatewayKey> {
    const context = this.context(caller, 'gatewayKey.revoke');
    const keyId = await this.audit.parsedOrRefused(context, { keyId: mentioned(id) }, () => {
      if (!UUID.test(id)) throw invalid('revokeGatewayKey', [{ path: 'id', message: 'must be a UUID' }]);
      return id.toLowerCase();
    });
    const revoked = await this.change(context, { keyId }, async (manager) => {
      const before = await findGatewayKey(manager, keyId, { forUpdate: true });
      if (!before) throw new LunaNexaError(ErrorCode.NOT_FOUND, `no gateway key ${keyId}`);
      const evidence = { tenantId: before.tenantId, prefix: before.prefix };
      if (before.revokedAt !== null)
        return { value: before, evidence: { ...evidence, changed: false, before, after: before } };
      const after = await revokeGatewayKey(manager, keyId, {
        revokedAt: new Date().toISOString(),
        revokedBy: caller.actor,
      });
      if (!after) throw new LunaNexaError(ErrorCode.NOT_FOUND, `no gateway key ${keyId}`);
      return { value: after, evidence: { ...evidence, changed: true, before, after } };
    });
    return gatewayKeyView(revoked, new Date());
  }

  private context(caller: Caller, action: string): AuditContext {
    return { actor: caller.actor, action, ids: caller.ids };
  }

  /** AuditWriter.change, with every typed error of `work` recorded as a refusal (rolled back: nothing changed). */
  private change<T>(
    context: AuditContext,
    evidence: Evidence,
    work: (manager: EntityManager) => Promise<{ value: T; evidence?: Evidence }>,
  ): Promise<T> {
    return this.audit.change(context, evidence, async (manager) => {
      try {
        return await work(manager);
      } catch (error) {
        if (error instanceof LunaNexaError && error.code !== ErrorCode.INTERNAL)
          throw new Denied(error, {
            ...(error.violations.length > 0 ? { fields: error.violations.map((v) => v.path) } : {}),
          });
        throw error;
      }
    });
  }
}
