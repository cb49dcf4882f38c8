import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import {
  ArtifactSchema,
  checkLicenseInput,
  checkRuntimeInput,
  CompatibleHardwareSchema,
  ENV_NAME_PATTERN,
  ErrorCode,
  LicenseSchema,
  LunaNexaError,
  NameSchema,
  runtimeIdFor,
  runtimeMetricsFormat,
  VersionLabelSchema,
  WORKFLOW_TYPES,
  workflowIdFor,
  type CompatibleHardware as CompatibleHardwareRecord,
  type FieldViolation,
  type License as LicenseRecord,
  type LicenseApprovalState,
  type Runtime as RuntimeRecord,
} from '@lunanexa/contracts';
import type { ModelVersionEvent } from '@lunanexa/domain';
import {
  SYNTHETIC_LICENSE_NAME,
  findLicense,
  findModel,
  findModelVersion,
  findRuntime,
  findRuntimeByNameVersion,
  insertLicense,
  insertModel,
  insertModelVersion,
  insertRuntime,
  listLicenses,
  listModelVersions,
  listModelVersionsOfModel,
  listModels,
  listRuntimes,
  setRuntimeAllowed,
  transitionModelVersion,
  updateLicenseApproval,
  upsertBuiltInRuntime,
  type LicenseRow,
  type ModelRow,
  type RuntimeRow,
} from '@lunanexa/persistence';
import { DataSource, type EntityManager } from 'typeorm';
import type { z } from 'zod';
import { AuditWriter, Denied, type AuditContext, type Evidence } from '../auth';
import type { Caller } from '../common/caller';
import { WorkflowRunner } from '../infrastructure/workflow-runner';
import { fakeRuntimeRecord } from './fake-model-version.service';
import type { ModelVersion } from './model-version.types';
import { modelVersionView } from './model-version.view';
import type {
  CompatibleHardwareInput,
  CreateLicenseInput,
  CreateModelInput,
  CreateModelVersionInput,
  License,
  Model,
  RegisterRuntimeInput,
  Runtime,
} from './registry.types';

const MAX_RUNTIME_ENV = 64;
const MAX_ENV_VALUE_LENGTH = 4096;
const MAX_CONTEXT_LENGTH = 16_777_216;

function violationsOf(error: z.ZodError, prefix: string): FieldViolation[] {
  return error.issues.map((issue) => ({
    path: [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.'),
    message: issue.message,
  }));
}

function failValidation(violations: readonly FieldViolation[]): never {
  const first = violations[0];
  throw new LunaNexaError(
    ErrorCode.VALIDATION_FAILED,
    first ? `${first.path} ${first.message}` : 'input failed validation',
    violations,
  );
}

function invalid(path: string, message: string): LunaNexaError {
  return new LunaNexaError(ErrorCode.VALIDATION_FAILED, `${path} ${message}`, [{ path, message }]);
}

function hardwareRecord(input: CompatibleHardwareInput): unknown {
  return {
    architectures: input.architectures,
    memoryModels: input.memoryModels,
    minComputeCapability: input.minComputeCapability,
    maxComputeCapability: input.maxComputeCapability ?? null,
    minCudaVersion: input.minCudaVersion ?? null,
    gpusPerReplica: input.gpusPerReplica,
    minMemoryBytesPerReplica: input.minMemoryBytesPerReplica ?? null,
  };
}

/** PostgreSQL unique_violation: a concurrent request stored the same name first. */
function isUniqueViolation(error: unknown): boolean {
  const candidate = error as { code?: unknown; driverError?: { code?: unknown } };
  return candidate.code === '23505' || candidate.driverError?.code === '23505';
}

/**
 * The Runtime record a registration asks for, validated by the contracts'
 * rules (checkRuntimeInput: shells, launchers, inline-code flags, unknown
 * placeholders, missing digests are refused); VALIDATION_FAILED with every violation.
 */
export function validateRuntimeInput(input: RegisterRuntimeInput, now: Date): RuntimeRecord {
  const checked = checkRuntimeInput(input, now);
  if (checked.record === null) failValidation(checked.violations);
  return checked.record;
}

/** The artifact, requirements and runtime env of a new version, validated; VALIDATION_FAILED with every violation. */
export function validateModelVersionInput(input: CreateModelVersionInput, uploader: string, now: Date) {
  const violations: FieldViolation[] = [];
  if (!NameSchema.safeParse(input.model).success)
    violations.push({ path: 'model', message: 'must be a lower-case DNS label (a-z, 0-9, -; at most 63)' });
  if (!VersionLabelSchema.safeParse(input.version).success)
    violations.push({ path: 'version', message: 'must be 1-64 of [A-Za-z0-9._-]' });
  const artifact = ArtifactSchema.safeParse({
    uri: input.artifact.uri,
    digest: input.artifact.digest,
    sizeBytes: input.artifact.sizeBytes,
    format: input.artifact.format,
    provenance: {
      source: input.artifact.source,
      uploader,
      uploadedAt: now.toISOString(),
      ...(input.artifact.signature ? { signature: input.artifact.signature } : {}),
    },
  });
  if (!artifact.success) {
    violations.push(
      ...violationsOf(artifact.error, 'artifact').map((v) => ({
        ...v,
        path: v.path.replace(/^artifact\.provenance\./, 'artifact.'),
      })),
    );
  }
  const requirements = CompatibleHardwareSchema.safeParse(hardwareRecord(input.requirements));
  if (!requirements.success) violations.push(...violationsOf(requirements.error, 'requirements'));
  const contextLength = input.contextLength ?? null;
  if (
    contextLength !== null &&
    (!Number.isInteger(contextLength) || contextLength < 1 || contextLength > MAX_CONTEXT_LENGTH)
  )
    violations.push({ path: 'contextLength', message: `must be 1-${MAX_CONTEXT_LENGTH}` });
  const parameterCount = input.parameterCount ?? null;
  if (parameterCount !== null && (!Number.isSafeInteger(parameterCount) || parameterCount < 1))
    violations.push({ path: 'parameterCount', message: 'must be a positive whole number' });
  const env: Record<string, string> = {};
  const envInput = input.runtimeEnv ?? [];
  if (envInput.length > MAX_RUNTIME_ENV)
    violations.push({ path: 'runtimeEnv', message: `at most ${MAX_RUNTIME_ENV} variables` });
  envInput.forEach((variable, i) => {
    if (!ENV_NAME_PATTERN.test(variable.name))
      violations.push({ path: `runtimeEnv.${i}.name`, message: 'must be an environment variable name' });
    else if (variable.name in env) violations.push({ path: `runtimeEnv.${i}.name`, message: 'is repeated' });
    if (variable.value.length > MAX_ENV_VALUE_LENGTH || variable.value.includes('\u0000'))
      violations.push({
        path: `runtimeEnv.${i}.value`,
        message: `must be at most ${MAX_ENV_VALUE_LENGTH} characters, no NUL`,
      });
    env[variable.name] = variable.value;
  });
  if (violations.length > 0 || !artifact.success || !requirements.success) failValidation(violations);
  return { artifact: artifact.data, requirements: requirements.data, env, contextLength, parameterCount };
}

export function modelView(row: ModelRow): Model {
  return {
    id: row.id,
    name: row.name,
    displayName: row.displayName,
    description: row.description,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function licenseView(row: LicenseRow): License {
  const document = row.document as LicenseRecord;
  return {
    id: row.id,
    name: row.name,
    kind: document.kind,
    spdxId: document.kind === 'spdx' ? document.spdxId : null,
    customName: document.kind === 'custom' ? document.name : null,
    termsUri: document.kind === 'custom' ? document.termsUri : null,
    termsDigest: document.kind === 'custom' ? document.termsDigest : null,
    commercialUse: document.commercialUse,
    allowedDataClasses: [...document.allowedDataClasses],
    attribution: document.attribution,
    approvalState: row.approvalState,
    decidedBy: document.approval.decidedBy,
    decidedAt: document.approval.decidedAt,
    note: document.approval.note ?? null,
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export function runtimeView(row: RuntimeRow): Runtime {
  const document = row.document as RuntimeRecord;
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    kind: row.kind,
    allowed: row.allowed,
    packaging: {
      type: document.packaging.type,
      image: document.packaging.type === 'container' ? document.packaging.image : null,
      digest: document.packaging.digest,
    },
    launch: {
      ...document.launch,
      args: [...document.launch.args],
      envAllowlist: [...document.launch.envAllowlist],
    },
    health: document.health,
    supportedHardware: document.supportedHardware,
    metricsFormat: runtimeMetricsFormat(document),
    createdBy: row.createdBy,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Which lifecycle mutation maps to which event, and the audit action it is recorded under. */
const LIFECYCLE_ACTIONS = {
  approve: 'model-version.approve',
  deprecate: 'model-version.deprecate',
  reinstate: 'model-version.reinstate',
  retire: 'model-version.retire',
  withdraw: 'model-version.retire',
} as const satisfies Partial<Record<ModelVersionEvent, string>>;
export type LifecycleMutationEvent = keyof typeof LIFECYCLE_ACTIONS;

/**
 * The model registry: models, licenses and their review, runtimes and the
 * runtime allowlist, model versions and their lifecycle. Every mutation is
 * one PostgreSQL transaction holding the change and its audit event; a
 * refusal (validation, unknown reference, duplicate, invalid transition)
 * changes nothing and is audited as denied with its typed code. Verification
 * is the one multi-step operation (hash gigabytes from a store), so it runs
 * as `verifyModelVersionWorkflow`.
 */
@Injectable()
export class RegistryService implements OnModuleInit {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
    private readonly workflows: WorkflowRunner,
  ) {}

  /**
   * The fake runtime ships with every agent, like the built-in synthetic
   * license the migration seeds: its registry row exists (and matches this
   * build) before anyone registers a version on it.
   */
  async onModuleInit(): Promise<void> {
    const now = new Date();
    const record = fakeRuntimeRecord(now);
    await upsertBuiltInRuntime(this.db, {
      id: record.id,
      name: record.name,
      version: record.version,
      kind: record.kind,
      document: record,
      allowed: true,
      createdBy: 'system',
      createdAt: now,
      updatedAt: now,
    });
  }

  private context(caller: Caller, action: string): AuditContext {
    return { actor: caller.actor, action, ids: caller.ids };
  }

  /**
   * `AuditWriter.change`, with every typed error of `work` recorded as a
   * refusal (its transaction rolled back: nothing changed), and a concurrent
   * duplicate as CONFLICT.
   */
  private change<T>(
    context: AuditContext,
    evidence: Evidence,
    work: (manager: EntityManager) => Promise<{ value: T; evidence?: Evidence }>,
  ): Promise<T> {
    return this.audit.change(context, evidence, async (manager) => {
      try {
        return await work(manager);
      } catch (error) {
        if (error instanceof LunaNexaError && error.code !== ErrorCode.INTERNAL) throw new Denied(error);
        if (isUniqueViolation(error)) {
          throw new Denied(new LunaNexaError(ErrorCode.CONFLICT, 'a record with this name already exists'));
        }
        throw error;
      }
    });
  }

  // -------------------------------------------------------------------------- models

  async models(): Promise<Model[]> {
    return (await listModels(this.db)).map(modelView);
  }

  async model(idOrName: string): Promise<Model | null> {
    const row = await findModel(this.db, idOrName);
    return row ? modelView(row) : null;
  }

  async versionsOf(modelId: string): Promise<ModelVersion[]> {
    return (await listModelVersionsOfModel(this.db, modelId)).map(modelVersionView);
  }

  async createModel(input: CreateModelInput, caller: Caller): Promise<Model> {
    const id = randomUUID();
    const now = new Date();
    await this.change(
      this.context(caller, 'model.create'),
      { modelId: id, name: input.name },
      async (manager) => {
        const violations: FieldViolation[] = [];
        if (!NameSchema.safeParse(input.name).success)
          violations.push({
            path: 'name',
            message: 'must be a lower-case DNS label (a-z, 0-9, -; at most 63)',
          });
        if (input.displayName.length < 1 || input.displayName.length > 256)
          violations.push({ path: 'displayName', message: 'must be 1-256 characters' });
        if (input.description && input.description.length > 4096)
          violations.push({ path: 'description', message: 'must be at most 4096 characters' });
        if (violations.length > 0) failValidation(violations);
        if (await findModel(manager, input.name)) {
          throw new LunaNexaError(ErrorCode.CONFLICT, `model ${input.name} already exists`);
        }
        await insertModel(manager, {
          id,
          name: input.name,
          displayName: input.displayName,
          description: input.description ?? null,
          createdBy: caller.actor,
          createdAt: now,
          updatedAt: now,
        });
        return { value: undefined };
      },
    );
    return (await this.model(id)) as Model;
  }

  // -------------------------------------------------------------------------- licenses

  async licenses(): Promise<License[]> {
    return (await listLicenses(this.db)).map(licenseView);
  }

  async license(idOrName: string): Promise<License | null> {
    const row = await findLicense(this.db, idOrName);
    return row ? licenseView(row) : null;
  }

  async createLicense(input: CreateLicenseInput, caller: Caller): Promise<License> {
    const id = randomUUID();
    const now = new Date();
    await this.change(
      this.context(caller, 'license.create'),
      { licenseId: id, name: input.name, kind: input.kind },
      async (manager) => {
        const checked = checkLicenseInput(input);
        if (checked.record === null) failValidation(checked.violations);
        if (await findLicense(manager, input.name)) {
          throw new LunaNexaError(ErrorCode.CONFLICT, `license ${input.name} already exists`);
        }
        await insertLicense(manager, {
          id,
          name: input.name,
          document: checked.record,
          approvalState: 'PendingReview',
          createdBy: caller.actor,
          createdAt: now,
          updatedAt: now,
        });
        return { value: undefined };
      },
    );
    return (await this.license(id)) as License;
  }

  /**
   * The review decision. Approving a Rejected license and rejecting an
   * Approved one (terms changed, approval withdrawn) are allowed; deciding
   * what is already decided that way is INVALID_TRANSITION. The built-in
   * synthetic license is not reviewed by people.
   */
  async decideLicense(
    idOrName: string,
    decision: Exclude<LicenseApprovalState, 'PendingReview'>,
    note: string,
    caller: Caller,
  ): Promise<License> {
    const action = decision === 'Approved' ? 'license.approve' : 'license.reject';
    const now = new Date();
    const id = await this.change(
      this.context(caller, action),
      { license: idOrName, decision },
      async (manager) => {
        if (note.trim().length < 1 || note.length > 2048) throw invalid('note', 'must be 1-2048 characters');
        const row = await findLicense(manager, idOrName, { lock: true });
        if (!row) throw new LunaNexaError(ErrorCode.NOT_FOUND, `license ${idOrName} does not exist`);
        if (row.name === SYNTHETIC_LICENSE_NAME) {
          throw new LunaNexaError(
            ErrorCode.INVALID_TRANSITION,
            `${SYNTHETIC_LICENSE_NAME} is built in (synthetic weights carry no third-party terms) and not reviewed`,
          );
        }
        if (row.approvalState === decision) {
          throw new LunaNexaError(ErrorCode.INVALID_TRANSITION, `license ${row.name} is already ${decision}`);
        }
        const document = LicenseSchema.parse({
          ...(row.document as LicenseRecord),
          approval: { state: decision, decidedBy: caller.actor, decidedAt: now.toISOString(), note },
        });
        await updateLicenseApproval(manager, row.id, document, decision, now);
        return { value: row.id, evidence: { licenseId: row.id, name: row.name, from: row.approvalState } };
      },
    );
    return (await this.license(id)) as License;
  }

  // -------------------------------------------------------------------------- runtimes

  async runtimes(): Promise<Runtime[]> {
    return (await listRuntimes(this.db)).map(runtimeView);
  }

  async runtime(id: string): Promise<Runtime | null> {
    const row = await findRuntime(this.db, id);
    return row ? runtimeView(row) : null;
  }

  /**
   * A new runtime, validated by the contracts' rules (no shells or
   * command launchers, no inline-code flags, known placeholders only,
   * digest-pinned). It starts off the allowlist: what may execute on the
   * fleet is an administrator's decision (setRuntimeAllowed).
   */
  async registerRuntime(input: RegisterRuntimeInput, caller: Caller): Promise<Runtime> {
    const id = runtimeIdFor(input.name, input.version);
    const now = new Date();
    await this.change(
      this.context(caller, 'runtime.register'),
      {
        runtimeId: id,
        name: input.name,
        version: input.version,
        executable: input.launch.executable,
        digest: input.packaging.digest,
      },
      async (manager) => {
        const runtimeRecord = validateRuntimeInput(input, now);
        if (
          (await findRuntime(manager, id)) ||
          (await findRuntimeByNameVersion(manager, input.name, input.version))
        ) {
          throw new LunaNexaError(
            ErrorCode.CONFLICT,
            `runtime ${input.name} ${input.version} is already registered`,
          );
        }
        await insertRuntime(manager, {
          id,
          name: runtimeRecord.name,
          version: runtimeRecord.version,
          kind: runtimeRecord.kind,
          document: runtimeRecord,
          allowed: false,
          createdBy: caller.actor,
          createdAt: now,
          updatedAt: now,
        });
        return { value: undefined, evidence: { allowed: false } };
      },
    );
    return (await this.runtime(id)) as Runtime;
  }

  async setRuntimeAllowed(id: string, allowed: boolean, caller: Caller): Promise<Runtime> {
    await this.change(
      this.context(caller, allowed ? 'runtime.allow' : 'runtime.deny'),
      { runtimeId: id, allowed },
      async (manager) => {
        const row = await findRuntime(manager, id, { lock: true });
        if (!row) throw new LunaNexaError(ErrorCode.NOT_FOUND, `runtime ${id} does not exist`);
        await setRuntimeAllowed(manager, row.id, allowed, new Date());
        return { value: undefined, evidence: { was: row.allowed } };
      },
    );
    return (await this.runtime(id)) as Runtime;
  }

  // -------------------------------------------------------------------------- model versions

  async modelVersions(model: string | null): Promise<ModelVersion[]> {
    if (model === null) return (await listModelVersions(this.db)).map(modelVersionView);
    const row = await findModel(this.db, model);
    return row ? this.versionsOf(row.id) : [];
  }

  async modelVersion(idOrRef: string): Promise<ModelVersion | null> {
    const row = await findModelVersion(this.db, idOrRef);
    return row ? modelVersionView(row) : null;
  }

  /**
   * Records a new version in state Registered. Refused (typed, audited,
   * nothing stored): invalid input, an unknown model (MODEL_NOT_FOUND),
   * license or runtime (NOT_FOUND), a Rejected license
   * (LICENSE_NOT_APPROVED), env vars the runtime does not allow, synthetic
   * weights and real ones mixed up, requirements the runtime can never meet
   * (HARDWARE_INCOMPATIBLE), and a version label that exists (CONFLICT).
   */
  async createModelVersion(input: CreateModelVersionInput, caller: Caller): Promise<ModelVersion> {
    const id = randomUUID();
    const now = new Date();
    const ref = `${input.model}@${input.version}`;
    await this.change(
      this.context(caller, 'model-version.create'),
      {
        modelVersionId: id,
        ref,
        digest: input.artifact.digest,
        uri: input.artifact.uri,
        license: input.license,
        runtime: input.runtime,
      },
      async (manager) => {
        const valid = validateModelVersionInput(input, caller.actor, now);
        const model = await findModel(manager, input.model);
        if (!model)
          throw new LunaNexaError(
            ErrorCode.MODEL_NOT_FOUND,
            `model ${input.model} does not exist (createModel first)`,
          );
        const license = await findLicense(manager, input.license);
        if (!license) throw new LunaNexaError(ErrorCode.NOT_FOUND, `license ${input.license} does not exist`);
        if (license.approvalState === 'Rejected') {
          throw new LunaNexaError(ErrorCode.LICENSE_NOT_APPROVED, `license ${license.name} was Rejected`);
        }
        const runtime = await findRuntime(manager, input.runtime);
        if (!runtime) throw new LunaNexaError(ErrorCode.NOT_FOUND, `runtime ${input.runtime} does not exist`);
        const runtimeRecord = runtime.document as RuntimeRecord;
        const violations: FieldViolation[] = [];
        Object.keys(valid.env).forEach((name, i) => {
          if (!runtimeRecord.launch.envAllowlist.includes(name)) {
            violations.push({
              path: `runtimeEnv.${i}.name`,
              message: `${name} is not on the envAllowlist of ${runtime.id} (${runtimeRecord.launch.envAllowlist.join(', ') || 'empty'})`,
            });
          }
        });
        // Synthetic weights are only ever served by the fake runtime under the built-in license, and vice versa.
        const synthetic = valid.artifact.format === 'fake';
        if (synthetic !== (runtime.kind === 'fake'))
          violations.push({
            path: 'runtime',
            message: `a ${valid.artifact.format} artifact cannot run on a ${runtime.kind} runtime`,
          });
        if (synthetic !== (license.name === SYNTHETIC_LICENSE_NAME))
          violations.push({
            path: 'license',
            message: `${SYNTHETIC_LICENSE_NAME} is for fake-format artifacts, and only it is`,
          });
        if (violations.length > 0) failValidation(violations);
        const supported = runtimeRecord.supportedHardware;
        const problems = this.declarationConflicts(valid.requirements, supported);
        if (problems.length > 0) {
          throw new LunaNexaError(
            ErrorCode.HARDWARE_INCOMPATIBLE,
            `the requirements cannot be met on runtime ${runtime.id}: ${problems.join('; ')}`,
          );
        }
        if (await findModelVersion(manager, ref)) {
          throw new LunaNexaError(ErrorCode.CONFLICT, `${ref} is already registered`);
        }
        await insertModelVersion(manager, {
          id,
          modelId: model.id,
          model: model.name,
          version: input.version,
          artifact: valid.artifact,
          runtime: runtimeRecord,
          runtimeEnv: valid.env,
          state: 'Registered',
          licenseId: license.id,
          runtimeId: runtime.id,
          requirements: valid.requirements,
          verification: null,
          contextLength: valid.contextLength,
          parameterCount: valid.parameterCount,
          createdBy: caller.actor,
          createdAt: now,
        });
        return { value: undefined, evidence: { state: 'Registered', format: valid.artifact.format } };
      },
    );
    return (await this.modelVersion(id)) as ModelVersion;
  }

  /** Declarations that can never hold together on any node (checked against nodes later, at rollout). */
  private declarationConflicts(
    requirements: CompatibleHardwareRecord,
    runtime: CompatibleHardwareRecord,
  ): string[] {
    const problems: string[] = [];
    if (!requirements.architectures.some((a) => runtime.architectures.includes(a)))
      problems.push(
        `architectures ${requirements.architectures.join(', ')} vs runtime ${runtime.architectures.join(', ')}`,
      );
    if (
      requirements.gpusPerReplica > 0 &&
      !requirements.memoryModels.some((m) => runtime.memoryModels.includes(m))
    )
      problems.push(
        `memory models ${requirements.memoryModels.join(', ')} vs runtime ${runtime.memoryModels.join(', ')}`,
      );
    return problems;
  }

  /**
   * Starts `verifyModelVersionWorkflow` and waits (bounded by
   * LUNANEXA_WORKFLOW_WAIT_MS) for it: the activity hashes the bytes in the
   * store, records the verification, moves a Registered version to Verified
   * or VerificationFailed and writes the receipt (action
   * `model-version.verify`, with the workflow id). A failed version is first
   * moved back to Registered (`retryVerification`), so a retry can pass. A
   * mismatch is not an error of this call: the version comes back
   * VerificationFailed with the typed code in its verification.
   */
  async verifyModelVersion(idOrRef: string, caller: Caller): Promise<ModelVersion> {
    const context = this.context(caller, 'model-version.verify');
    const version = await findModelVersion(this.db, idOrRef);
    if (!version || version.state === 'Retired') {
      const error = version
        ? new LunaNexaError(
            ErrorCode.INVALID_TRANSITION,
            `${version.ref} is Retired: it is never verified again`,
          )
        : new LunaNexaError(ErrorCode.MODEL_NOT_FOUND, `model version ${idOrRef} is not registered`);
      await this.audit.refusal(context, { modelVersion: idOrRef, errorCode: error.code });
      throw error;
    }
    if (version.state === 'VerificationFailed') {
      await this.change(
        this.context(caller, 'model-version.retry-verification'),
        { modelVersionId: version.id, ref: version.ref },
        async (manager) => {
          const moved = await transitionModelVersion(manager, version.id, 'retryVerification', {
            reason: `verification retried by ${caller.actor}`,
            at: new Date(),
          });
          return { value: undefined, evidence: { from: moved.from, to: moved.to } };
        },
      );
    }
    const workflowId = workflowIdFor('verifyModelVersion', `${version.id}/${caller.ids.requestId}`);
    try {
      await this.workflows.start(WORKFLOW_TYPES.verifyModelVersion, {
        workflowId,
        args: [{ modelVersionId: version.id, actor: caller.actor, correlationId: caller.ids.correlationId }],
        correlationId: caller.ids.correlationId,
        actor: caller.actor,
      });
      await this.workflows.result<unknown>(workflowId);
    } catch (error) {
      // The request was allowed but the check did not finish (Temporal down, timeout): a failed event, not a refusal.
      await this.audit
        .change(context, { modelVersionId: version.id, ref: version.ref, workflowId }, () =>
          Promise.reject(error instanceof Error ? error : new Error(String(error))),
        )
        .catch(() => undefined);
      throw error;
    }
    const after = await findModelVersion(this.db, version.id);
    if (!after) throw new LunaNexaError(ErrorCode.INTERNAL, 'the model version disappeared');
    return modelVersionView(after);
  }

  /**
   * Approve, deprecate, reinstate, retire (or withdraw) a version: the
   * lifecycle table in @lunanexa/domain decides, INVALID_TRANSITION names the
   * events the current state allows. Approval also needs an Approved license.
   */
  async transitionModelVersion(
    idOrRef: string,
    event: LifecycleMutationEvent,
    note: string | null,
    caller: Caller,
  ): Promise<ModelVersion> {
    const now = new Date();
    const id = await this.change(
      this.context(caller, LIFECYCLE_ACTIONS[event]),
      { modelVersion: idOrRef, event, note },
      async (manager) => {
        if (note !== null && (note.trim().length < 1 || note.length > 2048))
          throw invalid('note', 'must be 1-2048 characters');
        if (event === 'approve') {
          const version = await findModelVersion(manager, idOrRef);
          const license = version ? await findLicense(manager, version.licenseId) : null;
          if (version && license && license.approvalState !== 'Approved') {
            throw new LunaNexaError(
              ErrorCode.LICENSE_NOT_APPROVED,
              `${version.ref}: license ${license.name} is ${license.approvalState}, not Approved`,
            );
          }
        }
        const reason =
          note === null ? `${event} by ${caller.actor}` : `${note} (${event} by ${caller.actor})`;
        const moved = await transitionModelVersion(manager, idOrRef, event, { reason, at: now });
        return {
          value: moved.version.id,
          evidence: {
            modelVersionId: moved.version.id,
            ref: moved.version.ref,
            from: moved.from,
            to: moved.to,
          },
        };
      },
    );
    return (await this.modelVersion(id)) as ModelVersion;
  }

  async licenseOf(version: ModelVersion): Promise<License> {
    const row = await findLicense(this.db, version.licenseId);
    if (!row) throw new LunaNexaError(ErrorCode.INTERNAL, `license ${version.licenseId} is missing`);
    return licenseView(row);
  }

  async runtimeOf(version: ModelVersion): Promise<Runtime> {
    const row = await findRuntime(this.db, version.runtimeId);
    if (!row) throw new LunaNexaError(ErrorCode.INTERNAL, `runtime ${version.runtimeId} is missing`);
    return runtimeView(row);
  }
}
