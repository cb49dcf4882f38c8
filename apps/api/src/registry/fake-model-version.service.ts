import { createHash, randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ErrorCode, LunaNexaError, NameSchema, RuntimeSchema, VersionLabelSchema } from '@lunanexa/contracts';
import {
  SYNTHETIC_LICENSE_NAME,
  ensureModel,
  findLicense,
  findModelVersion,
  findRuntime,
  insertModelVersion,
  upsertBuiltInRuntime,
} from '@lunanexa/persistence';
import { DataSource } from 'typeorm';
import { AuditWriter, Denied } from '../auth';
import type { Caller } from '../common/caller';
import type { ModelVersion, RegisterModelVersionInput } from './model-version.types';
import { modelVersionView } from './model-version.view';

function invalid(path: string, message: string): LunaNexaError {
  return new LunaNexaError(ErrorCode.VALIDATION_FAILED, `${path} ${message}`, [{ path, message }]);
}

/** The runtime record of the deterministic fake runtime: the registry's built-in `runtime-fake`. */
export function fakeRuntimeRecord(now: Date) {
  return RuntimeSchema.parse({
    id: 'runtime-fake',
    name: 'fake',
    version: '0.1.0',
    kind: 'fake',
    // The agent runs the fake runtime it ships with; no downloaded binary, so the digest names that build.
    packaging: {
      type: 'binary',
      digest: `sha256:${createHash('sha256').update('lunanexa-fake-runtime').digest('hex')}`,
    },
    launch: {
      executable: 'lunanexa-fake-runtime',
      args: ['--host', '{{host}}', '--port', '{{port}}', '--model', '{{servedModelName}}'],
      envAllowlist: ['LUNANEXA_FAKE_TTFT_MS', 'LUNANEXA_FAKE_TOKENS_PER_SECOND', 'LUNANEXA_FAKE_ERROR_RATE'],
      containerPort: null,
    },
    health: { path: '/health', startupTimeoutMs: 30_000, intervalMs: 1_000 },
    supportedHardware: {
      architectures: ['arm64', 'amd64'],
      gpusPerReplica: 0,
      maxComputeCapability: null,
      memoryModels: ['unified', 'discrete'],
      minComputeCapability: '0.0',
      minCudaVersion: null,
      minMemoryBytesPerReplica: null,
    },
    createdAt: now.toISOString(),
  });
}

/** A synthetic model version on the fake runtime, for trying the fleet without real weights. */
@Injectable()
export class FakeModelVersionService {
  constructor(
    private readonly db: DataSource,
    private readonly audit: AuditWriter,
  ) {}

  async registerModelVersion(input: RegisterModelVersionInput, caller: Caller): Promise<ModelVersion> {
    if (!NameSchema.safeParse(input.model).success) throw invalid('model', 'must be a lower-case DNS label');
    if (!VersionLabelSchema.safeParse(input.version).success)
      throw invalid('version', 'must be 1-64 of [A-Za-z0-9._-]');
    if (input.runtime !== 'fake') {
      throw invalid(
        'runtime',
        'must be fake in this release (openai-compatible runtimes arrive with the registry)',
      );
    }
    for (const [path, value, max] of [
      ['ttftMs', input.ttftMs, 60_000],
      ['tokensPerSecond', input.tokensPerSecond, 100_000],
    ] as const) {
      if (value !== null && value !== undefined && (!Number.isInteger(value) || value < 1 || value > max)) {
        throw invalid(path, `must be 1-${max}`);
      }
    }
    if (
      input.errorRate !== null &&
      input.errorRate !== undefined &&
      !(Number.isFinite(input.errorRate) && input.errorRate >= 0 && input.errorRate <= 1)
    ) {
      throw invalid('errorRate', 'must be between 0 and 1');
    }
    const now = new Date();
    const ref = `${input.model}@${input.version}`;
    const id = randomUUID();
    const digest = `sha256:${createHash('sha256').update(`lunanexa-fake-weights:${ref}`).digest('hex')}`;
    const artifact = {
      uri: `file:///var/lib/lunanexa/models/${input.model}/${input.version}`,
      digest,
      sizeBytes: 0,
      format: 'fake',
      provenance: {
        source: `lunanexa://fake/${ref}`,
        uploader: caller.actor.slice(0, 128),
        uploadedAt: now.toISOString(),
      },
    };
    const env: Record<string, string> = {};
    if (input.ttftMs) env['LUNANEXA_FAKE_TTFT_MS'] = String(input.ttftMs);
    if (input.tokensPerSecond) env['LUNANEXA_FAKE_TOKENS_PER_SECOND'] = String(input.tokensPerSecond);
    if (input.errorRate) env['LUNANEXA_FAKE_ERROR_RATE'] = String(input.errorRate);
    const runtimeRecord = fakeRuntimeRecord(now);
    await this.audit.change(
      { actor: caller.actor, action: 'model-version.register', ids: caller.ids },
      { modelVersionId: id, ref, runtime: input.runtime, digest },
      async (manager) => {
        if (await findModelVersion(manager, ref)) {
          throw new Denied(new LunaNexaError(ErrorCode.CONFLICT, `${ref} is already registered`));
        }
        // The same registry records createModelVersion writes, with what a synthetic version needs filled in.
        const model = await ensureModel(manager, {
          id: randomUUID(),
          name: input.model,
          displayName: input.model,
          description: null,
          createdBy: caller.actor,
          createdAt: now,
          updatedAt: now,
        });
        const license = await findLicense(manager, SYNTHETIC_LICENSE_NAME);
        if (!license) {
          throw new LunaNexaError(
            ErrorCode.INTERNAL,
            `the built-in license ${SYNTHETIC_LICENSE_NAME} is missing`,
          );
        }
        const runtimeWritten = await upsertBuiltInRuntime(manager, {
          id: runtimeRecord.id,
          name: runtimeRecord.name,
          version: runtimeRecord.version,
          kind: runtimeRecord.kind,
          document: runtimeRecord,
          allowed: true,
          createdBy: 'system',
          createdAt: now,
          updatedAt: now,
        });
        const runtime = await findRuntime(manager, runtimeRecord.id);
        if (!runtime) throw new LunaNexaError(ErrorCode.INTERNAL, 'the fake runtime record was not stored');
        await insertModelVersion(manager, {
          id,
          modelId: model.id,
          model: input.model,
          version: input.version,
          artifact,
          runtime: runtimeRecord,
          runtimeEnv: env,
          // Synthetic weights are derived from the ref, never downloaded: there is nothing to hash.
          state: 'Verified',
          licenseId: license.id,
          runtimeId: runtime.id,
          requirements: runtimeRecord.supportedHardware,
          verification: { ok: true, digest, sizeBytes: 0, store: 'synthetic', verifiedAt: now.toISOString() },
          contextLength: null,
          parameterCount: null,
          createdBy: caller.actor,
          createdAt: now,
        });
        return { value: undefined, evidence: { modelId: model.id, runtimeWritten } };
      },
    );
    const row = await findModelVersion(this.db, ref);
    if (!row) throw new LunaNexaError(ErrorCode.INTERNAL, 'the model version was not stored');
    return modelVersionView(row);
  }
}
