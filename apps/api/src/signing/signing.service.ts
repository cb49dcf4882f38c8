import { Injectable } from '@nestjs/common';
import { ErrorCode, LunaNexaError, OpaqueIdSchema, type FieldViolation } from '@lunanexa/contracts';
import { parseEd25519PublicKey, signingKeyFingerprint } from '@lunanexa/credentials';
import {
  findTrustedSigningKey,
  insertTrustedSigningKey,
  listTrustedSigningKeys,
  revokeTrustedSigningKey,
  setTenantAllowUnsignedVersions,
  tenantAllowsUnsignedVersions,
  type TrustedSigningKeyRow,
} from '@lunanexa/persistence';
import type { EntityManager } from 'typeorm';
import { DataSource } from 'typeorm';
import { AuditWriter, Denied, type AuditContext, type Evidence } from '../auth';
import type { Caller } from '../common/caller';
import type { RegisterSigningKeyInput, TenantSigningPolicy, TrustedSigningKey } from './signing.types';

const KEY_ID = /^ed25519:[0-9a-f]{32}$/;
const LABEL = /^[^\p{Cc}]{1,200}$/u;

function invalid(what: string, violations: readonly FieldViolation[]): LunaNexaError {
  return new LunaNexaError(
    ErrorCode.VALIDATION_FAILED,
    `${what}: ${violations.map((v) => `${v.path} ${v.message}`).join('; ')}`,
    violations,
  );
}

function view(row: TrustedSigningKeyRow): TrustedSigningKey {
  return {
    keyId: row.keyId,
    algorithm: row.algorithm,
    publicKey: row.publicKey,
    label: row.label,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
    revokedBy: row.revokedBy,
  };
}

/** A new key from the GraphQL input, or VALIDATION_FAILED naming every bad field. */
export function parseRegisterSigningKeyInput(input: RegisterSigningKeyInput): {
  keyId: string;
  publicKey: string;
  label: string;
} {
  const violations: FieldViolation[] = [];
  const raw = typeof input.publicKey === 'string' ? parseEd25519PublicKey(input.publicKey) : null;
  if (raw === null)
    violations.push({
      path: 'publicKey',
      message: 'must be an Ed25519 public key: base64 of the raw 32 bytes or a PEM SubjectPublicKeyInfo',
    });
  if (typeof input.label !== 'string' || !LABEL.test(input.label))
    violations.push({ path: 'label', message: 'must be 1-200 characters, no control characters' });
  if (violations.length > 0 || raw === null) throw invalid('the signing key is invalid', violations);
  return { keyId: signingKeyFingerprint(raw), publicKey: raw.toString('base64'), label: input.label };
}

/**
 * Trusted artifact-signing keys and the tenants' unsigned-version policy.
 * Each change is one transaction with its audit event (AuditWriter.change);
 * refusals are audited too. Verifying a signature is not done here: the
 * verification workflow, the deploy gate (API and rollout worker) and the
 * agent each call libs/credentials `decideArtifactSignature`.
 */
@Injectable()
export class SigningService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  async keys(): Promise<TrustedSigningKey[]> {
    return (await listTrustedSigningKeys(this.db)).map(view);
  }

  /** Registers a key (CONFLICT when it is registered already, revoked or not: a revoked key stays revoked). */
  async registerSigningKey(input: RegisterSigningKeyInput, caller: Caller): Promise<TrustedSigningKey> {
    const context = this.context(caller, 'signingKey.register');
    const parsed = await this.audit.parsedOrRefused(context, {}, () => parseRegisterSigningKeyInput(input));
    const evidence = { keyId: parsed.keyId, label: parsed.label };
    return this.change(context, evidence, async (manager) => {
      const existing = await findTrustedSigningKey(manager, parsed.keyId);
      if (existing) {
        throw new LunaNexaError(
          ErrorCode.CONFLICT,
          `signing key ${parsed.keyId} is registered already${existing.revokedAt ? ' and was revoked; generate a new key' : ''}`,
        );
      }
      await insertTrustedSigningKey(manager, { ...parsed, createdBy: caller.actor, createdAt: new Date() });
      const row = await findTrustedSigningKey(manager, parsed.keyId);
      if (!row) throw new LunaNexaError(ErrorCode.INTERNAL, 'the key just inserted is gone');
      return { value: view(row) };
    });
  }

  /**
   * Revokes a key: from now on nothing it signed deploys (the deploy gate
   * and the agent read the keys as they are). Revoking a revoked key is
   * idempotent and audited `changed: false`.
   */
  async revokeSigningKey(keyId: string, caller: Caller): Promise<TrustedSigningKey> {
    const context = this.context(caller, 'signingKey.revoke');
    await this.audit.parsedOrRefused(
      context,
      { keyId: typeof keyId === 'string' ? keyId.slice(0, 128) : null },
      () => {
        if (!KEY_ID.test(keyId))
          throw invalid('revokeSigningKey', [
            { path: 'keyId', message: "must be 'ed25519:' + 32 hex digits" },
          ]);
      },
    );
    return this.change(context, { keyId }, async (manager) => {
      const before = await findTrustedSigningKey(manager, keyId);
      if (!before) throw new LunaNexaError(ErrorCode.NOT_FOUND, `no signing key ${keyId}`);
      if (before.revokedAt !== null) return { value: view(before), evidence: { changed: false } };
      await revokeTrustedSigningKey(manager, keyId, caller.actor, new Date());
      const after = await findTrustedSigningKey(manager, keyId);
      if (!after) throw new LunaNexaError(ErrorCode.INTERNAL, 'the key just revoked is gone');
      return { value: view(after), evidence: { changed: true, label: before.label } };
    });
  }

  async tenantPolicy(tenantId: string): Promise<TenantSigningPolicy | null> {
    const allow = await tenantAllowsUnsignedVersions(this.db, tenantId);
    return allow === null ? null : { tenantId, allowUnsignedVersions: allow };
  }

  async setTenantUnsignedPolicy(
    tenantId: string,
    allowUnsignedVersions: boolean,
    caller: Caller,
  ): Promise<TenantSigningPolicy> {
    const context = this.context(caller, 'tenant.signingPolicy');
    await this.audit.parsedOrRefused(
      context,
      { tenantId: typeof tenantId === 'string' ? tenantId.slice(0, 128) : null },
      () => {
        if (!OpaqueIdSchema.safeParse(tenantId).success)
          throw invalid('setTenantUnsignedPolicy', [{ path: 'tenantId', message: 'must be an opaque id' }]);
      },
    );
    return this.change(context, { tenantId, allowUnsignedVersions }, async (manager) => {
      const before = await tenantAllowsUnsignedVersions(manager, tenantId);
      if (before === null) throw new LunaNexaError(ErrorCode.NOT_FOUND, `no tenant ${tenantId}`);
      if (before !== allowUnsignedVersions)
        await setTenantAllowUnsignedVersions(
          manager,
          tenantId,
          allowUnsignedVersions,
          caller.actor,
          new Date(),
        );
      return {
        value: { tenantId, allowUnsignedVersions },
        evidence: { before: before, changed: before !== allowUnsignedVersions },
      };
    });
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
        if (error instanceof LunaNexaError && error.code !== ErrorCode.INTERNAL) throw new Denied(error, {});
        throw error;
      }
    });
  }
}
